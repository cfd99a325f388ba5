"""How a ``Transcript`` follows the session's events: one function per event type (``HANDLERS``).

Kept apart from ``transcript.py`` for size; they are the transcript's own handlers and use its
internals (``_add``, ``_parsed``, the reply being streamed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agent import events as ev
from ..core import events as tev
from ..core.permission_types import PermissionDeny
from . import render, tool_views
from .blocks import NoteBlock, ThinkingBlock
from .markdown_stream import StreamingMarkdown
from .tool_card import ToolCard

if TYPE_CHECKING:
    from .transcript import Transcript


def on_turn_started(t: Transcript, e: ev.TurnStarted) -> None:
    t.turn_id = e.turn_id
    t.started = time.monotonic()  # a queued turn's clock starts now
    t._attempt_start = len(t.blocks)
    t.footer.value = t._footer_html("running")


def on_text(t: Transcript, e: ev.TextDelta) -> None:
    block = t._this_reply_last()
    if not isinstance(block, StreamingMarkdown):
        block = t._add(StreamingMarkdown(t.interval))
    block.append(e.text)


def on_thinking(t: Transcript, e: ev.ThinkingDelta) -> None:
    block = t._this_reply_last()
    if not isinstance(block, ThinkingBlock):
        block = t._add(ThinkingBlock(t.interval))
    block.append(e.text)


def on_tool_streaming(t: Transcript, e: ev.ToolUseStreaming) -> None:
    t.card(e.tool_use_id, e.tool_name)


def on_permission(t: Transcript, e: tev.PermissionRequested) -> None:
    t.card(e.tool_use_id, e.tool_name).set_input(t._parsed(e.tool_name, e.input))


def on_started(t: Transcript, e: tev.ToolCallStarted) -> None:
    card = t.card(e.tool_use_id, e.tool_name)
    card.set_input(t._parsed(e.tool_name, e.input))
    card.start()


def on_progress(t: Transcript, e: tev.ToolCallProgress) -> None:
    card = t.cards.get(e.progress.tool_use_id)
    if card is None:  # an unstamped progress: the most recent running card
        card = next((c for c in reversed(t.cards.values()) if c.state == "running"), None)
    if card is not None:
        agent_id = getattr(e.progress.data, "agent_id", None)  # a SubagentEvent
        if isinstance(agent_id, str):
            t._agent_cards[agent_id] = card
        card.add_progress(e.progress.data)


def on_finished(t: Transcript, e: tev.ToolCallFinished) -> None:
    outcome = e.outcome
    card = t.card(outcome.tool_use_id, outcome.tool_name)
    data = outcome.result.data if outcome.result is not None else None
    if outcome.input is not None and not card.detail_html:
        card.set_input(outcome.input)
    summary = tool_views.result_summary(card.tool, outcome.tool_name, data, outcome.tool_text, outcome.is_error)
    if outcome.decision == "user-deny" and card.decision:
        summary = ""  # "Denied" (and what the user typed) is on the card; the rest was for the model
    if outcome.is_error:  # a denial's reasons are for the model; an error's lines, for both
        body = "" if outcome.decision.endswith("deny") else tool_views.error_body_html(outcome.tool_text)
    else:
        body = tool_views.result_body_html(outcome.tool_name, data, outcome.input, card.root, outcome.tool_text)
    denied = outcome.decision in ("deny", "user-deny")
    failed = outcome.is_error or tool_views.ran_and_failed(data)
    if outcome.decision == "interrupted":  # the user's Stop: not the tool's failure
        card.stop("Stopped" if card.state == "running" else "Not run (stopped)")
        return
    if body and outcome.tool_name in RESULT_SHOWS_CHANGE:  # one view of the change, not two
        if card.change_html:
            body = ""  # the diff against the cell as it was, from the approval, says more
        else:
            card.set_detail("")  # the result's diff (with context) says what the input's view said
    if outcome.hook_notes:  # the model was told more than the tool said: show what
        body += "".join(f'<div style="white-space:pre-wrap">{render.muted("↪ Hook, to the model: " + note)}</div>'
                        for note in outcome.hook_notes)
    card.finish(is_error=failed, summary=summary, body_html=body, denied=denied,
                keep_tail=outcome.tool_name in tool_views.SUBAGENT_TOOLS)  # its steps, then its report


RESULT_SHOWS_CHANGE = frozenset({"Edit", "Write", "NotebookEdit"})


def on_resolved(t: Transcript, e: tev.PermissionResolved) -> None:
    card = t.cards.get(e.tool_use_id)
    if card is None or card.decision:
        return
    if getattr(e.decision, "reason", None) == "auto mode":  # decided by auto mode's reviewer
        card.decision = "Denied by auto mode" if isinstance(e.decision, PermissionDeny) else "Approved by auto mode"
    elif isinstance(e.decision, PermissionDeny):
        card.decision = "Denied"


def on_usage(t: Transcript, e: ev.UsageUpdated) -> None:
    t.usage, t.cost_usd = e.turn, e.cost_usd
    if e.context_tokens:
        t.context = (e.context_tokens, e.context_window)
    t.footer.value = t._footer_html("running")


def on_todos(t: Transcript, e: ev.TodosUpdated) -> None:
    t.todos = list(e.todos)
    t.todo_view.value = render.todos_html(t.todos)


def on_message_done(t: Transcript, e: ev.AssistantMessageDone) -> None:
    settle_retries(t)
    t._attempt_start = len(t.blocks)
    content = e.message.get("content") if isinstance(e.message, dict) else None
    for block in content if isinstance(content, list) else ():
        # The model's input as written: the card names its file even when the input is then
        # refused before the tool is asked (a bad field, not read first); the parsed input
        # replaces it once the call starts.
        card = t.cards.get(block.get("id", "")) if isinstance(block, dict) and block.get("type") == "tool_use" else None
        if card is not None and not card.detail_html and isinstance(block.get("input"), dict):
            card.set_input(block["input"])


RETRY_CAUSES = {"overloaded": "API overloaded", "rate_limit": "rate limited", "network": "connection dropped",
                "server": "server error"}


def on_error(t: Transcript, e: ev.AgentErrorEvent) -> None:
    """A retry updates the one note of the reply's retries (what failed, when it is tried
    again); any other error is a note of its own, in red."""
    if not e.retrying:
        if e.kind in RETRY_CAUSES or e.kind in ("api", "auth", "internal"):  # the model call failed for good
            settle_retries(t)
        t._add(NoteBlock(e.message, error=e.kind != "limit"))  # a limit reached is no failure: muted
        return
    drop_partial_reply(t)
    t._retry_kinds.append(RETRY_CAUSES.get(e.kind, e.kind))
    text = f"⟳ {e.message}"
    if t._retry_note is None:
        t._retry_note = NoteBlock(text)
        t._add(t._retry_note)
    else:
        t._retry_note.update(text)


def settle_retries(t: Transcript) -> None:
    """The retried reply came (or the retries ended): its note says so in one line."""
    note, kinds = t._retry_note, t._retry_kinds
    if note is None:
        return
    causes = ", ".join(dict.fromkeys(kinds))
    note.update(f"Retried {len(kinds)} time{'s' if len(kinds) != 1 else ''} ({causes}).")
    t._retry_note, t._retry_kinds = None, []


def drop_partial_reply(t: Transcript) -> None:
    """The reply is retried from the start: remove its streamed text, thinking and tool input."""
    head, tail = t.blocks[: t._attempt_start], t.blocks[t._attempt_start :]
    void = [b for b in tail if _partial(b)]
    if not void:
        return
    for block in void:
        _discard(block)
        if isinstance(block, ToolCard):
            t.cards.pop(block.tool_use_id, None)
    t.blocks = head + [b for b in tail if b not in void]
    t.body.children = tuple(c for c in t.body.children if c not in void)


def on_compacted(t: Transcript, e: ev.Compacted) -> None:
    t._add(NoteBlock(f"Conversation compacted: {e.tokens_before} → {e.tokens_after} tokens"))


def on_turn_ended(t: Transcript, e: ev.TurnEnded) -> None:
    t.finish(e.stop_reason, e.duration_s, e.usage)


def _partial(block: Any) -> bool:
    """Streamed by a reply still in flight: text, thinking, or a tool card not yet acted on."""
    if isinstance(block, ToolCard):
        return block.state == "pending" and block.approval is None
    return isinstance(block, StreamingMarkdown | ThinkingBlock)


def _discard(block: Any) -> None:
    throttle = getattr(block, "throttle", None)
    if throttle is not None:
        throttle.cancel()
    block.close()


HANDLERS: dict[type, Callable[[Transcript, Any], None]] = {
    ev.TurnStarted: on_turn_started,
    ev.TextDelta: on_text,
    ev.ThinkingDelta: on_thinking,
    ev.ToolUseStreaming: on_tool_streaming,
    ev.AssistantMessageDone: on_message_done,
    ev.UsageUpdated: on_usage,
    ev.TodosUpdated: on_todos,
    ev.AgentErrorEvent: on_error,
    ev.Compacted: on_compacted,
    ev.TurnEnded: on_turn_ended,
    tev.PermissionRequested: on_permission,
    tev.PermissionResolved: on_resolved,
    tev.ToolCallStarted: on_started,
    tev.ToolCallProgress: on_progress,
    tev.ToolCallFinished: on_finished,
}
