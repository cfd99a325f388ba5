"""The transcript widget of one ``%agent`` turn: text, thinking, tool cards, todos, footer, Stop.

It is fed session events on the loop thread (``handle``) and only ever changes widget state.
``static_html()`` renders the same turn as plain HTML for the saved notebook.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel

from ..agent import events as ev
from ..core import events as tev
from ..core.permission_types import PermissionAsk, PermissionDeny
from . import render, tool_views
from .approval import ApprovalPanel
from .blocks import NoteBlock, ThinkingBlock
from .markdown_stream import StreamingMarkdown
from .questions import PlanApproval, QuestionForm
from .tool_card import ToolCard

FindTool = Callable[[str], Any]


class Transcript(widgets.VBox):
    """Everything one turn shows; ``handle(event)`` for each session event."""

    def __init__(
        self,
        prompt: str,
        *,
        model: str = "",
        find_tool: FindTool | None = None,
        on_stop: Callable[[], None] | None = None,
        interval: float = 0.15,
    ) -> None:
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        self.prompt = prompt
        self.model = model
        self.find_tool = find_tool or (lambda _name: None)
        self.on_stop = on_stop
        self.interval = interval
        self.cards: dict[str, ToolCard] = {}
        self._agent_cards: dict[str, ToolCard] = {}  # subagent id -> the Agent call's card
        self.blocks: list[Any] = []
        self.todos: list[Any] = []
        self.usage: Any = None
        self.cost_usd: float | None = None
        self.stop_reason: str | None = None
        self.started = time.monotonic()
        self.duration_s: float | None = None
        self._open: list[Any] = []
        self._attempt_start = 0  # index in ``blocks`` where the reply being streamed began
        self._done_callbacks: list[Callable[[Transcript], None]] = []
        self.header = widgets.HTML(self._header_html())
        self.stop_button = widgets.Button(description="Stop", icon="stop", button_style="warning")
        self.stop_button.on_click(lambda _b: self._threadsafe(self.stop))
        self.body = widgets.VBox()
        self.todo_view = widgets.HTML()
        self.footer = widgets.HTML(self._footer_html("running"))
        super().__init__([widgets.HBox([self.header, self.stop_button]), self.body, self.todo_view, self.footer])
        self.add_class("jupyter-agent-transcript")

    # -- events --------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Apply one session event (unknown events are ignored)."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _on_turn_started(self, e: ev.TurnStarted) -> None:
        self.started = time.monotonic()  # a queued turn's clock starts now
        self._attempt_start = len(self.blocks)
        self.footer.value = self._footer_html("running")

    def mark_queued(self) -> None:
        """Another turn runs first: say so until this one starts."""
        self.footer.value = self._footer_html("queued behind the running turn")

    def _on_text(self, e: ev.TextDelta) -> None:
        block = self._this_reply_last()
        if not isinstance(block, StreamingMarkdown):
            block = self._add(StreamingMarkdown(self.interval))
        block.append(e.text)

    def _on_thinking(self, e: ev.ThinkingDelta) -> None:
        block = self._this_reply_last()
        if not isinstance(block, ThinkingBlock):
            block = self._add(ThinkingBlock(self.interval))
        block.append(e.text)

    def _on_tool_streaming(self, e: ev.ToolUseStreaming) -> None:
        self.card(e.tool_use_id, e.tool_name)

    def _on_permission(self, e: tev.PermissionRequested) -> None:
        self.card(e.tool_use_id, e.tool_name).set_input(self._parsed(e.tool_name, e.input))

    def _on_started(self, e: tev.ToolCallStarted) -> None:
        card = self.card(e.tool_use_id, e.tool_name)
        card.set_input(self._parsed(e.tool_name, e.input))
        card.start()

    def _on_progress(self, e: tev.ToolCallProgress) -> None:
        card = self.cards.get(e.progress.tool_use_id)
        if card is None:  # an unstamped progress: the most recent running card
            card = next((c for c in reversed(self.cards.values()) if c.state == "running"), None)
        if card is not None:
            agent_id = getattr(e.progress.data, "agent_id", None)  # a SubagentEvent
            if isinstance(agent_id, str):
                self._agent_cards[agent_id] = card
            card.add_progress(e.progress.data)

    def _on_finished(self, e: tev.ToolCallFinished) -> None:
        outcome = e.outcome
        card = self.card(outcome.tool_use_id, outcome.tool_name)
        data = outcome.result.data if outcome.result is not None else None
        if outcome.input is not None and not card.detail_html:
            card.set_input(outcome.input)
        summary = tool_views.result_summary(card.tool, outcome.tool_name, data, outcome.text, outcome.is_error)
        body = "" if outcome.is_error else tool_views.result_body_html(outcome.tool_name, data, outcome.input)
        denied = outcome.decision in ("deny", "user-deny")
        card.finish(is_error=outcome.is_error, summary=summary, body_html=body, denied=denied)

    def _on_resolved(self, e: tev.PermissionResolved) -> None:
        card = self.cards.get(e.tool_use_id)
        if card is not None and not card.decision and isinstance(e.decision, PermissionDeny):
            card.decision = "Denied"

    def _on_usage(self, e: ev.UsageUpdated) -> None:
        self.usage, self.cost_usd = e.turn, e.cost_usd
        self.footer.value = self._footer_html("running")

    def _on_todos(self, e: ev.TodosUpdated) -> None:
        self.todos = list(e.todos)
        self.todo_view.value = render.todos_html(self.todos)

    def _on_message_done(self, e: ev.AssistantMessageDone) -> None:
        self._attempt_start = len(self.blocks)

    def _on_error(self, e: ev.AgentErrorEvent) -> None:
        if e.retrying:
            self._drop_partial_reply()
        text = f"{e.message} (retrying…)" if e.retrying else e.message
        self._add(NoteBlock(text, error=not e.retrying))

    def _drop_partial_reply(self) -> None:
        """The reply is retried from the start: remove its streamed text, thinking and tool input."""
        head, tail = self.blocks[: self._attempt_start], self.blocks[self._attempt_start :]
        void = [b for b in tail if _partial(b)]
        if not void:
            return
        for block in void:
            _discard(block)
            if isinstance(block, ToolCard):
                self.cards.pop(block.tool_use_id, None)
        self.blocks = head + [b for b in tail if b not in void]
        self.body.children = tuple(c for c in self.body.children if c not in void)

    def _on_compacted(self, e: ev.Compacted) -> None:
        self._add(NoteBlock(f"Conversation compacted: {e.tokens_before} → {e.tokens_after} tokens"))

    def _on_turn_ended(self, e: ev.TurnEnded) -> None:
        self.finish(e.stop_reason, e.duration_s, e.usage)

    # -- asks (called by WidgetPermissionHandler) ------------------------------------------------

    def ask_permission(
        self, tool_use_id: str, tool: Any, input: Any, ask: PermissionAsk, agent_id: str | None = None
    ) -> ApprovalPanel:
        """An approval panel on the call's card — nested under its Agent card for a subagent's call."""
        parent = self._agent_cards.get(agent_id) if agent_id else None
        card = self.card(tool_use_id, getattr(tool, "name", "tool"), tool, parent=parent)
        card.set_input(input)
        panel = card.ask(ask, self.loop)
        return self._track(panel)

    def ask_questions(self, tool_use_id: str, questions: list[Any]) -> QuestionForm:
        card = self.card(tool_use_id, "AskUserQuestion")
        form = QuestionForm(questions, self.loop)
        form.pending.on_answer(
            lambda a: _record(card, "Answered: " + "; ".join(a.answers.values()) if a else "Dismissed")
        )
        card.body.children = (*card.body.children, form)
        card.expand(True)
        return self._track(form)

    def ask_plan(self, tool_use_id: str, plan: str) -> PlanApproval:
        card = self.card(tool_use_id, "ExitPlanMode")
        widget = PlanApproval(plan, self.loop)
        card.detail_html = render.markdown_html(plan)
        widget.pending.on_answer(lambda c: _record(card, _plan_text(c)))
        card.body.children = (*card.body.children, widget)
        card.expand(True)
        return self._track(widget)

    def close_asks(self) -> None:
        """Dismiss every open ask (the turn is stopping): approvals deny, forms are dismissed."""
        for item in list(self._open):
            item.dismiss()

    # -- lifecycle -----------------------------------------------------------------------------

    def card(self, tool_use_id: str, tool_name: str, tool: Any = None, parent: ToolCard | None = None) -> ToolCard:
        card = self.cards.get(tool_use_id)
        if card is None:
            card = ToolCard(tool_use_id, tool_name, tool or self._find(tool_name))
            self.cards[tool_use_id] = card
            if parent is not None and parent is not card:
                parent.add_nested(card)
            else:
                self._add(card)
        return card

    def note(self, text: str, error: bool = False) -> None:
        self._add(NoteBlock(text, error=error))

    def stop(self) -> None:
        """The Stop button (on the loop thread): stop the turn and close open asks."""
        if self.stop_reason is not None:
            return
        self.stop_button.disabled = True
        self.stop_button.description = "Stopping…"
        self.close_asks()
        if self.on_stop is not None:
            self.on_stop()

    def finish(self, stop_reason: str, duration_s: float | None = None, usage: Any = None) -> None:
        """The turn is over (ended, failed or cancelled); idempotent."""
        if self.stop_reason is not None:
            return
        self.stop_reason = stop_reason
        self.duration_s = duration_s if duration_s is not None else time.monotonic() - self.started
        self.usage = usage if usage is not None else self.usage
        for block in self.blocks:
            if hasattr(block, "finish") and not isinstance(block, ToolCard):
                block.finish()
        for card in self.cards.values():
            if not card.finished:
                card.finish(is_error=True, summary=f"Not finished ({stop_reason})")
        self.close_asks()
        self.stop_button.disabled = True
        self.stop_button.description = "Stopped" if stop_reason == "interrupted" else "Done"
        self.footer.value = self._footer_html(stop_reason)
        for callback in list(self._done_callbacks):
            callback(self)

    def on_done(self, callback: Callable[[Transcript], None]) -> None:
        self._done_callbacks.append(callback)

    @property
    def done(self) -> bool:
        return self.stop_reason is not None

    def static_html(self) -> str:
        """The whole turn as static HTML: prompt, text, every card with its decision, footer."""
        parts = [f"<div>{self._header_html()}</div>"]
        parts.extend(block.static_html() for block in self.blocks)
        parts.append(render.todos_html(self.todos))
        parts.append(f"<div>{self._footer_html(self.stop_reason or 'running')}</div>")
        return f'<div class="jupyter-agent-transcript">{"".join(parts)}</div>'

    # -- helpers -------------------------------------------------------------------------------

    def _add(self, block: Any) -> Any:
        last = self.blocks[-1] if self.blocks else None
        if isinstance(last, StreamingMarkdown | ThinkingBlock) and last is not block:
            last.finish()
        self.blocks.append(block)
        self.body.children = (*self.body.children, block)
        return block

    def _this_reply_last(self) -> Any:
        """The last block, if the reply now streaming made it (a retry may void this reply)."""
        return self.blocks[-1] if len(self.blocks) > self._attempt_start else None

    def _track(self, item: Any) -> Any:
        self._open.append(item)
        item.pending.on_answer(lambda _v, i=item: self._open.remove(i) if i in self._open else None)
        return item

    def _find(self, name: str) -> Any:
        try:
            return self.find_tool(name)
        except Exception:
            return None

    def _parsed(self, tool_name: str, input: dict[str, Any]) -> Any:
        tool = self._find(tool_name)
        schema = getattr(tool, "input_schema", None)
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            try:
                return schema.model_validate(input)
            except Exception:
                pass
        return input

    def _threadsafe(self, fn: Callable[[], None]) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn)
        else:
            fn()

    def _header_html(self) -> str:
        first = self.prompt.strip().splitlines()[0] if self.prompt.strip() else ""
        first = first if len(first) <= 160 else first[:159] + "…"
        return f"<b>%agent</b> {render.escape(first)}"

    def _footer_html(self, status: str) -> str:
        duration = self.duration_s if self.duration_s is not None else time.monotonic() - self.started
        text = render.footer_text(self.model, duration, self.usage, self.cost_usd, status)
        return f'<span style="color:{render.MUTED_FG};font-size:12px">{render.escape(text)}</span>'


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


def _record(card: ToolCard, text: str) -> None:
    card.decision = text


def _plan_text(choice: Any) -> str:
    mode = getattr(choice, "mode", None)
    return f"Plan approved (mode {mode})" if mode else f"Keep planning: {getattr(choice, 'feedback', '')}"


_HANDLERS: dict[type, Callable[[Transcript, Any], None]] = {
    ev.TurnStarted: Transcript._on_turn_started,
    ev.TextDelta: Transcript._on_text,
    ev.ThinkingDelta: Transcript._on_thinking,
    ev.ToolUseStreaming: Transcript._on_tool_streaming,
    ev.AssistantMessageDone: Transcript._on_message_done,
    ev.UsageUpdated: Transcript._on_usage,
    ev.TodosUpdated: Transcript._on_todos,
    ev.AgentErrorEvent: Transcript._on_error,
    ev.Compacted: Transcript._on_compacted,
    ev.TurnEnded: Transcript._on_turn_ended,
    tev.PermissionRequested: Transcript._on_permission,
    tev.PermissionResolved: Transcript._on_resolved,
    tev.ToolCallStarted: Transcript._on_started,
    tev.ToolCallProgress: Transcript._on_progress,
    tev.ToolCallFinished: Transcript._on_finished,
}
