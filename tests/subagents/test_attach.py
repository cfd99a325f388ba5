"""attach_many_hands on a real AgentSession: a cron prompt fires into the session, and a
teammate's reply arrives as a prompt."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.events import TurnEnded, TurnStarted
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.subagents.attach import attach_many_hands, teammate_prompt
from jupyter_agent.subagents.team import TeamMessage
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.cron import CronCreateTool
from jupyter_agent.tools.team import TeamCreateTool
from tests.scheduler.clock import ManualClock

T0 = datetime(2026, 11, 30, 10, 0, 30, tzinfo=timezone.utc)


async def allow(tool, input, context, ask, tool_use_id):
    return PermissionAllow()


async def _turns(events, n):
    while sum(isinstance(e, TurnEnded) for e in events) < n:
        await asyncio.sleep(0.01)


async def test_cron_and_teammate_prompts_reach_the_session(tmp_path):
    clock = ManualClock(T0)
    with ScriptedServer() as server:
        server.route(lambda b: "Agent: general-purpose (alice)" in " ".join(x["text"] for x in b["system"]),
                     reply(text("alice: the data is clean")))
        server.push(
            reply(tool_use("CronCreate", {"cron": "*/5 * * * *", "prompt": "check the build", "recurring": False})),
            reply(text("Scheduled.")),
            reply(text("Build is green.")),
            reply(tool_use("TeamCreate", {"team_name": "crew"})),
            reply(tool_use("Agent", {"description": "check data", "prompt": "Is the data clean?", "name": "alice"})),
            reply(text("Alice is on it.")),
            reply(text("Alice says the data is clean.")),
        )
        config = SessionConfig(base_url=server.url, api_key="test", cwd=tmp_path, sessions_dir=tmp_path / "s",
                               home=tmp_path / "home", load_settings=False, retry=RetryPolicy(max_retries=0))
        session = AgentSession(config, can_use_tool=allow, tools=[CronCreateTool(), TeamCreateTool(), AgentTool()])
        hands = attach_many_hands(session, clock=clock)
        events = []
        session.subscribe(events.append)
        try:
            await session.submit("remind me to check the build")
            assert len(hands.scheduler.list()) == 1
            await clock.advance_to(datetime(2026, 11, 30, 10, 6, tzinfo=timezone.utc))
            await asyncio.wait_for(_turns(events, 2), 20)
            assert hands.scheduler.list() == []

            await session.submit("get alice to check the data")
            await asyncio.wait_for(_turns(events, 4), 20)
        finally:
            await hands.aclose()
            await session.aclose()
    prompts = [e.prompt for e in events if isinstance(e, TurnStarted)]
    assert prompts == [
        "remind me to check the build",
        "check the build",
        "get alice to check the data",
        teammate_prompt(TeamMessage("alice", "lead", "alice: the data is clean")),
    ]
    assert session.messages[-1]["content"][0]["text"] == "Alice says the data is clean."
