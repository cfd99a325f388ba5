"""``git add -A`` / ``git add DIR`` / ``git stash -u`` under a Read deny rule: they copy a denied
file into the repository unless git ignores it (``git_staging.py``).  The decision is checked
against real git: for each ignore layout, ``git add -A --dry-run`` lists the denied file exactly
when the analysis asks."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

DENY = ("Read(./.env)", "Read(./sub/.env)")
# (name, files to write {path: text}) — both .env and sub/.env exist in every layout
LAYOUTS = [
    ("no-ignore-file", {}),
    ("plain-name", {".gitignore": ".env\n"}),
    ("anchored", {".gitignore": "/.env\n"}),
    ("star-suffix", {".gitignore": "*.env\n"}),
    ("prefix-star", {".gitignore": ".env*\n"}),
    ("all-but-python", {".gitignore": "*\n!*.py\n!.gitignore\n!sub/\n"}),
    ("negated-again", {".gitignore": ".env\n!.env\n"}),
    ("folder-ignored", {".gitignore": "sub/\n"}),
    ("folder-contents-reincluded", {".gitignore": "sub/*\n!sub/.env\n"}),
    ("folder-ignored-no-reinclude", {".gitignore": "sub/\n!sub/.env\n"}),
    ("nested-file", {"sub/.gitignore": ".env\n"}),
    ("nested-negation", {".gitignore": ".env\n", "sub/.gitignore": "!.env\n"}),
    ("info-exclude", {".git/info/exclude": ".env\n"}),
    ("double-star", {".gitignore": "**/.env\n"}),
    ("folder-only-pattern", {".gitignore": ".env/\n"}),
    ("comment", {".gitignore": "#.env\n"}),
    ("other-case", {".gitignore": ".ENV\n"}),
    ("escaped-comment", {".gitignore": "\\#x\n.env\n"}),
]


def _project(tmp_path, files):
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "config", "core.excludesFile", "/dev/null"], cwd=project, check=True)
    for name in (".env", "sub/.env", "a.py"):
        (project / name).write_text("SECRET=1\n" if "env" in name else "x\n")
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    return project


def _git_would_add(project, *args):
    done = subprocess.run(["git", "add", "--dry-run", *args], cwd=project, capture_output=True, text=True,
                          check=False)  # 1 when a named path is ignored: nothing is added then
    added = {line.split("'")[1] for line in done.stdout.splitlines() if line.startswith("add '")}
    return added & {".env", "sub/.env"}


@pytest.mark.parametrize(("name", "files"), LAYOUTS, ids=[layout[0] for layout in LAYOUTS])
async def test_git_add_asks_exactly_when_git_would_add_the_denied_file(tmp_path, name, files):
    project = _project(tmp_path, files)
    ctx = make_ctx(project, deny=DENY, mode="bypassPermissions")
    for args in (("-A",), (".",), ("sub",), ("*.env",), (":/",)):
        expected = "ask" if _git_would_add(project, *args) else "allow"
        command = "git add " + " ".join(f"'{a}'" for a in args)
        assert verdict_name(await decide_bash(ctx, command)) == expected, (name, args)


ROWS = [
    ("git add -u", "allow"),  # tracked files only
    ("git add -A --dry-run", "allow"),
    ("git add a.py", "allow"),
    ("git add -f .", "ask"),  # ignored files too
    ("git stash -u", "allow"),  # .env is ignored in this project
    ("git stash --all", "ask"),  # ignored files too
    ("git stash push -a", "ask"),
    ("git stash", "allow"),
    ("git stash list", "allow"),
    ("git add -A $X", "ask"),  # a pathspec only known at run time
    ("git add --pathspec-from-file=list.txt", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_git_staging_rows_with_env_ignored(tmp_path, command, expected):
    project = _project(tmp_path, {".gitignore": ".env\n"})
    ctx = make_ctx(project, deny=DENY, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_a_pattern_rule_asks_whatever_git_ignores(tmp_path):
    project = _project(tmp_path, {".gitignore": ".env\n"})
    ctx = make_ctx(project, deny=("Read(**/.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git add -A")) == "ask"
    ctx = make_ctx(project, deny=("Read(./secrets/**)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git add sub")) == "allow"  # nothing of it below sub


async def test_no_read_deny_rule_no_question(tmp_path):
    project = _project(tmp_path, {})
    ctx = make_ctx(project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "git add -A")) == "allow"


def test_real_git_add_then_show_prints_the_file(tmp_path):
    """What the question is about: the same line stages, commits and prints ``.env``."""
    project = _project(tmp_path, {})
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}
    done = subprocess.run(["bash", "-c", "git add -A && git commit -qm x && git show HEAD"], cwd=project,
                          capture_output=True, text=True, env=env, timeout=30)
    assert "+SECRET=1" in done.stdout, done
