"""WebSearch with the real anthropic SDK against a local server emitting server-side search blocks."""

from __future__ import annotations

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.tools.web_search import WebSearchSettings, WebSearchTool, web_search_tool_param
from tests.support.tools import make_context

from ._web_model_server import ModelServer, message


def search_blocks(query, hits, tool_id="srvtoolu_1"):
    return [
        {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}},
        {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": [
            {"type": "web_search_result", "title": t, "url": u, "encrypted_content": "enc", "page_age": None}
            for t, u in hits
        ]},
    ]


@pytest.fixture
def model():
    with ModelServer() as m:
        yield m


def _ctx(tmp_path, model, allow=("WebSearch",)):
    ctx = make_context([WebSearchTool()], tmp_path, main_loop_model="main-model")
    ctx.extra["web_search"] = WebSearchSettings(base_url=model.base_url, api_key="k", max_uses=3)
    perms = ToolPermissionContext(allow_rules={"localSettings": tuple(allow)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    return ctx


async def _search(ctx, approver, **inp):
    return await run_tool_use(ToolUseRequest("ws", "WebSearch", inp), ctx, approver)


async def test_results_listed_with_citation_reminder(tmp_path, model, approve):
    model.push(message([
        {"type": "text", "text": "I'll search."},
        *search_blocks("jupyter 5", [("Jupyter News", "https://blog.jupyter.org/5"), ("Docs", "https://docs.jupyter.org")]),
        {"type": "text", "text": "Jupyter 5 was released."},
    ]))
    out = await _search(_ctx(tmp_path, model), approve, query="jupyter 5", allowed_domains=["jupyter.org"])
    assert not out.is_error, out.text
    assert out.text.startswith('Web search results for query: "jupyter 5"')
    assert 'Links: [{"title": "Jupyter News", "url": "https://blog.jupyter.org/5"}, {"title": "Docs"' in out.text
    assert "Jupyter 5 was released." in out.text and "REMINDER: You MUST include the sources" in out.text
    (req,) = model.requests
    assert req["model"] == "main-model"
    assert req["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3,
                             "allowed_domains": ["jupyter.org"]}]
    assert "jupyter 5" in req["messages"][0]["content"]


async def test_pause_turn_is_continued(tmp_path, model, approve):
    first = search_blocks("q", [("A", "https://a.example/")], "srvtoolu_a")
    model.push(message([{"type": "text", "text": "Searching."}, *first], stop_reason="pause_turn"))
    model.push(message([*search_blocks("q2", [("B", "https://b.example/")], "srvtoolu_b"),
                        {"type": "text", "text": "Done."}]))
    out = await _search(_ctx(tmp_path, model), approve, query="two rounds", blocked_domains=["spam.example"])
    assert "https://a.example/" in out.text and "https://b.example/" in out.text and "Done." in out.text
    assert len(model.requests) == 2
    second = model.requests[1]
    assert second["tools"][0]["blocked_domains"] == ["spam.example"]
    resumed = second["messages"][1]
    assert resumed["role"] == "assistant"
    assert [b["type"] for b in resumed["content"]] == ["text", "server_tool_use", "web_search_tool_result"]
    assert resumed["content"][2]["content"][0]["encrypted_content"] == "enc"


async def test_search_error_and_no_results(tmp_path, model, approve):
    model.push(message([
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
    ]))
    out = await _search(_ctx(tmp_path, model), approve, query="xy")
    assert not out.is_error
    assert "Web search error: max_uses_exceeded" in out.text and "No links were found." in out.text


async def test_validation_permission_and_api_failure(tmp_path, model, approve, reject):
    ctx = _ctx(tmp_path, model)
    both = await _search(ctx, approve, query="xy", allowed_domains=["a.com"], blocked_domains=["b.com"])
    assert both.is_error and "Cannot specify both" in both.text
    short = await _search(ctx, approve, query="x")
    assert short.is_error and "query" in short.text
    asked = await _search(_ctx(tmp_path, model, allow=()), reject, query="private thing")
    assert asked.is_error and reject.asks[0][1].suggestions[0].rules == ("WebSearch",)
    failed = await _search(ctx, approve, query="nothing scripted")  # the server answers 500
    assert failed.is_error and "Web search failed" in failed.text
    assert model.requests and all(r["messages"][0]["content"] != "private thing" for r in model.requests)


def test_tool_param_for_the_main_loop():
    assert web_search_tool_param(blocked_domains=["x.com"], max_uses=2) == {
        "type": "web_search_20250305", "name": "web_search", "max_uses": 2, "blocked_domains": ["x.com"]}


async def test_given_client_is_used_and_left_open(tmp_path, model, approve):
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(base_url=model.base_url, api_key="session-key")
    ctx = _ctx(tmp_path, model)
    ctx.extra["web_search"] = WebSearchSettings(base_url="http://127.0.0.1:9", client=client)
    model.push(message(search_blocks("q", [("A", "https://a.example/")])))
    out = await _search(ctx, approve, query="with the session's client")
    assert "https://a.example/" in out.text and not client.is_closed()
    await client.close()
