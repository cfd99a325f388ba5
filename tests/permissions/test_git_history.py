"""A secret in git's history: committed once and removed since, ``.env`` is no longer tracked,
yet ``git log -p``, ``git show OLD`` and ``git diff OLD`` print it.  With ``Read(./.env)``
denied those ask, however the secret got into the history (a commit later undone, a commit
amended away and kept by the reflog, a stash's untracked files); git is the judge of what an
allowed command prints.  The history is listed on the loop by a subprocess, once per refs
state."""

from __future__ import annotations

import asyncio
import os
import shlex

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.permissions import git_history
from jupyter_agent.permissions.bash import check_bash_permission
from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.git_contents import reads_history
from jupyter_agent.permissions.git_index import git_dir
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import ENV, GIT, TOKEN, git
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

HISTORY_COMMANDS = [
    "git log -p", "git log --all -p", "git show HEAD~1", "git show HEAD~1:.env", "git diff HEAD~1",
    "git diff HEAD~1 HEAD", "git cat-file -p HEAD~1:.env", "git log --all -p --reverse -- .",
]
SAFE_COMMANDS = ["git log --oneline", "git log --stat", "git status", "git diff", "git diff -- src", "git show --stat"]


def _commit(repo, message, **files):
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


@pytest.fixture
def removed(tmp_path):
    """.env committed, then removed (and ignored): nothing tracks it any more."""
    repo = tmp_path / "removed"
    repo.mkdir()
    git(repo, "init", "-q")
    _commit(repo, "first", **{"src/app.py": "print(1)\n"})
    _commit(repo, "oops", **{".env": f"KEY={TOKEN}\n"})
    git(repo, "rm", "-q", "--cached", ".env")
    (repo / ".gitignore").write_text(".env\n")
    _commit(repo, "forget the secret", **{"src/app.py": "print(2)\n"})
    return repo


@pytest.fixture
def clean(tmp_path):
    repo = tmp_path / "clean"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text(".env\n")
    (repo / ".env").write_text(f"KEY={TOKEN}\n")
    for i in range(3):
        _commit(repo, f"c{i}", **{"src/app.py": f"print({i})\n"})
    return repo


@pytest.fixture(autouse=True)
def _fresh_listings():
    git_history.forget()
    yield
    git_history.forget()


@pytest.fixture
def listings(monkeypatch):
    """The repositories git's history was listed for, in order (the listing itself is real)."""
    found: list[str] = []
    real = git_history.list_history

    async def counting(repo, timeout=git_history.HISTORY_TIMEOUT):
        found.append(repo)
        await real(repo, timeout)

    monkeypatch.setattr(git_history, "list_history", counting)
    return found


@pytest.mark.parametrize("command", HISTORY_COMMANDS)
async def test_commands_printing_history_ask(removed, command):
    verdict = await decide_bash(make_ctx(removed, deny=ENV), command)
    assert verdict_name(verdict) in ("ask", "deny"), verdict
    if verdict_name(verdict) == "ask":
        assert "history" in verdict.message and "Read(./.env)" in verdict.message
    out = git(removed, *command.split()[1:], check=False)
    assert TOKEN in out.stdout, command  # the row is real: git does print the secret


@pytest.mark.parametrize("command", SAFE_COMMANDS + HISTORY_COMMANDS)
async def test_what_is_allowed_never_prints_the_secret(removed, clean, command):
    for repo in (removed, clean):
        verdict = await decide_bash(make_ctx(repo, deny=ENV), command)
        if verdict_name(verdict) == "allow":
            out = git(repo, *command.split()[1:], check=False)
            assert TOKEN not in out.stdout + out.stderr, (repo.name, command)
        else:  # the removed history asks; in either repository a named .env is denied outright
            assert command not in SAFE_COMMANDS, (repo.name, command, verdict)
            assert repo == removed or ":.env" in command, (repo.name, command, verdict)


@pytest.mark.parametrize("command", ["git log -p", "git show HEAD~1", "git diff HEAD~2"])
async def test_a_clean_history_runs_without_asking(clean, command):
    assert verdict_name(await decide_bash(make_ctx(clean, deny=ENV), command)) == "allow"
    assert verdict_name(await decide_bash(make_ctx(clean), command)) == "allow"


async def test_listed_once_per_refs_state(clean, listings):
    ctx = make_ctx(clean, deny=ENV)
    for _ in range(3):
        assert verdict_name(await decide_bash(ctx, "git log -p")) == "allow"
    assert len(listings) == 1
    # a new commit moves a ref: the next decision lists again, and now finds the secret
    git(clean, "add", "-f", ".env")
    git(clean, "commit", "-q", "-m", "leak")
    git(clean, "rm", "-q", "--cached", ".env")
    git(clean, "commit", "-q", "-m", "unleak")
    verdict = await decide_bash(ctx, "git log -p")
    assert len(listings) == 2 and verdict_name(verdict) == "ask" and ".env" in verdict.message


async def test_a_commit_amended_away_is_still_in_the_reflog(clean):
    git(clean, "add", "-f", ".env")
    git(clean, "commit", "-q", "-m", "leak")
    git(clean, "rm", "-q", "--cached", ".env")
    git(clean, "commit", "-q", "--amend", "--allow-empty", "-m", "no leak")  # no branch reaches the leak now
    assert ".env" not in git(clean, "log", "--all", "--name-only", "--format=").stdout
    verdict = await decide_bash(make_ctx(clean, deny=ENV), "git log -p -g")
    assert verdict_name(verdict) == "ask"
    assert TOKEN in git(clean, "log", "-p", "-g").stdout


async def test_a_stash_with_untracked_files(clean):
    git(clean, "stash", "push", "-q", "--all")  # stashes the ignored .env too
    assert not (clean / ".env").exists()
    verdict = await decide_bash(make_ctx(clean, deny=ENV), "git show stash@{0}^3")
    assert verdict_name(verdict) == "ask"
    assert TOKEN in git(clean, "show", "stash@{0}^3").stdout


async def test_a_worktree_lists_the_shared_history(removed, tmp_path):
    tree = tmp_path / "wt"
    git(removed, "worktree", "add", "-q", str(tree))
    try:
        assert git_dir(str(tree)) != git_dir(str(removed))
        verdict = await decide_bash(make_ctx(tree, deny=ENV), "git log -p")
        assert verdict_name(verdict) == "ask" and ".env" in verdict.message
    finally:
        git(removed, "worktree", "remove", "--force", str(tree))


async def test_the_synchronous_check_alone_asks_until_listed(removed, clean):
    for repo in (removed, clean):
        verdict = check_bash_permission("git log -p", make_ctx(repo, deny=ENV))
        assert verdict_name(verdict) == "ask" and "not been listed yet" in verdict.message
    assert git_history.wanted == {git_dir(str(removed)), git_dir(str(clean))}


async def test_a_listing_that_fails_or_times_out_asks(clean, tmp_path, monkeypatch):
    repo = git_dir(str(clean))
    await git_history.list_history(repo, timeout=0)  # no time at all: unknown
    assert git_history.listed_history(repo) is None
    verdict = await decide_bash(make_ctx(clean, deny=ENV), "git show HEAD~1")
    assert verdict_name(verdict) == "ask" and "could not be listed" in verdict.message
    git_history.forget()
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))  # git cannot even start
    verdict = await decide_bash(make_ctx(clean, deny=ENV), "git show HEAD~1")
    assert verdict_name(verdict) == "ask" and "could not be listed" in verdict.message


async def test_the_real_bash_tool_keeps_the_secret_out(removed):
    ctx = make_ctx(removed, deny=ENV, mode="bypassPermissions", tools=(load_tool(TOOL_TARGETS["Bash"]),))
    approver = RecordingApprover(PermissionDeny("no"))
    outcome = await run_tool_use(ToolUseRequest("b", "Bash", {"command": "git log -p"}), ctx, approver)
    assert [name for name, _ask in approver.asks] == ["Bash"] and "history" in approver.asks[0][1].message
    assert outcome.is_error and TOKEN not in outcome.text


def test_the_decision_does_not_block_the_loop(removed):
    """The listing runs as a subprocess the loop awaits: a ticker keeps ticking meanwhile."""

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        verdict = await decide_bash(make_ctx(removed, deny=ENV), "git log -p")
        task.cancel()
        return verdict, ticks

    verdict, ticks = asyncio.run(main())
    assert verdict_name(verdict) == "ask" and ticks > 1


@pytest.mark.parametrize(
    ("command", "history"),
    [("git diff", False), ("git diff -- src", False), ("git diff --stat", False), ("git diff --no-index a b", False),
     ("git diff HEAD", True), ("git diff --cached", True), ("git diff --staged -- src", True),
     ("git diff src", True), ("git diff --merge-base main", True), ("git show", True), ("git log -p", True),
     ("git stash show -p", True), ("git -C sub diff", False), ("git -C sub diff HEAD~1", True)],
)
def test_which_invocations_read_history(command, history):
    assert reads_history(analyze_uncached(command).commands[0].innermost) is history


def test_refs_state_moves_with_every_ref_update(clean):
    repo = git_dir(str(clean))
    before = git_history.refs_state(repo)
    assert git_history.refs_state(repo) == before
    git(clean, "commit", "-q", "--allow-empty", "-m", "more")
    moved = git_history.refs_state(repo)
    assert moved != before
    git(clean, "branch", "-q", "deep/feature/x")
    assert git_history.refs_state(repo) != moved
    assert os.path.isdir(os.path.join(repo, "refs", "heads", "deep", "feature"))


RULE_ALLOWED = [
    "git -c color.ui=never log -p", "git -c core.pager=cat show HEAD~1", "git reflog -p", "git reflog show -p",
    "git log -p --output=/dev/stdout", "git format-patch --stdout HEAD~2", "git archive HEAD~1",
    "git fast-export --all", "git log -p --ext-diff", "git diff-tree -p HEAD~1", "git -c a.b=c show HEAD~1:.env",
]
ORDINARY = ["git add src", "git commit -q -m 'fix: HEAD:.env is ignored now'", "git checkout -q -b topic",
            "git tag v1", "git branch -a", "git reflog"]


@pytest.mark.parametrize("command", RULE_ALLOWED)
async def test_a_rule_allowing_git_does_not_let_history_out(removed, command):
    """``Bash(git:*)`` allows commands the analyzer does not call read-only; what they print or
    export is checked all the same, and the ask holds in every mode."""
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(removed, deny=ENV, allow=("Bash(git:*)",), mode=mode)
        assert verdict_name(await decide_bash(ctx, command)) in ("ask", "deny"), (mode, command)
    out = git(removed, *shlex.split(command)[1:], check=False)
    assert TOKEN in out.stdout, command  # the row is real: git prints it


@pytest.mark.parametrize("command", ORDINARY)
async def test_ordinary_git_work_is_still_allowed_by_the_rule(removed, command):
    ctx = make_ctx(removed, deny=ENV, allow=("Bash(git:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == "allow"


async def test_parallel_decisions_share_one_listing(removed, listings):
    ctx = make_ctx(removed, deny=ENV)
    verdicts = await asyncio.gather(*(decide_bash(ctx, c) for c in ("git log -p", "git show HEAD~1", "git diff HEAD~1")))
    assert [verdict_name(v) for v in verdicts] == ["ask"] * 3
    assert all("history" in v.message for v in verdicts) and len(listings) == 1


ELSEWHERE = ["git --work-tree=sub checkout HEAD~1 -- .", "git --work-tree sub restore --source=HEAD~1 -- .",
             "git read-tree --prefix=sub/ -u HEAD~1"]


@pytest.mark.parametrize("command", ELSEWHERE)
async def test_a_work_tree_put_elsewhere_does_not_let_history_out(removed, command):
    """Checked out into another folder, the old ``.env`` becomes ``sub/.env``, which
    ``Read(./.env)`` does not cover: with ``Bash(git:*)`` allowed these ask in every mode."""
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(removed, deny=ENV, allow=("Bash(git:*)",), mode=mode)
        assert verdict_name(await decide_bash(ctx, command)) in ("ask", "deny"), (mode, command)
    (removed / "sub").mkdir()
    git(removed, *shlex.split(command)[1:])
    assert TOKEN in (removed / "sub" / ".env").read_text(), command  # the row is real


async def test_pushing_a_denied_file_asks(removed, clean, tmp_path):
    """``git add -f .`` copies the ignored ``.env`` into the index without printing it (which asks
    too), and a push takes it off the machine: with a denied path tracked or in the history, push asks past
    ``Bash(git:*)``; a clean repository pushes as the rule says."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    for repo in (removed, clean):
        git(repo, "remote", "add", "origin", str(remote))
    ctx = make_ctx(clean, deny=ENV, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git push -q origin HEAD:refs/heads/clean")) == "allow"
    # git add -f . takes the ignored, denied .env: it asks itself now (git_staging.py); run anyway
    for command, expected in (("git add -f .", "ask"), ("git commit -q -m all", "allow")):
        assert verdict_name(await decide_bash(ctx, command)) == expected, command
        git(clean, *shlex.split(command)[1:])
    for repo in (removed, clean):
        ctx = make_ctx(repo, deny=ENV, allow=("Bash(git:*)",), mode="bypassPermissions")
        verdict = await decide_bash(ctx, f"git push -q origin HEAD:refs/heads/{repo.name}")
        assert verdict_name(verdict) == "ask" and ".env" in verdict.message, (repo.name, verdict)
        git(repo, "push", "-q", "origin", f"HEAD:refs/heads/{repo.name}")
        assert TOKEN in git(remote, "log", "-p", repo.name).stdout  # the row is real: it left
