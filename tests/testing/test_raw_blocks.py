"""Raw content blocks (server tools such as web search) through the real SDK, streamed and not."""

from __future__ import annotations

import anthropic
import pytest

from jupyter_agent.testing import ScriptedServer, block, reply, text

MESSAGES = [{"role": "user", "content": "search please"}]
CALL = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "jupyter 5"}}
RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "title": "Jupyter News",
            "url": "https://blog.jupyter.org/5",
            "encrypted_content": "enc",
            "page_age": None,
        }
    ],
}
ERROR = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_2",
    "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
}


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def client(server):
    return anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0)


def _check_search_blocks(content) -> None:
    assert [b.type for b in content] == ["text", "server_tool_use", "web_search_tool_result", "text"]
    call, result = content[1], content[2]
    assert call.id == "srvtoolu_1" and call.name == "web_search" and call.input == {"query": "jupyter 5"}
    assert result.tool_use_id == "srvtoolu_1"
    assert [(r.title, r.url, r.encrypted_content) for r in result.content] == [
        ("Jupyter News", "https://blog.jupyter.org/5", "enc")
    ]
    assert content[3].text == "Jupyter 5 was released."


def _search_reply(**options):
    return reply(text("I'll search."), block(CALL), block(RESULT), text("Jupyter 5 was released."), **options)


async def test_non_streaming_message_carries_the_blocks_verbatim(server, client):
    server.push(_search_reply())
    raw = await client.messages.with_raw_response.create(model="m", max_tokens=100, messages=MESSAGES)
    message = await raw.parse()
    _check_search_blocks(message.content)
    assert message.stop_reason == "end_turn"
    assert raw.http_response.json()["content"][1:3] == [CALL, RESULT]


async def test_streamed_blocks_arrive_whole_in_content_block_start(server, client):
    server.push(_search_reply(chunk_chars=4))
    async with client.messages.stream(model="m", max_tokens=100, messages=MESSAGES) as stream:
        events = [event async for event in stream]
        final = await stream.get_final_message()
    _check_search_blocks(final.content)
    raw = [(e.type, getattr(e, "index", None)) for e in events if e.type.startswith("content_block_")]
    starts = [e for e in events if e.type == "content_block_start"]
    assert [s.content_block.type for s in starts] == ["text", "server_tool_use", "web_search_tool_result", "text"]
    assert starts[1].content_block.input == {"query": "jupyter 5"}
    # A raw block is exactly a start and a stop: no deltas at its index.
    assert [kind for kind, index in raw if index == 2] == ["content_block_start", "content_block_stop"]
    assert [kind for kind, index in raw if index == 1] == ["content_block_start", "content_block_stop"]


async def test_pause_turn_non_streaming_and_streaming(server, client):
    server.push(reply(text("Searching."), block(CALL), stop_reason="pause_turn"))
    server.push(reply(block(ERROR), stop_reason="pause_turn"))
    paused = await client.messages.create(model="m", max_tokens=100, messages=MESSAGES)
    assert paused.stop_reason == "pause_turn"
    assert [b.type for b in paused.content] == ["text", "server_tool_use"]
    async with client.messages.stream(model="m", max_tokens=100, messages=MESSAGES) as stream:
        streamed = await stream.get_final_message()
    assert streamed.stop_reason == "pause_turn"
    (error,) = streamed.content
    assert error.type == "web_search_tool_result" and error.content.error_code == "max_uses_exceeded"


def test_block_needs_a_typed_dict_and_is_copied():
    source = {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}}
    part = block(source)
    source["input"]["query"] = "changed"
    assert part.content["input"] == {"query": "q"}
    with pytest.raises(ValueError, match="string 'type'"):
        block({"id": "no type"})
