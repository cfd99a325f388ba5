"""Small transcript blocks: collapsed thinking and one-line notes (errors, compaction)."""

from __future__ import annotations

import ipywidgets as widgets

from . import render
from .throttle import Throttle


class ThinkingBlock(widgets.VBox):
    """The model's thinking, collapsed behind a toggle; updated throttled while it streams."""

    def __init__(self, interval: float = 0.1) -> None:
        self.text = ""
        self.toggle = widgets.ToggleButton(
            value=False, description="Thinking", icon="chevron-right",
            layout=widgets.Layout(width="auto", align_self="flex-start"),
        )
        self.content = widgets.HTML(layout=widgets.Layout(display="none"))
        self.content.add_class(render.RENDERED_HTML_CLASS)
        super().__init__([self.toggle, self.content])
        self.add_class("jupyter-agent-thinking")
        self.toggle.observe(self._on_toggle, names="value")
        self.throttle = Throttle(self._flush, interval)

    def append(self, delta: str) -> None:
        if delta:
            self.text += delta
            self.throttle.poke()

    def finish(self) -> None:
        self.throttle.flush_now()

    def _flush(self) -> None:
        self.content.value = f'<div style="opacity:0.75;font-style:italic">{render.markdown_html(self.text)}</div>'

    def _on_toggle(self, change: dict[str, object]) -> None:
        self.content.layout.display = "block" if change["new"] else "none"
        self.toggle.icon = "chevron-down" if change["new"] else "chevron-right"

    def static_html(self) -> str:
        return (
            '<details class="jupyter-agent-thinking"><summary>Thinking</summary>'
            f'<div style="opacity:0.75;font-style:italic">{render.markdown_html(self.text)}</div></details>'
        )


class NoteBlock(widgets.HTML):
    """A one-line note; red when it reports an error."""

    def __init__(self, text: str, error: bool = False) -> None:
        self.text = text
        self.error = error
        super().__init__(self.static_html())

    def update(self, text: str) -> None:
        self.text = text
        self.value = self.static_html()

    def static_html(self) -> str:
        # the widget's line height is a button's (28 px): a note that wraps reads as a paragraph
        return render.error_html(self.text) if self.error else (
            f'<div style="line-height:1.4">{render.muted(self.text)}</div>')
