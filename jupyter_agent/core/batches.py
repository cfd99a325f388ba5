"""A message's tool calls (``run_tools``): concurrency-safe calls that stand next to each other
run in parallel (at most ``options.max_concurrency``); every other call runs alone, in order,
and its context modifier applies to the calls after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .context import ToolUseContext
from .events import EventSink
from .orchestration import PermissionDecider, ToolCallOutcome, ToolUseRequest, parse_tool_input, run_tool_use
from .tool import CanUseTool


@dataclass(frozen=True)
class Batch:
    """Calls run together (``concurrent``) or a single call run alone."""

    concurrent: bool
    calls: tuple[ToolUseRequest, ...]


@dataclass
class ToolRunResult:
    outcomes: list[ToolCallOutcome]
    context: ToolUseContext


def partition_tool_calls(
    calls: Sequence[ToolUseRequest], is_safe: Callable[[ToolUseRequest], bool]
) -> list[Batch]:
    """Group consecutive concurrency-safe calls into one batch; every other call stands alone."""
    batches: list[Batch] = []
    for call in calls:
        safe = is_safe(call)
        if safe and batches and batches[-1].concurrent:
            batches[-1] = Batch(True, (*batches[-1].calls, call))
        else:
            batches.append(Batch(safe, (call,)))
    return batches


def is_call_concurrency_safe(req: ToolUseRequest, context: ToolUseContext) -> bool:
    """Fail closed: unknown tools, bad input or a raising check count as unsafe."""
    tool = context.find_tool(req.name)
    if tool is None:
        return False
    parsed = parse_tool_input(tool, req.input)
    if isinstance(parsed, str):
        return False
    try:
        return bool(tool.is_concurrency_safe(parsed))
    except Exception:
        return False


async def run_tools(
    calls: Sequence[ToolUseRequest],
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    *,
    on_event: EventSink | None = None,
    decide: PermissionDecider | None = None,
    parent_message: Any = None,
) -> ToolRunResult:
    """Run a message's tool calls; outcomes come back in the order of ``calls``.

    Context modifiers of calls that ran alone are applied in order; those of concurrency-safe
    calls are ignored (seed: contextModifier only takes effect on non-concurrency-safe tools).
    """
    outcomes: list[ToolCallOutcome] = []
    kwargs: dict[str, Any] = {"on_event": on_event, "decide": decide, "parent_message": parent_message}
    start = context
    for batch in partition_tool_calls(calls, lambda c: is_call_concurrency_safe(c, start)):
        if batch.concurrent:
            outcomes.extend(await _run_concurrently(batch.calls, context, can_use_tool, kwargs))
            continue
        for req in batch.calls:
            outcome = await run_tool_use(req, context, can_use_tool, **kwargs)
            outcomes.append(outcome)
            modifier = outcome.result.context_modifier if outcome.result else None
            if modifier is not None and not outcome.is_error:
                context = modifier(context)
    return ToolRunResult(outcomes, context)


async def _run_concurrently(
    calls: Sequence[ToolUseRequest],
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    kwargs: dict[str, Any],
) -> list[ToolCallOutcome]:
    semaphore = asyncio.Semaphore(max(1, context.options.max_concurrency))

    async def _one(req: ToolUseRequest) -> ToolCallOutcome:
        async with semaphore:
            return await run_tool_use(req, context, can_use_tool, **kwargs)

    return list(await asyncio.gather(*(_one(c) for c in calls)))
