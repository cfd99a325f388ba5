"""SubagentStart and SubagentStop hooks around a real subagent run (the scripted model through
the real SDK): context added to the subagent's prompt, and a stop hook that sends it back."""

from __future__ import annotations

import json
import sys

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.subagents.runtime import attach_subagents
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.read import ReadTool
from tests.subagents.test_session_integration import _is_subagent
from tests.support.sessions import scripted_config


def _hook_script(tmp_path, name, output, block_first=False):
    """A command hook that records its input; prints ``output`` (or exits 2 the first time)."""
    path = tmp_path / name
    path.write_text(
        f"#!{sys.executable}\nimport json, sys, os\nd = json.load(sys.stdin)\n"
        f"log = {str(tmp_path / (name + '.log'))!r}\nopen(log, 'a').write(json.dumps(d) + '\\n')\n"
        + ("if not d['stop_hook_active']:\n    print('Also list the column types.', file=sys.stderr)\n    sys.exit(2)\n"
           if block_first else "")
        + f"print({json.dumps(output)!r})\n"
    )
    path.chmod(0o755)
    return str(path), tmp_path / (name + ".log")


async def test_subagent_start_and_stop_hooks(tmp_path):
    start_ctx = json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart",
                                                   "additionalContext": "The data is in UTF-16."}})
    start, start_log = _hook_script(tmp_path, "start.py", start_ctx)
    stop, stop_log = _hook_script(tmp_path, "stop.py", "", block_first=True)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "SubagentStart": [{"matcher": "Explore", "hooks": [{"type": "command", "command": start}]}],
        "SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": stop}]}],
    }}))

    async def approve(tool, input, context, ask, tool_use_id):
        return PermissionAllow()

    with ScriptedServer() as server:
        server.route(_is_subagent, reply(text("Columns a and b.")), reply(text("a: int, b: int.")), name="sub")
        server.push(
            reply(tool_use("Agent", {"description": "inspect", "prompt": "Describe data.csv", "subagent_type": "Explore"})),
            reply(text("Done.")),
        )
        config = scripted_config(server, tmp_path, trust_project=True, retry=RetryPolicy(max_retries=0))
        session = AgentSession(config, can_use_tool=approve, tools=[AgentTool(), ReadTool()])
        attach_subagents(session)
        try:
            outcome = await session.submit("What is in data.csv?")
        finally:
            await session.aclose()
    assert outcome.stop_reason == "end_turn"
    assert [r.route for r in server.message_requests] == ["default", "sub", "sub", "default"]
    first = json.dumps(server.message_requests[1].body["messages"][0])
    assert "Describe data.csv" in first and "The data is in UTF-16." in first
    again = json.dumps(server.message_requests[2].body["messages"][-1])
    assert "A SubagentStop hook says: Also list the column types." in again
    result = json.dumps(server.message_requests[3].body["messages"][-1])
    assert "a: int, b: int." in result
    [started] = [json.loads(line) for line in start_log.read_text().splitlines()]
    assert started["hook_event_name"] == "SubagentStart" and started["agent_type"] == "Explore"
    stops = [json.loads(line) for line in stop_log.read_text().splitlines()]
    assert [s["stop_hook_active"] for s in stops] == [False, True] and stops[0]["agent_id"] == started["agent_id"]
