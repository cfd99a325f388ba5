"""``%agent --sessions`` as a picker: each saved session with a Resume button.

The magic returns a :class:`SessionsListing`, a string (the plain-text listing, what a terminal,
nbconvert or a test sees) that displays in a notebook as this widget.  The widget is made only
when the listing is displayed, so a listing that is merely read makes no comm.  A click resumes
through the same path as ``%agent --resume=ID``; what it did (or why it could not) shows under
the rows, and the rows re-mark which session is this kernel's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import render

RESUME_TOOLTIP = "Continue this conversation in this kernel (as %agent --resume=ID)"


class SessionsListing(str):
    """The listing's text; in a notebook, the picker.  ``resume(id)`` returns the status text
    shown after a click or raises with the reason it could not."""

    sessions: list[Any]
    current: str | None
    resume: Callable[[str], str] | None
    widget: Any

    def __new__(cls, text: str, sessions: Sequence[Any] = (), current: str | None = None,
                resume: Callable[[str], str] | None = None) -> SessionsListing:
        listing = super().__new__(cls, text)
        listing.sessions, listing.current, listing.resume = list(sessions), current, resume
        listing.widget = None
        return listing

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        if not self.sessions or self.resume is None:
            return {"text/plain": str(self)}
        if self.widget is None:
            self.widget = session_picker(self.sessions, self.current, self.resume, str(self).splitlines()[0])
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = str(self)  # not "VBox(children=…)"
        return bundle


def row_html(saved: Any, now: float, current: bool) -> str:
    """One session: id, age, prompts, cost, notebook; its first and last prompt below."""
    from ..magics.reports import _ago, _count, _quoted

    notebook = f" · {render.escape(Path(saved.notebook).name)}" if saved.notebook else ""
    mark = " · <b>this kernel's session</b>" if current else ""
    prompts = [f"first: {_quoted(saved.first_prompt, 90)}"]
    if len(saved.prompts) > 1:
        prompts.append(f"last: {_quoted(saved.last_prompt, 90)}")
    head = (f"<code>{render.escape(saved.id)}</code> · {render.escape(_ago(now - saved.modified))} · "
            f"{_count(len(saved.prompts), 'prompt')} · ${saved.cost_usd:.4f}{notebook}{mark}")
    return (f'<div style="{render.MONO}">{head}<br>'
            + "<br>".join(render.muted(p) for p in prompts) + "</div>")


def session_picker(sessions: Sequence[Any], current: str | None, resume: Callable[[str], str],
                   heading: str = "Saved sessions, newest first") -> Any:
    """The widget: one row per session (a Resume button, the session's line), then a status."""
    import ipywidgets as widgets

    now = time.time()
    status = widgets.HTML("")
    rows: dict[str, tuple[Any, Any]] = {}

    def _mark(current_id: str | None) -> None:
        for saved in sessions:
            label, button = rows[saved.id]
            here = saved.id == current_id
            label.value = row_html(saved, now, here)
            button.disabled = here
            button.description = "Current" if here else "Resume"
            button.button_style = "" if here else "primary"

    def _clicked(session_id: str) -> Callable[[Any], None]:
        def _on_click(_: Any) -> None:
            status.value = render.muted(f"Resuming {session_id}…")
            try:
                text = resume(session_id)
            except Exception as exc:  # the reason, in the picker: never a traceback in the log
                status.value = render.error_html(str(exc).removeprefix("%agent --resume: ") or type(exc).__name__)
                return
            status.value = render.pre(text)
            _mark(session_id)
        return _on_click

    children = [widgets.HTML(render.muted(heading))]
    for saved in sessions:
        button = widgets.Button(description="Resume", tooltip=RESUME_TOOLTIP,
                                layout=widgets.Layout(width="88px", flex="0 0 auto"))
        button.on_click(_clicked(saved.id))
        label = widgets.HTML(layout=widgets.Layout(flex="1 1 auto"))
        rows[saved.id] = (label, button)
        box = widgets.HBox([button, label], layout=widgets.Layout(align_items="center"))
        box.add_class("jupyter-agent-session-row")
        children.append(box)
    _mark(current)
    picker = widgets.VBox([*children, status])
    picker.add_class("jupyter-agent-sessions")
    picker.rows, picker.status = rows, status  # for tests and the labextension's checks
    return picker
