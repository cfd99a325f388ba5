"""JSONL transcripts: what is written, and resuming a session (latest or by id)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.agent.transcript import load_transcript
from jupyter_agent.core.events import ToolCallStarted
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.testing import reply, tool_use
from tests.support.tools import GuardedTool, SleepTool

from .history_check import assert_valid_history


def entries(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_transcript_records_messages_tools_decisions_usage(server, make_session, reject):
    server.push(reply(tool_use("Guarded", {"path": "ok/f"}, id="g1")), reply("understood"))
    session, _ = make_session([GuardedTool()], can_use_tool=reject)
    await session.submit("write f")
    await session.aclose()
    kinds = [e["type"] for e in entries(session.transcript_path)]
    assert kinds[0] == "session"
    for kind in ("message", "tool_call", "permission", "usage", "turn"):
        assert kind in kinds
    permission = next(e for e in entries(session.transcript_path) if e["type"] == "permission")
    assert permission == {**permission, "tool_use_id": "g1", "allowed": False}
    tool_call = next(e for e in entries(session.transcript_path) if e["type"] == "tool_call")
    assert tool_call["decision"] == "user-deny" and tool_call["input"] == {"path": "ok/f", "text": ""}
    assert load_transcript(session.transcript_path).messages == session.messages


async def test_resume_latest_continues_the_conversation(server, make_session, tmp_path):
    server.push(reply("first answer"))
    session, _ = make_session()
    await session.submit("remember 42")
    await session.aclose()
    config = SessionConfig(
        cwd=tmp_path, sessions_dir=tmp_path / "sessions", base_url=server.url, api_key="k", home=tmp_path
    )
    resumed = AgentSession.resume(config=config, tools=[])
    assert resumed.id == session.id
    assert resumed.messages == session.messages
    assert resumed.usage == session.usage and resumed.cost_usd == pytest.approx(session.cost_usd)
    server.push(reply("it was 42"))
    await resumed.submit("what number?")
    sent = server.message_requests[-1].messages
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[0]["content"][0]["text"] == "remember 42"
    await resumed.aclose()
    again = AgentSession.resume(session.id, config=config, tools=[])
    assert len(again.messages) == 4


async def test_resume_by_id_picks_that_session(server, make_session, tmp_path):
    server.push(reply("a"), reply("b"))
    one, _ = make_session()
    await one.submit("session one")
    await one.aclose()
    two, _ = make_session()
    await two.submit("session two")
    await two.aclose()
    os.utime(one.transcript_path, (1, 1))  # make "two" clearly the latest
    config = SessionConfig(cwd=tmp_path, sessions_dir=tmp_path / "sessions", api_key="k", home=tmp_path)
    assert AgentSession.resume(config=config, tools=[]).id == two.id
    picked = AgentSession.resume(one.id, config=config, tools=[])
    assert picked.messages[0]["content"][0]["text"] == "session one"


async def test_resume_after_interrupted_tool_turn_is_valid(server, make_session, tmp_path):
    server.push(reply(tool_use("Sleep", {"label": "s", "seconds": 30}, id="s1")))
    session, _ = make_session([SleepTool(behavior="cancel")])
    loop = asyncio.get_running_loop()
    session.subscribe(lambda e: loop.call_soon(session.stop) if isinstance(e, ToolCallStarted) else None)
    await session.submit("sleep")
    await session.aclose()
    config = SessionConfig(cwd=tmp_path, sessions_dir=tmp_path / "sessions", api_key="k", home=tmp_path)
    resumed = AgentSession.resume(config=config, tools=[])
    assert resumed.messages == session.messages
    assert_valid_history(resumed.messages)


def test_resume_without_sessions_is_a_clear_error(tmp_path):
    config = SessionConfig(cwd=tmp_path, sessions_dir=tmp_path / "none", api_key="k")
    with pytest.raises(AgentConfigError, match="No saved sessions"):
        AgentSession.resume(config=config, tools=[])
    (tmp_path / "none").mkdir()
    with pytest.raises(AgentConfigError, match="No session 'nope'"):
        AgentSession.resume("nope", config=config, tools=[])


def test_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "s.jsonl"
    good = {"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}
    path.write_text(json.dumps(good) + "\n" + '{"type": "message", "mess')
    loaded = load_transcript(path)
    assert loaded.skipped_lines == 1
    assert loaded.messages == [good["message"]]


async def test_resume_with_another_model_drops_old_thinking(server, make_session, tmp_path):
    from jupyter_agent.testing import thinking

    server.push(reply(thinking("sonnet thoughts"), "answer"))
    session, _ = make_session()
    await session.submit("q")
    await session.aclose()
    config = SessionConfig(
        model="claude-opus-5-5", cwd=tmp_path, sessions_dir=tmp_path / "sessions", base_url=server.url,
        api_key="k", home=tmp_path,
    )
    resumed = AgentSession.resume(config=config, tools=[])
    server.push(reply("ok"))
    await resumed.submit("again")
    assert "sonnet thoughts" not in str(server.message_requests[-1].messages)
    await resumed.aclose()
    assert "sonnet thoughts" not in str(AgentSession.resume(config=config, tools=[]).messages)


def test_missing_session_is_also_a_lookup_error(tmp_path):
    config = SessionConfig(cwd=tmp_path, sessions_dir=tmp_path / "none", api_key="k")
    with pytest.raises(LookupError):
        AgentSession.resume(config=config, tools=[])


def test_default_sessions_dir_is_per_project(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(tmp_path / "home"))
    a = SessionConfig(cwd=tmp_path / "a").resolved_sessions_dir()
    b = SessionConfig(cwd=tmp_path / "b").resolved_sessions_dir()
    assert a != b and a.parent == b.parent == tmp_path / "home" / "sessions"
    assert a.name.endswith("-a")
