"""One turn of a session: hooks around the prompt, the query loop, Stop-hook continuations."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.abort import AbortController
from .events import AgentErrorEvent, TurnEnded, TurnStarted, Usage
from .history import INTERRUPTED_TOOL, close_dangling_tool_uses, split_reminder
from .loop import LoopLimits, LoopResult, run_query

if TYPE_CHECKING:
    from .session import AgentSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnOutcome:
    """What ``await session.submit(prompt)`` gives back."""

    turn_id: str
    stop_reason: str  # end_turn, interrupted, error, max_turns, max_tokens, refusal, blocked
    text: str
    usage: Usage
    error: str | None = None


async def run_turn(
    session: AgentSession, turn_id: str, prompt: str, abort: AbortController, typed: bool = False,
) -> TurnOutcome:
    """Run ``prompt`` to the end of the model's turn; never raises except on cancellation."""
    started = time.perf_counter()
    session.emit(TurnStarted(turn_id, prompt))
    result = LoopResult("error", Usage())
    try:
        result = await _hooked_query(session, prompt, abort, typed)
    except asyncio.CancelledError:
        result = LoopResult("interrupted", result.usage)
        raise
    except Exception as exc:  # nothing escapes the loop: the user sees it, the session lives on
        log.exception("agent turn failed")
        message = f"Internal error: {type(exc).__name__}: {exc}"
        session.emit(AgentErrorEvent(message, kind="internal"))
        result = LoopResult("error", result.usage, error=message)
    else:
        why = _limit_note(session, result.stop_reason)
        if why:  # the footer's stop reason alone ('max_turns') explained nothing
            session.emit(AgentErrorEvent(why, kind="limit"))
    finally:
        if close_dangling_tool_uses(session.messages):
            session.log.write("repair", text=INTERRUPTED_TOOL)
        session.emit(TurnEnded(turn_id, result.stop_reason, time.perf_counter() - started, result.usage))
    return TurnOutcome(turn_id, result.stop_reason, result.text, result.usage, result.error)


async def _prompt_notes(session: AgentSession) -> list[dict[str, Any]]:
    """What the session's ``prompt_notes`` add to a typed prompt as its turn starts (the notebooks
    open in JupyterLab, …); a note that fails is left out, the turn goes on."""
    blocks: list[dict[str, Any]] = []
    for note in list(session.prompt_notes):
        try:
            text = await note()
        except Exception:
            log.exception("a prompt note failed")
            continue
        if text:
            blocks.append({"type": "text", "text": text})
    return blocks


def _limit_note(session: AgentSession, stop_reason: str) -> str:
    """Why a turn stopped short of the model's own end, in the words of someone who can act."""
    config = session.config
    if stop_reason == "max_turns":
        return (f"Stopped after {config.max_turns} model requests in this turn (the max_turns limit; "
                "%config AgentMagics.max_turns raises it). %agent continue goes on from here.")
    if stop_reason == "max_tokens":
        return (f"The reply was cut off at the output limit ({config.max_tokens:,} tokens), also after "
                f"{config.max_continuations} continuations. %agent continue asks for the rest.")
    if stop_reason == "refusal":
        return "The model declined to go on with this request (stop reason: refusal)."
    return ""


async def _mcp_prompt(session: AgentSession, prompt: str) -> tuple[list[dict[str, Any]], str | None]:
    """The servers are started (as for a request) and the named prompt rendered by its server:
    (its blocks, None), or ([], why not)."""
    from ..mcp.prompts import McpPromptError, expand_mcp_prompt

    session.context = await session.tool_pool.ensure(session.context, session.emit)
    try:
        return [dict(b) for b in await expand_mcp_prompt(session.tool_pool.mcp, prompt)], None
    except McpPromptError as exc:
        return [], str(exc)


async def _hooked_query(session: AgentSession, prompt: str, abort: AbortController, typed: bool) -> LoopResult:
    if not prompt.strip():
        message = "The prompt is empty: write what the agent should do after %agent."
        session.emit(AgentErrorEvent(message, kind="api"))
        return LoopResult("error", Usage(), error=message)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
    reminder, text = split_reminder(prompt)
    if typed and text.startswith("/mcp__"):  # /mcp__server__prompt args: the server writes the message
        blocks, problem = await _mcp_prompt(session, text)
        if problem is not None:
            session.emit(AgentErrorEvent(problem, kind="mcp"))
            return LoopResult("error", Usage(), error=problem)
        if reminder:
            blocks.insert(0, {"type": "text", "text": reminder})
        prompt = "\n\n".join(b["text"] for b in blocks if b.get("type") == "text")
    check = await session.hooks.before_prompt(prompt, session.log.resumed)
    if check.blocked is not None:
        session.emit(AgentErrorEvent(check.blocked, kind="hook"))
        return LoopResult("blocked", Usage(), error=check.blocked)
    if typed and "@" in text and not text.startswith("/mcp__"):  # @file, @folder, @server:uri: read now
        from .mentions import attach_mentions

        blocks += await attach_mentions(session, text)
    if typed:
        blocks += await _prompt_notes(session)
    extra = [{"type": "text", "text": note} for note in check.context]
    session.record_user_blocks([*blocks, *extra])
    limits = LoopLimits(session.config.max_turns, session.config.max_continuations)
    result = await run_query(session, abort, session.approver, limits)
    attempt = 0
    while result.stop_reason == "end_turn":
        reason = await session.hooks.continue_reason(attempt, result.text)
        if reason is None:
            break
        attempt += 1
        session.record_user_blocks([{"type": "text", "text": f"Stop hook feedback:\n{reason}"}])
        more = await run_query(session, abort, session.approver, limits)
        result = LoopResult(more.stop_reason, result.usage + more.usage, more.text, more.error)
    if result.stop_reason == "error" and result.error:  # the model could not be reached
        await session.hooks.stop_failure(result.error)
    return result
