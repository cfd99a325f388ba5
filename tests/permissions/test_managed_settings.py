"""The administrator's managed settings (``managed-settings.json`` and ``managed-settings.d/``):
always applied, above every other source, and the two keys only they may set."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from jupyter_agent.agent.approval import session_approver
from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionUpdate
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions import managed
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.settings import build_permission_context, load_settings
from jupyter_agent.permissions.updates import apply_permission_update
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, EditLike, PathInput, make_ctx


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
def policy(managed_policy):
    return managed_policy


def _context(world, settings, **options):
    ctx = make_ctx(world.project)
    pc = build_permission_context(settings, **options)
    ctx.set_app_state(lambda st: replace(st, tool_permission_context=pc))
    return ctx


async def _bash(ctx, command):
    tool = BashLike()
    return verdict_name(await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx))


async def test_managed_rules_apply_without_folder_trust_and_beat_every_allow(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {
        "allow": ["Bash(pytest:*)"], "deny": ["Bash(curl:*)", "Read(./.env)"], "ask": ["Bash(git push:*)"]}})
    _write(world.project / ".claude" / "settings.local.json", {"permissions": {"allow": ["Bash(curl:*)", "Bash(git:*)"]}})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert s.rules["deny"]["policySettings"] == ("Bash(curl:*)", "Read(./.env)")
    assert s.files[-1] == policy / "managed-settings.json"
    ctx = _context(world, s, allow=("Bash(curl:*)",))
    assert await _bash(ctx, "curl https://example.com") == "deny"  # local and session allow lose
    assert await _bash(ctx, "cat .env") == "deny"
    assert await _bash(ctx, "git push origin main") == "ask"  # the managed ask beats the local allow
    assert await _bash(ctx, "pytest -q") == "allow"
    untrusted = load_settings(world.project, home=world.home, trusted=False)
    assert await _bash(_context(world, untrusted), "pytest -q") == "allow"  # no trust needed
    assert await _bash(_context(world, untrusted), "git commit -m x") == "ask"  # the local allow is held back


def test_managed_mode_and_cleanup_period_win_over_the_files_but_not_the_session_option(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {"defaultMode": "dontAsk"}, "cleanupPeriodDays": 7})
    _write(world.project / ".claude" / "settings.local.json",
           {"permissions": {"defaultMode": "plan"}, "cleanupPeriodDays": 99})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert (s.default_mode, s.cleanup_period_days) == ("dontAsk", 7)
    assert build_permission_context(s).mode == "dontAsk"
    assert build_permission_context(s, mode="default").mode == "default"  # the user's explicit choice


def test_drop_ins_merge_on_top_in_name_order(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {"deny": ["Bash(curl:*)"]}, "cleanupPeriodDays": 3})
    _write(policy / "managed-settings.d" / "20-network.json",
           {"permissions": {"deny": ["WebFetch", "Bash(curl:*)"]}, "cleanupPeriodDays": 9})
    _write(policy / "managed-settings.d" / "10-mode.json",
           {"permissions": {"defaultMode": "plan"}, "cleanupPeriodDays": 5})
    _write(policy / "managed-settings.d" / ".editor-backup.json", "{broken")  # hidden: not read
    _write(policy / "managed-settings.d" / "README.txt", "not settings")
    s = load_settings(world.project, home=world.home)
    assert s.rules["deny"]["policySettings"] == ("Bash(curl:*)", "WebFetch")  # joined, no repeats
    assert (s.default_mode, s.cleanup_period_days) == ("plan", 9)  # 20-network.json came last
    assert s.managed is not None and s.managed.path == policy


def test_drop_ins_alone_are_managed_settings(world, policy):
    _write(policy / "managed-settings.d" / "only.json", {"permissions": {"deny": ["WebFetch"]}})
    s = load_settings(world.project, home=world.home)
    assert s.rules["deny"]["policySettings"] == ("WebFetch",)
    assert s.managed is not None and s.managed.path == policy / "managed-settings.d" / "only.json"


@pytest.mark.parametrize(("name", "text", "error"), [
    ("managed-settings.json", "{broken", "not valid JSON"),
    ("managed-settings.d/50-x.json", "{broken", "50-x.json is not valid JSON"),
    ("managed-settings.d/50-x.json", json.dumps({"permissions": {"deny": ["Bash(rm"]}}), "invalid rule"),
    ("managed-settings.json", json.dumps({"permissions": {"allowManagedPermissionRulesOnly": "yes"}}),
     "allowManagedPermissionRulesOnly must be true or false"),
    ("managed-settings.json", json.dumps({"allowManagedHooksOnly": 1}), "allowManagedHooksOnly must be true or false"),
    ("managed-settings.json", json.dumps(["not", "an", "object"]), "must contain a JSON object"),
])
def test_a_policy_that_cannot_be_read_stops_the_session(world, policy, name, text, error):
    _write(policy / name, text)
    with pytest.raises(AgentConfigError, match=error) as info:
        load_settings(world.project, home=world.home)
    assert str(policy) in str(info.value)


def test_a_folder_where_the_file_should_be_is_an_error_not_an_empty_policy(world, policy):
    (policy / "managed-settings.json").mkdir()
    with pytest.raises(AgentConfigError, match="Cannot read settings file"):
        load_settings(world.project, home=world.home)


async def test_allow_managed_permission_rules_only(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {
        "allowManagedPermissionRulesOnly": True, "allow": ["Bash(pytest:*)"]}})
    _write(world.project / ".claude" / "settings.json",
           {"permissions": {"allow": ["Bash(git:*)"], "deny": ["Bash(rm:*)"], "ask": ["Bash(pytest -x:*)"]}})
    _write(world.home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    s = load_settings(world.project, home=world.home)  # no trust record: nothing to hold back
    assert s.withheld == () and s.managed_rules_only
    assert dict(s.ignored_allow) == {world.home / ".claude" / "settings.json": ("Bash(make:*)",),
                                     world.project / ".claude" / "settings.json": ("Bash(git:*)",)}
    ctx = _context(world, s)
    assert await _bash(ctx, "pytest -q") == "allow"
    assert await _bash(ctx, "git commit -m x") == "ask"  # the project's allow rule is ignored
    assert await _bash(ctx, "make") == "ask"  # so is the user's
    assert await _bash(ctx, "rm x") == "deny"  # deny and ask rules of every file still count
    assert await _bash(ctx, "pytest -x") == "ask"
    with pytest.raises(AgentConfigError, match="allowManagedPermissionRulesOnly"):
        build_permission_context(s, allow=("Bash(make:*)",))
    assert build_permission_context(s, deny=("Bash(curl:*)",)).rules("deny")  # restricting is fine


def test_the_managed_only_keys_mean_nothing_in_other_files(world, policy):
    _write(world.project / ".claude" / "settings.local.json", {
        "permissions": {"allowManagedPermissionRulesOnly": True, "allow": ["Bash(git:*)"]},
        "allowManagedHooksOnly": True,
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert not s.managed_rules_only and s.rules["allow"]["localSettings"] == ("Bash(git:*)",)
    assert [h.event for h in s.hooks] == ["Stop"]


async def test_no_always_allow_is_offered_or_taken_under_managed_rules_only(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {"allowManagedPermissionRulesOnly": True}})
    ctx = _context(world, load_settings(world.project, home=world.home))
    seen = []

    async def handler(tool, input, context, ask, tool_use_id):
        seen.append(ask)
        return PermissionAllow()

    approve = session_approver(lambda: handler, lambda: None)
    rule = PermissionUpdate(rules=("Bash(npm test:*)",), destination="localSettings")
    ask = PermissionAsk("Run npm test?", suggestions=(rule,))
    tool = BashLike()
    assert isinstance(await approve(tool, tool.input_schema(command="npm test"), ctx, ask, "t1"), PermissionAllow)
    assert seen[0].message == "Run npm test?" and seen[0].suggestions == ()
    with pytest.raises(AgentConfigError, match="allowManagedPermissionRulesOnly"):
        apply_permission_update(rule, ctx, world.project, home=world.home)
    assert not (world.project / ".claude" / "settings.local.json").exists()
    assert ctx.permission_context.rules("allow") == []
    plain = make_ctx(world.project)  # without the policy the suggestion reaches the handler
    await approve(tool, tool.input_schema(command="npm test"), plain, ask, "t2")
    assert seen[1].suggestions == (rule,)


def _hook(command):
    return [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]


@pytest.mark.parametrize(("managed_extra", "local_extra", "expected"), [
    ({}, {}, ["managed", "project"]),
    ({"allowManagedHooksOnly": True}, {}, ["managed"]),
    ({}, {"disableAllHooks": True}, ["managed"]),  # a project cannot switch off the policy's hooks
    ({"disableAllHooks": True}, {}, []),
])
def test_which_hooks_run(world, policy, managed_extra, local_extra, expected):
    _write(policy / "managed-settings.json", {"hooks": {"PreToolUse": _hook("managed")}, **managed_extra})
    _write(world.project / ".claude" / "settings.json", {"hooks": {"PreToolUse": _hook("project")}, **local_extra})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert sorted(m.hooks[0].command for m in s.hooks) == expected
    if managed_extra:  # hooks that never run are not offered for folder trust either
        assert load_settings(world.project, home=world.home).withheld == ()


def test_bypass_disabled_by_the_policy_cannot_be_reached_any_way(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {"disableBypassPermissionsMode": "disable"}})
    _write(world.project / ".claude" / "settings.local.json", {"permissions": {"defaultMode": "bypassPermissions"}})
    s = load_settings(world.project, home=world.home, trusted=True)
    with pytest.raises(AgentConfigError, match="managed-settings.json"):
        build_permission_context(s)  # the local file's bypassPermissions
    pc = build_permission_context(s, mode="acceptEdits")
    with pytest.raises(AgentConfigError, match="disableBypassPermissionsMode"):
        replace(pc, mode="bypassPermissions")  # e.g. a mode change during the session
    assert replace(pc, mode="plan").mode == "plan"


@pytest.mark.parametrize("mode", ["bypassPermissions", "acceptEdits", "default"])
async def test_the_policy_folder_is_protected_in_every_mode(world, policy, mode):
    _write(policy / "managed-settings.json", {})
    ctx = make_ctx(world.project, mode=mode, allow=("Edit(//**)", "Bash(cp:*)", "Bash(tee:*)"),
                   additional=(policy,))
    edit = EditLike()
    for target in (policy / "managed-settings.json", policy / "managed-settings.d" / "zz.json"):
        verdict = await has_permission_to_use_tool(edit, PathInput(file_path=str(target), content="{}"), ctx)
        assert verdict_name(verdict) == "ask" and "managed settings" in verdict.message
    for command in (f"echo '{{}}' > {policy}/managed-settings.json", f"cp a.py {policy}/managed-settings.d/",
                    f"tee {policy}/managed-settings.json < a.py", f"rm -rf {policy}"):
        assert await _bash(ctx, command) == "ask", command
    # the same edits elsewhere are as the mode says
    ordinary = await has_permission_to_use_tool(edit, PathInput(file_path=str(world.project / "a.py")), ctx)
    assert verdict_name(ordinary) == "allow"


async def test_a_symlinked_policy_folder_is_protected_under_its_real_name_too(world, monkeypatch):
    real = world.root / "opt-policy"
    real.mkdir()
    (world.root / "etc").mkdir()
    (world.root / "etc" / "claude-code").symlink_to(real)
    monkeypatch.setattr(managed, "MANAGED_DIR", world.root / "etc" / "claude-code")
    ctx = make_ctx(world.project, mode="bypassPermissions")
    for target in (real / "managed-settings.json", world.root / "etc" / "claude-code" / "managed-settings.json"):
        verdict = await has_permission_to_use_tool(EditLike(), PathInput(file_path=str(target)), ctx)
        assert verdict_name(verdict) == "ask", target


def test_the_platform_folders():
    assert managed.platform_managed_dir().name in ("claude-code", "ClaudeCode")
    assert managed.merge({"a": {"b": [1], "c": 1}}, {"a": {"b": [1, 2], "c": 2}, "d": 3}) == {
        "a": {"b": [1, 2], "c": 2}, "d": 3}


def test_auto_mode_can_be_disabled_like_bypass(world, policy):
    _write(policy / "managed-settings.json", {"permissions": {"disableAutoMode": "disable"}})
    _write(world.home / ".claude" / "settings.json", {"permissions": {"defaultMode": "auto"}})
    s = load_settings(world.project, home=world.home)
    with pytest.raises(AgentConfigError, match=r"auto mode is disabled by .*permissions.disableAutoMode"):
        build_permission_context(s)
    pc = build_permission_context(s, mode="default")
    with pytest.raises(AgentConfigError, match="disableAutoMode"):
        replace(pc, mode="auto")
    assert replace(pc, mode="bypassPermissions").mode == "bypassPermissions"  # only auto is off
