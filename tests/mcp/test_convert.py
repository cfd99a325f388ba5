"""MCP content → tool_result blocks, and tool-name normalization (pure functions, table-driven)."""

from __future__ import annotations

import mcp_types as t
import pytest

from jupyter_agent.mcp.convert import call_result_to_blocks, content_to_blocks, result_meta
from jupyter_agent.tools.mcp_tool import mcp_tool_name

PNG = "iVBORw0KGgo="


@pytest.mark.parametrize(("item", "expected"), [
    (t.TextContent(type="text", text="hi"), [{"type": "text", "text": "hi"}]),
    (t.ImageContent(type="image", data=PNG, mime_type="image/png"),
     [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]),
    (t.ImageContent(type="image", data=PNG, mime_type="image/tiff"),
     [{"type": "text", "text": "[image of unsupported type image/tiff omitted]"}]),
    (t.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
     [{"type": "text", "text": "[audio (audio/wav) omitted: audio is not supported]"}]),
    (t.ResourceLink(type="resource_link", name="log", uri="file:///x.log", description="the log"),
     [{"type": "text", "text": "[Resource link: log <file:///x.log> — the log]"}]),
    (t.EmbeddedResource(type="resource", resource=t.TextResourceContents(uri="n://1", text="body")),
     [{"type": "text", "text": "body"}]),
    (t.EmbeddedResource(type="resource", resource=t.BlobResourceContents(uri="n://2", blob="AAAA", mime_type="application/zip")),
     [{"type": "text", "text": "[binary resource n://2 (application/zip, ~3 bytes)]"}]),
])
def test_content_items(item, expected):
    assert content_to_blocks([item]) == expected


def test_structured_content_and_meta():
    only_structured = t.CallToolResult(content=[], structured_content={"x": 1}, _meta={"trace": "abc"})
    assert call_result_to_blocks(only_structured) == [{"type": "text", "text": '{"x": 1}'}]
    assert result_meta(only_structured) == {"_meta": {"trace": "abc"}, "structuredContent": {"x": 1}}
    both = t.CallToolResult(content=[t.TextContent(type="text", text="1")], structured_content={"x": 1})
    assert call_result_to_blocks(both) == [{"type": "text", "text": "1"}]
    assert call_result_to_blocks(t.CallToolResult(content=[])) == [{"type": "text", "text": "(no output)"}]
    assert result_meta(t.CallToolResult(content=[])) is None


@pytest.mark.parametrize(("server", "tool", "name"), [
    ("github", "create_issue", "mcp__github__create_issue"),
    ("my-srv", "get.page v2", "mcp__my-srv__get_page_v2"),
])
def test_tool_names(server, tool, name):
    assert mcp_tool_name(server, tool) == name
