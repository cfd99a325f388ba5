from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.ctx_inspect import ContextSource, CtxInspectTool, inspect_context
from jupyter_agent.tools.sleep import SleepTool
from tests.support.tools import make_context


def _conversation(big: str) -> list[dict]:
    return [
        {"role": "user", "content": "read the file"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": "thanks"},
    ]


async def test_counts_parts_and_names_the_largest_tool_result(tmp_path):
    ctx = make_context([CtxInspectTool(), SleepTool()], tmp_path)
    ctx.messages = _conversation("x" * 40_000)
    out = await inspect_context(ctx, 3)
    assert out.message_count == 5 and out.tool_count == 2
    assert 9_900 < out.tool_result_tokens < 10_200
    assert out.largest[0].label == "message 2 (user): tool_result of Read"
    assert out.largest[0].cached  # before the last user message: read from the cache
    assert out.total_tokens == out.system_tokens + out.tools_tokens + out.messages_tokens
    assert out.cached_tokens + out.uncached_tokens == out.total_tokens and out.uncached_tokens > 0


async def test_session_source_sets_window_threshold_and_system(tmp_path, reject):
    ctx = make_context([CtxInspectTool()], tmp_path)
    ctx.messages = _conversation("y" * 4000)
    ctx.extra["ctx_inspect"] = ContextSource(
        system=[{"type": "text", "text": "s" * 8000}], context_window=10_000, compact_threshold=0.5,
        last_input_tokens=4_321,
    )
    out = await run_tool_use(ToolUseRequest("c", "CtxInspect", {}), ctx, reject)
    assert not out.is_error and reject.asks == []
    assert "of a 10,000-token window" in out.text
    assert "- System prompt: ~2,000" in out.text
    assert "Compaction at ~5,000 tokens" in out.text
    assert "real input tokens: 4,321" in out.text


async def test_threshold_reached_is_reported(tmp_path, reject):
    ctx = make_context([CtxInspectTool()], tmp_path)
    ctx.messages = _conversation("z" * 40_000)
    ctx.extra["ctx_inspect"] = ContextSource(context_window=12_000)
    out = await run_tool_use(ToolUseRequest("c", "CtxInspect", {"top": 1}), ctx, reject)
    assert "the threshold is reached" in out.text
    assert out.text.count("message ") == 1


async def test_bad_input_is_an_error(tmp_path, reject):
    ctx = make_context([CtxInspectTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("c", "CtxInspect", {"top": 0}), ctx, reject)
    assert out.is_error and "top" in out.text


async def test_attach_reads_a_real_session(tmp_path):
    from jupyter_agent.agent.session import AgentSession, SessionConfig
    from jupyter_agent.tools.ctx_inspect import attach_ctx_inspect

    session = AgentSession(SessionConfig(cwd=tmp_path, home=tmp_path / "home", load_settings=False, load_mcp=False,
                                         api_key="test", context_window=50_000, compact_threshold=0.6))
    attach_ctx_inspect(session)
    out = await inspect_context(session.context, 5)
    assert out.context_window == 50_000 and out.compact_at_tokens == 30_000
