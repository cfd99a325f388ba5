"""MCP tools and ToolSearch inside a real AgentSession, with the scripted model server and real SDK."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.mcp import McpManager, assemble_tool_pool, tools_for_request
from jupyter_agent.mcp.pool import DeferPolicy
from jupyter_agent.testing import ScriptedServer, reply, tool_use
from jupyter_agent.tools.tool_search import ToolSearchTool
from tests.support.sessions import scripted_config

from .conftest import demo_stdio_entry


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
async def manager():
    m = McpManager([demo_stdio_entry()])
    yield m
    await m.aclose()


def _session(server, tmp_path, tools, approver) -> AgentSession:
    config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False)
    return AgentSession(config, can_use_tool=approver, tools=tools)


def _tool_results(request):
    return [b for m in request.messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


async def test_mcp_tool_called_in_a_session(server, manager, tmp_path, approve):
    pool = await assemble_tool_pool([], manager, ToolPermissionContext(), DeferPolicy("never"))
    session = _session(server, tmp_path, pool, approve)
    server.push(reply(tool_use("mcp__demo__add", {"a": 2, "b": 3})))
    server.push(reply("The sum is 5."))
    try:
        outcome = await session.submit("add 2 and 3")
    finally:
        await session.aclose()
    assert outcome.text == "The sum is 5."
    first, second = server.message_requests
    sent = {t["name"]: t for t in first.body["tools"]}
    assert sent["mcp__demo__add"]["input_schema"]["required"] == ["a", "b"]
    (result,) = _tool_results(second)
    assert result["content"][0]["text"] == "5" and not result.get("is_error")


async def test_toolsearch_discovers_then_calls_deferred_tool(server, manager, tmp_path, approve):
    pool = await assemble_tool_pool([ToolSearchTool()], manager, ToolPermissionContext(), DeferPolicy("always"))
    session = _session(server, tmp_path, pool, approve)
    server.push(reply(tool_use("ToolSearch", {"query": "select:mcp__demo__add"})))
    server.push(reply(tool_use("mcp__demo__add", {"a": 20, "b": 22})))
    server.push(reply("42."))
    try:
        await session.submit("use the demo add tool")
    finally:
        await session.aclose()
    first, second, third = server.message_requests
    assert [t["name"] for t in first.body["tools"]] == ["ToolSearch"]
    found = _tool_results(second)[0]["content"][0]["text"]
    assert '"name": "mcp__demo__add"' in found
    assert _tool_results(third)[-1]["content"][0]["text"] == "42"
    sent_next, deferred = tools_for_request(session.context.options.tools, session.context.get_app_state())
    assert "mcp__demo__add" in [t.name for t in sent_next] and "mcp__demo__add" not in deferred


async def test_a_server_added_to_a_running_session_starts_and_its_tools_are_sent(server, tmp_path, approve):
    """``%agent --mcp`` on a session that has already run a turn: the new server starts before
    the next request, whose tool list has its tools (the first server's are still there)."""
    import sys

    from .conftest import DEMO

    demo = {"command": sys.executable, "args": [str(DEMO)]}
    config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False,
                             mcp_servers={"first": demo})
    session = AgentSession(config, can_use_tool=approve, tools=[])
    try:
        server.push(reply("hello"))
        await session.submit("hi")
        assert session.tool_pool.mcp.add_servers({"second": demo}) == []
        server.push(reply(tool_use("mcp__second__add", {"a": 1, "b": 2})), reply("3"))
        await session.submit("add")
    finally:
        await session.aclose()
    first_turn, second_turn, third = (r.body for r in server.message_requests)
    assert "mcp__first__add" in {t["name"] for t in first_turn["tools"]}
    assert {"mcp__first__add", "mcp__second__add"} <= {t["name"] for t in second_turn["tools"]}
    (result,) = [b for m in third["messages"] if m["role"] == "user" and isinstance(m["content"], list)
                 for b in m["content"] if b.get("type") == "tool_result"]
    assert result["content"][0]["text"] == "3" and not result.get("is_error")


async def test_the_resource_tools_find_the_sessions_servers(server, tmp_path, approve):
    """In a session (not only with hand-built options) the resource tools see the servers."""
    import sys

    from jupyter_agent.tools.mcp_resources import ListMcpResourcesTool, ReadMcpResourceTool

    from .conftest import DEMO

    config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False,
                             mcp_servers={"demo": {"command": sys.executable, "args": [str(DEMO)]}})
    session = AgentSession(config, can_use_tool=approve, tools=[ListMcpResourcesTool(), ReadMcpResourceTool()])
    server.push(reply(tool_use("ListMcpResourcesTool", {})),
                reply(tool_use("ReadMcpResourceTool", {"server": "demo", "uri": "note://hello"})), reply("done"))
    try:
        await session.submit("what resources are there?")
    finally:
        await session.aclose()
    listed = _tool_results(server.message_requests[1])[-1]
    read = _tool_results(server.message_requests[2])[-1]
    assert not listed.get("is_error") and "note://hello" in json.dumps(listed)
    assert not read.get("is_error") and read["content"][0]["text"] == "hello from the demo server"
