"""Sandbox settings files, bwrap detection, and failing closed when bwrap cannot sandbox."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.core.permission_types import PermissionAsk, PermissionDeny
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.sandbox import bwrap as bwrap_module
from jupyter_agent.sandbox.bwrap import bwrap_args, probe
from jupyter_agent.sandbox.settings import SandboxSettings, load_sandbox_settings
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.tasks.shell_support import bash, bash_context

from .conftest import sandboxed_context


def _write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_settings_merge_user_project_local(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    _write(home / ".claude" / "settings.json", {"sandbox": {"enabled": True, "allowUnsandboxedCommands": False}})
    _write(project / ".claude" / "settings.json", {"sandbox": {"autoAllowBashIfSandboxed": False}})
    _write(project / ".claude" / "settings.local.json", {"sandbox": {"allowUnsandboxedCommands": True}})
    assert load_sandbox_settings(project, home, trusted=True) == SandboxSettings(True, False, True)
    assert load_sandbox_settings(tmp_path / "none", tmp_path / "nohome") == SandboxSettings()


def test_the_files_are_read_again_only_when_one_changed(tmp_path, monkeypatch):
    """Every Bash call asks for these settings: the last ones are kept while the files (and the
    managed ones, and the trust records) stay as they were."""
    from jupyter_agent.sandbox import settings as module

    home, project = tmp_path / "home", tmp_path / "proj"
    _write(project / ".claude" / "settings.json", {"sandbox": {"enabled": True}})
    reads: list[str] = []
    real_read = module.read_settings_file
    monkeypatch.setattr(module, "read_settings_file", lambda path: reads.append(path.name) or real_read(path))
    first = load_sandbox_settings(project, home)
    assert first.enabled and len(reads) == 3
    assert load_sandbox_settings(project, home) is first and len(reads) == 3
    _write(project / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    assert not load_sandbox_settings(project, home).enabled and len(reads) == 6
    _write(project / ".claude" / "settings.local.json", {"sandbox": {"enabled": True, "excludedCommands": ["docker"]}})
    assert load_sandbox_settings(project, home).excluded == ()  # not trusted: excludedCommands loosens
    from jupyter_agent.permissions.trust import trust_folder

    trust_folder(project, home)  # the trust record changed: read again, the folder's files apply
    assert load_sandbox_settings(project, home).excluded == ("docker",)
    assert load_sandbox_settings(tmp_path / "elsewhere", home) != load_sandbox_settings(project, home)


def test_an_untrusted_folder_cannot_loosen_the_sandbox(tmp_path):
    """A cloned repository's files may turn the sandbox on, never let commands skip asking or
    leave it; once the folder is trusted they apply (the trust file under ``home``)."""
    from jupyter_agent.permissions.trust import trust_folder

    home, project = tmp_path / "home", tmp_path / "proj"
    _write(project / ".claude" / "settings.json",
           {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True, "allowUnsandboxedCommands": True}})
    _write(home / ".claude" / "settings.json", {"sandbox": {"allowUnsandboxedCommands": False}})
    assert load_sandbox_settings(project, home) == SandboxSettings(True, False, False)
    trust_folder(project, home)
    assert load_sandbox_settings(project, home) == SandboxSettings(True, True, True)
    _write(home / ".claude" / "settings.json", {"sandbox": {"autoAllowBashIfSandboxed": True}})
    assert load_sandbox_settings(project, home, trusted=False) == SandboxSettings(True, True, True)  # the user's say


def test_path_and_credential_lists_join_across_files_even_untrusted(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    _write(home / ".claude" / "settings.json", {"sandbox": {
        "filesystem": {"denyRead": ["~/.aws/**"]},
        "credentials": {"envVars": [{"name": "GH_TOKEN", "mode": "deny"}], "files": [{"path": "~/.netrc", "mode": "mask"}]},
    }})
    _write(project / ".claude" / "settings.json", {"sandbox": {
        "filesystem": {"denyRead": ["./private/"], "denyWrite": ["./deploy/"]},
        "credentials": {"envVars": [{"name": "OPENAI_API_KEY", "mode": "mask", "injectHosts": ["api.openai.com"]}]},
    }})
    _write(project / ".claude" / "settings.local.json", {"sandbox": {
        "filesystem": {"allowWrite": ["~/.cache"], "allowRead": ["~/.aws/config", "~/.ssh/**"]}, "excludedCommands": ["docker"]}})
    got = load_sandbox_settings(project, home, trusted=False)  # lists only restrict: an untrusted file's count
    assert got.deny_read == (("userSettings", "~/.aws/**"), ("projectSettings", "./private/"))
    assert got.credential_files == (("userSettings", "~/.netrc"),)
    assert got.deny_write == (("projectSettings", "./deploy/"),)
    assert got.env_deny == ("GH_TOKEN",) and got.env_mask == ("OPENAI_API_KEY",)
    assert got.allow_write == () and got.excluded == () and got.allow_read == ()  # … except what loosens
    trusted = load_sandbox_settings(project, home, trusted=True)
    assert trusted.allow_write == (("localSettings", "~/.cache"),) and trusted.excluded == ("docker",)
    assert trusted.allow_read == (("localSettings", "~/.aws/config"), ("localSettings", "~/.ssh"))


@pytest.mark.parametrize("block", [
    [], {"enabled": "yes"}, {"autoAllowBashIfSandboxed": 1}, {"filesystem": []}, {"filesystem": {"denyRead": "x"}},
    {"filesystem": {"denyWrite": [""]}}, {"credentials": {"envVars": [{"name": "A B", "mode": "deny"}]}},
    {"credentials": {"envVars": [{"name": "TOKEN", "mode": "hide"}]}}, {"credentials": {"files": [{"mode": "deny"}]}},
    {"excludedCommands": "docker"}, {"excludedCommands": [""]}, {"network": {"allowAllUnixSockets": "yes"}},
])
def test_malformed_settings_name_the_file(tmp_path, block):
    _write(tmp_path / ".claude" / "settings.json", {"sandbox": block})
    with pytest.raises(AgentConfigError, match="settings.json"):
        load_sandbox_settings(tmp_path, tmp_path / "home")


async def test_project_settings_file_turns_the_sandbox_on(tmp_path, approve):
    ctx = bash_context(tmp_path)
    _write(tmp_path / "work" / ".claude" / "settings.json", {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False}})
    verdict = await BashTool().check_permissions(BashInput(command="touch x", dangerouslyDisableSandbox=True), ctx)
    assert isinstance(verdict, PermissionAsk) and "outside the sandbox" in verdict.message
    # saved half-way (an editor saving as you type): the settings in force stay, as for the rules
    (tmp_path / "work" / ".claude" / "settings.json").write_text('{"sandbox": {"enabled": tr')
    held = await BashTool().check_permissions(BashInput(command="touch x", dangerouslyDisableSandbox=True), ctx)
    assert isinstance(held, PermissionAsk) and "outside the sandbox" in held.message
    # valid JSON that says something invalid is a mistake to name, not a save in progress
    _write(tmp_path / "work" / ".claude" / "settings.json", {"sandbox": {"enabled": 3}})
    broken = await BashTool().check_permissions(BashInput(command="ls"), ctx)
    assert isinstance(broken, PermissionDeny) and "sandbox settings are invalid" in broken.message


async def test_settings_that_never_parsed_refuse_every_command(tmp_path):
    """Nothing read before for these folders: a half-saved file leaves nothing to keep — fail closed."""
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / ".claude").mkdir(parents=True)
    (tmp_path / "work" / ".claude" / "settings.json").write_text('{"sandbox": {"enabled": tr')
    assert isinstance(await BashTool().check_permissions(BashInput(command="ls"), ctx), PermissionDeny)


async def test_invalid_settings_refuse_every_command(tmp_path):
    """A file that parses but says something invalid: the mistake is named — fail closed."""
    ctx = bash_context(tmp_path)
    _write(tmp_path / "work" / ".claude" / "settings.json", {"sandbox": {"enabled": 3}})
    broken = await BashTool().check_permissions(BashInput(command="ls"), ctx)
    assert isinstance(broken, PermissionDeny) and "sandbox settings are invalid" in broken.message


async def test_probe_reports_why_bwrap_cannot_sandbox(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    result = await probe(str(fake))
    assert not result.ok and "No permissions to creating new namespace" in result.reason
    assert "cannot create namespaces" in result.reason


async def test_missing_bwrap_fails_closed(tmp_path, approve, monkeypatch):
    monkeypatch.setattr(bwrap_module, "find_bwrap", lambda: None)
    monkeypatch.setattr(bwrap_module, "_cache", {})
    assert "not installed" in (await probe()).reason
    ctx = sandboxed_context(tmp_path)
    marker = tmp_path / "work" / "ran"
    verdict = await BashTool().check_permissions(BashInput(command=f"touch {marker}"), ctx)
    assert isinstance(verdict, PermissionAsk)  # not auto-allowed without a working sandbox
    out = await bash(ctx, approve, f"touch {marker}")
    assert out.is_error and "Sandbox unavailable" in out.text and not marker.exists()
    outside = await bash(ctx, approve, f"touch {marker}", dangerouslyDisableSandbox=True)
    assert not outside.is_error and marker.exists()  # only after the (recorded) ask
    assert "outside the sandbox" in approve.asks[-1][1].message


def test_command_line_binds_working_dirs_and_protected_paths(tmp_path):
    work = tmp_path / "work"
    (work / ".git" / "hooks").mkdir(parents=True)
    args = bwrap_args("/usr/bin/bwrap", writable=[work, tmp_path / "missing"], cwd=work)
    joined = " ".join(args)
    for flag in ("--die-with-parent", "--unshare-all", "--ro-bind / /", "--tmpfs /tmp"):
        assert flag in joined
    assert f"--bind {work.resolve()} {work.resolve()}" in joined
    assert f"--ro-bind {work.resolve()}/.git/hooks" in joined
    assert "missing" not in joined and args[-1] == "--"


def test_an_empty_file_beside_an_invalid_one_is_no_save_in_progress(tmp_path):
    """An empty settings file reads as {}: it must not make an invalid neighbour look half-saved
    (the last good settings would then hide the mistake)."""
    home, project = tmp_path / "home", tmp_path / "proj"
    _write(project / ".claude" / "settings.json", {"sandbox": {"enabled": True}})
    assert load_sandbox_settings(project, home).enabled
    (project / ".claude" / "settings.local.json").write_text("")
    _write(project / ".claude" / "settings.json", {"sandbox": {"enabled": "yes"}})
    with pytest.raises(AgentConfigError, match="sandbox.enabled must be true or false"):
        load_sandbox_settings(project, home)
    (project / ".claude" / "settings.json").write_text('{"sandbox": {"enab')  # now half-saved: kept
    assert load_sandbox_settings(project, home).enabled
