"""Waiting for a widget to appear on a tool call's card in a ``Transcript``."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

W = TypeVar("W")


async def widget_on_card(transcript: Any, tool_use_id: str, kind: type[W], seconds: float = 5.0) -> W:
    """The first ``kind`` widget in the body of the card for ``tool_use_id`` (polled every 10 ms
    for at most ``seconds``)."""
    for _ in range(int(seconds * 100)):
        card = transcript.cards.get(tool_use_id)
        found = [w for w in (card.body.children if card else ()) if isinstance(w, kind)]
        if found:
            return found[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {kind.__name__} appeared on the card of {tool_use_id}")
