"""A repository planted as plain files: Write ``sub/HEAD``, ``sub/objects/…``, ``sub/refs/…``
and ``sub/config`` with ``fsmonitor = <program>`` (allowed unasked in acceptEdits), and git
takes ``sub`` for a bare repository: ``git -C sub status``, read-only by every table, runs the
program.  A git command whose repository is not a ``.git`` folder asks in every mode and past
allow rules; the user's own repositories, worktrees and submodules are unchanged."""

from __future__ import annotations

import subprocess

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.permissions.git_discovery import planted_repository
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

PLANTED = ["git -C sub status", "cd sub && git status", "git -C sub diff", "cd sub/refs && git status",
           "git -C sub/objects status --short", "git -C sub diff --stat"]


@pytest.fixture
async def planted(tmp_path):
    """The agent plants the repository with the real Write tool, in acceptEdits, unasked."""
    project = tmp_path / "proj"
    project.mkdir()
    marker = tmp_path / "RAN"
    files = {"sub/HEAD": "ref: refs/heads/main\n", "sub/objects/info/packs": "\n", "sub/refs/heads/.keep": "",
             "sub/config": f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n"
                           f"\tfsmonitor = touch {marker}; false\n"}
    ctx = make_ctx(project, mode="acceptEdits", tools=(load_tool(TOOL_TARGETS["Write"]),))
    approver = RecordingApprover()
    for name, text in files.items():
        outcome = await run_tool_use(ToolUseRequest(name, "Write", {"file_path": str(project / name), "content": text}),
                                     ctx, approver)
        assert not outcome.is_error, outcome.text
    assert approver.asks == []
    return project, marker


@pytest.mark.parametrize("command", PLANTED)
async def test_git_in_a_planted_repository_asks(planted, command):
    project, marker = planted
    for mode, allow in (("default", ()), ("acceptEdits", ()), ("default", ("Bash(git:*)",)),
                        ("bypassPermissions", ())):
        verdict = await decide_bash(make_ctx(project, mode=mode, allow=allow), command)
        assert verdict_name(verdict) == "ask", (mode, allow, command, verdict)
        assert "not a .git folder" in verdict.message
    subprocess.run(["bash", "-c", command], cwd=project, env=git_env(project), capture_output=True, timeout=30)
    assert marker.exists(), command  # the row is real: git ran the planted program


@pytest.fixture
def repo(tmp_path):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q")
    (project / "src" / "a.py").write_text("print(1)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    return project


@pytest.mark.parametrize("command", ["git status", "git -C src status", "cd src && git diff", "git log --oneline"])
async def test_the_users_repository_is_unchanged(repo, command):
    assert verdict_name(await decide_bash(make_ctx(repo), command)) == "allow"


async def test_worktrees_and_submodule_style_git_files_are_the_users(repo, tmp_path):
    git(repo, "worktree", "add", "-q", str(repo / "wt"))
    assert (repo / "wt" / ".git").is_file()
    assert verdict_name(await decide_bash(make_ctx(repo), "git -C wt status")) == "allow"
    (repo / "mod").mkdir()
    (repo / "mod" / ".git").write_text("gitdir: ../.git/modules/mod\n")
    assert planted_repository(str(repo / "mod")) is None


async def test_a_git_file_pointing_outside_a_git_folder_asks(repo):
    (repo / "store" / "objects").mkdir(parents=True)
    (repo / "store" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "mod").mkdir()
    (repo / "mod" / ".git").write_text("gitdir: ../store\n")
    verdict = await decide_bash(make_ctx(repo), "git -C mod status")
    assert verdict_name(verdict) == "ask" and "not a .git folder" in verdict.message


async def test_no_repository_at_all_and_a_runtime_folder(tmp_path):
    project = tmp_path / "plain"
    project.mkdir()
    assert planted_repository(str(project)) is None
    assert verdict_name(await decide_bash(make_ctx(project), "git status")) == "allow"
    verdict = await decide_bash(make_ctx(project, allow=("Bash(git:*)",)), 'git -C "$D" status')
    assert verdict_name(verdict) == "ask"


async def test_the_walk_stops_at_the_working_directory(tmp_path):
    """Above the project, writing asks anyway: a repository there is the user's (a project
    inside a bare repository's folder), while the same layout inside the project asks."""
    (tmp_path / "objects").mkdir()
    (tmp_path / "HEAD").write_text("ref: refs/heads/main\n")
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    assert verdict_name(await decide_bash(make_ctx(project), "git -C src status")) == "allow"
    assert planted_repository(str(project / "src")) == str(tmp_path)  # with no roots: all the way up
    assert planted_repository(str(project / "src"), (str(project),)) is None
