"""WebSearch with the real anthropic SDK against a local server emitting server-side search blocks."""

from __future__ import annotations

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.testing import ScriptedServer, block, fault_status, reply, text
from jupyter_agent.tools.web_search import WebSearchSettings, WebSearchTool, web_search_tool_param
from tests.support.tools import make_context


def search_blocks(query, hits, tool_id="srvtoolu_1"):
    return [
        block({"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}}),
        block({"type": "web_search_tool_result", "tool_use_id": tool_id, "content": [
            {"type": "web_search_result", "title": t, "url": u, "encrypted_content": "enc", "page_age": None}
            for t, u in hits
        ]}),
    ]


@pytest.fixture
def model():
    with ScriptedServer() as server:
        yield server


def _bodies(model):
    return [r.body for r in model.message_requests]


def _ctx(tmp_path, model, allow=("WebSearch",)):
    ctx = make_context([WebSearchTool()], tmp_path, main_loop_model="main-model")
    ctx.extra["web_search"] = WebSearchSettings(base_url=model.url, api_key="k", max_uses=3)
    perms = ToolPermissionContext(allow_rules={"localSettings": tuple(allow)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    return ctx


async def _search(ctx, approver, **inp):
    return await run_tool_use(ToolUseRequest("ws", "WebSearch", inp), ctx, approver)


async def test_results_listed_with_citation_reminder(tmp_path, model, approve):
    model.push(reply(
        text("I'll search."),
        *search_blocks("jupyter 5", [("Jupyter News", "https://blog.jupyter.org/5"), ("Docs", "https://docs.jupyter.org")]),
        text("Jupyter 5 was released."),
    ))
    out = await _search(_ctx(tmp_path, model), approve, query="jupyter 5", allowed_domains=["jupyter.org"])
    assert not out.is_error, out.text
    assert out.text.startswith('Web search results for query: "jupyter 5"')
    assert 'Links: [{"title": "Jupyter News", "url": "https://blog.jupyter.org/5"}, {"title": "Docs"' in out.text
    assert "Jupyter 5 was released." in out.text and "REMINDER: You MUST include the sources" in out.text
    (req,) = _bodies(model)
    assert req["model"] == "main-model"
    assert req["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3,
                             "allowed_domains": ["jupyter.org"]}]
    assert "jupyter 5" in req["messages"][0]["content"]


async def test_pause_turn_is_continued(tmp_path, model, approve):
    first = search_blocks("q", [("A", "https://a.example/")], "srvtoolu_a")
    model.push(reply(text("Searching."), *first, stop_reason="pause_turn"))
    model.push(reply(*search_blocks("q2", [("B", "https://b.example/")], "srvtoolu_b"), text("Done.")))
    out = await _search(_ctx(tmp_path, model), approve, query="two rounds", blocked_domains=["spam.example"])
    assert "https://a.example/" in out.text and "https://b.example/" in out.text and "Done." in out.text
    assert len(_bodies(model)) == 2
    second = _bodies(model)[1]
    assert second["tools"][0]["blocked_domains"] == ["spam.example"]
    resumed = second["messages"][1]
    assert resumed["role"] == "assistant"
    assert [b["type"] for b in resumed["content"]] == ["text", "server_tool_use", "web_search_tool_result"]
    assert resumed["content"][2]["content"][0]["encrypted_content"] == "enc"


async def test_search_error_and_no_results(tmp_path, model, approve):
    model.push(reply(
        block({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}}),
        block({"type": "web_search_tool_result", "tool_use_id": "s1",
               "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}),
    ))
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
    model.push(fault_status(500))  # the SDK retries a 500; the retry finds nothing scripted (400)
    failed = await _search(ctx, approve, query="nothing scripted")
    assert failed.is_error and "Web search failed" in failed.text
    assert [r.served for r in model.message_requests] == ["fault", "none"]
    assert all(b["messages"][0]["content"] != "private thing" for b in _bodies(model))


def test_tool_param_for_the_main_loop():
    assert web_search_tool_param(blocked_domains=["x.com"], max_uses=2) == {
        "type": "web_search_20250305", "name": "web_search", "max_uses": 2, "blocked_domains": ["x.com"]}


async def test_given_client_is_used_and_left_open(tmp_path, model, approve):
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(base_url=model.url, api_key="session-key")
    ctx = _ctx(tmp_path, model)
    ctx.extra["web_search"] = WebSearchSettings(base_url="http://127.0.0.1:9", client=client)
    model.push(reply(*search_blocks("q", [("A", "https://a.example/")])))
    out = await _search(ctx, approve, query="with the session's client")
    assert "https://a.example/" in out.text and not client.is_closed()
    headers = model.message_requests[0].headers  # the session client's key was sent, not "k"
    assert "session-key" in (headers.get("x-api-key", ""), headers.get("authorization", "").removeprefix("Bearer "))
    await client.close()
