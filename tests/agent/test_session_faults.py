"""Every fault the scripted server injects: the turn recovers or fails clearly; no tool runs twice."""

from __future__ import annotations

import pytest

from jupyter_agent.agent.events import AgentErrorEvent, TurnEnded
from jupyter_agent.agent.retry import AUTH_HELP, RetryPolicy
from jupyter_agent.testing import drop_mid_stream, fault_status, malformed_stream, reply, text, tool_use
from tests.support.tools import SleepTool, Tracker

from .history_check import assert_valid_history


async def test_429_waits_as_long_as_retry_after_says(server, make_session, sleeps):
    server.push(fault_status(429, retry_after=7))
    server.push(reply("recovered"))
    session, events = make_session()
    outcome = await session.submit("go")
    assert outcome.text == "recovered"
    assert sleeps.delays == [7.0]
    [warning] = events.of(AgentErrorEvent)
    assert warning.retrying and warning.kind == "rate_limit"
    assert len(server.message_requests) == 2
    # refused before anything streamed: nothing to discard, and the server's message is a sentence
    assert warning.message == ("Rate limited (429): Number of request tokens has exceeded your per-minute rate "
                               "limit. Retrying in 7.0s (attempt 1 of 4).")


async def test_a_retry_after_part_of_the_reply_says_the_part_is_discarded(server, make_session):
    server.push(drop_mid_stream(6, text("The answer is forty-two, and here is why.")))
    server.push(reply("whole"))
    session, events = make_session()
    assert (await session.submit("go")).text == "whole"
    [warning] = events.of(AgentErrorEvent)
    assert warning.retrying and warning.message.endswith("; the partial reply is discarded.")


@pytest.mark.parametrize(("status", "kind"), [(529, "overloaded"), (500, "server")])
async def test_overload_and_5xx_back_off_with_growing_delays(server, make_session, sleeps, status, kind):
    server.push(fault_status(status), fault_status(status), fault_status(status))
    server.push(reply("finally"))
    session, events = make_session()
    outcome = await session.submit("go")
    assert outcome.text == "finally"
    assert len(sleeps.delays) == 3
    assert sleeps.delays[0] < sleeps.delays[1] < sleeps.delays[2]  # exponential, jitter ≤ 25%
    assert {e.kind for e in events.of(AgentErrorEvent)} == {kind}


async def test_out_of_retries_fails_the_turn_and_session_stays_usable(server, make_session):
    for _ in range(5):
        server.push(fault_status(529))
    session, events = make_session()
    outcome = await session.submit("go")
    assert outcome.stop_reason == "error"
    assert "overloaded" in outcome.error
    assert events.of(TurnEnded)[-1].stop_reason == "error"
    server.push(reply("back"))
    assert (await session.submit("again")).text == "back"
    assert_valid_history(session.messages)


async def test_dropped_stream_after_tool_use_is_retried_and_tool_runs_once(server, make_session, sleeps):
    tracker = Tracker()
    call = tool_use("Sleep", {"label": "once"}, id="t-once")
    server.push(drop_mid_stream(7, text("Running it."), call))  # dies inside the tool_use block
    server.push(reply(text("Running it."), call))
    server.push(reply("Ran once."))
    session, events = make_session([SleepTool(tracker)])
    outcome = await session.submit("run")
    assert outcome.text == "Ran once."
    assert tracker.log == ["start once", "end once"]
    assert [e.kind for e in events.of(AgentErrorEvent)] == ["network"]
    assert len(sleeps.delays) == 1
    assert_valid_history(session.messages)


async def test_drop_after_complete_tool_use_still_runs_nothing_until_complete(server, make_session):
    tracker = Tracker()
    call = tool_use("Sleep", {"label": "x"}, id="t-x")
    # all content blocks arrived, the connection dies before message_delta / message_stop
    server.push(reply(call, drop_after_events=5))
    server.push(reply(call))
    server.push(reply("ok"))
    session, _ = make_session([SleepTool(tracker)])
    await session.submit("run")
    assert tracker.log == ["start x", "end x"]


async def test_malformed_stream_is_retried(server, make_session):
    server.push(malformed_stream(3))
    server.push(reply("clean"))
    session, events = make_session()
    assert (await session.submit("go")).text == "clean"
    assert events.of(AgentErrorEvent)[0].retrying


async def test_error_event_inside_stream_is_retried(server, make_session):
    server.push(reply("half", error_event_after=3))
    server.push(reply("whole"))
    session, _ = make_session()
    assert (await session.submit("go")).text == "whole"


async def test_slow_stream_completes(server, make_session):
    server.push(reply("s" * 40, chunk_chars=4, delay_s=0.01))
    session, events = make_session()
    assert (await session.submit("go")).text == "s" * 40


@pytest.mark.parametrize(
    ("status", "expect"),
    [
        (401, "ANTHROPIC_API_KEY"),
        (403, "may use model"),
        (400, "rejected the request (400)"),
        (404, "Check the model id"),
    ],
)
async def test_client_errors_fail_at_once_with_what_to_fix(server, make_session, sleeps, status, expect):
    server.push(fault_status(status))
    session, events = make_session()
    outcome = await session.submit("go")
    assert outcome.stop_reason == "error"
    assert expect in outcome.error
    assert sleeps.delays == []
    assert len(server.message_requests) == 1
    [error] = events.of(AgentErrorEvent)
    assert not error.retrying


async def test_missing_api_key_says_how_to_set_it(server, make_session, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    session, events = make_session(api_key=None)
    outcome = await session.submit("go")
    assert outcome.stop_reason == "error"
    assert AUTH_HELP in outcome.error
    assert server.message_requests == []


def test_retry_delay_policy():
    policy = RetryPolicy(base_delay=1, max_delay=8, jitter=0)
    assert [policy.delay(n, None) for n in range(1, 6)] == [1, 2, 4, 8, 8]
    assert policy.delay(1, 30) == 30
    assert RetryPolicy(max_retry_after=10).delay(1, 600) == 10
    jittered = RetryPolicy(base_delay=1, jitter=0.5)
    assert all(1 <= jittered.delay(1, None) <= 1.5 for _ in range(50))
