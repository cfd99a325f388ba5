"""Prompt caching: breakpoints where expected, and cache reads dominate a multi-turn session."""

from __future__ import annotations

import pytest

from jupyter_agent.agent.caching import mark_messages, mark_system
from jupyter_agent.testing import ScriptedServer, reply, tool_use
from tests.support.tools import SleepTool


def marked(blocks):
    return [b for b in blocks if "cache_control" in b]


async def test_breakpoints_on_system_and_latest_turns(server, make_session):
    server.push(reply(tool_use("Sleep", {"label": "a"})), reply("done"))
    session, _ = make_session([SleepTool()])
    await session.submit("go")
    for request in server.message_requests:
        body = request.body
        assert marked(body["system"]) == [body["system"][-1]]
        assert not marked(body["tools"])  # covered by the system breakpoint (tools come first)
        last = body["messages"][-1]["content"][-1]
        assert last["cache_control"] == {"type": "ephemeral"}
        count = sum(len(marked(m["content"])) for m in body["messages"])
        assert count <= 2
        assert count + 1 <= 4  # the API allows four breakpoints
    second = server.message_requests[1].body["messages"]
    assert "cache_control" in second[0]["content"][-1]  # the previous user message
    assert "cache_control" not in session.messages[-1]["content"][-1]  # history itself is clean


@pytest.fixture
def small_cache_server():
    with ScriptedServer(min_cacheable_tokens=256) as srv:
        yield srv


async def test_multi_turn_session_reads_mostly_from_cache(small_cache_server, make_session):
    server = small_cache_server
    session, _ = make_session([SleepTool()], base_url=server.url)
    for i in range(5):
        server.push(reply(tool_use("Sleep", {"label": f"s{i}"})), reply(f"answer {i}"))
        await session.submit(f"question {i}")
    usage = session.usage
    total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    assert usage.cache_read_input_tokens / total > 0.6
    later = server.message_requests[-1]
    assert later.body["messages"]  # and each request after the first read something
    assert session.cost_usd > 0


def test_mark_functions_do_not_touch_their_input():
    system = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    messages = [
        {"role": "user", "content": "plain string prompt"},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "t", "signature": "s"}]},
    ]
    out_system = mark_system(system)
    out_messages = mark_messages(messages)
    assert "cache_control" not in system[1] and "cache_control" in out_system[1]
    assert out_messages[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" in out_messages[1]["content"][0]  # thinking blocks are skipped
    assert "cache_control" not in out_messages[1]["content"][1]
    assert messages[0]["content"] == "plain string prompt"
