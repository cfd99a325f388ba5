"""YAML front matter of Markdown files (``---`` … ``---`` at the top), as Claude Code reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True)
class MarkdownDoc:
    """The parsed front matter (``{}`` if none) and the body after it."""

    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    error: str | None = None


def parse_markdown(text: str) -> MarkdownDoc:
    """Split front matter from body; malformed YAML keeps the body and reports the error."""
    text = text.lstrip("\ufeff")
    if not text.startswith("---"):
        return MarkdownDoc(body=text.strip())
    lines = text.splitlines()
    if lines[0].strip() != "---":
        return MarkdownDoc(body=text.strip())
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            raw = "\n".join(lines[1:end])
            body = "\n".join(lines[end + 1 :]).strip()
            try:
                meta = yaml.safe_load(raw) or {}
            except yaml.YAMLError as exc:
                return MarkdownDoc(body=body, error=f"invalid YAML front matter: {exc}")
            if not isinstance(meta, dict):
                return MarkdownDoc(body=body, error="front matter is not a mapping")
            return MarkdownDoc(meta={str(k): v for k, v in meta.items()}, body=body)
    return MarkdownDoc(body=text.strip(), error="front matter has no closing ---")


def meta_text(meta: dict[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` present as a non-empty string (numbers are turned into text)."""
    for key in keys:
        value = meta.get(key)
        if isinstance(value, (str, int, float)) and str(value).strip():
            return str(value).strip()
    return None


def meta_list(meta: dict[str, Any], key: str) -> tuple[str, ...]:
    """A list field given as a YAML list or a comma-separated string."""
    value = meta.get(key)
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return ()
