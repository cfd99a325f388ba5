"""Streaming Markdown: text arrives in deltas, is rendered throttled and incrementally.

Only the *live tail* is re-rendered on a flush.  When the tail grows past ``freeze_chars`` it is
cut at the last blank line outside a code fence: the part before the cut is frozen into its
own HTML widget (never touched again) and a fresh live widget continues.  So a long answer
costs O(tail) per update, and each flush is normally a single widget message.
"""

from __future__ import annotations

import ipywidgets as widgets

from . import render
from .throttle import Throttle

FREEZE_CHARS = 3_000
DEFAULT_INTERVAL = 0.15  # seconds between renders: with freezes, under 10 widget messages a second


def safe_cut(text: str, min_chars: int) -> int:
    """Index after the last blank line outside a code fence, at or past ``min_chars``; 0 if none."""
    cut = 0
    pos = 0
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        pos += len(line)
        if fence is None and not stripped and pos >= min_chars and pos < len(text):
            cut = pos
    return cut


class StreamingMarkdown(widgets.VBox):
    """A Markdown block that grows by ``append(delta)``; call ``finish()`` when it ends."""

    def __init__(self, interval: float = DEFAULT_INTERVAL, freeze_chars: int = FREEZE_CHARS) -> None:
        self._live = widgets.HTML()
        super().__init__(children=[self._live])
        self.add_class("jupyter-agent-text")
        self.add_class(render.RENDERED_HTML_CLASS)
        self._text = ""
        self._frozen_upto = 0
        self._freeze_chars = freeze_chars
        self.throttle = Throttle(self._flush, interval)

    @property
    def text(self) -> str:
        return self._text

    def append(self, delta: str) -> None:
        if delta:
            self._text += delta
            self.throttle.poke()

    def finish(self) -> None:
        self.throttle.flush_now()

    def _flush(self) -> None:
        tail = self._text[self._frozen_upto :]
        if len(tail) > self._freeze_chars:
            cut = safe_cut(tail, self._freeze_chars // 2)
            if cut:
                self._live.value = render.markdown_html(tail[:cut])
                self._frozen_upto += cut
                # The new live widget is born with the tail: no separate update message.
                self._live = widgets.HTML(render.markdown_html(tail[cut:]))
                self.children = (*self.children, self._live)
                return
        html = render.markdown_html(tail)
        if html != self._live.value:
            self._live.value = html

    def static_html(self) -> str:
        return f'<div class="jupyter-agent-text">{render.markdown_html(self._text)}</div>'
