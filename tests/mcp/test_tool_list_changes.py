"""A server's tool list that changes while it runs: the connection hears of it (a listen stream
on 2026-07-28, a list_changed notice before) and the session's next request carries the new list."""

from __future__ import annotations

import asyncio
import functools
import sys
from pathlib import Path

import pytest

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.mcp import McpManager
from jupyter_agent.mcp.config import McpServerEntry, StdioServerConfig
from jupyter_agent.testing import ScriptedServer, reply, tool_use
from tests.support.sessions import scripted_config

DYNAMIC = Path(__file__).parent / "servers" / "dynamic_server.py"


@pytest.fixture(params=["2026-07-28", "2025-11-25"])
def protocol(request, monkeypatch):
    if request.param == "2025-11-25":  # the real SDK client, made to connect the older way
        from mcp import Client

        from jupyter_agent.mcp import connection

        monkeypatch.setattr(connection, "Client", functools.partial(Client, mode="legacy"))
    return request.param


async def test_the_connection_fetches_a_changed_tool_list(protocol, tmp_path):
    manager = McpManager([McpServerEntry("dynamic", StdioServerConfig(command=sys.executable, args=(str(DYNAMIC),)))])
    await manager.ensure_started()
    conn = manager.connections["dynamic"]
    try:
        assert [t.name for t in conn.tools] == ["unlock", "lock", "jam_prompts"]
        assert await manager.tool_lists_version() == 0
        await conn.call_tool("unlock", {})
        assert await manager.tool_lists_version() == 1  # waits for the fetch the notice started
        assert [t.name for t in conn.tools] == ["unlock", "lock", "jam_prompts", "vault_read"]
        await conn.call_tool("lock", {})
        assert await manager.tool_lists_version() == 2
        assert [t.name for t in conn.tools] == ["unlock", "lock", "jam_prompts"]
    finally:
        await manager.aclose()


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


async def test_the_next_request_carries_the_tools_a_call_unlocked(protocol, server, tmp_path, approve):
    config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False,
                             mcp_servers={"dynamic": {"command": sys.executable, "args": [str(DYNAMIC)]}})
    session = AgentSession(config, can_use_tool=approve, tools=[])
    notices = []
    session.subscribe(lambda e: notices.append(e.message) if isinstance(e, AgentErrorEvent) else None)
    server.push(
        reply(tool_use("mcp__dynamic__unlock", {})),
        reply(tool_use("mcp__dynamic__vault_read", {"key": "db"})),
        reply(tool_use("mcp__dynamic__lock", {})),
        reply("Done."),
    )
    try:
        await session.submit("read the db secret, then lock the vault")
    finally:
        await session.aclose()
    first, second, third, fourth = ({t["name"] for t in r.body["tools"]} for r in server.message_requests)
    assert "mcp__dynamic__vault_read" not in first
    assert "mcp__dynamic__vault_read" in second  # the request right after the unlocking call
    assert "mcp__dynamic__vault_read" in third and "mcp__dynamic__vault_read" not in fourth
    results = [b for m in server.message_requests[2].body["messages"] if m["role"] == "user"
               and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert results[-1]["content"][0]["text"] == "secret for db" and not results[-1].get("is_error")
    assert [n for n in notices if n.startswith("MCP tools changed")] == [
        "MCP tools changed: added mcp__dynamic__vault_read.",
        "MCP tools changed: removed mcp__dynamic__vault_read."]


async def test_the_connection_lists_a_changed_prompt_list_again(protocol, tmp_path):
    """Prompts are commands (/mcp__server__prompt): a server that adds or removes one says so,
    and the connection lists them again without waiting for an unknown command to be typed."""
    manager = McpManager([McpServerEntry("dynamic", StdioServerConfig(command=sys.executable, args=(str(DYNAMIC),)))])
    await manager.ensure_started()
    conn = manager.connections["dynamic"]
    try:
        assert [p.name for p in conn.prompts] == ["status"]
        await conn.call_tool("unlock", {})
        assert await _prompts_become(conn, ["status", "vault_help"])
        await conn.call_tool("lock", {})
        assert await _prompts_become(conn, ["status"])
    finally:
        await manager.aclose()


async def test_a_prompt_list_that_fails_to_load_again_keeps_the_old_one(protocol, tmp_path):
    """A server says its prompts changed, then fails to list them: the commands it had stay
    (as a tool list that fails to load again does) rather than all vanishing."""
    manager = McpManager([McpServerEntry("dynamic", StdioServerConfig(command=sys.executable, args=(str(DYNAMIC),)))])
    await manager.ensure_started()
    conn = manager.connections["dynamic"]
    try:
        await conn.call_tool("unlock", {})
        assert await _prompts_become(conn, ["status", "vault_help"])
        tried = conn._prompt_list.runs
        await conn.call_tool("jam_prompts", {})
        for _ in range(200):  # the notice may be heard just after the call returns
            await conn.prompts_settled()
            if conn._prompt_list.runs > tried:
                break
            await asyncio.sleep(0.05)
        assert conn._prompt_list.runs > tried  # it did try to list them again ...
        assert [p.name for p in conn.prompts] == ["status", "vault_help"]  # ... and kept them
        assert conn.status == "connected"
    finally:
        await manager.aclose()


async def _prompts_become(conn, names, within=10.0):
    """The notice travels beside the call's result (on 2026-07-28 in the listen stream), so
    it may be heard just after the call returns: wait for the listing it starts, bounded."""
    for _ in range(int(within / 0.05)):
        await conn.prompts_settled()
        if [p.name for p in conn.prompts] == names:
            return True
        await asyncio.sleep(0.05)
    return False
