"""Approval handlers around the UI's ``can_use_tool``: nobody attached, and unanswered asks."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import ELICITATION_REASON as ELICITATION
from ..core.permission_types import PermissionAsk, PermissionDeny, UserDecision
from ..core.tool import CanUseTool, Tool

if TYPE_CHECKING:
    from .auto_mode import AutoModeReviewer

NO_APPROVER_MESSAGE = (
    "{tool} needs the user's approval, but no one is there to approve it (no approval handler is "
    "attached to this session), so the call was not run. Continue without it, or tell the user "
    "which permission rule would allow it."
)
NO_PROMPTS_MESSAGE = (
    "{tool} needs the user's approval, and {path} sets permissions.denyInsteadOfPrompting (nobody is "
    "asked), so the call was not run. Continue without it, or tell the user which permission rule "
    "would allow it."
)
TIMEOUT_MESSAGE = (
    "No one answered: the user did not answer the approval request for {tool} within {seconds:g} "
    "seconds, so the "
    "call was not run. Continue without it or ask the user."
)


async def deny_without_approver(
    tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
) -> UserDecision:
    """Used when no handler is set: an ask must never hang."""
    return PermissionDeny(NO_APPROVER_MESSAGE.format(tool=tool.name), reason="no approver")


STOPPED_MESSAGE = "Interrupted by user: the approval request was withdrawn and the call was not run."


def until_stopped(handler: CanUseTool) -> CanUseTool:
    """``handler``, but a Stop while the user has not answered withdraws the ask (denied)."""

    async def stoppable(
        tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
    ) -> UserDecision:
        abort = context.abort_controller
        if abort.aborted:
            return PermissionDeny(STOPPED_MESSAGE, reason="interrupted")
        answer = asyncio.ensure_future(handler(tool, input, context, ask, tool_use_id))
        stopped = asyncio.ensure_future(abort.wait())
        try:
            await asyncio.wait({answer, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not answer.done():
                answer.cancel()
        if answer.done() and not answer.cancelled():
            return answer.result()
        return PermissionDeny(STOPPED_MESSAGE, reason="interrupted")

    return stoppable


def with_timeout(handler: CanUseTool, seconds: float) -> CanUseTool:
    """``handler``, but an ask unanswered after ``seconds`` is denied."""

    async def timed(
        tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
    ) -> UserDecision:
        try:
            return await asyncio.wait_for(handler(tool, input, context, ask, tool_use_id), seconds)
        except asyncio.TimeoutError:
            return PermissionDeny(TIMEOUT_MESSAGE.format(tool=tool.name, seconds=seconds), reason="timeout")

    return timed


def session_approver(
    get_handler: Callable[[], CanUseTool | None], get_timeout: Callable[[], float | None],
    reviewer: AutoModeReviewer | None = None, get_prompt_tool: Callable[[], str | None] = lambda: None,
) -> CanUseTool:
    """The ``can_use_tool`` a session's loop uses: the current UI handler (read at each ask),
    denied when there is none, bounded by the timeout, withdrawn by Stop.  In auto mode the
    ``reviewer`` (``auto_mode.AutoModeReviewer``) decides first when it may; with a permission
    prompt tool (``get_prompt_tool``, ``prompt_tool.py``) that MCP tool answers in the user's
    place (not the folder-trust card); under permissions.denyInsteadOfPrompting what is left is
    denied instead of shown; a question that then reaches the user runs the Notification hooks.
    Under the managed settings' allowManagedPermissionRulesOnly no ask offers "Always allow"."""

    async def approve(
        tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
    ) -> UserDecision:
        if reviewer is not None and reviewer.applies(context, ask):
            decided = await reviewer.decide(tool, input, context, ask)
            if decided is not None:
                return decided
        prompt_tool = get_prompt_tool()
        handler: CanUseTool | None
        own = ask.reason in ("folder trust", ELICITATION)  # only the user answers these
        if prompt_tool and not own:  # an MCP tool answers in the user's place
            from .prompt_tool import ask_prompt_tool

            handler = functools.partial(ask_prompt_tool, prompt_tool)
        else:
            prompts_off = context.permission_context.prompts_off_by
            if prompts_off is not None and ask.reason != "folder trust":  # never wait for a person
                return PermissionDeny(NO_PROMPTS_MESSAGE.format(tool=tool.name, path=prompts_off),
                                      reason="denyInsteadOfPrompting")
            if ask.suggestions and context.permission_context.managed_rules_only:
                ask = replace(ask, suggestions=())
            from ..permissions.hooks import get_hook_runner
            from ..permissions.tool_hooks import notify_permission_prompt

            runner = get_hook_runner(context)  # the user is about to be asked: Notification hooks
            if runner is not None and ask.reason != "folder trust":
                notify_permission_prompt(runner, tool, context, elicitation=ask.reason == ELICITATION)
            handler = get_handler()
            if handler is None:
                return await deny_without_approver(tool, input, context, ask, tool_use_id)
        timeout = get_timeout()
        if timeout is not None:
            handler = with_timeout(handler, timeout)
        return await until_stopped(handler)(tool, input, context, ask, tool_use_id)

    return approve
