"""An MCP server's request for input, on the card of the call that is running.

Form mode: one input per field (text, a number box, a checkbox, a drop-down, check boxes for a
multiple choice), checked against the server's schema before anything is sent; Submit sends,
Decline refuses, Cancel dismisses.  URL mode: the full link (http and https only) and its host,
to open in a new tab; Accept is the user's consent.  Everything the server wrote is escaped.

A link has a step outside the notebook (a sign-in): when its server says the step is done the
form shows it (and counts as accepted if it was still open).  A link the server's error asked
for (the call is tried again after it) also has **I've finished**, for a server that does not
say so itself.
"""

from __future__ import annotations

import asyncio
from typing import Any

import ipywidgets as widgets

from ..mcp.elicitation import (
    FORMATS,
    ElicitAnswer,
    Elicitation,
    FormField,
    check_content,
    openable,
    parse_number,
)
from . import render
from .decision import PendingAnswer

NONE_CHOSEN = "—"


class _Input:
    """One field's widget and how its value is read."""

    def __init__(self, f: FormField) -> None:
        self.field = f
        label = render.escape(f.title) + (' <span style="color:#cf222e">*</span>' if f.required else "")
        if f.description:
            label += f"<div>{render.muted(f.description)}</div>"
        self.label = widgets.HTML(label)
        self.boxes: list[widgets.Checkbox] = []
        if f.kind == "boolean":
            self.widget: widgets.Widget = widgets.Checkbox(value=f.default is True, indent=False, description=f.title)
        elif f.kind == "choice":
            options: list[tuple[str, str | None]] = [(label, value) for value, label in f.options]
            if not f.required or f.default is None:
                options.insert(0, (NONE_CHOSEN, None))
            chosen = f.default if f.default in {v for v, _ in f.options} else None
            self.widget = widgets.Dropdown(options=options, value=chosen)
        elif f.kind == "choices":
            preset = set(f.default) if isinstance(f.default, list) else set()
            self.boxes = [widgets.Checkbox(value=value in preset, description=label, indent=False)
                          for value, label in f.options]
            self.widget = widgets.VBox(self.boxes)
        else:
            default = "" if f.default is None else str(f.default)
            hint = FORMATS.get(f.format or "", "a whole number" if f.kind == "integer" else
                               "a number" if f.kind == "number" else "")
            self.widget = widgets.Text(value=default, placeholder=hint)

    def value(self) -> Any:
        f = self.field
        if f.kind == "choices":
            return [value for (value, _), box in zip(f.options, self.boxes, strict=True) if box.value]
        raw = self.widget.value  # type: ignore[attr-defined]
        if f.kind in ("number", "integer"):
            return parse_number(str(raw))
        return raw

    def parts(self) -> list[widgets.Widget]:
        if self.field.kind != "boolean":
            return [self.label, self.widget]
        # a checkbox carries its own title; its description (if any) follows it
        return [self.widget, widgets.HTML(render.muted(self.field.description))] if self.field.description \
            else [self.widget]

    def disable(self) -> None:
        for w in [self.widget, *self.boxes]:
            w.disabled = True


class ElicitationForm(widgets.VBox):
    """What the server asks, and Submit / Decline / Cancel (Accept for a link)."""

    def __init__(self, elicitation: Elicitation, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.pending: PendingAnswer[ElicitAnswer] = PendingAnswer(loop)
        self.elicitation = elicitation
        self.inputs = [_Input(f) for f in elicitation.fields]
        head = (f"<div>MCP server <b>{render.escape(elicitation.server)}</b> asks:</div>"
                f'<div style="white-space:pre-wrap">{render.escape(elicitation.message)}</div>')
        if elicitation.mode == "url":
            head += _link_html(elicitation.url or "")
        self.header = widgets.HTML(head)
        accept = "Accept" if elicitation.mode == "url" else "Submit"
        self.submit = widgets.Button(description=accept, button_style="primary")
        self.decline = widgets.Button(description="Decline")
        self.cancel = widgets.Button(description="Cancel")
        self.status = widgets.HTML()
        self.finished = widgets.Button(description="I've finished", tooltip="Try the call again now",
                                       layout=widgets.Layout(display="none"))
        fields = [w for i in self.inputs for w in i.parts()]
        buttons = widgets.HBox([self.submit, self.decline, self.cancel, self.finished])
        super().__init__([self.header, *fields, buttons, self.status])
        loop_ = self.pending.loop
        # a click may come on a subshell thread: the form is read and checked on the loop
        self.submit.on_click(lambda _b: loop_.call_soon_threadsafe(self._try_submit))
        self.decline.on_click(lambda _b: self.pending.answer(ElicitAnswer("decline")))
        self.cancel.on_click(lambda _b: self.pending.answer(ElicitAnswer("cancel")))
        self.pending.on_answer(self._done)
        link = elicitation.done
        if link is not None:
            self.finished.on_click(lambda _b: loop_.call_soon_threadsafe(link.finish, "user"))
            link.listen(self._link_done)  # the server's notice (or I've finished); before Accept it answers

    def values(self) -> dict[str, Any]:
        return {i.field.name: i.value() for i in self.inputs}

    def _try_submit(self) -> None:
        if self.pending.done:
            return
        if self.elicitation.mode == "url":
            self.pending.answer(ElicitAnswer("accept"))
            return
        clean, problems = check_content(self.elicitation.fields, self.values())
        if problems:
            titles = {f.name: f.title for f in self.elicitation.fields}
            self.status.value = render.error_html(
                "; ".join(f"{titles.get(name, name)} {why}" for name, why in problems.items()))
            return
        self.pending.answer(ElicitAnswer("accept", clean))

    def describe(self, answer: ElicitAnswer) -> str:
        """The card's record of the answer (the values stay in the form)."""
        what = "Link" if self.elicitation.mode == "url" else "Input"
        return f"{what} " + {"accept": "accepted" if what == "Link" else "sent", "decline": "declined",
                             "cancel": "cancelled"}[answer.action]

    async def wait(self) -> ElicitAnswer:
        return await self.pending.wait()

    def dismiss(self) -> None:
        self.pending.answer(ElicitAnswer("cancel"))

    def _done(self, answer: ElicitAnswer) -> None:
        for w in (self.submit, self.decline, self.cancel):
            w.disabled = True
        for i in self.inputs:
            i.disable()
        self.status.value = render.escape(describe_answer(answer))
        link = self.elicitation.done
        if answer.action != "accept" or link is None:
            return
        if link.how is not None:  # done already (the server's notice answered the form)
            self._show_link_done(link.how)
        else:
            server = render.escape(self.elicitation.server)
            if self.elicitation.retry:
                self.finished.layout.display = None
                self.status.value = (f"Accepted — the call runs again when {server} says you are done"
                                     " (or when you click <b>I've finished</b>)")
            else:
                self.status.value = f"Accepted — {server} will say when you are done"

    def _link_done(self, how: str) -> None:
        """The step behind the link is done (the server said so, or the user did)."""
        self.finished.disabled = True
        if not self.pending.done:  # the server finished before Accept was clicked: that is consent enough
            self.pending.answer(ElicitAnswer("accept"))
        elif self.pending.future.result().action == "accept":  # not after Decline or Cancel
            self._show_link_done(how)

    def _show_link_done(self, how: str) -> None:
        if how == "server":
            self.status.value = f"✔ {render.escape(self.elicitation.server)} says you are done"
        else:
            self.status.value = "✔ You finished — trying again"


def describe_answer(answer: ElicitAnswer) -> str:
    if answer.action != "accept":
        return "Declined" if answer.action == "decline" else "Cancelled"
    if not answer.content:
        return "Accepted"
    return "Sent: " + ", ".join(f"{name} = {value}" for name, value in answer.content.items())


# a widget's HTML is not styled as rendered Markdown: a link must look like one by itself
LINK_STYLE = "color:var(--jp-content-link-color,#1976d2);text-decoration:underline;word-break:break-all"


def _link_html(url: str) -> str:
    if not openable(url):  # never a javascript: or file: link in the notebook
        return f"<div>{render.muted('The link is not an http(s) address: ' + render.escape(url))}</div>"
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    return (f'<div><a href="{render.escape(url)}" target="_blank" rel="noopener noreferrer" style="{LINK_STYLE}">'
            f"{render.escape(url)}</a></div><div>{render.muted('Opens ' + render.escape(host) + ' in a new tab')}</div>")
