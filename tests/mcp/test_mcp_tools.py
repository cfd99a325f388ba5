"""MCPTool and the MCP resource tools through the real pipeline (run_tool_use) and real servers."""

from __future__ import annotations

import pytest

from jupyter_agent.core.context import ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.mcp import McpManager, assemble_tool_pool
from jupyter_agent.mcp.pool import DeferPolicy
from jupyter_agent.tools.mcp_resources import ListMcpResourcesTool, ReadMcpResourceTool
from tests.support.tools import make_context

from .conftest import demo_stdio_entry


@pytest.fixture
async def demo_manager(tmp_path):
    manager = McpManager([demo_stdio_entry()], log_dir=tmp_path / "logs")
    await manager.ensure_started()
    yield manager
    await manager.aclose()


def _context(tmp_path, manager, tools):
    ctx = make_context(tools, tmp_path)
    ctx.options = ToolUseOptions(tools=tuple(tools), mcp_clients=tuple(manager.connections.values()))
    return ctx


def _by_name(tools):
    return {t.name: t for t in tools}


async def test_tools_are_named_and_annotated(demo_manager):
    tools = _by_name(demo_manager.tools())
    add, note, wipe = tools["mcp__demo__add"], tools["mcp__demo__write_note"], tools["mcp__demo__delete_everything"]
    schema = add.input_json_schema()
    assert schema["properties"].keys() == {"a", "b"} and schema["required"] == ["a", "b"]
    assert add.is_read_only(None) and add.is_concurrency_safe(None) and not add.is_destructive(None)
    assert not note.is_read_only(None) and not note.is_destructive(None)
    assert not wipe.is_read_only(None) and wipe.is_destructive(None)
    # no annotations at all: fail closed (may write, may destroy)
    assert not tools["mcp__demo__pixel"].is_read_only(None)
    assert await add.prompt(ToolUseOptions()) == "Add two integers and return the sum."


async def test_call_through_pipeline(tmp_path, demo_manager, approve):
    tools = demo_manager.tools()
    ctx = _context(tmp_path, demo_manager, tools)
    out = await run_tool_use(ToolUseRequest("t1", "mcp__demo__add", {"a": 20, "b": 22}), ctx, approve)
    assert not out.is_error and out.text == "42"
    assert approve.asks == [], "a read-only MCP tool runs without asking"
    assert out.result.mcp_meta["structuredContent"] == {"result": 42}


async def test_arguments_checked_against_server_schema(tmp_path, demo_manager, approve):
    ctx = _context(tmp_path, demo_manager, demo_manager.tools())
    out = await run_tool_use(ToolUseRequest("t", "mcp__demo__add", {"a": "two"}), ctx, approve)
    assert out.is_error and "'b' is a required property" in out.text
    assert "'two' is not of type 'integer'" in out.text


async def test_progress_notifications_become_tool_progress(tmp_path, demo_manager, approve):
    from jupyter_agent.core.events import ToolCallProgress

    ctx = _context(tmp_path, demo_manager, demo_manager.tools())
    events = []
    out = await run_tool_use(ToolUseRequest("p1", "mcp__demo__count", {"n": 3}), ctx, approve, on_event=events.append)
    assert out.text == "counted to 3"
    progress = [e.progress for e in events if isinstance(e, ToolCallProgress)]
    assert [(p.tool_use_id, p.data.progress, p.data.total, p.data.message) for p in progress] == [
        ("p1", 1, 3, "step 1"), ("p1", 2, 3, "step 2"), ("p1", 3, 3, "step 3")]


async def test_writing_tool_asks_and_rules_apply(tmp_path, demo_manager, approve, reject):
    tools = demo_manager.tools()
    ctx = _context(tmp_path, demo_manager, tools)
    req = ToolUseRequest("t1", "mcp__demo__write_note", {"key": "k", "text": "v"})
    out = await run_tool_use(req, ctx, reject)
    assert out.is_error and [n for n, _ in reject.asks] == ["mcp__demo__write_note"]
    out = await run_tool_use(req, ctx, approve)
    assert not out.is_error and out.text == "stored k"
    ctx.set_app_state(
        lambda s: type(s)(tool_permission_context=ToolPermissionContext(allow_rules={"session": ("mcp__demo",)}))
    )
    approve.asks.clear()
    out = await run_tool_use(req, ctx, approve)
    assert not out.is_error and approve.asks == []


async def test_images_errors_and_big_output(tmp_path, demo_manager, approve):
    tools = demo_manager.tools()
    ctx = _context(tmp_path, demo_manager, tools)
    pic = await run_tool_use(ToolUseRequest("p", "mcp__demo__pixel", {}), ctx, approve)
    assert not pic.is_error and pic.content[0]["type"] == "image"
    assert pic.content[0]["source"]["media_type"] == "image/png"
    bad = await run_tool_use(ToolUseRequest("f", "mcp__demo__fail", {"reason": "bad input"}), ctx, approve)
    assert bad.is_error and "failed because bad input" in bad.text
    big = await run_tool_use(ToolUseRequest("b", "mcp__demo__big", {"n": 150_000}), ctx, approve)
    assert not big.is_error and "<persisted-output>" in big.text
    saved = tmp_path / "session" / "tool-results" / "b.txt"
    assert saved.read_text().count("x") == 150_000


async def test_crash_mid_call_is_an_error_result(tmp_path, approve):
    manager = McpManager([demo_stdio_entry()])
    try:
        await manager.ensure_started()
        tools = manager.tools()
        ctx = _context(tmp_path, manager, tools)
        out = await run_tool_use(ToolUseRequest("c", "mcp__demo__crash", {}), ctx, approve)
        assert out.is_error and 'MCP server "demo"' in out.text
        again = await run_tool_use(ToolUseRequest("d", "mcp__demo__add", {"a": 1, "b": 1}), ctx, approve)
        assert again.is_error and "not connected" in again.text
    finally:
        await manager.aclose()


async def test_resources(tmp_path, demo_manager, approve):
    tools = [ListMcpResourcesTool(), ReadMcpResourceTool()]
    ctx = _context(tmp_path, demo_manager, tools)
    listed = await run_tool_use(ToolUseRequest("l", "ListMcpResourcesTool", {}), ctx, approve)
    assert '"uri": "note://hello"' in listed.text and '"server": "demo"' in listed.text
    read = await run_tool_use(
        ToolUseRequest("r", "ReadMcpResourceTool", {"server": "demo", "uri": "note://hello"}), ctx, approve
    )
    assert read.text == "hello from the demo server"
    img = await run_tool_use(
        ToolUseRequest("i", "ReadMcpResourceTool", {"server": "demo", "uri": "image://pixel"}), ctx, approve
    )
    assert img.content[0]["type"] == "image"
    missing = await run_tool_use(
        ToolUseRequest("m", "ReadMcpResourceTool", {"server": "nope", "uri": "x://y"}), ctx, approve
    )
    assert missing.is_error and 'Server "nope" not found. Available servers: demo' in missing.text
    nothing = await run_tool_use(ToolUseRequest("n", "ListMcpResourcesTool", {}), _context(tmp_path, McpManager(), tools), approve)
    assert nothing.text.startswith("No resources found.")


async def test_http_server_tools(tmp_path, demo_http_url, approve):
    manager = McpManager()
    manager.add_servers({"remote": {"type": "http", "url": demo_http_url,
                                    "headers": {"Authorization": "Bearer ${DEMO_TOKEN:-t0ken}"}}})
    try:
        pool = await assemble_tool_pool([], manager, ToolPermissionContext(), DeferPolicy("never"))
        ctx = _context(tmp_path, manager, pool)
        out = await run_tool_use(ToolUseRequest("h", "mcp__remote__add", {"a": 3, "b": 4}), ctx, approve)
        assert out.text == "7"
        who = await run_tool_use(ToolUseRequest("w", "mcp__remote__whoami", {}), ctx, approve)
        assert who.text == "Bearer t0ken"  # configured headers reach the server
    finally:
        await manager.aclose()
