"""git aliases: ``git x`` runs what ``alias.x`` says (``git_hooks._alias_scripts``, session 39).

With ``alias.x = !rm y`` in ``.git/config`` (or ``~/.gitconfig``), ``git x`` ran ``rm y`` under
``Bash(rm:*)`` denied in bypassPermissions, and ``alias.cl = clean -fdx`` removed
``.claude/settings.local.json``: the analyzer saw an unknown git subcommand.  An alias is now
read from every configuration file git reads: ``!CODE`` is shell code the line runs, anything
else ``git VALUE ARGS``, which is checked as a git command.  Real git shows each alias running.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

ALIASES = {"x": "!rm y", "st": "status", "p": "push --force", "cl": "clean -fdx", "co": "checkout",
           "arg": "!rm", "Up": "!echo up"}


def _repo(root: Path) -> Path:
    project = root / "proj"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    for name, value in ALIASES.items():
        git(project, "config", f"alias.{name}", value)
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    git(project, "add", ".gitignore")
    git(project, "commit", "-q", "-m", "one")
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("{}\n")
    (project / "y").write_text("y\n")
    return project


ROWS = [
    ("git x", "deny"),
    ("git X", "deny"),  # alias names are not case-sensitive
    ("git -C . x", "deny"),
    ("git arg y", "deny"),  # !rm with the arguments after it
    ("git cl", "ask"),  # git clean -fdx: removes the untracked .claude/settings.local.json
    ("git st", "allow"),
    ("git co main", "allow"),
    ("git up", "allow"),
    ("git status", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_an_alias_runs_what_it_says(tmp_path, command, expected):
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_an_alias_of_a_git_command_meets_the_rules_naming_that_command(tmp_path):
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(git push --force:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "git p origin main")
    assert verdict_name(verdict) == "deny"
    assert "git push --force origin main" in verdict.message


@pytest.mark.parametrize("command", ["git x", "git X", "git arg y"])
def test_real_git_runs_the_alias(tmp_path, command):
    project = _repo(tmp_path)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert not (project / "y").exists(), command


def test_real_git_clean_alias_removes_the_settings(tmp_path):
    project = _repo(tmp_path)
    subprocess.run(["git", "cl"], cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert not (project / ".claude" / "settings.local.json").exists()


async def test_an_alias_of_the_global_settings_counts(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    git(project, "init", "-q")
    settings = tmp_path / "global.gitconfig"
    settings.write_text('[alias]\n\tnuke = "!rm -rf build"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings))
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git nuke")) == "deny"
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "alias.zap")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "!rm z")
    assert verdict_name(await decide_bash(ctx, "git zap")) == "deny"
    assert verdict_name(await decide_bash(ctx, "git other")) == "allow"  # no alias: the program git-other


async def test_two_definitions_ask_for_the_one_a_deny_rule_names(tmp_path, monkeypatch):
    """The last definition wins, and which is last depends on includeIf conditions: a deny rule
    naming one of them asks."""
    project = _repo(tmp_path)
    settings = tmp_path / "global.gitconfig"
    settings.write_text('[alias]\n\tx = "!echo hello"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings))
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git x")) == "ask"
