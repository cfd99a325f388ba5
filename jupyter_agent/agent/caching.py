"""Prompt-cache breakpoints: on the system prompt (covering tools + system) and on recent turns.

The API caches the prefix up to each ``cache_control`` marker.  Marking the last system block,
the previous user message and the latest message means every request reads the whole earlier
conversation from the cache and writes only what is new.  At most 4 markers are allowed; we use 3.
Stored history is never modified: marked blocks are copies.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL = {"type": "ephemeral"}
_UNCACHEABLE = ("thinking", "redacted_thinking")


def _marked(block: dict[str, Any]) -> dict[str, Any]:
    return {**block, "cache_control": dict(EPHEMERAL)}


def _mark_message(message: dict[str, Any]) -> dict[str, Any]:
    content = message["content"]
    if isinstance(content, str):
        return {**message, "content": [_marked({"type": "text", "text": content})]}
    blocks = list(content)
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].get("type") not in _UNCACHEABLE:
            blocks[i] = _marked(blocks[i])
            return {**message, "content": blocks}
    return message


def mark_system(system: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The system blocks with a breakpoint on the last one (tools come before it in the prefix)."""
    if not system:
        return system
    return [*system[:-1], _marked(system[-1])]


def mark_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Breakpoints on the latest message and on the user message before it."""
    if not messages:
        return messages
    out = list(messages)
    out[-1] = _mark_message(out[-1])
    for i in range(len(out) - 2, -1, -1):
        if out[i].get("role") == "user":
            out[i] = _mark_message(out[i])
            break
    return out
