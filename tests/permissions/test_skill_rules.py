"""Skill(...) and WebFetch(domain:...) rules in the pipeline use the same matchers as the tools."""

from __future__ import annotations

import dataclasses

import pytest

from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    ToolPermissionContext,
)
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.rules import domain_rule_matches, host_rule_matches, skill_rule_matches
from jupyter_agent.tools.skill import SkillInput, SkillTool
from tests.support.tools import make_context


def _ctx(tmp_path, **rules):
    ctx = make_context([SkillTool()], tmp_path)
    pc = ToolPermissionContext(**{f"{k}_rules": {"session": v} for k, v in rules.items()})
    ctx.set_app_state(lambda s: dataclasses.replace(s, tool_permission_context=pc))
    return ctx


@pytest.mark.parametrize(
    ("rules", "skill", "expected"),
    [
        ({"deny": ("Skill(data:*)",)}, "data:clean", PermissionDeny),
        ({"deny": ("Skill(data:*)",)}, "/data:clean", PermissionDeny),
        ({"deny": ("Skill(data:*)",)}, "report", PermissionAsk),
        ({"allow": ("Skill(report)",)}, "report", PermissionAllow),
        ({"allow": ("Skill(report)",)}, "reports", PermissionAsk),
    ],
)
async def test_skill_rules_in_the_pipeline(tmp_path, rules, skill, expected):
    verdict = await has_permission_to_use_tool(SkillTool(), SkillInput(skill=skill), _ctx(tmp_path, **rules))
    assert isinstance(verdict, expected), verdict


@pytest.mark.parametrize(
    ("content", "host", "ok"),
    [
        ("domain:example.com", "example.com", True),
        ("domain:example.com", "EXAMPLE.com.", True),
        ("domain:*.example.com", "a.example.com", True),
        ("domain:*.example.com", "example.com", False),
        ("domain:*.example.com", "badexample.com", False),
        ("domain:", "example.com", False),
        ("example.com", "example.com", False),
    ],
)
def test_host_and_url_domain_rules_agree(content, host, ok):
    assert host_rule_matches(content, host) is ok
    assert domain_rule_matches(content, f"https://{host}/path") is ok


def test_skill_rule_matches():
    assert skill_rule_matches("data:*", "data:x") and skill_rule_matches("x", "/x")
    assert not skill_rule_matches("data:*", "other")
