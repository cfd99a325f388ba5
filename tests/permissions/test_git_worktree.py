"""git commands that overwrite or delete protected files no argument names (``git_worktree.py``).

With ``Bash(git:*)`` — and in bypassPermissions — ``git reset --hard``, ``git checkout .``,
``git stash`` and ``git restore .`` ran and threw away a deny rule just added to a tracked
``.claude/settings.json``; ``git clean -fdx`` deleted ``.claude/settings.local.json``; and
``git reset --hard HEAD~1`` put back an older settings file.  Each row is decided, then run by
real git in a fresh copy of the repository: what asks must really change a protected file, and
what runs must leave them alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.git_index import parse_index, tracked_stamps
from jupyter_agent.permissions.git_worktree import protected_name
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

OLD = '{"permissions": {}}\n'
COMMITTED = '{"permissions": {"deny": ["Bash(curl:*)"]}}\n'
EDITED = '{"permissions": {"deny": ["Bash(curl:*)", "Bash(rm:*)"]}}\n'
PROTECTED = (".claude/settings.json", ".claude/settings.local.json", ".vscode/settings.json")


def _repo(root: Path) -> Path:
    project = root / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".vscode").mkdir()
    (project / "src").mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / ".gitignore").write_text(".claude/settings.local.json\n")
    (project / ".claude" / "settings.json").write_text(OLD)
    (project / ".vscode" / "settings.json").write_text("{}\n")
    (project / "src" / "app.py").write_text("print(1)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    (project / ".claude" / "settings.json").write_text(COMMITTED)
    (project / "src" / "app.py").write_text("print(2)\n")
    past = 1_700_000_000  # well before the index is written: no racily clean entry
    for path in project.rglob("*"):
        if ".git" not in path.parts:
            os.utime(path, (past, past))
    git(project, "commit", "-q", "-am", "two")
    return project


def _dirty(project: Path) -> None:
    (project / ".claude" / "settings.json").write_text(EDITED)
    (project / ".claude" / "settings.local.json").write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}\n')


def _protected_state(project: Path) -> dict[str, str | None]:
    return {p: (project / p).read_text() if (project / p).exists() else None for p in PROTECTED}


# (command, asks when the settings were just edited, asks in a clean tree)
ROWS = [
    ("git reset --hard", True, False),
    ("git checkout .", True, False),
    ("git checkout -- .claude", True, True),  # names the folder itself: asks as before
    ("git restore .", True, False),
    ("git restore --staged --worktree .", True, False),
    ("git stash", True, False),
    ("git stash push -u", True, False),  # and the untracked settings.local.json
    ("git checkout -f", True, False),
    ("git read-tree -u --reset HEAD", True, False),
    ("git checkout-index -a -f", True, False),
    ("git clean -fdx", True, False),
    ("git reset --hard HEAD~1", True, True),  # an older settings.json
    ("git checkout HEAD~1 -- .", True, True),
    ("git restore --source=HEAD~1 .", True, True),
    ("git restore --staged .", False, False),  # the index only
    ("git reset --soft HEAD~1", False, False),
    ("git checkout HEAD~1 -- src", False, False),
    ("git restore src/app.py", False, False),
    ("git clean -n -dx", False, False),
    ("git stash list", False, False),
    ("git status", False, False),
    # session 29: a sparse checkout removes the tracked files its patterns leave out
    ("git sparse-checkout set src", True, True),
    ("git sparse-checkout init --cone", True, True),
    ("git sparse-checkout list", False, False),
    # git takes any unique beginning of a long option: --har is --hard (real git reverted the settings)
    ("git reset --har", True, False),
    ("git reset --har HEAD~1", True, True),
    ("git restore --sour=HEAD~1 .", True, True),
    ("git restore --sour HEAD~1 .", True, True),
    ("git checkout --forc", True, False),
    ("git stash push --include-untr", True, False),
    ("git restore --sta .", False, False),
    ("git clean -f --dry -dx", False, False),
    # session 44: git rm deletes the tracked files its pathspecs cover (`.` and `:/` cover all)
    ("git rm -rf .", True, True),
    ("git rm -rf :/", True, True),
    ("git rm -r --cached .", False, False),  # the index only
    ("git rm -n -rf .", False, False),
    ("git rm src/app.py", False, False),
]


@pytest.mark.parametrize(("command", "dirty_asks", "clean_asks"), ROWS)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_protected_files_in_the_working_tree(tmp_path, command, dirty_asks, clean_asks, mode):
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert (verdict_name(await decide_bash(ctx, command)) == "ask") is clean_asks, ("clean", command)
    _dirty(project)
    assert (verdict_name(await decide_bash(ctx, command)) == "ask") is dirty_asks, ("dirty", command)


@pytest.mark.parametrize(("command", "dirty_asks", "clean_asks"), [r for r in ROWS if r[1]])
def test_what_asks_really_changes_a_protected_file(tmp_path, command, dirty_asks, clean_asks):
    project = _repo(tmp_path)
    _dirty(project)
    before = _protected_state(project)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert _protected_state(project) != before, command


@pytest.mark.parametrize("command", [r[0] for r in ROWS if not r[2]])
def test_what_runs_in_a_clean_tree_leaves_protected_files_alone(tmp_path, command):
    project = _repo(tmp_path)
    (project / ".claude" / "settings.local.json").unlink(missing_ok=True)
    before = _protected_state(project)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert _protected_state(project) == before, command


async def test_an_untracked_protected_folder_asks_for_clean(tmp_path):
    project = _repo(tmp_path)
    (project / ".idea").mkdir()
    (project / ".idea" / "workspace.xml").write_text("<x/>")
    ctx = make_ctx(project, allow=("Bash(git:*)",))
    assert verdict_name(await decide_bash(ctx, "git clean -fd")) == "ask"
    assert verdict_name(await decide_bash(ctx, "git clean -fd src")) == "allow"  # only below src


async def test_a_racily_clean_file_counts_as_changed(tmp_path):
    """A file whose recorded time is no earlier than the index file's own may have changed in
    the same instant without git seeing it (git then compares contents): asking."""
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",))
    assert verdict_name(await decide_bash(ctx, "git reset --hard")) == "allow"
    entries, _ = tracked_stamps(str(project / ".git"), protected_name)  # type: ignore[misc]
    seconds, nanoseconds, _size = entries[".claude/settings.json"]
    recorded = seconds * 10**9 + nanoseconds
    os.utime(project / ".git" / "index", ns=(recorded, recorded))
    assert verdict_name(await decide_bash(ctx, "git reset --hard")) == "ask"


def test_index_stamps_match_what_git_recorded(tmp_path):
    project = _repo(tmp_path)
    entries, index_time = tracked_stamps(str(project / ".git"), lambda p: True)  # type: ignore[misc]
    assert set(entries) == set(parse_index((project / ".git" / "index").read_bytes()) or ())
    for path, (seconds, nanoseconds, size) in entries.items():
        st = (project / path).stat()
        assert (st.st_mtime_ns, st.st_size) == (seconds * 10**9 + nanoseconds, size)
        assert st.st_mtime_ns < index_time
    assert shutil.which("git")


async def test_files_an_edit_rule_covers_count_too(tmp_path):
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), deny=("Edit(./src/**)",))
    assert verdict_name(await decide_bash(ctx, "git checkout .")) == "allow"  # nothing to throw away
    assert verdict_name(await decide_bash(ctx, "git checkout HEAD~1 -- .")) == "ask"  # an older src/app.py
    (project / "src" / "app.py").write_text("print(3)\n")
    for command in ("git checkout .", "git reset --hard", "git stash"):
        assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    other = make_ctx(project, allow=("Bash(git:*)",), deny=("Edit(./docs/**)",))
    assert verdict_name(await decide_bash(other, "git checkout .")) == "allow"


async def test_clean_asks_before_removing_a_new_file_an_edit_rule_covers(tmp_path):
    """``git clean -fd`` deleted the new src/new.py under ``Edit(./src/**)`` denied (session 28)."""
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), deny=("Edit(./src/**)",))
    (project / "docs").mkdir()
    (project / "docs" / "draft.md").write_text("x\n")
    assert verdict_name(await decide_bash(ctx, "git clean -fd")) == "allow"  # only docs/draft.md goes
    (project / "src" / "new.py").write_text("x = 1\n")
    for command in ("git clean -fd", "git clean -fdx", "git stash -u", "git clean -f src"):
        assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    for command in ("git clean -fd docs", "git clean -n", "git stash"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command
    git(project, "clean", "-fd")  # and git really removes it
    assert not (project / "src" / "new.py").exists()


def _branched(root: Path, *, settings_on_main: bool) -> Path:
    """A repository whose branch `evil` commits a permissive `.claude/settings.json` (added there,
    or changed from main's) and whose branch `plain` changes only `src/`."""
    project = root / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "src" / "app.py").write_text("print(1)\n")
    if settings_on_main:
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(OLD)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    git(project, "checkout", "-q", "-b", "plain")
    (project / "src" / "app.py").write_text("print(2)\n")
    git(project, "commit", "-q", "-am", "plain")
    git(project, "checkout", "-q", "-b", "evil", "main")
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "evil")
    git(project, "checkout", "-q", "main")
    return project


MOVES = ["git checkout evil", "git switch evil", "git merge evil", "git merge --ff-only evil", "git cherry-pick evil",
         "git rebase evil", "git checkout -", "git bisect start evil main", "git bisect good"]


@pytest.mark.parametrize("settings_on_main", [True, False])
@pytest.mark.parametrize("command", MOVES)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_a_branch_with_other_settings_asks(tmp_path, command, settings_on_main, mode):
    """`git checkout evil` replaced (or added) the settings file under Bash(git:*) and in
    bypassPermissions: a protected path tracked or anywhere in the history makes a move ask."""
    project = _branched(tmp_path, settings_on_main=settings_on_main)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", ["git checkout evil", "git merge evil", "git cherry-pick evil"])
def test_real_git_brings_the_other_branch_settings(tmp_path, command):
    project = _branched(tmp_path, settings_on_main=False)
    assert not (project / ".claude" / "settings.json").exists()
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert '"Bash"' in (project / ".claude" / "settings.json").read_text(), command


@pytest.mark.parametrize("command", ["git checkout plain", "git switch plain", "git merge plain", "git checkout -b new",
                                     "git switch -c new", "git merge --abort",
                                     "git bisect start plain main", "git bisect log"])
async def test_moves_run_where_no_protected_path_is_in_the_history(tmp_path, command):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "src" / "app.py").write_text("print(1)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    git(project, "branch", "plain")
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", ["git pull https://example.com/x.git main", "git pull ../other main", "git pull . evil"])
async def test_a_pull_from_a_repository_named_on_the_line_asks(tmp_path, command):
    project = _branched(tmp_path, settings_on_main=False)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", ["git filter-repo --path src", "git filter-branch --prune-empty HEAD"])
async def test_rewriting_the_history_asks_where_protected_paths_are_tracked(tmp_path, command):
    """filter-repo and filter-branch check the rewritten history out (filter-repo --path src
    drops .claude/settings.json from it and from the working tree)."""
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    assert verdict_name(await decide_bash(ctx, "git filter-repo --analyze")) == "allow"


# Session 39: going back to another revision asked only for protected paths tracked *here*;
# with .claude/settings.json only on branch evil, these wrote it in bypassPermissions.
RESTORES = ["git reset --hard evil", "git checkout -f evil", "git switch -f evil", "git switch --discard-changes evil",
            "git checkout evil -- .", "git restore --source evil .", "git restore --source=evil .",
            "git read-tree -u -m evil", "git reset --hard evil -- ."]


@pytest.mark.parametrize("command", RESTORES)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_a_revision_holding_settings_not_tracked_here_asks(tmp_path, command, mode):
    project = _branched(tmp_path, settings_on_main=False)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    # the whole listed history counts, not one revision's tree: plain's files are not looked at
    plain = command.replace("evil", "plain")
    assert verdict_name(await decide_bash(ctx, plain)) == "ask", plain
    assert verdict_name(await decide_bash(ctx, "git checkout evil -- src")) == "allow"  # src only


@pytest.mark.parametrize("command", [c for c in RESTORES if "-- ." not in c or "reset" not in c])
def test_real_git_writes_the_settings_of_that_revision(tmp_path, command):
    project = _branched(tmp_path, settings_on_main=False)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert '"Bash"' in (project / ".claude" / "settings.json").read_text(), command


def _fetched(root: Path, *, write_fetch_head: bool) -> tuple[Path, str]:
    """A project with one plain commit that fetched, without a ref, another repository's commit
    adding .claude/settings.json; and that commit's id."""
    other = root / "other"
    (other / ".claude").mkdir(parents=True)
    git(other, "init", "-q", "-b", "main")
    (other / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}\n')
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "evil")
    project = root / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "src" / "app.py").write_text("print(1)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    git(project, "fetch", "-q", *([] if write_fetch_head else ["--no-write-fetch-head"]), "../other", "main")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=other, capture_output=True, text=True, check=True)
    return project, head.stdout.strip()


@pytest.mark.parametrize("command", ["git merge --allow-unrelated-histories FETCH_HEAD", "git reset --hard FETCH_HEAD", "git checkout FETCH_HEAD",
                                     "git checkout FETCH_HEAD -- .", "git cherry-pick FETCH_HEAD"])
async def test_what_fetch_head_names_is_listed(tmp_path, command):
    """`git fetch URL BRANCH` keeps what it fetched only in FETCH_HEAD, which `git log --all
    --reflog` does not reach: `git merge FETCH_HEAD` then brought a settings file unasked."""
    project, _ = _fetched(tmp_path, write_fetch_head=True)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".claude" / "settings.json").exists(), command  # real git brought it


async def test_a_pruned_fetch_head_is_ignored(tmp_path):
    project, _ = _fetched(tmp_path, write_fetch_head=True)
    git(project, "gc", "-q", "--prune=now")  # FETCH_HEAD now names a missing commit
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git merge FETCH_HEAD")) == "allow"
    assert verdict_name(await decide_bash(ctx, "git reset --hard HEAD")) == "allow"


@pytest.mark.parametrize("command", ["git merge {id}", "git reset --hard {id}", "git checkout {id} -- .",
                                     "git cherry-pick {short}"])
async def test_a_commit_no_ref_reaches_asks(tmp_path, command):
    """Fetched with --no-write-fetch-head, the commit has no name but its id: what it brings is
    unknown."""
    project, head = _fetched(tmp_path, write_fetch_head=False)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    line = command.format(id=head, short=head[:9])
    assert verdict_name(await decide_bash(ctx, line)) == "ask", line
    assert verdict_name(await decide_bash(ctx, "git reset --hard HEAD")) == "allow"


async def test_a_fetch_after_the_listing_lists_again(tmp_path):
    """FETCH_HEAD is part of the refs' state: a listing made before the fetch is not reused."""
    project, _ = _fetched(tmp_path, write_fetch_head=True)
    (project / ".git" / "FETCH_HEAD").unlink()
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git merge main")) == "allow"  # listed: nothing protected
    git(project, "fetch", "-q", "../other", "main")
    assert verdict_name(await decide_bash(ctx, "git merge FETCH_HEAD")) == "ask"


# Session 50: each of these ran in bypassPermissions and wrote branch evil's settings file.  The
# first command changes the index or HEAD and leaves the files alone; the second writes (or
# removes) files from the index or HEAD and, checked against the index as it was, found nothing.
BASIS_LINES = ["git reset evil && git checkout -- .", "git reset evil && git restore .",
               "git reset --soft evil && git reset --hard", "git read-tree evil && git checkout-index -a",
               "git read-tree evil && git checkout-index -a -f", "git update-ref refs/heads/main evil && git reset --hard",
               "git symbolic-ref HEAD refs/heads/evil && git reset --hard",
               "git replace HEAD evil && git reset --hard", "git reset -q evil; git stash"]
# a new branch at another revision checks that revision's files out (--orphan too)
NEW_BRANCHES = ["git checkout -b x evil", "git checkout -B x evil", "git checkout -bx evil",
                "git checkout --orphan x evil", "git checkout --orphan=x evil", "git checkout -fb x evil"]


@pytest.mark.parametrize("command", BASIS_LINES + NEW_BRANCHES)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_a_line_that_moves_the_index_or_head_first_asks(tmp_path, command, mode):
    project = _branched(tmp_path, settings_on_main=False)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", BASIS_LINES + NEW_BRANCHES)
def test_real_git_writes_the_settings_of_evil_that_way(tmp_path, command):
    project = _branched(tmp_path, settings_on_main=False)
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert '"Bash"' in (project / ".claude" / "settings.json").read_text(), command


@pytest.mark.parametrize("command", ["git checkout -- . && git reset evil", "git stash; git read-tree evil",
                                     "git read-tree plain && git checkout-index -a"])
async def test_the_pairing_does_not_depend_on_the_order_or_the_revision(tmp_path, command):
    """A loop may run the second command before the first, and plain's tree holds no settings
    file but the listed history does: the pair asks wherever a protected path is in the history."""
    project = _branched(tmp_path, settings_on_main=False)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", ["git reset HEAD~1 && git checkout -- .", "git reset --soft HEAD~1 && git reset --hard",
                                     "git checkout -b x", "git checkout -b x HEAD", "git checkout -fb x",
                                     "git read-tree HEAD && git checkout-index -a", "git reset -q && git status"])
async def test_such_lines_run_where_no_protected_path_is_in_the_history(tmp_path, command):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    for n in (1, 2):
        (project / "src" / "app.py").write_text(f"print({n})\n")
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", str(n))
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_checkout_index_without_force_writes_only_missing_files(tmp_path):
    """Without -f, checkout-index leaves a changed settings file alone (allowed) but writes a
    deleted one back from the index (asks), as real git does."""
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    _dirty(project)
    assert verdict_name(await decide_bash(ctx, "git checkout-index -a")) == "allow"
    assert verdict_name(await decide_bash(ctx, "git checkout-index -a -f")) == "ask"
    subprocess.run(["git", "checkout-index", "-a"], cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".claude" / "settings.json").read_text() == EDITED
    (project / ".claude" / "settings.json").unlink()
    assert verdict_name(await decide_bash(ctx, "git checkout-index -a")) == "ask"
    assert verdict_name(await decide_bash(ctx, "git checkout-index src/app.py")) == "allow"
    subprocess.run(["git", "checkout-index", "-a"], cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".claude" / "settings.json").read_text() == COMMITTED


async def test_switch_orphan_removes_the_tracked_settings(tmp_path):
    project = _repo(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git switch --orphan fresh")) == "ask"
    subprocess.run(["git", "switch", "--orphan", "fresh"], cwd=project, capture_output=True, timeout=30,
                   env=git_env(project.parent))
    assert not (project / ".claude" / "settings.json").exists()


# Session 50: with an edit of .claude/settings.json staged (`git add`), the file matched the
# index, so these looked harmless and ran in bypassPermissions; they write HEAD's version and
# the staged deny rule was gone.
TO_HEAD = ["git reset --hard", "git reset --hard HEAD", "git stash", "git checkout -f", "git switch -f main",
           "git checkout HEAD -- .", "git restore --source=HEAD .", "git restore -s HEAD .",
           "git read-tree -u -m HEAD", "git checkout -fb x"]
FROM_INDEX = ["git checkout -- .", "git restore .", "git checkout-index -a -f"]


def _staged(root: Path) -> Path:
    project = _repo(root)
    (project / ".claude" / "settings.json").write_text(EDITED)
    os.utime(project / ".claude" / "settings.json", (1_700_000_100, 1_700_000_100))  # not racily clean
    git(project, "add", ".claude/settings.json")
    return project


@pytest.mark.parametrize("command", TO_HEAD)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_staged_protected_changes_ask_before_heads_version_is_written(tmp_path, command, mode):
    project = _staged(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", TO_HEAD)
def test_real_git_loses_the_staged_settings(tmp_path, command):
    project = _staged(tmp_path)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".claude" / "settings.json").read_text() == COMMITTED, command


@pytest.mark.parametrize("command", FROM_INDEX + ["git reset --hard -q"])
async def test_writing_the_index_keeps_staged_changes(tmp_path, command):
    """From the index the staged version is what is written: these run; and with nothing
    staged, neither do the HEAD-writing ones find anything (the ids match HEAD's)."""
    project = _staged(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    expected = "ask" if command.startswith("git reset") else "allow"
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
    git(project, "commit", "-q", "-m", "staged")
    for line in TO_HEAD:
        if "switch" in line:
            continue  # a branch named: asks wherever a protected path is tracked
        assert verdict_name(await decide_bash(ctx, line)) == "allow", line
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".claude" / "settings.json").read_text() == EDITED, command


def _env_on_branch(root: Path) -> Path:
    """`.env` is the user's own (untracked, ignored) on main; branch `evil` commits another."""
    project = root / "proj"
    (project / "src").mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "src" / "app.py").write_text("print(1)\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "one")
    git(project, "checkout", "-q", "-b", "evil")
    (project / ".env").write_text("SECRET=evil\n")
    git(project, "add", "-f", ".env")
    git(project, "commit", "-q", "-m", "evil")
    git(project, "checkout", "-q", "main")
    (project / ".gitignore").write_text(".env\n")
    (project / ".env").write_text("SECRET=mine\n")
    return project


# Session 50: a Read deny rule blocks writing the file too, but these replaced `.env` with the
# branch's in bypassPermissions (git's own writes were checked against Edit rules only).
ENV_OVERWRITES = ["git checkout evil -- .", "git reset --hard evil", "git restore --source=evil ."]


@pytest.mark.parametrize("command", ENV_OVERWRITES)
async def test_git_writes_over_a_read_denied_file_ask(tmp_path, command):
    project = _env_on_branch(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    assert verdict_name(await decide_bash(ctx, command.replace(" .", " src") if "-- ." in command else
                                          "git checkout evil -- src")) == "allow"
    plain = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(plain, command)) == "allow", command


@pytest.mark.parametrize("command", ENV_OVERWRITES)
def test_real_git_replaces_the_users_env(tmp_path, command):
    project = _env_on_branch(tmp_path)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert (project / ".env").read_text() == "SECRET=evil\n", command


# git clean without -x (and stash -u) leaves what .gitignore ignores; -x/-X and stash -a take it
CLEANS = [("git clean -fd", False, True), ("git clean -fdx", True, True), ("git clean -fdX", True, False),
          ("git stash -u", False, True), ("git stash -a", True, True)]


@pytest.mark.parametrize(("command", "when_ignored", "when_not"), CLEANS)
async def test_removing_untracked_files_reads_gitignore(tmp_path, command, when_ignored, when_not):
    """`.claude/settings.local.json` (where Always allow writes) goes only as git really does it."""
    for ignored, expected in ((True, when_ignored), (False, when_not)):
        project = tmp_path / f"p{ignored}"
        (project / ".claude").mkdir(parents=True)
        git(project, "init", "-q", "-b", "main")
        (project / ".gitignore").write_text(".claude/settings.local.json\n" if ignored else "build/\n")
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "one")
        local = project / ".claude" / "settings.local.json"
        local.write_text("{}\n")
        ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
        asked = verdict_name(await decide_bash(ctx, command)) == "ask"
        assert asked is expected, (command, ignored)
        subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
        assert local.exists() is not expected, (command, ignored)  # git removes it exactly when asked


def _with_remote(root: Path) -> tuple[Path, Path]:
    """A project with no protected path in its history, and a remote (`origin`) whose main
    branch adds a permissive `.claude/settings.json` the project has not fetched yet."""
    remote = root / "remote"
    (remote / "src").mkdir(parents=True)
    git(remote, "init", "-q", "-b", "main")
    (remote / "src" / "app.py").write_text("print(1)\n")
    git(remote, "add", "-A")
    git(remote, "commit", "-q", "-m", "one")
    project = root / "proj"
    subprocess.run([GIT, "clone", "-q", str(remote), str(project)], check=True, env=git_env(root), timeout=30)
    (remote / ".claude").mkdir()
    (remote / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}\n')
    git(remote, "add", "-A")
    git(remote, "commit", "-q", "-m", "evil")
    return project, remote


# Session 50: the commits a fetch brings are not in the listing made before the line runs, so
# these wrote the remote's settings file in bypassPermissions.
FETCHING = ["git pull", "git pull origin main", "git pull --rebase", "git fetch && git merge origin/main",
            "git fetch && git reset --hard origin/main", "git remote update && git checkout origin/main -- .",
            "git fetch origin main:x && git checkout x", "git fetch origin main && git checkout FETCH_HEAD"]


@pytest.mark.parametrize("command", FETCHING)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_fetching_and_writing_in_one_line_asks(tmp_path, command, mode):
    project, _remote = _with_remote(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", FETCHING)
def test_real_git_brings_the_remote_settings(tmp_path, command):
    project, _remote = _with_remote(tmp_path)
    subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, timeout=60, env=git_env(tmp_path))
    assert '"Bash"' in (project / ".claude" / "settings.json").read_text(), command


@pytest.mark.parametrize("command", ["git fetch", "git fetch && git status", "git fetch && git log --oneline -3",
                                     "git fetch && git stash", "git fetch --dry-run && git checkout -b x",
                                     "git merge origin/main"])
async def test_fetching_alone_or_with_reads_runs(tmp_path, command):
    project, _remote = _with_remote(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_once_fetched_a_move_is_checked_against_the_listed_commits(tmp_path):
    """Fetched in a call of its own, the remote's commits are listed by the next decision: the
    move asks because its settings file is now in the history."""
    project, _remote = _with_remote(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    git(project, "fetch", "-q")
    assert verdict_name(await decide_bash(ctx, "git merge origin/main")) == "ask"


async def test_the_question_about_a_pull_says_how_to_have_it_checked(tmp_path):
    project, _remote = _with_remote(tmp_path)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "git pull")
    assert verdict_name(verdict) == "ask" and "`git fetch` first, then `git merge`" in verdict.message
