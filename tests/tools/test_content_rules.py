"""decide_by_content_rules on real rules, through the two tools that use it (Skill, WebFetch):
deny beats ask beats allow, and with no matching rule the tool's own question."""

from __future__ import annotations

from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    ToolPermissionContext,
)
from jupyter_agent.tools.skill import SkillTool
from jupyter_agent.tools.web_fetch import WebFetchTool
from tests.support.tools import make_context


def _with_rules(tmp_path, **rules):
    ctx = make_context([SkillTool(), WebFetchTool()], tmp_path)
    perms = ToolPermissionContext(**{k: {"userSettings": v} for k, v in rules.items()})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    return ctx


async def _skill(ctx, name):
    tool = SkillTool()
    return await tool.check_permissions(tool.input_schema(skill=name), ctx)


async def _fetch(ctx, url):
    tool = WebFetchTool()
    return await tool.check_permissions(tool.input_schema(url=url, prompt="p"), ctx)


async def test_deny_then_ask_then_allow_then_the_tools_question(tmp_path):
    ctx = _with_rules(
        tmp_path,
        allow_rules=("Skill(report)", "Skill(review)", "Skill(lint)", "WebFetch(domain:*.example.com)"),
        ask_rules=("Skill(review)", "Skill(lint)", "WebFetch(domain:ask.example.com)"),
        deny_rules=("Skill(lint)", "WebFetch(domain:bad.example.com)"),
    )
    assert isinstance(allowed := await _skill(ctx, "report"), PermissionAllow)
    assert allowed.reason == "rule Skill(report)"
    asked = await _skill(ctx, "review")
    assert isinstance(asked, PermissionAsk) and asked.message == "Skill review requires approval (rule Skill(review))."
    denied = await _skill(ctx, "lint")
    assert isinstance(denied, PermissionDeny)
    assert denied.message == "Permission to use skill lint has been denied by rule Skill(lint)."
    other = await _skill(ctx, "deploy")
    assert isinstance(other, PermissionAsk) and other.message == "Use skill deploy?"
    assert other.suggestions[0].rules == ("Skill(deploy)",)

    assert isinstance(await _fetch(ctx, "https://docs.example.com/a"), PermissionAllow)
    asked = await _fetch(ctx, "https://ask.example.com/a")
    assert isinstance(asked, PermissionAsk) and "rule WebFetch(domain:ask.example.com)" in asked.message
    denied = await _fetch(ctx, "https://bad.example.com/a")
    assert isinstance(denied, PermissionDeny)
    assert denied.message == "Permission to fetch bad.example.com has been denied by rule WebFetch(domain:bad.example.com)."
    other = await _fetch(ctx, "https://elsewhere.org/{x}")
    assert isinstance(other, PermissionAsk) and other.message == "Claude wants to fetch content from elsewhere.org"
