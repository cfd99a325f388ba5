from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.subagents import BUILT_IN_AGENTS
from jupyter_agent.subagents.read_only import ReadOnlyGuard
from jupyter_agent.subagents.runner import subagent_tools
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.ask_user_question import AskUserQuestionTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool
from tests.support.tools import make_context

EXPLORE = next(a for a in BUILT_IN_AGENTS if a.name == "Explore")
GENERAL = next(a for a in BUILT_IN_AGENTS if a.name == "general-purpose")


def test_tool_selection():
    parent = [AgentTool(), AskUserQuestionTool(), ReadTool(), WriteTool()]
    assert [t.name for t in subagent_tools(parent, GENERAL)] == ["Read", "Write"]
    explore = subagent_tools(parent, EXPLORE)
    assert [t.name for t in explore] == ["Read"] and isinstance(explore[0], ReadOnlyGuard)


async def test_guard_denies_writes_before_asking_and_lets_reads_through(tmp_path, approve):
    (tmp_path / "a.txt").write_text("alpha\n")
    guarded = [ReadOnlyGuard(ReadTool(), "Explore"), ReadOnlyGuard(WriteTool(), "Explore")]
    ctx = make_context(guarded, tmp_path)
    write = await run_tool_use(
        ToolUseRequest("w", "Write", {"file_path": str(tmp_path / "b.txt"), "content": "x"}), ctx, approve
    )
    assert write.is_error and "The Explore agent is read-only" in write.text
    assert approve.asks == [] and not (tmp_path / "b.txt").exists()
    read = await run_tool_use(ToolUseRequest("r", "Read", {"file_path": str(tmp_path / "a.txt")}), ctx, approve)
    assert not read.is_error and "alpha" in read.text
    assert guarded[0].input_json_schema() == ReadTool().input_json_schema()


async def test_plan_mode_turns_a_writing_agent_away_and_names_the_ones_that_may_run(tmp_path):
    from dataclasses import replace

    from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny
    from jupyter_agent.permissions.decide import has_permission_to_use_tool

    tool = AgentTool()
    ctx = make_context([tool], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="plan")))
    general = tool.input_schema(description="survey", prompt="count rows", subagent_type="general-purpose")
    verdict = await has_permission_to_use_tool(tool, general, ctx)
    assert isinstance(verdict, PermissionDeny) and verdict.message.startswith("Plan mode is on")
    assert 'use subagent_type "Explore" or "Plan" to research' in verdict.message
    explore = tool.input_schema(description="survey", prompt="count rows", subagent_type="Explore")
    assert isinstance(await has_permission_to_use_tool(tool, explore, ctx), PermissionAllow)
