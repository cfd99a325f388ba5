"""The pipeline's order with whole-tool rules and modes (Bash/path specifics: test_decide.py)."""

from __future__ import annotations

import pytest

from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    ToolPermissionContext,
)
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.rules import PermissionRule, RuleSyntaxError, parse_rule
from tests.support.tools import (
    GuardedTool,
    SleepInput,
    SleepTool,
    WriteStepInput,
    WriteStepTool,
    make_context,
)


def _ctx(tmp_path, mode="default", allow=(), deny=(), ask=()):
    ctx = make_context([], tmp_path)
    pc = ToolPermissionContext(
        mode=mode,
        allow_rules={"session": tuple(allow)},
        deny_rules={"session": tuple(deny)},
        ask_rules={"session": tuple(ask)},
    )
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=pc))
    return ctx


class PlainWriteTool(WriteStepTool):
    """A writing tool with no opinion of its own."""

    name = "PlainWrite"

    async def check_permissions(self, input, context):
        from jupyter_agent.core.permission_types import PermissionPassthrough

        return PermissionPassthrough()


R = SleepTool()
W = PlainWriteTool()
RI = SleepInput(label="x")
WI = WriteStepInput(label="x")


@pytest.mark.parametrize(
    ("tool", "inp", "mode", "allow", "deny", "ask", "expected"),
    [
        (R, RI, "default", (), (), (), PermissionAllow),
        (W, WI, "default", (), (), (), PermissionAsk),
        (W, WI, "default", ("PlainWrite",), (), (), PermissionAllow),
        (W, WI, "default", ("PlainWrite",), ("PlainWrite",), (), PermissionDeny),
        (R, RI, "default", (), ("Sleep",), (), PermissionDeny),
        (R, RI, "default", (), (), ("Sleep",), PermissionAsk),
        (W, WI, "default", ("PlainWrite",), (), ("PlainWrite",), PermissionAsk),
        (W, WI, "plan", ("PlainWrite",), (), (), PermissionDeny),
        (R, RI, "plan", (), (), (), PermissionAllow),
        (W, WI, "dontAsk", (), (), (), PermissionDeny),
        (W, WI, "dontAsk", ("PlainWrite",), (), (), PermissionAllow),
        (W, WI, "bypassPermissions", (), (), (), PermissionAllow),
        (W, WI, "bypassPermissions", (), ("PlainWrite",), (), PermissionDeny),
    ],
)
async def test_pipeline_order(tmp_path, tool, inp, mode, allow, deny, ask, expected):
    ctx = _ctx(tmp_path, mode, allow, deny, ask)
    assert isinstance(await has_permission_to_use_tool(tool, inp, ctx), expected)


async def test_plan_mode_message_says_plan_mode(tmp_path):
    verdict = await has_permission_to_use_tool(W, WI, _ctx(tmp_path, "plan"))
    assert isinstance(verdict, PermissionDeny) and "Plan mode" in verdict.message


async def test_tool_ask_is_denied_in_dont_ask_mode(tmp_path):
    from tests.support.tools import GuardedInput

    verdict = await has_permission_to_use_tool(GuardedTool(), GuardedInput(path="ok"), _ctx(tmp_path, "dontAsk"))
    assert isinstance(verdict, PermissionDeny) and "dontAsk" in verdict.message


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Bash", PermissionRule("Bash")),
        ("Bash()", PermissionRule("Bash")),
        ("Bash(*)", PermissionRule("Bash")),
        ("Bash(npm run test:*)", PermissionRule("Bash", "npm run test:*")),
        ("Bash(python -c print\\(1\\))", PermissionRule("Bash", "python -c print(1)")),
        ("WebFetch(domain:example.com)", PermissionRule("WebFetch", "domain:example.com")),
        ("  Read(./.env) ", PermissionRule("Read", "./.env")),
    ],
)
def test_parse_rule(text, rule):
    assert parse_rule(text) == rule
    assert parse_rule(str(rule)) == rule


@pytest.mark.parametrize("text", ["", "Bash(", "Bash(x", "(x)", "Bash)x"])
def test_parse_rule_errors(text):
    with pytest.raises(RuleSyntaxError):
        parse_rule(text)
