"""Settings files → permission context; "Always allow" writes; malformed input errors."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from jupyter_agent.core.permission_types import PermissionUpdate
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.settings import build_permission_context, load_settings
from jupyter_agent.permissions.updates import apply_permission_update
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, ReadLike, make_ctx


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
def layered(world):
    _write(world.home / ".claude" / "settings.json", {
        "permissions": {"allow": ["Bash(aws s3 ls)"], "defaultMode": "acceptEdits",
                        "additionalDirectories": ["shared"]}})
    _write(world.project / ".claude" / "settings.json", {
        "permissions": {"deny": ["Bash(aws:*)", "Read(/secrets/**)"], "ask": ["Bash(git push:*)"],
                        "additionalDirectories": ["../outside"]}})
    _write(world.project / ".claude" / "settings.local.json", {
        "permissions": {"allow": ["Bash(git:*)"], "defaultMode": "plan"}, "model": "keep-me"})
    return world


def test_sources_and_precedence(layered):
    s = load_settings(layered.project, home=layered.home, trusted=True)
    assert s.rules["allow"] == {"userSettings": ("Bash(aws s3 ls)",), "projectSettings": (),
                                "localSettings": ("Bash(git:*)",)}
    assert s.default_mode == "plan"  # local beats user
    assert s.additional_directories == (layered.home / "shared", layered.outside)
    pc = build_permission_context(s, mode="default", allow=("Bash(pytest:*)",))
    assert pc.mode == "default" and pc.project_dir == layered.project
    assert pc.rules("allow")[0] == ("cliArg", "Bash(pytest:*)")


@pytest.mark.parametrize(
    ("command", "expected"),
    [("aws s3 ls", "deny"), ("git push", "ask"), ("git status && git log", "allow"), ("pytest", "allow"),
     ("cat ../outside/data.txt", "allow"), ("npm test", "ask")],
)
async def test_layered_rules_decide(layered, command, expected):
    s = load_settings(layered.project, home=layered.home, trusted=True)
    ctx = make_ctx(layered.project)
    pc = build_permission_context(s, mode="default", allow=("Bash(pytest:*)",))
    ctx.set_app_state(lambda st: type(st)(tool_permission_context=pc))
    tool = BashLike()
    assert verdict_name(await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)) == expected


async def test_slash_pattern_is_relative_to_the_settings_root(layered):
    (layered.project / "secrets").mkdir()
    (layered.project / "secrets" / "k").write_text("x")
    s = load_settings(layered.project, home=layered.home, trusted=True)
    ctx = make_ctx(layered.project)
    pc = build_permission_context(s, mode="default")
    ctx.set_app_state(lambda st: type(st)(tool_permission_context=pc))
    verdict = await has_permission_to_use_tool(ReadLike(), ReadLike.input_schema(file_path="secrets/k"), ctx)
    assert verdict_name(verdict) == "deny"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({"permissions": []}), "'permissions' must be an object"),
        (json.dumps({"permissions": {"allow": "Bash"}}), "permissions.allow"),
        (json.dumps({"permissions": {"deny": ["Bash(rm"]}}), "invalid rule"),
        (json.dumps({"permissions": {"allow": ["Bash(git:* x)"]}}), "only allowed at the end"),
        (json.dumps({"permissions": {"allow": ["WebFetch(example.com)"]}}), "domain:"),
        (json.dumps({"permissions": {"defaultMode": "yolo"}}), "defaultMode"),
        # a tool name in another case names no tool: the deny would hold nothing back
        (json.dumps({"permissions": {"deny": ["bash(rm:*)"]}}), "did you mean Bash?"),
        (json.dumps({"permissions": {"deny": ["READ(./.env)"]}}), "did you mean Read?"),
        (json.dumps({"permissions": {"ask": ["webfetch"]}}), "did you mean WebFetch?"),
        (json.dumps({"permissions": {"allow": ["task(reviewer)"]}}), "did you mean Task?"),
        (json.dumps({"permissions": {"additionalDirectories": "x"}}), "additionalDirectories"),
    ],
)
def test_malformed_settings_name_file_and_problem(world, content, problem):
    path = world.project / ".claude" / "settings.local.json"
    _write(path, content)
    with pytest.raises(AgentConfigError) as err:
        load_settings(world.project, home=world.home)
    assert str(path) in str(err.value) and problem in str(err.value)


def test_exact_tool_names_and_unknown_tools_load(world):
    """Only a built-in name in another case is refused: MCP tools and Claude Code's other names load."""
    path = world.project / ".claude" / "settings.local.json"
    rules = ["Bash(rm:*)", "Read(./.env)", "Task(reviewer)", "MultiEdit", "mcp__github__create_issue", "mcp__Bash"]
    _write(path, json.dumps({"permissions": {"deny": rules}}))
    assert load_settings(world.project, home=world.home).rules["deny"]["localSettings"] == tuple(rules)


def test_bad_session_options(world):
    s = load_settings(world.project, home=world.home)
    with pytest.raises(AgentConfigError, match="deny rule option"):
        build_permission_context(s, deny=("Bash(",))
    with pytest.raises(AgentConfigError, match="mode"):
        build_permission_context(s, mode="everything")  # type: ignore[arg-type]


async def test_always_allow_writes_local_settings_atomically(world):
    path = world.project / ".claude" / "settings.local.json"
    _write(path, {"model": "keep-me", "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./.env)"]},
                  "hooks": {}})
    ctx = make_ctx(world.project)
    tool = BashLike()
    ask = await has_permission_to_use_tool(tool, tool.input_schema(command="pytest -q tests"), ctx)
    assert verdict_name(ask) == "ask"
    update = ask.suggestions[0]
    assert update.rules == ("Bash(pytest:*)",) and update.destination == "localSettings"
    written = apply_permission_update(update, ctx, world.project)
    assert written == path
    data = json.loads(path.read_text())
    assert data["model"] == "keep-me" and data["permissions"]["deny"] == ["Read(./.env)"]
    assert data["permissions"]["allow"] == ["Bash(ls:*)", "Bash(pytest:*)"]
    assert [p for p in os.listdir(path.parent) if p.endswith(".tmp")] == []
    again = await has_permission_to_use_tool(tool, tool.input_schema(command="pytest -x"), ctx)
    assert verdict_name(again) == "allow"
    apply_permission_update(update, ctx, world.project)  # idempotent
    assert json.loads(path.read_text())["permissions"]["allow"].count("Bash(pytest:*)") == 1


async def test_session_update_touches_no_file(world):
    ctx = make_ctx(world.project)
    assert apply_permission_update(PermissionUpdate(("Edit",), destination="session"), ctx) is None
    assert ("session", "Edit") in ctx.permission_context.rules("allow")
    assert not (world.project / ".claude").exists()


def test_update_refuses_to_clobber_a_malformed_file(world):
    path = world.project / ".claude" / "settings.local.json"
    _write(path, "{broken")
    with pytest.raises(AgentConfigError):
        apply_permission_update(PermissionUpdate(("Bash(ls:*)",)), make_ctx(world.project), world.project)
    assert path.read_text() == "{broken"


def test_user_settings_update_goes_to_home(world):
    ctx = make_ctx(world.project)
    path = apply_permission_update(
        PermissionUpdate(("WebFetch(domain:docs.python.org)",), destination="userSettings"), ctx, home=world.home
    )
    assert path == world.home / ".claude" / "settings.json"
    assert json.loads(path.read_text())["permissions"]["allow"] == ["WebFetch(domain:docs.python.org)"]


def test_bypass_mode_can_be_disabled_by_settings(world):
    _write(world.home / ".claude" / "settings.json", {"permissions": {"disableBypassPermissionsMode": "disable"}})
    _write(world.project / ".claude" / "settings.local.json", {"permissions": {"defaultMode": "bypassPermissions"}})
    s = load_settings(world.project, home=world.home, trusted=True)
    with pytest.raises(AgentConfigError, match="disableBypassPermissionsMode"):
        build_permission_context(s)
    pc = build_permission_context(s, mode="acceptEdits")
    assert pc.mode == "acceptEdits"
    with pytest.raises(AgentConfigError, match="disableBypassPermissionsMode"):  # nor later in the session
        dataclasses.replace(pc, mode="bypassPermissions")
