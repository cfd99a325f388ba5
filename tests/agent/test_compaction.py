"""Compaction on demand and automatically: summary in, recent turns and file state kept."""

from __future__ import annotations

import pytest

from jupyter_agent.agent.compact import COMPACT_INSTRUCTION, CompactionError, plan_split, rebuild
from jupyter_agent.agent.events import Compacted
from jupyter_agent.testing import UsageOverride, reply, tool_use
from tests.support.tools import SleepTool

from .history_check import assert_valid_history, blocks


async def _three_turns(server, session):
    for i in range(3):
        server.push(reply(f"answer {i}"))
        await session.submit(f"question {i}")


async def test_compact_on_demand_summarizes_older_turns(server, make_session, tmp_path):
    session, events = make_session(keep_recent_turns=1)
    seen = tmp_path / "seen.py"
    seen.write_text("x = 1\n")
    session.context.read_file_state.record_read(seen, seen.read_bytes())
    await _three_turns(server, session)
    server.push(reply("SUMMARY: asked three questions."))
    result = await session.compact()
    summary_request = server.message_requests[-1]
    assert blocks(summary_request.messages[-1])[-1]["text"] == COMPACT_INSTRUCTION
    assert "question 2" not in str(summary_request.messages)  # the kept turn is not summarized
    assert summary_request.body.get("tool_choice") in (None, {"type": "none"})
    assert result.summary == "SUMMARY: asked three questions."
    first = blocks(session.messages[0])
    assert "SUMMARY: asked three questions." in first[0]["text"]
    assert first[1]["text"] == "question 2"
    assert session.messages[1]["content"][0]["text"] == "answer 2"
    [event] = events.of(Compacted)
    assert event.summary == result.summary
    assert_valid_history(session.messages)
    assert str(seen) in session.context.read_file_state  # the file-state cache survives
    server.push(reply("continuing"))
    await session.submit("question 3")
    sent = server.message_requests[-1].messages
    assert "SUMMARY" in blocks(sent[0])[0]["text"] and len(sent) == 3
    assert_valid_history(sent)


async def test_auto_compaction_near_the_context_window(server, make_session):
    session, events = make_session(context_window=10_000, compact_threshold=0.5, keep_recent_turns=1)
    server.push(reply("first"))
    await session.submit("one")
    server.push(reply("big", usage=UsageOverride(input_tokens=6_000)))
    await session.submit("two")
    server.push(reply("Summary of one and two."))  # the compaction call
    server.push(reply("third"))
    outcome = await session.submit("three")
    assert outcome.text == "third"
    assert len(events.of(Compacted)) == 1
    final = server.message_requests[-1].messages
    assert "Summary of one and two." in blocks(final[0])[0]["text"]
    assert_valid_history(final)


async def test_compaction_keeps_tool_pairs_valid(server, make_session):
    session, _ = make_session([SleepTool()], keep_recent_turns=1)
    server.push(reply(tool_use("Sleep", {"label": "a"}, id="a1")), reply("done a"))
    await session.submit("first")
    server.push(reply(tool_use("Sleep", {"label": "b"}, id="b1")), reply("done b"))
    await session.submit("second")
    server.push(reply("sum"))
    await session.compact()
    assert_valid_history(session.messages)
    assert "b1" in str(session.messages) and "a1" not in str(session.messages)


async def test_failed_compaction_leaves_history_alone(server, make_session):
    session, _ = make_session()
    await _three_turns(server, session)
    before = list(session.messages)
    server.push(reply(""))  # an empty summary
    with pytest.raises(CompactionError):
        await session.compact()
    assert session.messages == before


def test_plan_split_and_rebuild_drop_orphan_results():
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "q1"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "T", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"}, {"type": "text", "text": "q2"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "a2"}]},
    ]
    older, recent = plan_split(msgs, keep_recent_turns=1)
    assert older == msgs[:2] and recent == msgs[2:]
    rebuilt = rebuild("S", recent)
    assert [b["type"] for b in rebuilt[0]["content"]] == ["text", "text"]  # orphan tool_result gone
    assert_valid_history(rebuilt)


async def test_context_window_exceeded_compacts_and_continues(server, make_session):
    session, events = make_session(keep_recent_turns=1)
    server.push(reply("earlier answer"))
    await session.submit("earlier question")
    server.push(reply("Partial ans", stop_reason="model_context_window_exceeded"))
    server.push(reply("Summary: an earlier question was answered."))
    server.push(reply("wer, continued."))
    outcome = await session.submit("long question")
    assert outcome.stop_reason == "end_turn" and outcome.text == "wer, continued."
    assert len(events.of(Compacted)) == 1
    assert_valid_history(server.message_requests[-1].messages)


async def test_context_window_exceeded_without_progress_ends_the_turn(server, make_session):
    session, _ = make_session()
    for _ in range(3):
        server.push(reply("x", stop_reason="model_context_window_exceeded"), reply("summary"))
    outcome = await session.submit("q")
    assert outcome.stop_reason == "context_window"
    assert "context window" in outcome.error
