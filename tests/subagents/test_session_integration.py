"""A real AgentSession (helper D's) whose model calls Agent: the subagent runs on the same SDK client."""

from __future__ import annotations

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.events import ToolCallProgress
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.subagents.runner import SubagentEvent
from jupyter_agent.subagents.runtime import attach_subagents
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.read import ReadTool
from tests.support.sessions import scripted_config


def _is_subagent(body) -> bool:
    system = body.get("system") or []
    first = system[0].get("text", "") if system and isinstance(system[0], dict) else str(system)
    return first.startswith("You are a read-only code exploration agent")


async def test_session_runs_an_explore_subagent(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    asks = []

    async def approve(tool, input, context, ask, tool_use_id):
        asks.append(tool.name)
        return PermissionAllow()

    with ScriptedServer() as server:
        server.route(
            _is_subagent,
            reply(tool_use("Read", {"file_path": str(tmp_path / "data.csv")})),
            reply(text("data.csv has columns a and b.")),
            name="sub",
        )
        server.push(
            reply(tool_use("Agent", {"description": "inspect csv", "prompt": "Describe data.csv", "subagent_type": "Explore"})),
            reply(text("The file has two columns.")),
        )
        config = scripted_config(server, tmp_path, load_settings=False, retry=RetryPolicy(max_retries=0))
        session = AgentSession(config, can_use_tool=approve, tools=[AgentTool(), ReadTool()])
        attach_subagents(session)
        events = []
        session.subscribe(events.append)
        try:
            outcome = await session.submit("What is in data.csv?")
        finally:
            await session.aclose()
    assert outcome.stop_reason == "end_turn" and outcome.text == "The file has two columns."
    routes = [r.route for r in server.message_requests]
    assert routes == ["default", "sub", "sub", "default"]
    result_block = server.message_requests[3].body["messages"][-1]["content"][0]
    assert result_block["type"] == "tool_result" and "columns a and b" in str(result_block["content"])
    nested = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert any(isinstance(d, SubagentEvent) and d.agent_type == "Explore" for d in nested)
    assert asks == []  # Explore's reads need no approval
