"""The scripted server through the real SDK: SSE sequence, JSON replies, faults, routing, counting."""

from __future__ import annotations

import anthropic
import pytest

from jupyter_agent.testing import (
    ScriptedServer,
    drop_mid_stream,
    fault_status,
    first_user_text,
    malformed_stream,
    reply,
    text,
    thinking,
    tool_use,
    tool_use_raw,
)

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def client(server):
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0)


async def _events(client, **kwargs):
    stream = await client.messages.create(model="claude-sonnet-5-5", max_tokens=100, messages=MESSAGES, stream=True, **kwargs)
    return [event async for event in stream]


async def test_stream_has_the_full_event_sequence(server, client):
    server.push(reply(thinking("hmm", signature="sig-1"), text("Hello"), tool_use("Read", {"file_path": "/a"}, id="tu1")))
    events = await _events(client)
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    deltas = [e.delta.type for e in events if e.type == "content_block_delta"]
    assert "thinking_delta" in deltas and "signature_delta" in deltas
    assert "text_delta" in deltas and "input_json_delta" in deltas
    starts = [e.content_block.type for e in events if e.type == "content_block_start"]
    assert starts == ["thinking", "text", "tool_use"]
    final = events[-2]
    assert final.delta.stop_reason == "tool_use"
    assert final.usage.output_tokens > 0


async def test_stream_accumulates_with_the_sdk_helper(server, client):
    server.push(reply(text("Hello world"), tool_use("Read", {"file_path": "/a", "limit": 3}, id="tu1"), chunk_chars=2))
    async with client.messages.stream(model="claude-sonnet-5-5", max_tokens=100, messages=MESSAGES) as stream:
        message = await stream.get_final_message()
    assert message.content[0].text == "Hello world"
    assert message.content[1].input == {"file_path": "/a", "limit": 3}
    assert message.stop_reason == "tool_use"


async def test_non_streaming_reply(server, client):
    server.push(reply("plain answer", stop_reason="end_turn"))
    message = await client.messages.create(model="claude-sonnet-5-5", max_tokens=100, messages=MESSAGES)
    assert message.content[0].text == "plain answer"
    assert message.usage.input_tokens > 0
    assert server.message_requests[0].body.get("stream") in (None, False)


async def test_count_tokens(server, client):
    result = await client.messages.count_tokens(model="claude-sonnet-5-5", messages=MESSAGES)
    assert result.input_tokens >= 1
    assert server.requests[0].path == "/v1/messages/count_tokens"


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (429, anthropic.RateLimitError),
        (529, anthropic.APIStatusError),
        (500, anthropic.InternalServerError),
        (401, anthropic.AuthenticationError),
        (400, anthropic.BadRequestError),
    ],
)
async def test_status_faults(server, client, status, error):
    server.push(fault_status(status, retry_after=3))
    with pytest.raises(error) as info:
        await client.messages.create(model="m", max_tokens=10, messages=MESSAGES)
    assert info.value.status_code == status
    assert info.value.response.headers["retry-after"] == "3"


async def test_drop_mid_stream_is_a_transport_error(server, client):
    server.push(drop_mid_stream(3))
    with pytest.raises(Exception) as info:
        await _events(client)
    assert "incomplete" in str(info.value) or "closed" in str(info.value)


async def test_malformed_sse_fails_to_parse(server, client):
    server.push(malformed_stream(2))
    with pytest.raises(ValueError):
        await _events(client)


async def test_error_event_mid_stream(server, client):
    server.push(reply("partial", error_event_after=3))
    with pytest.raises(anthropic.APIStatusError) as info:
        await _events(client)
    assert "overloaded" in str(info.value)


async def test_invalid_tool_json_is_streamed_verbatim(server, client):
    server.push(tool_reply := reply(tool_use_raw("Read", '{"file_path": ', id="bad")))
    events = await _events(client)
    fragments = "".join(e.delta.partial_json for e in events if e.type == "content_block_delta")
    assert fragments == '{"file_path": '
    assert tool_reply.resolved_stop_reason == "tool_use"


async def test_nothing_queued_is_a_clear_400(server, client):
    with pytest.raises(anthropic.BadRequestError) as info:
        await client.messages.create(model="m", max_tokens=10, messages=MESSAGES)
    assert "no response is queued" in str(info.value)
    assert server.requests[0].served == "none"


async def test_routes_serve_by_predicate(server, client):
    server.route(lambda body: "alpha" in first_user_text(body), reply("for alpha"), name="alpha")
    server.push(reply("default answer"))
    beta = await client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "beta"}])
    alpha = await client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "alpha task"}])
    assert beta.content[0].text == "default answer"
    assert alpha.content[0].text == "for alpha"
    assert [r.route for r in server.requests] == ["default", "alpha"]
    assert server.pending() == 0


async def test_requests_are_recorded_with_headers_and_body(server, client):
    server.push(reply("ok"))
    await client.messages.create(model="m", max_tokens=10, system="be brief", messages=MESSAGES)
    recorded = server.message_requests[0]
    assert recorded.system_text == "be brief"
    assert recorded.messages == MESSAGES
    assert "anthropic-version" in recorded.headers


async def test_parallel_conversations_are_served_by_their_routes(server):
    import asyncio

    server.route(lambda b: first_user_text(b) == "alpha", reply("A1", delay_s=0.01, chunk_chars=1), reply("A2"), name="a")
    server.route(lambda b: first_user_text(b) == "beta", reply("B1", delay_s=0.01, chunk_chars=1), reply("B2"), name="b")
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="t", max_retries=0)

    async def converse(name):
        texts = []
        messages = [{"role": "user", "content": name}]
        for _ in range(2):
            message = await client.messages.create(model="m", max_tokens=10, messages=messages)
            texts.append(message.content[0].text)
            messages += [{"role": "assistant", "content": texts[-1]}, {"role": "user", "content": "more"}]
        return texts

    alpha, beta = await asyncio.gather(converse("alpha"), converse("beta"))
    assert (alpha, beta) == (["A1", "A2"], ["B1", "B2"])
    assert sorted(r.route for r in server.requests) == ["a", "a", "b", "b"]
