"""A tracked secret: with ``Read(./.env)`` denied and ``.env`` committed, git commands that print
tracked files' contents ask; git itself is the judge (what an allowed command prints must not
contain the secret).  The index reader is checked against ``git ls-files`` for every format."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.git_contents import shows_contents
from jupyter_agent.permissions.git_index import git_dir, parse_index, tracked_paths
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

GIT = shutil.which("git")
TOKEN = "TOKEN-81c2e4"
ENV = ("Read(./.env)",)
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")


def git_env(repo: Path) -> dict[str, str]:
    """A git environment that knows nothing of the machine's own configuration."""
    return {"PATH": os.environ["PATH"], "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@x", "LC_ALL": "C"}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GIT, "-C", str(repo), *args], capture_output=True, text=True, errors="replace",
                          env=git_env(repo), check=check, timeout=30)


def make_repo(root: Path, *, track_secret: bool) -> Path:
    repo = root / ("tracked" if track_secret else "ignored")
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "src" / "app.py").write_text("print(1)\n")
    (repo / ".env").write_text(f"KEY={TOKEN}\n")
    if not track_secret:
        (repo / ".gitignore").write_text(".env\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    (repo / "src" / "app.py").write_text("print(2)\n")
    (repo / ".env").write_text(f"KEY={TOKEN}-2\n")  # a change `git diff` shows when tracked
    git(repo, "stash", "-q")
    git(repo, "stash", "apply", "-q")
    return repo


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    root = tmp_path_factory.mktemp("git-tracked")
    return {"tracked": make_repo(root, track_secret=True), "ignored": make_repo(root, track_secret=False)}


COMMANDS = [
    "git diff", "git diff HEAD", "git diff --cached HEAD~0", "git show", "git show HEAD",
    "git show --stat HEAD", "git log -p", "git log --patch -n 1", "git log -S TOKEN --oneline",
    "git log -G KEY --stat", "git log --oneline", "git log --stat", "git diff --stat",
    "git diff --name-only", "git diff --stat -p", "git stash show", "git stash show -p",
    "git status", "git log --format=%H -n 1", "git diff --word-diff", "git show -s",
    "git log -1 -U1", "git log --all -p --reverse", "git show --stat --patch",
]


@pytest.mark.parametrize("command", COMMANDS)
async def test_what_is_allowed_never_prints_a_tracked_secret(repos, command):
    for name, repo in repos.items():
        verdict = await decide_bash(make_ctx(repo, deny=ENV), command)
        if verdict_name(verdict) != "allow":
            assert name == "tracked", (name, command, verdict)  # an ignored secret changes nothing
            continue
        args = command.split()[1:]
        out = git(repo, *args, check=False)
        assert TOKEN not in out.stdout + out.stderr, (name, command)


ROWS = [
    ("diff", "git diff", "ask"),
    ("diff-cached", "git diff --cached", "ask"),
    ("show-head", "git show", "ask"),
    ("log-patch", "git log -p", "ask"),
    ("pickaxe", "git log -S KEY --oneline", "ask"),
    ("stash-patch", "git stash show -p", "ask"),
    ("cat-file-by-hash", "git cat-file -p 0123abcd", "ask"),
    ("cat-file-type", "git cat-file -t 0123abcd", "allow"),
    ("log-oneline", "git log --oneline -n 20", "allow"),
    ("diff-stat", "git diff --stat", "allow"),
    ("show-stat", "git show --stat", "allow"),
    ("status", "git status", "allow"),
    ("stash-list", "git stash list", "allow"),
    ("after-dash-c", "git -C src diff", "ask"),
    ("wrapped", "timeout 5 git diff", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_tracked_secret_rows(repos, command, expected):
    verdict = await decide_bash(make_ctx(repos["tracked"], deny=ENV), command)
    assert verdict_name(verdict) == expected, verdict
    if expected == "ask":
        assert ".env" in verdict.message and "Read(./.env)" in verdict.message


@pytest.mark.parametrize("command", ["git diff", "git show", "git log -p", "git show HEAD~0"])
async def test_an_untracked_secret_or_no_deny_rule_changes_nothing(repos, command):
    assert verdict_name(await decide_bash(make_ctx(repos["ignored"], deny=ENV), command)) == "allow"
    assert verdict_name(await decide_bash(make_ctx(repos["tracked"]), command)) == "allow"


async def test_a_mode_does_not_wave_the_ask_through(repos):
    ctx = make_ctx(repos["tracked"], deny=ENV, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git diff")) == "ask"


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_reader_agrees_with_git_ls_files(tmp_path, version):
    repo = tmp_path / "r"
    (repo / "a" / "b").mkdir(parents=True)
    git(repo, "init", "-q")
    for i in range(40):  # enough entries for version 4's prefix compression to matter
        (repo / "a" / f"file{i:02d}.txt").write_text(str(i))
    (repo / "a" / "b" / "deep name é.txt").write_text("x")
    (repo / ("x" * 120)).write_text("long")
    (repo / "later").write_text("")
    git(repo, "add", ".")
    git(repo, "add", "-N", "later")  # intent-to-add sets the extended flags (version 3)
    git(repo, "update-index", "--index-version", str(version))
    want = tuple(p for p in git(repo, "ls-files", "-z").stdout.split("\0") if p)
    assert tracked_paths(git_dir(str(repo))) == want
    assert "a/b/deep name é.txt" in want


def test_a_sha256_repository(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    if git(repo, "init", "-q", "--object-format=sha256", check=False).returncode != 0:
        pytest.skip("this git cannot make SHA-256 repositories")
    (repo / "f").write_text("1")
    (repo / ".env").write_text(TOKEN)
    git(repo, "add", ".")
    assert tracked_paths(git_dir(str(repo))) == (".env", "f")


async def test_a_split_index_cannot_be_read_so_patches_ask(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "f").write_text("1")
    git(repo, "add", ".")
    git(repo, "update-index", "--split-index")
    assert tracked_paths(git_dir(str(repo))) is None
    verdict = await decide_bash(make_ctx(repo, deny=ENV), "git diff")
    assert verdict_name(verdict) == "ask" and "index" in verdict.message
    assert verdict_name(await decide_bash(make_ctx(repo, deny=ENV), "git log --oneline")) == "allow"


async def test_a_worktree_reads_its_own_index(repos, tmp_path):
    tree = tmp_path / "wt"
    git(repos["tracked"], "worktree", "add", "-q", str(tree))
    try:
        assert (tree / ".git").is_file()
        assert ".env" in tracked_paths(git_dir(str(tree)))
        assert verdict_name(await decide_bash(make_ctx(tree, deny=ENV), "git diff")) == "ask"
    finally:
        git(repos["tracked"], "worktree", "remove", "--force", str(tree))


async def test_a_git_file_pointing_nowhere_asks(tmp_path):
    (tmp_path / ".git").write_text("not a gitdir line\n")
    verdict = await decide_bash(make_ctx(tmp_path, deny=ENV), "git diff")
    assert verdict_name(verdict) == "ask" and "cannot be found" in verdict.message


@pytest.mark.parametrize(
    "data", [b"", b"DIRC", b"DIRC\0\0\0\x05\0\0\0\0", b"XXXX\0\0\0\x02\0\0\0\0", b"DIRC\0\0\0\x02\0\0\0\x03"],
)
def test_a_broken_index_is_none_not_an_error(data):
    assert parse_index(data) is None


@pytest.mark.parametrize(
    ("command", "contents"),
    [("git diff", True), ("git diff --stat", False), ("git --no-pager diff", True),
     ("git -C x log", False), ("git log -p", True), ("git log --graph --oneline --all", False),
     ("git show abc123 --stat", True), ("git show --stat", False), ("git stash show", False),
     ("git stash show -p", True), ("git stash list", False), ("git cat-file -p x", True),
     ("git cat-file -s x", False), ("git cat-file --batch", True), ("git status", False),
     ("git log --textconv --stat", True), ("git diff --exit-code --quiet", False),
     ("git log -n5 --format=%s", False), ("git log --format %s", False), ("git blame f", False)],
)
def test_which_invocations_print_contents(command, contents):
    words = analyze_uncached(command).commands[0].innermost
    assert shows_contents(words) is contents


@pytest.mark.parametrize(
    ("command", "expected"),
    [("git diff --no-index . sub", "ask"), ("git diff --no-index -- sub ./", "ask"),
     ("git diff --no-index src/app.py sub/b.txt", "allow"), ("git diff --no-index -- sub src", "allow")],
)
async def test_no_index_diff_walks_its_folders(repos, tmp_path, command, expected):
    """``--no-index`` (or any ``git diff`` outside a repository) compares folders recursively,
    untracked files included; real git is the judge."""
    plain = tmp_path / "plain"
    for folder in (repos["ignored"], plain):
        (folder / "sub").mkdir(parents=True, exist_ok=True)
        (folder / "src").mkdir(exist_ok=True)
        (folder / ".env").write_text(f"KEY={TOKEN}\n")
        (folder / "sub" / ".env").write_text("KEY=other\n")
        (folder / "sub" / "b.txt").write_text("b\n")
        (folder / "src" / "app.py").write_text("print(3)\n")
        variants = [command] if folder == repos["ignored"] else [command, command.replace(" --no-index", "")]
        for line in variants:
            verdict = await decide_bash(make_ctx(folder, deny=ENV), line)
            assert verdict_name(verdict) == expected, (folder.name, line, verdict)
            out = git(folder, *line.split()[1:], check=False)
            assert (TOKEN in out.stdout) is (expected == "ask"), (folder.name, line, out.stdout[:200])
