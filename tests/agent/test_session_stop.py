"""Stopping: mid-tool and mid-stream; queued prompts dropped; the next turn works."""

from __future__ import annotations

import asyncio

from jupyter_agent.agent.events import TextDelta, TurnEnded
from jupyter_agent.agent.history import INTERRUPT_TEXT
from jupyter_agent.core.events import ToolCallStarted
from jupyter_agent.core.orchestration import INTERRUPTED_MESSAGE
from jupyter_agent.testing import reply, tool_use
from tests.support.tools import SleepTool, Tracker

from .history_check import assert_valid_history, blocks, result_text, tool_results


def stop_on(session, kind):
    """Call session.stop() (on the loop, as the UI would) at the first event of ``kind``."""
    loop = asyncio.get_running_loop()
    fired = []

    def watch(event):
        if isinstance(event, kind) and not fired:
            fired.append(event)
            loop.call_soon(session.stop)

    session.subscribe(watch)
    return fired


async def test_stop_mid_tool_cancels_and_keeps_history_valid(server, make_session):
    tracker = Tracker()
    server.push(reply(tool_use("Sleep", {"label": "long", "seconds": 30}, id="t1"), tool_use("Sleep", {"label": "l2", "seconds": 30}, id="t2")))
    session, events = make_session([SleepTool(tracker, behavior="cancel")])
    stop_on(session, ToolCallStarted)
    outcome = await asyncio.wait_for(session.submit("sleep"), 10)
    assert outcome.stop_reason == "interrupted"
    assert events.of(TurnEnded)[-1].stop_reason == "interrupted"
    results = tool_results(session.messages[-1])
    assert [r["tool_use_id"] for r in results] == ["t1", "t2"]
    assert all(result_text(r) == INTERRUPTED_MESSAGE for r in results)
    assert blocks(session.messages[-1])[-1]["text"] == INTERRUPT_TEXT
    assert_valid_history(session.messages)
    server.push(reply("Next turn works."))
    assert (await session.submit("continue")).text == "Next turn works."
    assert_valid_history(server.message_requests[-1].messages)


async def test_stop_lets_a_blocking_tool_finish(server, make_session):
    tracker = Tracker()
    server.push(reply(tool_use("Sleep", {"label": "blk", "seconds": 0.2}, id="b1")))
    session, _ = make_session([SleepTool(tracker, behavior="block")])
    stop_on(session, ToolCallStarted)
    outcome = await asyncio.wait_for(session.submit("go"), 10)
    assert outcome.stop_reason == "interrupted"
    [result] = tool_results(session.messages[-1])
    assert result_text(result) == "slept blk"  # "block" tools finish; their result is kept
    assert tracker.log == ["start blk", "end blk"]
    assert_valid_history(session.messages)


async def test_stop_mid_stream_keeps_seen_text(server, make_session):
    server.push(reply("word " * 200, chunk_chars=5, delay_s=0.02))
    session, events = make_session()
    stop_on(session, TextDelta)
    outcome = await asyncio.wait_for(session.submit("talk"), 10)
    assert outcome.stop_reason == "interrupted"
    partial = session.messages[-2]
    assert partial["role"] == "assistant"
    assert 0 < len(partial["content"][0]["text"]) < len("word " * 200)
    assert blocks(session.messages[-1])[-1]["text"] == INTERRUPT_TEXT
    assert_valid_history(session.messages)
    server.push(reply("ok"))
    assert (await session.submit("go on")).text == "ok"


async def test_stop_before_any_text_leaves_valid_history(server, make_session):
    server.push(reply("late", delay_s=0.5))
    session, _ = make_session()
    task = session.submit("x")
    await asyncio.sleep(0.1)
    session.stop()
    outcome = await asyncio.wait_for(task, 10)
    assert outcome.stop_reason == "interrupted"
    assert [m["role"] for m in session.messages] == ["user"]
    server.push(reply("fine"))
    assert (await session.submit("y")).text == "fine"
    first_user = server.message_requests[-1].messages[0]
    assert [b["text"] for b in blocks(first_user)] == ["x", INTERRUPT_TEXT, "y"]


async def test_stop_drops_queued_prompts(server, make_session):
    server.push(reply("slow " * 50, chunk_chars=5, delay_s=0.02))
    session, events = make_session()
    stop_on(session, TextDelta)
    first = session.submit("one")
    second = session.submit("two")
    a, b = await asyncio.wait_for(asyncio.gather(first, second), 10)
    assert (a.stop_reason, b.stop_reason) == ("interrupted", "interrupted")
    assert len(server.message_requests) == 1  # "two" never reached the model
    assert [e.stop_reason for e in events.of(TurnEnded)] == ["interrupted", "interrupted"]


async def test_aclose_cancels_a_running_turn(server, make_session):
    tracker = Tracker()
    server.push(reply(tool_use("Sleep", {"label": "z", "seconds": 30}, id="z1")))
    session, events = make_session([SleepTool(tracker, behavior="cancel")])
    task = session.submit("go")
    started = asyncio.Event()
    session.subscribe(lambda e: started.set() if isinstance(e, ToolCallStarted) else None)
    await asyncio.wait_for(started.wait(), 10)
    await asyncio.wait_for(session.aclose(), 10)
    assert task.done()
    assert tracker.log == ["start z", "end z"]
    assert_valid_history(session.messages)


async def test_stop_while_an_approval_is_pending_withdraws_it(server, make_session):
    from jupyter_agent.agent.approval import STOPPED_MESSAGE
    from jupyter_agent.core.events import PermissionRequested
    from tests.support.tools import GuardedTool

    cancelled = []

    async def never_answers(tool, input, context, ask, tool_use_id):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(tool_use_id)
            raise

    server.push(reply(tool_use("Guarded", {"path": "ok/x"}, id="g1")))
    session, _ = make_session([GuardedTool()], can_use_tool=never_answers)
    stop_on(session, PermissionRequested)
    outcome = await asyncio.wait_for(session.submit("write"), 10)
    assert outcome.stop_reason == "interrupted"
    assert cancelled == ["g1"]  # the UI's pending ask was cancelled (its card can close)
    [result] = tool_results(session.messages[-1])
    assert result_text(result) == STOPPED_MESSAGE
    assert_valid_history(session.messages)


async def test_aclose_is_idempotent_and_a_closed_session_refuses_prompts(make_session):
    import pytest

    from jupyter_agent.errors import AgentError

    session, _ = make_session()
    await session.aclose()
    await session.aclose()
    with pytest.raises(AgentError, match="closed"):
        session.submit("hello")
