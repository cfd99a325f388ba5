from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import RegistryConfig, get_all_base_tools
from jupyter_agent.tools.brief import OFF_TEXT, ON_TEXT, BriefTool, is_brief
from tests.support.tools import make_context


async def test_brief_mode_toggles_app_state(tmp_path, reject):
    ctx = make_context([BriefTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("b", "Brief", {}), ctx, reject)
    assert out.text == ON_TEXT and is_brief(ctx.get_app_state())
    out = await run_tool_use(ToolUseRequest("b2", "Brief", {"enabled": False}), ctx, reject)
    assert out.text == OFF_TEXT and not is_brief(ctx.get_app_state())
    assert reject.asks == []


def test_brief_and_sleep_exist_only_behind_their_flags():
    targets = {"Brief": "jupyter_agent.tools.brief:BriefTool", "Sleep": "jupyter_agent.tools.sleep:SleepTool"}
    off = get_all_base_tools(RegistryConfig(), targets=targets)
    on = get_all_base_tools(RegistryConfig(feature_flags=frozenset({"brief", "sleep"})), targets=targets)
    assert off == [] and sorted(t.name for t in on) == ["Brief", "Sleep"]
