"""ToolResult, content blocks for tool_result messages, and persistence of oversized results."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Union

from anthropic.types import (
    DocumentBlockParam,
    ImageBlockParam,
    MessageParam,
    TextBlockParam,
    ToolResultBlockParam,
)
from pydantic import BaseModel

from .atomic import atomic_write_text

if TYPE_CHECKING:
    from .context import ToolUseContext

T = TypeVar("T")

ContentBlock = Union[TextBlockParam, ImageBlockParam, DocumentBlockParam]
ContextModifier = Callable[["ToolUseContext"], "ToolUseContext"]

PREVIEW_CHARS = 2_000


@dataclass
class ToolResult(Generic[T]):
    """What ``Tool.call`` returns (seed: ``{data, newMessages?, contextModifier?, mcpMeta?}``)."""

    data: T
    new_messages: list[MessageParam] | None = None
    context_modifier: ContextModifier | None = None
    mcp_meta: dict[str, Any] | None = None


def text_block(text: str) -> TextBlockParam:
    return {"type": "text", "text": text}


def image_block(media_type: str, data_b64: str) -> ImageBlockParam:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data_b64},  # type: ignore[typeddict-item]
    }


def document_block(data_b64: str, media_type: str = "application/pdf") -> DocumentBlockParam:
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": media_type, "data": data_b64},  # type: ignore[typeddict-item]
    }


def data_to_content(data: object) -> list[ContentBlock]:
    """Default mapping of a tool's ``data`` to content blocks: text as is, models as JSON."""
    if data is None:
        return [text_block("(no output)")]
    if isinstance(data, str):
        return [text_block(data if data else "(no output)")]
    if isinstance(data, BaseModel):
        return [text_block(data.model_dump_json(by_alias=True, exclude_none=True))]
    if isinstance(data, Sequence) and data and all(
        isinstance(b, dict) and "type" in b for b in data
    ):
        return list(data)  # type: ignore[arg-type]
    return [text_block(json.dumps(data, ensure_ascii=False, default=str))]


def tool_result_block(
    tool_use_id: str, content: list[ContentBlock], *, is_error: bool = False
) -> ToolResultBlockParam:
    block: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,  # type: ignore[typeddict-item]
    }
    if is_error:
        block["is_error"] = True
    return block


def content_text_length(content: list[ContentBlock]) -> int:
    return sum(len(b.get("text", "")) for b in content if b.get("type") == "text")


def persist_oversized(
    content: list[ContentBlock],
    *,
    limit: int,
    directory: Path,
    tool_use_id: str,
) -> list[ContentBlock]:
    """Replace text over ``limit`` chars with a preview and the path of the full text on disk.

    Non-text blocks (images, documents) are kept; they are bounded by their tools.
    """
    if content_text_length(content) <= limit:
        return content
    full = "\n".join(b["text"] for b in content if b.get("type") == "text")  # type: ignore[typeddict-item]
    path = directory / "tool-results" / f"{_safe_name(tool_use_id)}.txt"
    atomic_write_text(path, full)
    preview = full[: min(PREVIEW_CHARS, limit)]
    note = (
        f"<persisted-output>\nOutput too large ({len(full):,} characters). "
        f"Full output saved to: {path}\n"
        f"Read that file (with offset/limit) or search it with Grep to see the rest.\n\n"
        f"Preview (first {len(preview):,} characters):\n{preview}\n...\n</persisted-output>"
    )
    others = [b for b in content if b.get("type") != "text"]
    return [text_block(note), *others]


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "result"
