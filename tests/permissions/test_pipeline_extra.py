"""The pipeline's corners: hook verdict merging, generic matchers, sticky asks, suggestions."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionPassthrough,
)
from jupyter_agent.core.tool import Tool
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.hook_response import HookOutcome
from jupyter_agent.permissions.settings import apply_permission_update
from jupyter_agent.permissions.tool_hooks import combine_with_hook
from jupyter_agent.permissions.verdicts import RULE, SAFETY, sticky_ask
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, EditLike, ReadLike, make_ctx

ALLOW = PermissionAllow()
SOFT = PermissionAsk("needs approval")
STICKY = sticky_ask("ask rule", RULE, "Bash(git push:*)")
DENY = PermissionDeny("denied by rule")


@pytest.mark.parametrize(
    ("verdict", "hook", "mode", "expected"),
    [
        (ALLOW, None, "default", "allow"),
        (SOFT, "allow", "default", "allow"),
        (STICKY, "allow", "default", "ask"),
        (DENY, "allow", "default", "deny"),
        (ALLOW, "deny", "default", "deny"),
        (SOFT, "deny", "default", "deny"),
        (ALLOW, "ask", "default", "ask"),
        (ALLOW, "ask", "dontAsk", "deny"),
        (DENY, "ask", "default", "deny"),
        (SOFT, "ask", "default", "ask"),
    ],
)
def test_combine_with_hook(world, verdict, hook, mode, expected):
    ctx = make_ctx(world.project, mode=mode)
    outcome = HookOutcome(permission_decision=hook) if hook else None
    assert verdict_name(combine_with_hook(verdict, outcome, BashLike(), ctx)) == expected


class _QueryInput(BaseModel):
    table: str


class QueryTool(Tool[_QueryInput, str]):
    """A tool with its own rule matcher: ``Query(users)`` matches queries on that table."""

    name = "Query"
    input_schema = _QueryInput

    def prepare_permission_matcher(self, input):
        return lambda pattern: pattern == f"Query({input.table})"


@pytest.mark.parametrize(
    ("rules", "table", "expected"),
    [
        ({"deny": ("Query(users)",)}, "users", "deny"),
        ({"deny": ("Query(users)",)}, "orders", "ask"),
        ({"allow": ("Query(orders)",)}, "orders", "allow"),
        ({"ask": ("Query(orders)",), "mode": "bypassPermissions"}, "orders", "ask"),
        ({"mode": "bypassPermissions"}, "orders", "allow"),
    ],
)
async def test_generic_content_rules_use_the_tools_matcher(world, rules, table, expected):
    ctx = make_ctx(world.project, **rules)
    verdict = await has_permission_to_use_tool(QueryTool(), _QueryInput(table=table), ctx)
    assert verdict_name(verdict) == expected


class ForgetfulRead(ReadLike):
    """A Read tool whose own check forgot the path rules."""

    async def check_permissions(self, input, context):
        return PermissionPassthrough()


async def test_path_deny_applies_even_if_the_tool_forgets(world):
    ctx = make_ctx(world.project, deny=("Read(./.env)",))
    tool = ForgetfulRead()
    verdict = await has_permission_to_use_tool(tool, tool.input_schema(file_path=str(world.project / "env-link")), ctx)
    assert isinstance(verdict, PermissionDeny) and "Read(./.env)" in verdict.message


class StickyTool(EditLike):
    async def check_permissions(self, input, context):
        return sticky_ask("Only the user may answer.", SAFETY, "user only")


@pytest.mark.parametrize("mode", ["default", "bypassPermissions", "acceptEdits"])
async def test_sticky_asks_survive_every_mode_and_allow_rules(world, mode):
    ctx = make_ctx(world.project, mode=mode, allow=("Edit",))
    verdict = await has_permission_to_use_tool(StickyTool(), StickyTool.input_schema(file_path="a.py"), ctx)
    assert verdict_name(verdict) == "ask"


async def test_whole_tool_allow_covers_soft_asks(world):
    ctx = make_ctx(world.project, allow=("Bash",))
    tool = BashLike()
    verdict = await has_permission_to_use_tool(tool, tool.input_schema(command="pytest && npm test"), ctx)
    assert verdict_name(verdict) == "allow"


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("git push origin main", ("Bash(git push:*)",)),
        ("pytest -q tests/test_x.py", ("Bash(pytest:*)",)),
        ("npm run build && npm test", ("Bash(npm run build:*)", "Bash(npm test:*)")),
        ("npm run test:unit -- --watch", ("Bash(npm run test:unit:*)",)),
        ("ls && ./scripts/deploy.sh", ("Bash(./scripts/deploy.sh)",)),
        ("sudo apt update", ()),
        ("bash -c 'pytest'", ()),
        # an interpreter: its script or module, never the interpreter itself
        ("python train.py --epochs 3", ("Bash(python train.py:*)",)),
        ("python3.11 scripts/fit.py", ("Bash(python3.11 scripts/fit.py:*)",)),
        ("python -m pytest -q", ("Bash(python -m pytest:*)",)),
        ("python -c 'print(1)'", ()),
        ("node -e 'process.exit(1)'", ()),  # a quoted word: not even the exact command
        ("python --help", ("Bash(python --help)",)),  # no safe prefix: the exact command
        ("node -e 1", ("Bash(node -e 1)",)),
        ("bash ./build.sh", ("Bash(bash ./build.sh:*)",)),
        ("perl -pe 's/a/b/' f", ("Bash(perl -pe s/a/b/ f)",)),  # exact: the quotes change nothing
        ("env python train.py", ("Bash(python train.py:*)",)),
        ("python 'my script.py'", ()),
        # a runner: the thing it runs
        ("uv run pytest -x", ("Bash(uv run pytest:*)",)),
        ("uv run python -c 1", ("Bash(uv run python -c 1)",)),
        ("uv run python train.py", ("Bash(uv run python train.py:*)",)),
        ("poetry run --verbose pytest", ("Bash(poetry run --verbose pytest)",)),
        ("docker run --rm -v ./data:/data img", ("Bash(docker run --rm -v ./data:/data img)",)),
        ("docker run --rm -v /:/host img", ()),  # it also reads / (outside): that rule would not do
        ("npx prettier --write .", ("Bash(npx prettier:*)",)),
        # options before the subcommand, or no subcommand: unknown
        ("git -C sub push", ("Bash(git -C sub push)",)),
        ("git", ("Bash(git)",)),
        ("ls && ./scripts/deploy.sh --prod", ("Bash(./scripts/deploy.sh --prod)",)),
    ],
)
def test_always_allow_suggestions(world, command, rules):
    verdict = check_bash_permission(command, make_ctx(world.project))
    assert isinstance(verdict, PermissionAsk)
    got = verdict.suggestions[0].rules if verdict.suggestions else ()
    assert got == rules


async def test_an_accepted_interpreter_suggestion_does_not_allow_inline_code(world):
    """After "Always allow" on ``python train.py``, that script runs, ``python -c`` still asks."""
    (rule,) = check_bash_permission("python train.py", make_ctx(world.project)).suggestions[0].rules
    ctx = make_ctx(world.project, allow=(rule,))
    assert verdict_name(check_bash_permission("python train.py --lr 0.1", ctx)) == "allow"
    for other in ("python -c 'import os'", "python evil.py", "python -m http.server", "python"):
        assert verdict_name(check_bash_permission(other, ctx)) == "ask", other


def test_an_accepted_exact_suggestion_allows_that_command_only(world):
    (rule,) = check_bash_permission("python --help", make_ctx(world.project)).suggestions[0].rules
    assert rule == "Bash(python --help)"
    ctx = make_ctx(world.project, allow=(rule,))
    assert verdict_name(check_bash_permission("python --help", ctx)) == "allow"
    for other in ("python --help -c 'import os'", "python --help x.py", "python"):
        assert verdict_name(check_bash_permission(other, ctx)) == "ask", other


async def test_edit_suggestion_is_a_working_session_rule(world):
    ctx = make_ctx(world.project)
    tool = EditLike()
    ask = await has_permission_to_use_tool(tool, tool.input_schema(file_path="a.py"), ctx)
    assert isinstance(ask, PermissionAsk) and ask.suggestions[0].destination == "session"
    assert apply_permission_update(ask.suggestions[0], ctx) is None
    again = await has_permission_to_use_tool(tool, tool.input_schema(file_path="sub/b.py"), ctx)
    assert verdict_name(again) == "allow"
    outside = await has_permission_to_use_tool(tool, tool.input_schema(file_path=str(world.outside / "x")), ctx)
    assert verdict_name(outside) == "ask"


async def test_additional_directories_are_working_directories(world):
    ctx = make_ctx(world.project, additional=(world.outside,))
    tool = BashLike()
    for command in ("cat ../outside/data.txt", "cd ../outside && ls"):
        assert verdict_name(await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)) == "allow"
    verdict = await has_permission_to_use_tool(
        ReadLike(), ReadLike.input_schema(file_path=str(world.outside / "data.txt")), ctx
    )
    assert verdict_name(verdict) == "allow"


@pytest.mark.parametrize(
    ("command", "read_only"),
    [
        ("ls -la && git status", True),
        ("cat a | grep x | wc -l", True),
        ("echo hi > f", False),
        ("cd sub", False),  # no context: no working directories to be inside of
        ("rm x", False),
        ("git push", False),
        ("ls $(rm x)", False),
        ("echo ok &&", False),
        ("", True),
    ],
)
def test_is_read_only_without_context(command, read_only):
    assert is_read_only_command(command, None) is read_only
