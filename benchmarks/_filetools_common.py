"""Shared helpers for the file-tool benchmarks: a context with the tools, timing medians."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use  # noqa: E402
from jupyter_agent.core.permission_types import PermissionAllow  # noqa: E402


async def allow(*_args: Any) -> PermissionAllow:
    return PermissionAllow()


def make_context(tools: tuple[Any, ...], cwd: Path, session_dir: Path) -> ToolUseContext:
    """A context rooted at ``cwd``; ``session_dir`` must lie outside the searched tree."""
    return ToolUseContext(options=ToolUseOptions(tools=tools), cwd=cwd, session_dir=session_dir)


async def run_tool(ctx: ToolUseContext, name: str, **input: Any):
    outcome = await run_tool_use(ToolUseRequest("bench", name, input), ctx, allow)
    if outcome.is_error:
        raise RuntimeError(f"{name} failed: {outcome.content}")
    return outcome


async def side_by_side(
    rounds: int, ours: Callable[[], Awaitable[Any]], theirs: Callable[[], Awaitable[Any]]
) -> tuple[float, float]:
    """Median seconds of ``ours`` and ``theirs``, interleaved (alternating which goes first) so
    both see the same machine noise."""
    times: dict[int, list[float]] = {0: [], 1: []}
    for i in range(rounds):
        order = ((0, ours), (1, theirs)) if i % 2 == 0 else ((1, theirs), (0, ours))
        for key, fn in order:
            t0 = time.perf_counter()
            await fn()
            times[key].append(time.perf_counter() - t0)
    return statistics.median(times[0]), statistics.median(times[1])


def result_line(name: str, figure: str, value: float, goal: str, ok: bool) -> str:
    return f"RESULT {name} {figure}={value:.2f} goal={goal} {'pass' if ok else 'fall short'}"
