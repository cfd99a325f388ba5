"""MCP servers' tools reach the model through the session, and their calls run on the server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jupyter_agent.testing import reply, tool_use

from .history_check import result_text, tool_results

DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"

pytestmark = pytest.mark.skipif(not DEMO.exists(), reason="the MCP demo server is not in this checkout")


async def test_mcp_server_tools_are_sent_and_called(server, make_session):
    servers = {"demo": {"command": sys.executable, "args": [str(DEMO), "stdio"]}}
    server.push(reply(tool_use("mcp__demo__add", {"a": 2, "b": 40}, id="m1")), reply("2 + 40 = 42"))
    session, _ = make_session([], mcp_servers=servers)
    try:
        outcome = await session.submit("add 2 and 40 with the demo server")
    finally:
        await session.aclose()
    assert outcome.text == "2 + 40 = 42"
    first = server.message_requests[0].body
    assert "mcp__demo__add" in [t["name"] for t in first["tools"]]
    assert "use add for sums" in server.message_requests[0].system_text  # the server's instructions
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result_text(result).strip() == "42"


async def test_a_broken_mcp_server_is_reported_and_the_turn_goes_on(server, make_session):
    from jupyter_agent.agent.events import AgentErrorEvent

    servers = {"broken": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}}
    server.push(reply("fine without it"))
    session, events = make_session([], mcp_servers=servers)
    try:
        outcome = await session.submit("hi")
    finally:
        await session.aclose()
    assert outcome.text == "fine without it"
    assert any(e.kind == "mcp" and "broken" in e.message for e in events.of(AgentErrorEvent))
