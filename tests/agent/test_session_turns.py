"""Full turns against the scripted server through the real SDK: text, tools, approvals, limits."""

from __future__ import annotations

import asyncio

from jupyter_agent.agent.events import (
    AgentErrorEvent,
    AssistantMessageDone,
    TextDelta,
    ThinkingDelta,
    ToolUseStreaming,
    TurnEnded,
    TurnStarted,
    UsageUpdated,
)
from jupyter_agent.agent.loop import CONTINUE_TEXT, TRUNCATED_TOOL_TEXT
from jupyter_agent.core.events import (
    PermissionRequested,
    PermissionResolved,
    ToolCallFinished,
    ToolCallStarted,
)
from jupyter_agent.testing import reply, thinking, tool_use, tool_use_raw
from tests.support.tools import GuardedTool, SleepTool, Tracker

from .history_check import assert_valid_history, blocks, result_text, tool_results


async def test_text_only_turn_streams_and_ends(server, make_session):
    server.push(reply("Hello ", "there!", chunk_chars=3))
    session, events = make_session()
    outcome = await session.submit("say hi")
    assert outcome.stop_reason == "end_turn"
    assert outcome.text == "Hello there!"
    assert "".join(e.text for e in events.of(TextDelta)) == "Hello there!"
    assert len(events.of(TextDelta)) > 2  # really streamed in pieces
    assert isinstance(events[0], TurnStarted) and isinstance(events[-1], TurnEnded)
    assert events[-1].stop_reason == "end_turn"
    assert session.messages[-1]["role"] == "assistant"
    request = server.message_requests[0]
    assert request.body["stream"] is True
    assert request.body["model"] == "claude-sonnet-5-5"
    assert "Jupyter kernel" in request.system_text
    assert request.messages[0]["content"][0]["text"] == "say hi"


async def test_one_tool_call_runs_and_result_goes_back(server, make_session, approve):
    server.push(reply("Writing.", tool_use("Guarded", {"path": "ok/a.txt", "text": "hi"}, id="toolu_1")))
    server.push(reply("Wrote it."))
    session, events = make_session([GuardedTool()], can_use_tool=approve)
    outcome = await session.submit("write a file")
    assert outcome.text == "Wrote it."
    assert [name for name, _ in approve.asks] == ["Guarded"]
    assert [type(e) for e in events if isinstance(e, (PermissionRequested, PermissionResolved))] == [
        PermissionRequested, PermissionResolved,
    ]
    assert events.of(ToolUseStreaming)[0].tool_name == "Guarded"
    second = server.message_requests[1]
    [result] = tool_results(second.messages[-1])
    assert result["tool_use_id"] == "toolu_1"
    assert result_text(result) == "wrote ok/a.txt: hi"
    tools = {t["name"]: t for t in second.body["tools"]}
    assert set(tools["Guarded"]["input_schema"]["properties"]) == {"path", "text"}
    assert_valid_history(session.messages)


async def test_ten_parallel_calls_results_in_order_in_one_message(server, make_session):
    tracker = Tracker()
    calls = [tool_use("Sleep", {"label": f"r{i}", "seconds": 0.02 * (10 - i)}, id=f"t{i}") for i in range(10)]
    server.push(reply("Reading ten files.", *calls))
    server.push(reply("Read them all."))
    session, events = make_session([SleepTool(tracker)])
    await session.submit("read everything")
    last = server.message_requests[1].messages[-1]
    results = tool_results(last)
    assert [r["tool_use_id"] for r in results] == [f"t{i}" for i in range(10)]
    assert [result_text(r) for r in results] == [f"slept r{i}" for i in range(10)]
    assert len(blocks(last)) == 10  # one user message holds exactly the ten results
    assert tracker.peak > 1  # they ran concurrently
    assert len(events.of(ToolCallStarted)) == 10
    assert_valid_history(session.messages)


async def test_denied_call_reaches_model_which_continues(server, make_session, reject):
    server.push(reply(tool_use("Guarded", {"path": "ok/x"}, id="toolu_d")))
    server.push(reply("Understood, I will not write that file."))
    session, _ = make_session([GuardedTool()], can_use_tool=reject)
    outcome = await session.submit("write x")
    assert outcome.stop_reason == "end_turn"
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result["is_error"] is True
    assert result_text(result) == "The user said no: use a different file."
    assert_valid_history(session.messages)


async def test_ask_without_handler_is_denied_not_hung(server, make_session):
    server.push(reply(tool_use("Guarded", {"path": "ok/x"})))
    server.push(reply("OK."))
    session, _ = make_session([GuardedTool()])
    outcome = await asyncio.wait_for(session.submit("write x"), 10)
    assert outcome.stop_reason == "end_turn"
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result["is_error"] is True
    assert "no one is there to approve it" in result_text(result)


async def test_unanswered_ask_is_denied_after_approval_timeout(server, make_session):
    never = asyncio.Event()

    async def silent_handler(tool, input, context, ask, tool_use_id):
        await never.wait()

    server.push(reply(tool_use("Guarded", {"path": "ok/x"})))
    server.push(reply("OK."))
    session, _ = make_session([GuardedTool()], can_use_tool=silent_handler, approval_timeout=0.05)
    await asyncio.wait_for(session.submit("write x"), 10)
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert "did not answer the approval request for Guarded within 0.05 seconds" in result_text(result)


async def test_invalid_tool_json_becomes_error_result(server, make_session):
    tracker = Tracker()
    server.push(reply(tool_use_raw("Sleep", '{"label": "x", ', id="bad"), tool_use("Sleep", {"label": "ok"}, id="good")))
    server.push(reply("Retrying properly later."))
    session, events = make_session([SleepTool(tracker)])
    outcome = await session.submit("go")
    assert outcome.stop_reason == "end_turn"
    bad, good = tool_results(server.message_requests[1].messages[-1])
    assert bad["tool_use_id"] == "bad" and bad["is_error"] is True
    assert "not valid JSON" in result_text(bad)
    assert result_text(good) == "slept ok"
    assert tracker.log == ["start ok", "end ok"]
    assert {e.outcome.tool_use_id for e in events.of(ToolCallFinished)} == {"bad", "good"}
    assert_valid_history(session.messages)


async def test_max_tokens_continues_the_turn(server, make_session):
    server.push(reply("First half of a long answer", stop_reason="max_tokens"))
    server.push(reply(" and the second half."))
    session, _ = make_session()
    outcome = await session.submit("write a lot")
    assert outcome.stop_reason == "end_turn"
    last = server.message_requests[1].messages[-1]
    assert last["role"] == "user" and blocks(last)[-1]["text"] == CONTINUE_TEXT
    assert server.message_requests[1].messages[-2]["content"][0]["text"] == "First half of a long answer"
    assert_valid_history(session.messages)


async def test_max_tokens_with_cut_tool_call_answers_it(server, make_session):
    server.push(reply(tool_use_raw("Sleep", '{"lab', id="cut"), stop_reason="max_tokens"))
    server.push(reply("Done."))
    session, _ = make_session([SleepTool()])
    await session.submit("go")
    last = server.message_requests[1].messages[-1]
    [result] = tool_results(last)
    assert result_text(result) == TRUNCATED_TOOL_TEXT
    assert blocks(last)[-1]["text"] == CONTINUE_TEXT
    assert_valid_history(session.messages)


async def test_max_tokens_gives_up_after_limit(server, make_session):
    for _ in range(3):
        server.push(reply("more", stop_reason="max_tokens"))
    session, events = make_session(max_continuations=2)
    outcome = await session.submit("go")
    assert outcome.stop_reason == "max_tokens"
    assert len(server.message_requests) == 3
    [note] = [e for e in events.of(AgentErrorEvent) if e.kind == "limit"]
    assert "cut off at the output limit (1,024 tokens), also after 2 continuations" in note.message


async def test_pause_turn_sends_reply_back_as_is(server, make_session):
    server.push(reply("Searching the web...", stop_reason="pause_turn"))
    server.push(reply("Found it."))
    session, _ = make_session()
    outcome = await session.submit("search")
    assert outcome.text == "Found it."
    second = server.message_requests[1].messages
    assert second[-1]["role"] == "assistant"
    assert second[-1]["content"][0]["text"] == "Searching the web..."


async def test_refusal_ends_the_turn(server, make_session):
    server.push(reply("I can't help with that.", stop_reason="refusal"))
    session, events = make_session()
    outcome = await session.submit("bad request")
    assert outcome.stop_reason == "refusal"
    assert events[-1].stop_reason == "refusal"
    assert [e.message for e in events.of(AgentErrorEvent) if e.kind == "limit"] == [
        "The model declined to go on with this request (stop reason: refusal)."]


async def test_turn_limit_stops_a_looping_model(server, make_session):
    for i in range(5):
        server.push(reply(tool_use("Sleep", {"label": f"l{i}"})))
    session, events = make_session([SleepTool()], max_turns=3)
    outcome = await session.submit("loop")
    assert outcome.stop_reason == "max_turns"
    assert len(server.message_requests) == 3
    # the transcript says why, muted (the footer's 'max_turns' alone explained nothing)
    from jupyter_agent.ui.transcript import Transcript

    transcript = Transcript("loop")
    for event in events:
        transcript.handle(event)
    [note] = [b for b in transcript.blocks if "Stopped after" in getattr(b, "text", "")]
    assert note.text.startswith("Stopped after 3 model requests in this turn (the max_turns limit")
    assert note.text.endswith("%agent continue goes on from here.") and not note.error
    assert_valid_history(session.messages)
    server.push(reply("Stopped looping."))
    assert (await session.submit("stop looping")).stop_reason == "end_turn"
    assert_valid_history(server.message_requests[-1].messages)


async def test_thinking_blocks_go_back_with_signatures(server, make_session):
    server.push(reply(thinking("Let me think.", signature="sig-abc"), tool_use("Sleep", {"label": "t"})))
    server.push(reply("Thought and done."))
    session, _ = make_session([SleepTool()], model="claude-sonnet-4-6", thinking_budget=2048, max_tokens=8192)
    await session.submit("think")
    first, second = server.message_requests
    assert first.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assistant = second.messages[-2]
    assert assistant["content"][0] == {"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"}


async def test_adaptive_models_think_adaptively_with_visible_summaries(server, make_session):
    server.push(reply(thinking("Checking the files first."), "Done."))
    session, events = make_session(effort="xhigh")
    await session.submit("go")
    body = server.message_requests[0].body
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "xhigh"}
    assert "".join(e.text for e in events.of(ThinkingDelta)) == "Checking the files first."


async def test_prompts_submitted_while_busy_are_queued_in_order(server, make_session):
    server.push(reply("first answer", delay_s=0.01, chunk_chars=2))
    server.push(reply("second answer"))
    session, events = make_session()
    one = session.submit("first")
    two = session.submit("second")
    assert not one.done() and not two.done()
    a, b = await asyncio.gather(one, two)
    assert (a.text, b.text) == ("first answer", "second answer")
    second_request = server.message_requests[1].messages
    assert [m["role"] for m in second_request] == ["user", "assistant", "user"]
    assert second_request[1]["content"][0]["text"] == "first answer"
    starts = [e.prompt for e in events.of(TurnStarted)]
    assert starts == ["first", "second"]


async def test_usage_and_cost_are_reported(server, make_session):
    from jupyter_agent.testing import UsageOverride

    server.push(reply("x", usage=UsageOverride(1_000_000, 100_000, 0, 0)))
    session, events = make_session()
    await session.submit("cost me")
    [update] = events.of(UsageUpdated)
    assert update.turn.input_tokens == 1_000_000
    assert update.cost_usd == 2.0 + 1.0  # Sonnet 5.5: $2/MTok in, $10/MTok out
    assert session.cost_usd == 3.0
    assert events[-1].usage.output_tokens == 100_000


async def test_a_failing_subscriber_does_not_break_the_turn(server, make_session):
    server.push(reply("fine"))
    session, events = make_session()

    def broken(_event):
        raise RuntimeError("UI bug")

    session.subscribe(broken)
    outcome = await session.submit("go")
    assert outcome.stop_reason == "end_turn"
    assert events.of(AssistantMessageDone)


async def test_changing_model_drops_thinking_blocks_of_the_old_model(server, make_session):
    server.push(reply(thinking("old model thoughts"), "first"))
    session, _ = make_session()
    await session.submit("one")
    session.config.model = "claude-opus-5-5"
    server.push(reply("second"))
    await session.submit("two")
    sent = server.message_requests[-1]
    assert sent.body["model"] == "claude-opus-5-5"
    assert "old model thoughts" not in str(sent.messages)
    assert sent.messages[1]["content"] == [{"type": "text", "text": "first"}]
    assert "Model: claude-opus-5-5" in sent.system_text
    assert session.context.options.main_loop_model == "claude-opus-5-5"


async def test_a_vertex_client_is_accepted(server, make_session):
    from anthropic import AsyncAnthropicVertex

    vertex = AsyncAnthropicVertex(region="us-east5", project_id="proj", access_token="tok", base_url=server.url + "/v1")
    server.push(reply("from vertex"))
    session, _ = make_session(client=vertex, base_url=None, api_key=None)
    outcome = await session.submit("hi")
    assert outcome.text == "from vertex"
    request = server.message_requests[0]
    assert request.headers["authorization"] == "Bearer tok"
    assert request.body["model"] == "claude-sonnet-5-5" and request.body["stream"] is True


async def test_ten_parallel_real_read_calls(server, make_session, tmp_path):
    from jupyter_agent.core.registry import TOOL_TARGETS, load_tool

    if "Read" not in TOOL_TARGETS:
        import pytest

        pytest.skip("the Read tool is not registered in this checkout")
    files = []
    for i in range(10):
        path = tmp_path / f"file{i}.txt"
        path.write_text(f"content of file {i}\n")
        files.append(path)
    calls = [tool_use("Read", {"file_path": str(p)}, id=f"r{i}") for i, p in enumerate(files)]
    server.push(reply(*calls), reply("Read all ten."))
    session, _ = make_session([load_tool(TOOL_TARGETS["Read"])])
    outcome = await session.submit("read the ten files")
    assert outcome.text == "Read all ten."
    results = tool_results(server.message_requests[1].messages[-1])
    assert [r["tool_use_id"] for r in results] == [f"r{i}" for i in range(10)]
    for i, r in enumerate(results):
        assert not r.get("is_error") and f"content of file {i}" in result_text(r)
    assert len(blocks(server.message_requests[1].messages[-1])) == 10
    assert all(str(p) in session.context.read_file_state for p in files)


async def test_blank_text_blocks_never_go_back_to_the_api(server, make_session):
    server.push(reply("  \n", tool_use("Sleep", {"label": "s"}, id="s1")), reply("done"))
    session, _ = make_session([SleepTool()])
    await session.submit("go")
    assistant = server.message_requests[1].messages[1]
    assert [b["type"] for b in assistant["content"]] == ["tool_use"]


async def test_an_empty_prompt_is_refused_without_calling_the_model(server, make_session):
    session, _ = make_session()
    outcome = await session.submit("   ")
    assert outcome.stop_reason == "error" and "prompt is empty" in outcome.error
    assert server.message_requests == [] and session.messages == []


async def test_todos_in_app_state_become_events(server, make_session):
    import dataclasses

    from jupyter_agent.agent.events import TodosUpdated

    session, events = make_session()
    todo = {"content": "write tests", "status": "in_progress", "activeForm": "Writing tests"}
    session.context.set_app_state(lambda s: dataclasses.replace(s, todos=[todo]))
    session.context.set_app_state(lambda s: dataclasses.replace(s, todos=[todo]))  # unchanged: no event
    [event] = events.of(TodosUpdated)
    assert event.todos == [todo]


async def test_redacted_thinking_is_kept_verbatim(server, make_session):
    from jupyter_agent.testing import redacted_thinking

    server.push(reply(redacted_thinking("opaque-blob"), tool_use("Sleep", {"label": "r"})), reply("ok"))
    session, _ = make_session([SleepTool()], model="claude-sonnet-4-6", thinking_budget=2048, max_tokens=8192)
    await session.submit("go")
    assistant = server.message_requests[1].messages[1]
    assert assistant["content"][0] == {"type": "redacted_thinking", "data": "opaque-blob"}


def test_config_mistakes_are_clear_errors(make_session):
    import pytest

    from jupyter_agent.errors import AgentConfigError

    with pytest.raises(AgentConfigError, match="No model"):
        make_session(model="")
    with pytest.raises(AgentConfigError, match="thinking_budget"):
        make_session(model="claude-sonnet-4-6", thinking_budget=4096, max_tokens=2048)
