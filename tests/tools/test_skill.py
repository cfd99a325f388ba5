"""The Skill tool end to end: skills on disk → options.commands → run_tool_use → new_messages."""

from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow, ToolPermissionContext
from jupyter_agent.skills import load_commands
from jupyter_agent.tools.skill import SkillTool, skill_rule_matches
from tests.support.tools import make_context


def _project(tmp_path):
    skill = tmp_path / ".claude/skills/data-report/SKILL.md"
    skill.parent.mkdir(parents=True, exist_ok=True)
    skill.write_text("---\nname: data-report\ndescription: Build a data report\n---\n"
                     "Load $ARGUMENTS with pandas, then summarize each column.")
    hidden = tmp_path / ".claude/skills/deploy/SKILL.md"
    hidden.parent.mkdir(parents=True, exist_ok=True)
    hidden.write_text("---\nname: deploy\ndescription: Deploy\ndisable-model-invocation: true\n---\nDeploy it.")
    return load_commands(tmp_path, home=tmp_path / "nohome")


def _ctx(tmp_path, allow=()):
    ctx = make_context([SkillTool()], tmp_path, commands=_project(tmp_path))
    perms = ToolPermissionContext(allow_rules={"localSettings": tuple(allow)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    return ctx


async def test_skill_adds_instructions_to_conversation(tmp_path, approve):
    ctx = _ctx(tmp_path)
    out = await run_tool_use(ToolUseRequest("s", "Skill", {"skill": "data-report", "args": "sales.csv"}), ctx, approve)
    assert not out.is_error and out.text == "Launching skill: data-report"
    (ask_tool, ask), = approve.asks
    assert ask_tool == "Skill" and ask.suggestions[0].rules == ("Skill(data-report)",)
    (msg,) = out.new_messages
    assert msg["role"] == "user"
    texts = [b["text"] for b in msg["content"]]
    assert "<command-name>data-report</command-name>" in texts[0]
    assert "Load sales.csv with pandas, then summarize each column." in texts[1]
    assert f"Base directory for this skill: {tmp_path / '.claude/skills/data-report'}" in texts[1]


async def test_allow_rule_skips_the_question(tmp_path, approve):
    ctx = _ctx(tmp_path, allow=("Skill(data-report)",))
    out = await run_tool_use(ToolUseRequest("s", "Skill", {"skill": "/data-report"}), ctx, approve)
    assert not out.is_error and approve.asks == []
    tool = SkillTool()
    verdict = await tool.check_permissions(tool.input_schema(skill="data-report"), _ctx(tmp_path, ("Skill(data:*)",)))
    assert isinstance(verdict, PermissionAllow)


async def test_unknown_and_user_only_skills(tmp_path, approve):
    ctx = _ctx(tmp_path)
    out = await run_tool_use(ToolUseRequest("s", "Skill", {"skill": "nope"}), ctx, approve)
    assert out.is_error and out.text == "Unknown skill: nope. Available skills: data-report"
    out = await run_tool_use(ToolUseRequest("s", "Skill", {"skill": "deploy"}), ctx, approve)
    assert out.is_error and "for the user to run as /deploy" in out.text
    assert approve.asks == []


async def test_deny_rule(tmp_path, approve):
    ctx = _ctx(tmp_path)
    perms = ToolPermissionContext(deny_rules={"projectSettings": ("Skill(data-report)",)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    out = await run_tool_use(ToolUseRequest("s", "Skill", {"skill": "data-report"}), ctx, approve)
    assert out.is_error and "denied" in out.text and "Skill(data-report)" in out.text
    assert out.new_messages == []


def test_rule_matching():
    assert skill_rule_matches("pdf", "pdf") and not skill_rule_matches("pdf", "pdf2")
    assert skill_rule_matches("data:*", "data-report") and not skill_rule_matches("data:*", "report")
