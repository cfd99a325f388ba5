from __future__ import annotations

import asyncio

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.subagents.runtime import RUNTIME_KEY
from jupyter_agent.subagents.team import get_team
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.list_peers import ListPeersTool
from jupyter_agent.tools.send_message import SendMessageTool
from jupyter_agent.tools.team import TeamCreateTool, TeamDeleteTool
from tests.support.sessions import scripted_runtime
from tests.support.tools import make_context


async def allow(tool, input, context, ask, tool_use_id):
    return PermissionAllow()


def member(name):
    """Route a request to the teammate whose system prompt names it."""
    return lambda body: f"Agent: general-purpose ({name})" in " ".join(b["text"] for b in body["system"])


def last_text(request) -> str:
    return request.body["messages"][-1]["content"][-1]["text"]


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def _ctx(server, tmp_path):
    ctx = make_context(
        [AgentTool(), TeamCreateTool(), TeamDeleteTool(), SendMessageTool(), ListPeersTool()], tmp_path
    )
    ctx.extra[RUNTIME_KEY] = scripted_runtime(server, tmp_path)
    return ctx


async def _run(ctx, name, inp):
    out = await run_tool_use(ToolUseRequest(f"id_{name}", name, inp), ctx, allow)
    return out


async def test_team_lifecycle_with_messages_between_teammates(server, tmp_path):
    server.route(member("alice"),
                 reply(text("alice: ready")),
                 reply(text("alice: 2+2=4")))
    server.route(member("bob"),
                 reply(tool_use("SendMessage", {"to": "alice", "message": "what is 2+2?"})),
                 reply(text("bob: asked alice")),
                 reply(text("bob: alice says 4")))
    ctx = _ctx(server, tmp_path)

    assert (await _run(ctx, "SendMessage", {"to": "x", "message": "hi"})).is_error
    out = await _run(ctx, "TeamCreate", {"team_name": "crew", "description": "math"})
    assert "Team 'crew' created" in out.text
    assert "already exists" in (await _run(ctx, "TeamCreate", {"team_name": "again"})).text
    team = get_team(ctx.get_app_state())

    out = await _run(ctx, "Agent", {"description": "helper", "prompt": "Say ready", "name": "alice"})
    assert "Teammate 'alice' (general-purpose) joined team 'crew'" in out.text
    await asyncio.wait_for(team.wait_for_lead_messages(1), 20)
    assert [(m.sender, m.text) for m in team.lead_inbox] == [("alice", "alice: ready")]

    await _run(ctx, "Agent", {"description": "asker", "prompt": "Ask alice for 2+2", "name": "bob"})
    await asyncio.wait_for(team.wait_for_lead_messages(3), 20)
    # bob's SendMessage queued a question for alice; alice's reply went back to bob, whose answer came to lead.
    assert [(m.sender, m.text) for m in team.lead_inbox] == [
        ("alice", "alice: ready"), ("bob", "bob: asked alice"), ("bob", "bob: alice says 4"),
    ]
    bob_requests = [r for r in server.message_requests if r.route.startswith("route2")]
    assert last_text(bob_requests[-1]) == "Message from alice:\nalice: 2+2=4"
    alice_requests = [r for r in server.message_requests if r.route.startswith("route1")]
    assert len(alice_requests) == 2 and last_text(alice_requests[1]) == "Message from bob:\nwhat is 2+2?"

    peers = await _run(ctx, "ListPeers", {})
    assert "- alice (general-purpose): idle, 0 queued, 2 handled" in peers.text
    assert "- bob (general-purpose): idle, 0 queued, 2 handled" in peers.text
    assert '<message from="bob">\nbob: alice says 4\n</message>' in peers.text
    assert team.lead_inbox == []  # shown once

    taken = await _run(ctx, "Agent", {"description": "dup", "prompt": "x", "name": "alice"})
    assert taken.is_error and "is taken" in taken.text
    bad = await _run(ctx, "SendMessage", {"to": "carol", "message": "hi"})
    assert bad.is_error and "Team members: alice, bob" in bad.text

    out = await _run(ctx, "TeamDelete", {})
    assert "Team 'crew' deleted (alice, bob stopped)" in out.text
    assert get_team(ctx.get_app_state()) is None
    assert all(m.status == "stopped" for m in team.members.values())
    assert (await _run(ctx, "ListPeers", {})).is_error


async def test_teammates_cannot_manage_the_team(server, tmp_path):
    ctx = _ctx(server, tmp_path)
    sub = ctx.with_changes(agent_id="alice")
    assert "Only the main agent" in (await _run(sub, "TeamCreate", {"team_name": "x"})).text


async def test_teammate_idle_hooks_send_a_teammate_back_to_work_or_stop_it(server, tmp_path):
    """Exit 2 from a TeammateIdle hook: the teammate keeps working with the hook's words (its
    reply is the later turn's); ``continue: false``: it stops after replying."""
    from jupyter_agent.permissions.hooks import HOOKS_KEY, HookRunner
    from jupyter_agent.permissions.hooks_config import parse_hooks

    count = tmp_path / "count"
    guard = (f"n=$(cat {count} 2>/dev/null || echo 0); echo $((n+1)) > {count}; "
             f"if [ $n = 0 ]; then echo 'run the tests before you stop' >&2; exit 2; fi; "
             f"if [ $n = 2 ]; then echo '{{\"continue\": false, \"stopReason\": \"enough\"}}'; fi")
    server.route(member("carol"), reply(text("carol: done")), reply(text("carol: tests pass, done")),
                 reply(text("carol: second job done")))
    ctx = _ctx(server, tmp_path)
    ctx.extra[HOOKS_KEY] = HookRunner(parse_hooks({"TeammateIdle": [{"hooks": [{"type": "command", "command": guard}]}]},
                                                  tmp_path / "settings.json", "userSettings"), cwd=tmp_path)
    await _run(ctx, "TeamCreate", {"team_name": "crew"})
    team = get_team(ctx.get_app_state())
    await _run(ctx, "Agent", {"description": "worker", "prompt": "Do the job", "name": "carol"})
    await asyncio.wait_for(team.wait_for_lead_messages(1), 20)
    assert [m.text for m in team.lead_inbox] == ["carol: tests pass, done"]
    carol = [r for r in server.message_requests if r.route.startswith("route")]
    assert last_text(carol[1]) == "TeammateIdle hook feedback:\nrun the tests before you stop"
    team.deliver(type(team.lead_inbox[0])("lead", "carol", "one more job"))
    await asyncio.wait_for(team.wait_for_lead_messages(2), 20)
    assert team.lead_inbox[-1].text == "carol: second job done"
    assert team.members["carol"].status == "stopped"
