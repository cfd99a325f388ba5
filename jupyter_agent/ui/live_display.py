"""Show a widget in the running cell with an HTML fallback, and replace that fallback later.

The cell's output is one display bundle: the widget view (what live frontends render) plus a
``text/html`` rendering (what the saved ``.ipynb``, nbconvert and GitHub show).  When the turn
ends, the bundle is sent again as ``update_display_data`` with the *original cell's* parent
header, so the update reaches that cell even though other cells have run since (a plain
``display()`` from the task would land in whichever cell ran last on ipykernel 6).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def bundle(widget: Any, html: str, text: str) -> dict[str, Any]:
    """The display bundle: widget view + static HTML + plain text."""
    data: dict[str, Any] = {"text/plain": text, "text/html": html}
    model_id = getattr(widget, "model_id", None)
    if model_id:
        data[WIDGET_MIME] = {"version_major": 2, "version_minor": 0, "model_id": model_id}
    return data


class LiveDisplay:
    """One display of a widget in the current cell; ``update(html)`` rewrites its fallback."""

    def __init__(self, widget: Any, html: str, text: str, shell: Any = None) -> None:
        from IPython.display import display

        self.widget = widget
        self.display_id = uuid.uuid4().hex
        self.text = text
        # Also called with every update's bundle: where else the display is shown (a cell whose
        # outputs the user cleared, where the labextension put it back).
        self.mirrors: list[Callable[[dict[str, Any]], None]] = []
        self._pub = getattr(shell, "display_pub", None)
        header = getattr(self._pub, "parent_header", None)
        self.parent_header: dict[str, Any] = dict(header) if isinstance(header, dict) else {}
        display(bundle(widget, html, text), raw=True, display_id=self.display_id)

    def data(self, html: str) -> dict[str, Any]:
        """The display's bundle with ``html`` as its static fallback."""
        return bundle(self.widget, html, self.text)

    def update(self, html: str, text: str | None = None) -> bool:
        """Send ``update_display_data`` to the original cell; False if no kernel to send to."""
        if text is not None:
            self.text = text
        data = self.data(html)
        for mirror in list(self.mirrors):
            try:
                mirror(data)
            except Exception as exc:  # best effort, as the update itself
                log.warning("could not update a copy of the transcript display: %s", exc)
        content = {"data": data, "metadata": {}, "transient": {"display_id": self.display_id}}
        pub = self._pub
        session = getattr(pub, "session", None)
        socket = getattr(pub, "pub_socket", None)
        if session is None or socket is None or not self.parent_header:
            return self._fallback(data)
        try:
            msg = session.msg("update_display_data", content, parent=self.parent_header)
            session.send(socket, msg, ident=getattr(pub, "topic", None))
            return True
        except Exception as exc:  # the audit copy is best effort; the live widget stays
            log.warning("could not update the transcript display: %s", exc)
            return False

    def _fallback(self, data: dict[str, Any]) -> bool:
        try:
            from IPython.display import update_display

            update_display(data, raw=True, display_id=self.display_id)
            return True
        except Exception:
            return False
