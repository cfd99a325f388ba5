"""A session without MCP servers never imports the MCP SDK (a second or two at the first
``%agent``, measured in a real kernel); the first server, or an MCP name, still brings it."""

from __future__ import annotations

import json
import subprocess
import sys

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use

_RUN = """
import asyncio, json, sys
from pathlib import Path
from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.session import AgentSession
args = json.loads(sys.argv[1])
tmp = Path(args["tmp"])
config = SessionConfig(model="claude-sonnet-5-5", max_tokens=512, cwd=tmp, sessions_dir=tmp / "sessions",
                       home=tmp / "home", base_url=args["url"], api_key="k", mcp_servers=args["servers"])

async def main():
    session = AgentSession(config)
    outcome = await session.submit("list the resources")
    await session.aclose()
    return outcome

outcome = asyncio.run(main())
print(json.dumps({"stop": outcome.stop_reason, "mcp": "mcp" in sys.modules, "mcp_types": "mcp_types" in sys.modules}))
"""


def _run(server: ScriptedServer, tmp_path, servers) -> dict:
    args = json.dumps({"tmp": str(tmp_path), "url": server.url, "servers": servers})
    proc = subprocess.run([sys.executable, "-c", _RUN, args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_session_without_servers_does_not_import_the_sdk(tmp_path):
    with ScriptedServer() as server:
        # the resource tools are in every session: one runs, and finds no server
        server.push(reply(tool_use("ListMcpResourcesTool", {})), reply(text("none")))
        seen = _run(server, tmp_path, None)
        assert seen == {"stop": "end_turn", "mcp": False, "mcp_types": False}
        [first, second] = server.message_requests
        assert "ListMcpResourcesTool" in json.dumps(first.body["tools"]) or "ToolSearch" in json.dumps(first.body["tools"])
        assert "No resources found" in json.dumps(second.body["messages"][-1])


def test_a_session_with_a_server_loads_it(tmp_path):
    from tests.mcp.conftest import DEMO

    with ScriptedServer() as server:
        server.push(reply(text("ok")))
        seen = _run(server, tmp_path, {"demo": {"command": sys.executable, "args": [str(DEMO)]}})
        assert seen["stop"] == "end_turn" and seen["mcp"] and seen["mcp_types"]
