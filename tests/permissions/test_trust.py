"""Folder trust: a project's .claude settings widen nothing until the folder is trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.settings import build_permission_context, load_settings
from jupyter_agent.permissions.trust import is_trusted, load_trust_records, trust_file, trust_folder
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, make_ctx

HOOK = {"SessionStart": [{"hooks": [{"type": "command", "command": "touch started"}]}]}


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def _project_file(world, name: str, data) -> Path:
    path = world.project / ".claude" / name
    _write(path, data)
    return path


# -- each widening element: held back untrusted, applied trusted ---------------------------------

WIDENING = [
    ({"permissions": {"allow": ["Bash", "Bash(rm:*)"]}}, "allow rules Bash, Bash(rm:*)",
     lambda s, source: s.rules["allow"].get(source, ()) == ("Bash", "Bash(rm:*)")),
    ({"permissions": {"defaultMode": "acceptEdits"}}, "defaultMode acceptEdits",
     lambda s, source: s.default_mode == "acceptEdits"),
    ({"permissions": {"defaultMode": "bypassPermissions"}}, "defaultMode bypassPermissions",
     lambda s, source: s.default_mode == "bypassPermissions"),
    ({"permissions": {"additionalDirectories": ["/"]}}, "additionalDirectories /",
     lambda s, source: s.additional_directories == (Path("/"),)),
    ({"hooks": HOOK}, "hooks SessionStart",
     lambda s, source: [m.event for m in s.hooks] == ["SessionStart"]),
]


@pytest.mark.parametrize(("name", "source"), [("settings.json", "projectSettings"),
                                                ("settings.local.json", "localSettings")])
@pytest.mark.parametrize(("data", "words", "applied"), WIDENING, ids=[w[1] for w in WIDENING])
def test_widening_part_is_held_back_until_trusted(world, name, source, data, words, applied):
    _project_file(world, name, data)
    untrusted = load_settings(world.project, home=world.home)
    assert not applied(untrusted, source)
    assert untrusted.held_back == (f".claude/{name}: {words}",)
    trusted = load_settings(world.project, home=world.home, trusted=True)
    assert applied(trusted, source) and trusted.held_back == ()


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_restricting_parts_always_apply(world, name):
    _project_file(world, name, {
        "permissions": {"deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"], "defaultMode": "plan",
                        "disableBypassPermissionsMode": "disable"},
        "cleanupPeriodDays": 7,
    })
    s = load_settings(world.project, home=world.home, trusted=False)
    source = "projectSettings" if name == "settings.json" else "localSettings"
    assert s.rules["deny"][source] == ("Read(./.env)",) and s.rules["ask"][source] == ("Bash(git push:*)",)
    assert s.default_mode == "plan" and s.cleanup_period_days == 7
    assert s.bypass_disabled_by == world.project / ".claude" / name
    assert s.held_back == ()


@pytest.mark.parametrize("mode", ["default", "plan", "dontAsk"])
def test_restricting_modes_are_kept(world, mode):
    _project_file(world, "settings.json", {"permissions": {"defaultMode": mode}})
    s = load_settings(world.project, home=world.home, trusted=False)
    assert s.default_mode == mode and s.held_back == ()


def test_mixed_file_holds_back_only_the_widening_parts(world):
    _project_file(world, "settings.json", {
        "permissions": {"allow": ["Bash", "Bash(rm:*)"], "deny": ["Bash(curl:*)"], "defaultMode": "bypassPermissions",
                        "additionalDirectories": ["/"]},
        "hooks": {**HOOK, "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]},
    })
    s = load_settings(world.project, home=world.home)
    assert s.held_back == (".claude/settings.json: allow rules Bash, Bash(rm:*); defaultMode bypassPermissions; "
                           "additionalDirectories /; hooks SessionStart, PreToolUse",)
    assert s.rules["deny"]["projectSettings"] == ("Bash(curl:*)",)
    assert s.rules["allow"]["projectSettings"] == () and s.hooks == () and s.default_mode is None
    assert s.additional_directories == ()


def test_an_untrusted_bypass_mode_falls_back_to_a_lower_one(world):
    _write(world.home / ".claude" / "settings.json", {"permissions": {"defaultMode": "acceptEdits"}})
    _project_file(world, "settings.local.json", {"permissions": {"defaultMode": "bypassPermissions"}})
    assert load_settings(world.project, home=world.home).default_mode == "acceptEdits"
    assert load_settings(world.project, home=world.home, trusted=True).default_mode == "bypassPermissions"


def test_the_user_file_is_always_trusted(world):
    _write(world.home / ".claude" / "settings.json", {
        "permissions": {"allow": ["Bash(ls:*)"], "additionalDirectories": ["shared"]}, "hooks": HOOK})
    s = load_settings(world.project, home=world.home, trusted=False)
    assert s.rules["allow"]["userSettings"] == ("Bash(ls:*)",)
    assert s.additional_directories == (world.home / "shared",) and len(s.hooks) == 1
    assert s.held_back == ()


def test_no_claude_folder_never_consults_the_store(world):
    _write(trust_file(world.home), "{broken")
    s = load_settings(world.project, home=world.home)
    assert s.held_back == () and s.trust_problems == () and s.files == ()


def test_malformed_files_still_fail_even_when_untrusted(world):
    _project_file(world, "settings.json", {"permissions": {"allow": ["Bash(rm"]}})
    with pytest.raises(AgentConfigError, match="invalid rule"):
        load_settings(world.project, home=world.home, trusted=False)


async def test_a_held_back_allow_rule_asks_and_a_trusted_one_allows(world):
    _project_file(world, "settings.json", {"permissions": {"allow": ["Bash"]}})
    tool = BashLike()
    for trusted, expected in ((None, "ask"), (True, "allow")):
        ctx = make_ctx(world.project)
        pc = build_permission_context(load_settings(world.project, home=world.home, trusted=trusted))
        ctx.set_app_state(lambda st, pc=pc: type(st)(tool_permission_context=pc))
        verdict = await has_permission_to_use_tool(tool, tool.input_schema(command="touch x"), ctx)
        assert verdict_name(verdict) == expected


# -- the trust store ---------------------------------------------------------------------------------


def test_trust_folder_records_the_real_path_and_keeps_other_keys(world):
    _write(trust_file(world.home), {"folders": ["/somewhere/else"], "note": "mine"})
    path = trust_folder(world.project, world.home)
    data = json.loads(path.read_text())
    assert data == {"folders": ["/somewhere/else", str(world.project.resolve())], "note": "mine"}
    trust_folder(world.project, world.home)  # idempotent
    assert json.loads(path.read_text())["folders"].count(str(world.project.resolve())) == 1
    assert [p for p in os.listdir(path.parent) if p.endswith(".tmp")] == []
    _project_file(world, "settings.json", {"permissions": {"allow": ["Bash"]}})
    s = load_settings(world.project, home=world.home)
    assert s.rules["allow"]["projectSettings"] == ("Bash",) and s.held_back == ()


def test_an_ancestor_is_trusted_and_a_sibling_with_a_longer_name_is_not(world):
    parent = world.root / "w"
    (parent / "proj" / "sub").mkdir(parents=True)
    (parent / "proj-evil").mkdir()
    trust_folder(parent / "proj", world.home)
    assert is_trusted(parent / "proj", world.home)
    assert is_trusted(parent / "proj" / "sub", world.home)
    assert not is_trusted(parent / "proj-evil", world.home)
    assert not is_trusted(parent, world.home)


def test_a_symlinked_project_resolves(world):
    link = world.root / "link-to-proj"
    os.symlink(world.project, link)
    trust_folder(link, world.home)
    assert json.loads(trust_file(world.home).read_text())["folders"] == [str(world.project.resolve())]
    assert is_trusted(world.project, world.home) and is_trusted(link, world.home)
    evil = world.root / "evil"
    evil.mkdir()
    os.symlink(evil, world.project / "inside-link")  # a link inside a trusted folder to outside it
    assert not is_trusted(world.project / "inside-link", world.home)


@pytest.mark.parametrize(("entry", "trusted"), [
    ({"hasTrustDialogAccepted": True}, True),
    ({"hasTrustDialogAccepted": False}, False),
    ({"hasTrustDialogAccepted": "true"}, False),
    ({}, False),
])
def test_claude_code_record_is_honoured(world, entry, trusted):
    _write(world.home / ".claude.json", {"projects": {str(world.project): entry}, "numStartups": 3})
    assert is_trusted(world.project / "sub", world.home) is trusted
    assert not (world.home / ".jupyter-agent").exists()  # read-only: nothing written


@pytest.mark.parametrize("content", ["{broken", "[]", json.dumps({"folders": "/"}), json.dumps({"folders": [1]})])
def test_a_malformed_trust_file_trusts_nothing_and_says_why(world, content):
    _write(trust_file(world.home), content)
    assert not is_trusted(world.project, world.home)
    records = load_trust_records(world.home)
    assert records.folders == () and str(trust_file(world.home)) in records.problems[0]
    _project_file(world, "settings.json", {"permissions": {"allow": ["Bash"]}})
    s = load_settings(world.project, home=world.home)
    assert s.held_back and s.trust_problems == records.problems
    with pytest.raises(AgentConfigError, match="Fix or remove the file"):
        trust_folder(world.project, world.home)
    assert trust_file(world.home).read_text() == content  # never clobbered


def test_a_relative_entry_is_ignored_with_a_message(world):
    _write(trust_file(world.home), {"folders": ["proj", str(world.root)]})
    records = load_trust_records(world.home)
    assert records.folders == (world.root.resolve(),) and "relative" in records.problems[0]
    assert is_trusted(world.project, world.home)


def test_a_malformed_claude_code_file_is_reported_not_fatal(world):
    _write(world.home / ".claude.json", "{nope")
    records = load_trust_records(world.home)
    assert records.folders == () and ".claude.json" in records.problems[0]
