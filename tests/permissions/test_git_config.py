"""git settings that name a program: ``Bash(git:*)`` allows git, not whatever git is told to run.
``git config core.fsmonitor "<program>"`` makes every later ``git status`` run it, and
``git -c core.fsmonitor=<program> status`` runs it at once; such settings (and any written for
every repository with ``--global``) ask in every mode past the rule, while ordinary settings and
reads run.  The rows that set a program are run by git to show they are real."""

from __future__ import annotations

import subprocess

import pytest

from jupyter_agent.permissions.git_config import runs_program
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

ASK = [
    'git config core.fsmonitor "touch {marker}; false"', 'git config --local core.fsmonitor "touch {marker}; false"',
    'git -c core.fsmonitor="touch {marker}; false" status', "git config alias.st '!touch {marker}'",
    "git config --add include.path ../evil.cfg", "git config diff.nb.textconv cat", "git config set core.pager less",
    "git config -e", "git config $K $V", "git --config-env=core.pager=P log", "git config --global user.email a@b.c",
    "git config IncludeIf.gitdir:x.path y", "git config filter.x.clean cat", "git config credential.helper store",
    "git --exec-path=/tmp/helpers ls-remote evil::x",  # git runs /tmp/helpers/git-remote-evil
]
RUN = [
    "git config user.email a@b.c", "git config core.fsmonitor", "git config --get core.fsmonitor", "git config --list",
    "git config --unset core.fsmonitor", "git config remote.origin.url https://example.com/x.git",
    "git config branch.main.remote origin", "git -c user.name=x commit -q --allow-empty -m m", "git status",
    "git --exec-path", "git config -f local.cfg a.b c",
]


@pytest.fixture
def repo(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    git(project, "init", "-q")
    (project / "a.txt").write_text("a\n")
    return project


@pytest.mark.parametrize("line", ASK)
async def test_program_settings_ask_past_the_rule(repo, line):
    command = line.format(marker=repo.parent / "RAN")
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        verdict = await decide_bash(make_ctx(repo, allow=("Bash(git:*)",), mode=mode), command)
        assert verdict_name(verdict) == "ask", (mode, command, verdict)


@pytest.mark.parametrize("line", RUN)
async def test_ordinary_settings_and_reads_run_under_the_rule(repo, line):
    verdict = await decide_bash(make_ctx(repo, allow=("Bash(git:*)",)), line)
    assert verdict_name(verdict) == "allow", (line, verdict)


@pytest.mark.parametrize("line", [ASK[0], ASK[2], ASK[3] + " && git st"])
def test_the_rows_that_set_a_program_really_run_it(repo, line):
    marker = repo.parent / "RAN"
    command = line.format(marker=marker)
    run = ["bash", "-c", f"{command} >/dev/null 2>&1; git status >/dev/null 2>&1; true"]
    subprocess.run(run, cwd=repo, env=git_env(repo), timeout=30, check=True)
    assert marker.exists(), command


@pytest.mark.parametrize(("key", "expected"), [
    ("core.fsmonitor", True), ("CORE.FSMONITOR", True), ("diff.jupyternotebook.command", True),
    ("merge.nb.driver", True), ("alias.co", True), ("remote.origin.uploadpack", True), ("x", True),
    ("core.autocrlf", False), ("user.email", False), ("remote.origin.url", False), ("diff.renames", False),
])
def test_runs_program(key, expected):
    assert runs_program(key) is expected


# Without any rule: reading one setting runs (`git config NAME` with one name is a get), and so
# do git 2.46's `git config get`/`list`; every form that can write asks.
READ_ONLY = [
    ("git config user.name", "allow"), ("git config --global user.email", "allow"),
    ("git config get user.name", "allow"), ("git config get --all remote.origin.fetch", "allow"),
    ("git config list", "allow"), ("git config list --show-origin", "allow"),
    ("git config --get remote.origin.url", "allow"),
    ("git config user.name Bob", "ask"), ("git config --unset user.name", "ask"),
    ("git config set user.name Bob", "ask"), ("git config --add user.name x", "ask"),
    ("git config -f other.cfg user.name", "ask"), ("git config $K", "ask"), ("git config -e", "ask"),
    ("git config get user.name extra", "ask"),
]


@pytest.mark.parametrize(("line", "expected"), READ_ONLY)
async def test_reading_a_setting_needs_no_rule(repo, line, expected):
    assert verdict_name(await decide_bash(make_ctx(repo), line)) == expected, line


@pytest.mark.parametrize("line", [r[0] for r in READ_ONLY if r[1] == "allow"])
def test_the_read_only_forms_write_nothing(repo, line):
    """Run by the git here (older gits refuse `get`/`list` as a name without a section)."""
    before = (repo / ".git" / "config").read_bytes()
    subprocess.run(line.split(), cwd=repo, capture_output=True, timeout=30, env=git_env(repo.parent))
    assert (repo / ".git" / "config").read_bytes() == before


def test_exec_path_really_runs_a_helper_from_that_folder(repo):
    helpers = repo.parent / "helpers"
    helpers.mkdir()
    marker = repo.parent / "RAN"
    (helpers / "git-remote-evil").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (helpers / "git-remote-evil").chmod(0o755)
    subprocess.run(["git", f"--exec-path={helpers}", "ls-remote", "evil::x"], cwd=repo, env=git_env(repo),
                   capture_output=True, timeout=30)
    assert marker.exists()


@pytest.mark.parametrize(("line", "expected"), [
    ("git config --file=/tmp/x.cfg a.b c", "ask"), ("git config -f /tmp/x.cfg --unset a.b", "ask"),
    ("git config --file /tmp/x.cfg set a.b c", "ask"), ("git config -f /tmp/x.cfg --get a.b", "allow"),
    ("git config -f /tmp/x.cfg --list", "allow"), ("git config -f locked/x.cfg a.b c", "deny"),
])
async def test_a_config_file_named_with_file_is_a_write(repo, line, expected):
    """``git config -f F KEY VALUE`` writes F: outside the working directories it asks, and Edit
    deny rules deny it (it was allowed under ``Bash(git:*)``)."""
    ctx = make_ctx(repo, allow=("Bash(git:*)",), deny=("Edit(./locked/**)",))
    assert verdict_name(await decide_bash(ctx, line)) == expected, line
