"""One card per tool call: summary line, what will run, approval, live output tail, result."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import ipywidgets as widgets

from ..core.permission_types import PermissionAsk
from . import render, tool_views
from .approval import ApprovalPanel
from .throttle import Throttle

ICONS = {"pending": "…", "asking": "?", "running": "▶", "done": "✔", "error": "✖", "denied": "⊘", "stopped": "■"}
MAX_TAIL_LINES = 200


def progress_lines(data: Any) -> list[str]:
    """Output lines carried by a progress event, whatever its shape (str, dict, model)."""
    if data is None:
        return []
    if isinstance(data, str):
        return data.splitlines()
    if isinstance(data, list | tuple):
        return [str(x) for x in data]
    for key in ("lines", "output_lines"):
        value = tool_views.field(data, key)
        if isinstance(value, list | tuple):
            return [str(x) for x in value]
    for key in ("line", "output", "text", "stdout", "data"):
        value = tool_views.field(data, key)
        if isinstance(value, str):
            return value.splitlines()
    return [str(data)]


class ToolCard(widgets.VBox):
    """The transcript's view of one tool call; collapses to one line when it is done."""

    def __init__(self, tool_use_id: str, tool_name: str, tool: Any = None, root: Any = None) -> None:
        self.tool_use_id = tool_use_id
        self.root = root  # the session's folder: paths inside it are shown relative
        self.tool_name = tool_name
        self.tool = tool
        self.state = "pending"
        self.summary = tool_name
        self.detail_html = ""
        self.change_html = ""  # the diff of what it would change, when the input does not show it
        self.result_summary = ""
        self.result_html = ""
        self.keep_tail = False  # the live lines stay beside the result body (a subagent's steps)
        self.decision = ""
        self.tail: list[str] = []
        self._started: float | None = None
        self._elapsed: float | None = None
        self._ticker: asyncio.TimerHandle | None = None
        self._open_asks = 0  # a running call may ask mid-way (the sandbox's network), more than once
        self._after_ask = "pending"
        self._waiting = "waiting for approval"  # what the title says while the card asks
        self.toggle = widgets.ToggleButton(
            value=True, icon="chevron-down", layout=widgets.Layout(width="28px", padding="0")
        )
        self.title = widgets.HTML()
        self.detail = widgets.HTML()
        self.tail_view = widgets.HTML()
        self.result = widgets.HTML()
        self.body = widgets.VBox([self.detail, self.tail_view, self.result])
        self.approval: ApprovalPanel | None = None
        self.nested: list[ToolCard] = []  # a subagent's calls, under its Agent card
        super().__init__(children=[widgets.HBox([self.toggle, self.title]), self.body])
        self.add_class("jupyter-agent-card")
        self.layout.border = "1px solid rgba(128,128,128,0.35)"
        self.layout.margin = "2px 0"
        self.toggle.observe(self._on_toggle, names="value")
        self._tail_throttle = Throttle(self._show_tail, 0.1)
        self._refresh_title()

    # -- lifecycle -----------------------------------------------------------------------------

    def add_nested(self, card: ToolCard) -> None:
        """Show ``card`` (a subagent's call) inside this card, and in its saved HTML."""
        self.nested.append(card)
        self.body.children = (*self.body.children, card)
        self.expand(True)

    def set_input(self, input: Any) -> None:
        """Input known (parsed model or dict): update the summary and the full detail."""
        self.summary = tool_views.summary_line(self.tool, self.tool_name, input, self.root)
        self.set_detail(self.change_html or tool_views.input_detail_html(self.tool_name, input))
        self._refresh_title()

    def set_detail(self, html: str) -> None:
        self.detail_html = html
        self.detail.value = html

    def ask(self, ask: PermissionAsk, loop: asyncio.AbstractEventLoop | None = None) -> ApprovalPanel:
        """Show the permission panel; the caller awaits ``panel.wait()``.  A running call that
        asks (a host its sandboxed command wants to reach) is running again once answered."""
        self.approval = ApprovalPanel(ask, loop, root=self.root)
        return self.ask_form(self.approval)

    def ask_form(self, form: Any, waiting: str = "waiting for approval") -> Any:
        """A form the call waits for (an MCP server's elicitation, the model's questions, a
        plan to approve): shown like an approval panel; ``form.pending`` answers it and
        ``form.describe(answer)`` is the audit line.  ``waiting``: what the title says meanwhile."""
        if self.state != "asking":  # answered: back to it (a background command asks after "done")
            self._after_ask = self.state
        self._open_asks += 1
        self.state = "asking"
        self._waiting = waiting
        self.expand(True)
        if hasattr(form, "add_class"):
            form.add_class("jupyter-agent-ask")  # the labextension looks for it: is it on screen?
        form.pending.on_answer(lambda answer: self._answered(getattr(form, "describe", str)(answer)))
        self.body.children = (*self.body.children, form)
        self._refresh_title()
        return form

    def start(self) -> None:
        self.state = "running"
        self._started = time.monotonic()
        self._refresh_title()
        self._schedule_tick()

    def add_progress(self, data: Any) -> None:
        lines = progress_lines(data)
        if lines and hasattr(data, "agent_id"):  # a subagent's step names its files as the cards do
            lines = [tool_views.relative_in(line, self.root) for line in lines]
        if lines:
            self.tail.extend(lines)
            del self.tail[:-MAX_TAIL_LINES]
            self._tail_throttle.poke()

    def finish(
        self, *, is_error: bool, summary: str, body_html: str = "", denied: bool = False, stopped: bool = False,
        keep_tail: bool = False,
    ) -> None:
        """``summary`` goes in the title (red for an error), ``body_html`` under the input when
        the card is open. ``stopped``: the user stopped the turn (not the tool's failure): a grey
        ■, and the card stays open on the output it had, to show where it stopped. ``keep_tail``:
        the live lines are not what the body says again (a subagent's steps, then its report)."""
        self._tail_throttle.cancel()
        self._stop_tick()
        if self._started is not None:
            self._elapsed = time.monotonic() - self._started
        self.state = "stopped" if stopped else "denied" if denied else ("error" if is_error else "done")
        self.result_summary = summary
        self.result_html = body_html
        self.keep_tail = keep_tail
        red = is_error and not stopped
        self.result.value = body_html  # the summary is in the title: not said twice
        if self.tail and (keep_tail or not body_html):
            self.tail_view.value = render.tail_html(self.tail)
        self._refresh_title()
        # a failed command stays open on its output; a stopped one on what it printed
        self.expand(red and bool(body_html) or stopped and bool(self.tail))

    def stop(self, summary: str = "Stopped") -> None:
        """The user stopped the turn while this call ran (or before it could)."""
        self.finish(is_error=True, summary=summary, stopped=True)

    def expand(self, open_: bool) -> None:
        self.toggle.value = open_

    @property
    def finished(self) -> bool:
        return self.state in ("done", "error", "denied", "stopped")

    # -- rendering -----------------------------------------------------------------------------

    def _answered(self, text: str) -> None:
        self.decision = text
        self._open_asks = max(0, self._open_asks - 1)
        if self.state == "asking" and not self._open_asks:
            self.state = self._after_ask
            if self.state == "running":
                self._schedule_tick()
        self._refresh_title()

    def _on_toggle(self, change: dict[str, Any]) -> None:
        self.body.layout.display = "flex" if change["new"] else "none"
        self.toggle.icon = "chevron-down" if change["new"] else "chevron-right"

    def _show_tail(self) -> None:
        self.tail_view.value = render.tail_html(self.tail)

    def _schedule_tick(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._ticker = loop.call_later(1.0, self._tick)

    def _tick(self) -> None:
        if self.state == "running":
            self._refresh_title()
            self._schedule_tick()

    def _stop_tick(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def elapsed(self) -> float | None:
        if self._elapsed is not None:
            return self._elapsed
        return None if self._started is None else time.monotonic() - self._started

    def title_html(self) -> str:
        icon = ICONS.get(self.state, "")
        colour = render.ERROR_FG if self.state in ("error", "denied") else "inherit"
        parts = [f'<span style="color:{colour}">{icon}</span> <b>{render.escape(self.summary)}</b>']
        elapsed = self.elapsed()
        if self.state == "running" and elapsed is not None:
            parts.append(render.muted(f"running {elapsed:.0f}s"))
        elif self.state == "asking":
            parts.append(render.muted(self._waiting))
        elif self.finished:
            if self.decision:
                parts.append(f"<i>{render.escape(self.decision)}</i>")
            if self.result_summary:
                parts.append(f'<span style="color:{colour}">{render.escape(self.result_summary)}</span>')
            if elapsed is not None:
                parts.append(render.muted(f"{elapsed:.1f}s"))
        return " · ".join(parts)

    def _refresh_title(self) -> None:
        self.title.value = self.title_html()

    def static_html(self) -> str:
        """The card for the saved notebook: summary, what ran, the decision, the result."""
        decision = f"<div><i>{render.escape(self.decision)}</i></div>" if self.decision else ""
        tail = render.tail_html(self.tail) if self.tail and (self.keep_tail or not self.result_html) else ""
        nested = "".join(card.static_html() for card in self.nested)
        body = self.detail_html + decision + tail + self.result_html + nested
        return (
            '<details class="jupyter-agent-card" style="border:1px solid rgba(128,128,128,0.35);'
            f'margin:2px 0;padding:2px 6px"><summary>{self.title_html()}</summary>{body}</details>'
        )
