"""The transcript widget of one ``%agent`` turn: text, thinking, tool cards, todos, footer, Stop.

It is fed session events on the loop thread (``handle``) and only ever changes widget state.
``static_html()`` renders the same turn as plain HTML for the saved notebook.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel

from ..core.permission_types import PermissionAsk
from ..core.tool import ChangePreview
from . import render, tool_views
from .approval import ApprovalPanel
from .blocks import NoteBlock, ThinkingBlock
from .markdown_stream import StreamingMarkdown
from .questions import PlanApproval, QuestionForm
from .tool_card import ToolCard
from .transcript_events import HANDLERS, settle_retries

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
        root: Any = None,
    ) -> None:
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        self.prompt = prompt
        self.model = model
        self.find_tool = find_tool or (lambda _name: None)
        self.on_stop = on_stop
        # told when the turn starts waiting for the user (what for: "approve Bash: pytest");
        # returns what to call once answered (the magics notify the page, then dismiss)
        self.on_ask: Callable[[str], Callable[[], None] | None] | None = None
        self.interval = interval
        self.root = root  # the session's folder: the cards show paths inside it relative
        self.cards: dict[str, ToolCard] = {}
        self._agent_cards: dict[str, ToolCard] = {}  # subagent id -> the Agent call's card
        self.blocks: list[Any] = []
        self.todos: list[Any] = []
        self.usage: Any = None
        self.cost_usd: float | None = None
        self.context: tuple[int, int] = (0, 0)  # (tokens, window) after the last request
        self.turn_id: str | None = None  # the session's id of this turn, once it starts
        self.rewound = False
        self.stop_reason: str | None = None
        self.started = time.monotonic()
        self.duration_s: float | None = None
        self._open: list[Any] = []
        self._attempt_start = 0  # index in ``blocks`` where the reply being streamed began
        self._retry_note: Any = None  # the one note of the retries of the reply under way
        self._retry_kinds: list[str] = []  # why each of them was retried
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
        handler = HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def mark_queued(self) -> None:
        """Another turn runs first: say so until this one starts."""
        self.footer.value = self._footer_html("queued behind the running turn")

    # -- asks (called by WidgetPermissionHandler) ------------------------------------------------

    def ask_permission(
        self, tool_use_id: str, tool: Any, input: Any, ask: PermissionAsk, agent_id: str | None = None,
        change: ChangePreview | None = None,
    ) -> ApprovalPanel:
        """An approval panel on the call's card — nested under its Agent card for a subagent's call.
        ``change``: what it would change, shown as a diff (under the line naming its target)."""
        parent = self._agent_cards.get(agent_id) if agent_id else None
        card = self.card(tool_use_id, getattr(tool, "name", "tool"), tool, parent=parent)
        if change is not None:
            card.change_html = tool_views.change_html(getattr(tool, "name", ""), input, change.before,
                                                      change.after, change.where)
        card.set_input(input)
        panel = card.ask(ask, self.loop)
        return self._track(panel, f"approve {card.summary}")

    def ask_questions(self, tool_use_id: str, questions: list[Any]) -> QuestionForm:
        card = self.card(tool_use_id, "AskUserQuestion")
        return self._track(card.ask_form(QuestionForm(questions, self.loop), "waiting for your answer"),
                           "answer its question" if len(questions) == 1 else "answer its questions")

    def ask_elicitation(self, tool_use_id: str, tool: Any, elicitation: Any, agent_id: str | None = None) -> Any:
        """An MCP server's form (or link) on the card of the call it came from."""
        from .elicitation_form import ElicitationForm

        parent = self._agent_cards.get(agent_id) if agent_id else None
        card = self.card(tool_use_id, getattr(tool, "name", "tool"), tool, parent=parent)
        waiting = "waiting for you to open the link" if elicitation.mode == "url" else "waiting for your answer"
        return self._track(card.ask_form(ElicitationForm(elicitation, self.loop), waiting),
                           "open a link" if elicitation.mode == "url" else f"fill in a form of {card.summary}")

    def ask_plan(self, tool_use_id: str, plan: str) -> PlanApproval:
        card = self.card(tool_use_id, "ExitPlanMode")
        card.detail_html = render.markdown_html(plan)
        return self._track(card.ask_form(PlanApproval(plan, self.loop), "waiting for you to approve the plan"),
                           "approve its plan")

    def close_asks(self) -> None:
        """Dismiss every open ask (the turn is stopping): approvals deny, forms are dismissed."""
        for item in list(self._open):
            item.dismiss()

    # -- lifecycle -----------------------------------------------------------------------------

    def card(self, tool_use_id: str, tool_name: str, tool: Any = None, parent: ToolCard | None = None) -> ToolCard:
        card = self.cards.get(tool_use_id)
        if card is None:
            card = ToolCard(tool_use_id, tool_name, tool or self._find(tool_name), root=self.root)
            self.cards[tool_use_id] = card
            if parent is not None and parent is not card:
                parent.add_nested(card)
            else:
                self._add(card)
        return card

    @property
    def asking(self) -> bool:
        """An approval, a question or a plan is waiting for the user's answer."""
        return bool(self._open)

    def note(self, text: str, error: bool = False) -> None:
        self._add(NoteBlock(text, error=error))

    def mark_rewound(self, forgotten: bool) -> None:
        """``%agent --rewind`` undid this turn: say so under it (and in the saved copy), so the
        cell's output no longer reads as the state of things. ``forgotten``: the conversation
        went back too."""
        if self.rewound:
            return
        self.rewound = True
        self.note("↶ Rewound by %agent --rewind: the files and cells it changed were restored"
                  + ("; the model no longer sees this turn." if forgotten else
                     "; the model still sees it (the conversation was kept)."))
        if self.done:  # the saved copy was written when the turn ended: write it again
            for callback in list(self._done_callbacks):
                callback(self)

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
        settle_retries(self)  # stopped while waiting to retry: the note must not say it still is
        for card in self.cards.values():
            if not card.finished:
                if stop_reason == "interrupted":
                    card.stop()
                else:
                    card.finish(is_error=True, summary=f"Not finished ({stop_reason})")
        self.close_asks()
        self.stop_button.disabled = True
        self.stop_button.description = "Stopped" if stop_reason == "interrupted" else "Done"
        self.stop_button.icon = "" if stop_reason == "interrupted" else "check"
        self.stop_button.button_style = ""  # a finished turn's button is a label, not a warning
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

    def _track(self, item: Any, what: str = "answer") -> Any:
        self._open.append(item)
        answered: Callable[[], None] | None = None
        if self.on_ask is not None:
            with contextlib.suppress(Exception):  # a notice is a courtesy: never the ask's failure
                answered = self.on_ask(what)

        def _answered(_value: Any, i: Any = item) -> None:
            if i in self._open:
                self._open.remove(i)
            if answered is not None:
                with contextlib.suppress(Exception):
                    answered()

        item.pending.on_answer(_answered)
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
        text = render.footer_text(self.model, self.duration_s, self.usage, self.cost_usd, status, self.context)
        return f'<span style="color:{render.MUTED_FG};font-size:12px">{render.escape(text)}</span>'
