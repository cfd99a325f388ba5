"""MCP results → tool_result content blocks (text, images, resources, structured content)."""

from __future__ import annotations

import json
from typing import Any

import mcp_types

from ..core.result import ContentBlock, image_block, text_block

_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def content_to_blocks(items: list[Any]) -> list[ContentBlock]:
    """Each MCP content item as a block the Messages API accepts."""
    blocks: list[ContentBlock] = []
    for item in items:
        blocks.extend(_one(item))
    return blocks


def _one(item: Any) -> list[ContentBlock]:
    if isinstance(item, mcp_types.TextContent):
        return [text_block(item.text)]
    if isinstance(item, mcp_types.ImageContent):
        if item.mime_type in _IMAGE_TYPES:
            return [image_block(item.mime_type, item.data)]
        return [text_block(f"[image of unsupported type {item.mime_type} omitted]")]
    if isinstance(item, mcp_types.AudioContent):
        return [text_block(f"[audio ({item.mime_type}) omitted: audio is not supported]")]
    if isinstance(item, mcp_types.ResourceLink):
        desc = f" — {item.description}" if item.description else ""
        return [text_block(f"[Resource link: {item.name} <{item.uri}>{desc}]")]
    if isinstance(item, mcp_types.EmbeddedResource):
        return resource_contents_to_blocks([item.resource])
    return [text_block(f"[unsupported MCP content: {type(item).__name__}]")]


def resource_contents_to_blocks(contents: list[Any]) -> list[ContentBlock]:
    """Resource contents: text as text, images as image blocks, other binaries described."""
    blocks: list[ContentBlock] = []
    for c in contents:
        if isinstance(c, mcp_types.TextResourceContents):
            blocks.append(text_block(c.text))
        elif isinstance(c, mcp_types.BlobResourceContents):
            if c.mime_type in _IMAGE_TYPES:
                blocks.append(image_block(c.mime_type, c.blob))
            else:
                size = len(c.blob) * 3 // 4
                blocks.append(
                    text_block(f"[binary resource {c.uri} ({c.mime_type or 'unknown type'}, ~{size} bytes)]")
                )
    return blocks


def call_result_to_blocks(result: mcp_types.CallToolResult) -> list[ContentBlock]:
    """The content of a tool call; structured content is added when no text carries it."""
    blocks = content_to_blocks(list(result.content))
    structured = result.structured_content
    if structured is not None:
        dumped = json.dumps(structured, ensure_ascii=False, default=str)
        if not any(b.get("type") == "text" for b in blocks):
            blocks.append(text_block(dumped))
    return blocks or [text_block("(no output)")]


def result_meta(result: mcp_types.CallToolResult) -> dict[str, Any] | None:
    """``mcp_meta`` for the ToolResult: the server's ``_meta`` and structured content."""
    meta: dict[str, Any] = {}
    if result.meta:
        meta["_meta"] = dict(result.meta)
    if result.structured_content is not None:
        meta["structuredContent"] = result.structured_content
    return meta or None
