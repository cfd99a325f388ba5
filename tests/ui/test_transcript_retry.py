"""A retried reply: the transcript drops the failed attempt's partial output and shows it once."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agent.agent import events as ev
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.testing import ScriptedServer, drop_mid_stream, reply, text, thinking, tool_use
from jupyter_agent.ui.blocks import NoteBlock, ThinkingBlock
from jupyter_agent.ui.markdown_stream import StreamingMarkdown
from jupyter_agent.ui.tool_card import ToolCard
from jupyter_agent.ui.transcript import Transcript
from tests.support.sessions import scripted_config
from tests.support.tools import SleepTool, Tracker

ANSWER = "The answer is forty-two, and here is why it matters so much to everyone."


def _texts(transcript: Transcript) -> list[str]:
    return [b.text for b in transcript.blocks if isinstance(b, StreamingMarkdown)]


def _retry_notes(transcript: Transcript) -> list[NoteBlock]:
    return [b for b in transcript.blocks if isinstance(b, NoteBlock) and b.text.startswith(("⟳", "Retried"))]


def _feed(transcript: Transcript, *events: Any) -> None:
    for event in events:
        transcript.handle(event)


def test_retry_drops_partial_text_thinking_and_streaming_tool_card():
    t = Transcript("go")
    _feed(
        t,
        ev.TurnStarted("turn-1", "go"),
        ev.ThinkingDelta("Let me th"),
        ev.TextDelta("Partial ans"),
        ev.ToolUseStreaming("tu-1", "Bash", ""),
        ev.ToolUseStreaming("tu-1", "Bash", '{"comm'),
        ev.AgentErrorEvent("Connection dropped.", kind="network", retrying=True),
    )
    assert not any(isinstance(b, StreamingMarkdown | ThinkingBlock | ToolCard) for b in t.blocks)
    assert t.cards == {}
    [note] = _retry_notes(t)
    assert not note.error and note.text == "⟳ Connection dropped."
    assert list(t.body.children) == t.blocks
    _feed(t, ev.ThinkingDelta("Let me think."), ev.TextDelta(ANSWER), ev.ToolUseStreaming("tu-1", "Bash", ""))
    assert _texts(t) == [ANSWER]
    assert list(t.cards) == ["tu-1"]
    html = t.static_html()
    assert html.count("forty-two") == 1 and "Partial ans" not in html and "Let me th</" not in html


def test_retry_keeps_everything_before_the_last_complete_message():
    t = Transcript("go")
    done_card = t.card("tu-0", "Read")
    _feed(
        t,
        ev.TurnStarted("turn-1", "go"),
        ev.TextDelta("First reply."),
        ev.AssistantMessageDone({"role": "assistant", "content": []}, "tool_use"),
    )
    done_card.start()
    _feed(t, ev.TextDelta("Second, cut"), ev.AgentErrorEvent("Dropped.", kind="network", retrying=True))
    assert _texts(t) == ["First reply."]
    assert t.cards == {"tu-0": done_card} and done_card in t.blocks
    _feed(t, ev.TextDelta("Second, whole."))
    assert _texts(t) == ["First reply.", "Second, whole."]


def test_one_note_follows_a_replys_retries_and_then_says_how_many_there_were():
    """Retries of one reply share one note (what failed, when it is tried again); when the
    reply comes it says how many there were and why — not 'retrying…' forever."""
    t = Transcript("go")
    _feed(t, ev.TurnStarted("turn-1", "go"),
          ev.AgentErrorEvent("The API is overloaded (529): Overloaded. Retrying in 0.6s (attempt 1 of 8).",
                             kind="overloaded", retrying=True))
    [note] = _retry_notes(t)
    assert note.text == "⟳ The API is overloaded (529): Overloaded. Retrying in 0.6s (attempt 1 of 8)."
    _feed(t, ev.AgentErrorEvent("Rate limited (429): slow down. Retrying in 1.0s (attempt 2 of 8).",
                                kind="rate_limit", retrying=True))
    assert _retry_notes(t) == [note] and note.text.startswith("⟳ Rate limited (429)") and "line-height:1.4" in note.value
    _feed(t, ev.AgentErrorEvent("The API is overloaded (529): again. Retrying in 2.0s (attempt 3 of 8).",
                                kind="overloaded", retrying=True))
    _feed(t, ev.TextDelta("Hello."), ev.AssistantMessageDone({"role": "assistant", "content": []}, "end_turn"))
    assert _retry_notes(t) == [note] and note.text == "Retried 3 times (API overloaded, rate limited)."
    # the next reply's retries get a note of their own
    _feed(t, ev.AgentErrorEvent("Dropped. Retrying in 0.5s (attempt 1 of 8).", kind="network", retrying=True))
    assert len(_retry_notes(t)) == 2 and _retry_notes(t)[1].text == "⟳ Dropped. Retrying in 0.5s (attempt 1 of 8)."


def test_retries_that_run_out_end_in_one_settled_note_and_the_error():
    t = Transcript("go")
    _feed(t, ev.TurnStarted("turn-1", "go"),
          ev.AgentErrorEvent("Overloaded. Retrying in 0.6s (attempt 1 of 1).", kind="overloaded", retrying=True),
          ev.AgentErrorEvent("The API is overloaded (529): Overloaded", kind="overloaded"))
    notes = [b for b in t.blocks if isinstance(b, NoteBlock)]
    assert [(n.text, n.error) for n in notes] == [("Retried 1 time (API overloaded).", False),
                                                  ("The API is overloaded (529): Overloaded", True)]


def test_a_turn_stopped_while_it_waits_to_retry_does_not_say_it_still_is():
    t = Transcript("go")
    _feed(t, ev.TurnStarted("turn-1", "go"),
          ev.AgentErrorEvent("Overloaded. Retrying in 8.0s (attempt 4 of 8).", kind="overloaded", retrying=True))
    t.finish("interrupted")
    assert [n.text for n in _retry_notes(t)] == ["Retried 1 time (API overloaded)."]


def test_a_final_error_keeps_the_partial_text():
    t = Transcript("go")
    _feed(
        t,
        ev.TurnStarted("turn-1", "go"),
        ev.TextDelta("Kept"),
        ev.AgentErrorEvent("Out of retries.", kind="server"),
    )
    assert _texts(t) == ["Kept"]
    assert [b.error for b in t.blocks if isinstance(b, NoteBlock)] == [True]


# -- end to end: a real session, the real SDK, the scripted server dropping the stream ------------


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
async def session_with_transcript(server, tmp_path):
    sessions: list[AgentSession] = []

    def make(tools=()) -> tuple[AgentSession, Transcript, list[Any]]:
        async def no_sleep(_seconds: float) -> None:
            return None

        config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=3, base_delay=0.01, sleep=no_sleep))
        session = AgentSession(config, tools=list(tools))
        transcript = Transcript("go", model=config.model, find_tool=lambda _n: None)
        seen: list[Any] = []
        session.subscribe(seen.append)
        session.subscribe(transcript.handle)
        sessions.append(session)
        return session, transcript, seen

    yield make
    for session in sessions:
        await session.aclose()


def _retry_index(seen: list[Any]) -> int:
    return next(i for i, e in enumerate(seen) if isinstance(e, ev.AgentErrorEvent) and e.retrying)


async def test_dropped_text_stream_renders_the_answer_once(server, session_with_transcript):
    server.push(drop_mid_stream(6, thinking("Weighing it up carefully."), text(ANSWER)))
    server.push(reply(thinking("Weighing it up carefully."), text(ANSWER)))
    session, transcript, seen = session_with_transcript()
    outcome = await session.submit("go")
    assert outcome.text == ANSWER
    cut = _retry_index(seen)
    assert any(isinstance(e, ev.ThinkingDelta | ev.TextDelta) for e in seen[:cut])  # something was void
    assert _texts(transcript) == [ANSWER]
    assert len([b for b in transcript.blocks if isinstance(b, ThinkingBlock)]) == 1
    assert [n.text for n in _retry_notes(transcript)] == ["Retried 1 time (connection dropped)."]
    assert transcript.done
    assert transcript.static_html().count("forty-two") == 1


async def test_drop_inside_tool_input_leaves_one_card_that_ran_once(server, session_with_transcript):
    tracker = Tracker()
    call = tool_use("Sleep", {"label": "once"}, id="t-once")
    server.push(drop_mid_stream(7, text("Running it."), call))  # dies inside the tool_use block
    server.push(reply(text("Running it."), call))
    server.push(reply("Ran once."))
    session, transcript, seen = session_with_transcript([SleepTool(tracker)])
    outcome = await session.submit("run")
    assert outcome.text == "Ran once."
    assert tracker.log == ["start once", "end once"]
    cut = _retry_index(seen)
    assert any(isinstance(e, ev.ToolUseStreaming) for e in seen[:cut])
    cards = [b for b in transcript.blocks if isinstance(b, ToolCard)]
    assert [c.tool_use_id for c in cards] == ["t-once"] and cards[0].state == "done"
    assert _texts(transcript) == ["Running it.", "Ran once."]
    assert len(_retry_notes(transcript)) == 1
