"""ToolSearch: keyword search, select:, and a deferred tool becoming available in the next request."""

from __future__ import annotations

from pydantic import BaseModel

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import Tool
from jupyter_agent.mcp import tools_for_request
from jupyter_agent.tools.tool_search import ToolSearchTool, name_parts, score_tool
from tests.support.tools import SleepTool, make_context


class _In(BaseModel):
    text: str


def _deferred(name: str, doc: str, hint: str = "") -> Tool:
    cls = type(name, (Tool,), {
        "__doc__": doc, "name": name, "input_schema": _In, "should_defer": True, "search_hint": hint,
        "is_read_only": lambda self, i: True,
        "call": lambda self, i, *a, **k: _echo(i),
    })
    return cls()


async def _echo(i):
    return ToolResult(f"echo {i.text}")


def _pool():
    return [
        SleepTool(),
        ToolSearchTool(),
        _deferred("mcp__slack__post_message", "Post a message to a Slack channel."),
        _deferred("mcp__slack__list_channels", "List Slack channels."),
        _deferred("mcp__github__create_issue", "Create an issue in a GitHub repository.", "bug ticket"),
        _deferred("NotebookSummary", "Summarize a Jupyter notebook."),
    ]


def test_name_parts_and_scores():
    assert name_parts("mcp__slack__post_message") == ["mcp", "slack", "post", "message"]
    assert name_parts("NotebookEdit") == ["notebook", "edit"]
    assert score_tool(["slack"], "mcp__slack__post_message", "") == 10
    assert score_tool(["ticket"], "mcp__github__create_issue", "bug ticket") == 2
    assert score_tool(["+github", "slack"], "mcp__slack__post_message", "slack") == 0


async def test_deferred_tool_becomes_callable_next_turn(tmp_path, approve):
    pool = _pool()
    ctx = make_context(pool, tmp_path)
    sent, deferred = tools_for_request(pool, ctx.get_app_state())
    assert [t.name for t in sent] == ["Sleep", "ToolSearch"]
    assert "mcp__slack__post_message" in deferred

    out = await run_tool_use(ToolUseRequest("s1", "ToolSearch", {"query": "slack post"}), ctx, approve)
    assert not out.is_error
    assert out.result.data.matches[0] == "mcp__slack__post_message"
    assert '"name": "mcp__slack__post_message"' in out.text and '"parameters"' in out.text

    sent, deferred = tools_for_request(pool, ctx.get_app_state())
    sent_names = [t.name for t in sent]
    assert "mcp__slack__post_message" in sent_names
    assert "mcp__github__create_issue" in deferred and "mcp__github__create_issue" not in sent_names
    call = await run_tool_use(ToolUseRequest("c", "mcp__slack__post_message", {"text": "hi"}), ctx, approve)
    assert call.text == "echo hi"


async def test_select_and_limits(tmp_path, approve):
    pool = _pool()
    ctx = make_context(pool, tmp_path)
    out = await run_tool_use(
        ToolUseRequest("s", "ToolSearch", {"query": "select:NotebookSummary, nope ,mcp__github__create_issue"}),
        ctx, approve,
    )
    assert out.result.data.matches == ["NotebookSummary", "mcp__github__create_issue"]
    assert "Not found: nope" in out.text
    few = await run_tool_use(ToolUseRequest("k", "ToolSearch", {"query": "slack", "max_results": 1}), ctx, approve)
    assert len(few.result.data.matches) == 1
    by_hint = await run_tool_use(ToolUseRequest("h", "ToolSearch", {"query": "ticket"}), ctx, approve)
    assert by_hint.result.data.matches == ["mcp__github__create_issue"]
    none = await run_tool_use(ToolUseRequest("n", "ToolSearch", {"query": "kubernetes"}), ctx, approve)
    assert not none.is_error and "No matching deferred tools" in none.text
    assert "There are 4 deferred tools" in none.text
    bad = await run_tool_use(ToolUseRequest("b", "ToolSearch", {"query": ""}), ctx, approve)
    assert bad.is_error and "query" in bad.text
