"""A Read deny rule that is a pattern (``Read(**/.env)``, ``Read(./secrets/**)``) may match below
every folder, so ``grep -rn TODO src``, ``tar czf out.tgz src``, ``cp -r src dst`` and
``rm -rf build`` asked even where no such file was: with ``Bash(grep:*)`` allowed, every recursive
search asked.  Commands that read (or remove, or change the mode of) the files below a folder as
they are now ask only when a denied file is there — or a hard link to one, or a symbolic link to
one or to a folder that may hold one — looked for in up to ``FOLDER_LOOK`` entries
(``filesystem.read_deny_in``).  A folder not there yet, or with more entries, still asks.  A file
server keeps serving what appears later, and a copy or an extraction into a folder makes new
names, so those keep asking whenever the rule may match.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile

import pytest

from jupyter_agent.permissions import filesystem
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = ("Bash(grep:*)", "Bash(rg:*)", "Bash(rm:*)", "Bash(tar:*)", "Bash(cp:*)", "Bash(chmod:*)", "Bash(zip:*)",
         "Bash(diff:*)")
READS = ["grep -rn TODO src", "rg TODO src", "tar czf out.tgz src", "zip -qr out.zip src",
         "rm -rf src", "chmod -R go-w src", "diff -r src other", "grep -Rn TODO src", "rg -L TODO src",
         "tar czhf out.tgz src"]
# those that follow the symbolic links they meet (zip and diff by default)
FOLLOWING = {"zip -qr out.zip src", "diff -r src other", "grep -Rn TODO src", "rg -L TODO src", "tar czhf out.tgz src"}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "app.py").write_text("# TODO\n")
    (root / "other").mkdir()
    (root / ".env").write_text("SECRET=1\n")
    return root


def _ctx(project, deny=("Read(**/.env)",)):
    return make_ctx(project, allow=ALLOW, deny=deny)


@pytest.mark.parametrize("command", READS)
@pytest.mark.parametrize("rule", ["Read(**/.env)", "Read(./src/**/.env)", "Read(**/*.key)"])
async def test_a_folder_without_a_denied_file_runs(project, command, rule):
    assert verdict_name(await decide_bash(_ctx(project, (rule,)), command)) == "allow", command


@pytest.mark.parametrize("command", READS)
@pytest.mark.parametrize("plant", ["file", "hard link", "symlink", "symlinked folder"])
async def test_a_denied_file_there_asks(project, command, plant):
    """A denied file or a hard link to one asks for all; a symbolic link to one (or to a folder
    holding one) only for a command that follows links — whatever the rule's pattern: under
    `Read(./.env)`, which cannot match below src, `grep -R KEY src` printed `.env` through
    `src/pkg/settings -> .env`."""
    pkg = project / "src" / "pkg"
    if plant == "file":
        (pkg / ".env").write_text("SECRET=2\n")
    elif plant == "symlink":
        (pkg / "settings").symlink_to(project / ".env")
    elif plant == "hard link":
        os.link(project / ".env", pkg / "settings")
    else:
        (pkg / "up").symlink_to(project)
    asks = plant in ("file", "hard link") or command in FOLLOWING
    assert (verdict_name(await decide_bash(_ctx(project), command)) == "ask") is asks, (command, plant)
    if plant in ("symlink", "symlinked folder"):
        concrete = _ctx(project, ("Read(./.env)",))
        assert (verdict_name(await decide_bash(concrete, command)) == "ask") is asks, (command, plant, "./.env")


async def test_more_entries_than_it_looks_at_asks(project, monkeypatch):
    monkeypatch.setattr(filesystem, "FOLDER_LOOK", 2)
    for n in range(3):
        (project / "src" / f"m{n}.py").write_text("x\n")
    assert verdict_name(await decide_bash(_ctx(project), "grep -rn TODO src")) == "ask"
    monkeypatch.setattr(filesystem, "FOLDER_LOOK", 100)
    assert verdict_name(await decide_bash(_ctx(project), "grep -rn TODO src")) == "allow"


@pytest.mark.parametrize("command", ["grep -rn TODO .", "rm -rf .", "tar czf /tmp/x.tgz ."])
async def test_the_folder_holding_the_file_asks(project, command):
    assert verdict_name(await decide_bash(_ctx(project), command)) == "ask", command


@pytest.mark.parametrize("command", ["mkdir new && grep -rn TODO new", "python -m http.server -d src",
                                     "tar xzf /tmp/a.tgz -C src", "cp -r /tmp/x/. src",
                                     "cp -r src copy"])
async def test_what_may_be_there_by_run_time_still_asks(project, command):
    """A folder made earlier in the line, a server (it serves what appears later), and copies or
    extractions into the folder (they make new names) keep the rule-pattern answer."""
    ctx = make_ctx(project, allow=(*ALLOW, "Bash(mkdir:*)", "Bash(python:*)"), deny=("Read(**/.env)",))
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.skipif(shutil.which("grep") is None or shutil.which("zip") is None, reason="needs grep and zip")
def test_real_programs_read_the_secret_through_links(project, tmp_path):
    """Ground truth for the asks above: grep -r reads a hard link's content; grep -R and zip -r
    follow a symbolic link; grep -r and zip -ry do not."""
    def grep(flag):
        return subprocess.run(["grep", flag, "SECRET", "src"], cwd=project, capture_output=True, text=True).stdout

    os.link(project / ".env", project / "src" / "pkg" / "settings")
    assert "SECRET=1" in grep("-r")
    (project / "src" / "pkg" / "settings").unlink()
    (project / "src" / "pkg" / "settings").symlink_to(project / ".env")
    assert "SECRET=1" not in grep("-r")
    assert "SECRET=1" in grep("-R")
    for flags, stored in (("-qr", True), ("-qry", False)):
        out = tmp_path / f"o{flags}.zip"
        subprocess.run(["zip", flags, str(out), "src"], cwd=project, check=True)
        with zipfile.ZipFile(out) as archive:
            assert (b"SECRET=1" in archive.read("src/pkg/settings")) is stored, flags


@pytest.mark.parametrize("command", ["ln -s ../.env src/x && grep -R SECRET src", "ln -sr .env src/x; grep -R S src",
                                     "ln -st src ../.env; rg -L S src", "cd src && ln -s ../.env x && grep -R S ."])
@pytest.mark.parametrize("rule", ["Read(**/.env)", "Read(./.env)"])
async def test_a_link_to_a_denied_file_made_in_the_line_asks(project, command, rule):
    """The folder is looked at when the line is decided, before the link exists: giving a denied
    file another name asks (a hard link, `ln .env x`, already did)."""
    ctx = make_ctx(project, allow=("Bash(*)",), deny=(rule,))
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    if not command.startswith("cd "):  # (a cd that fails leaves grep -R . in the project, which holds .env)
        assert verdict_name(await decide_bash(ctx, command.replace(".env", "notes.txt"))) == "allow"


def test_real_grep_follows_the_link_made_before_it(project):
    done = subprocess.run(["bash", "-c", "ln -s ../.env src/x && grep -R SECRET src"], cwd=project,
                          capture_output=True, text=True)
    assert "SECRET=1" in done.stdout


@pytest.mark.parametrize(("command", "expected"), [
    ("rm -rf src", "allow"), ("rm -r src/pkg", "allow"), ("rmdir src/pkg/empty", "allow"),
    ("rm -rf locked", "ask"), ("rm -rf .", "ask"),
    ("chmod -R go-w src", "ask"), ("tar xzf /tmp/a.tgz -C src", "ask"),  # they may change or make such a file
])
async def test_removing_a_folder_meets_edit_deny_patterns_only_where_a_file_is(project, command, expected):
    """Under `Edit(**/*.lock)`, `rm -rf src` asked though no lock file was there: a removal meets
    only what is there (a write *into* a folder, or a change of modes, keeps the pattern answer)."""
    (project / "src" / "pkg" / "empty").mkdir()
    (project / "locked").mkdir()
    (project / "locked" / "poetry.lock").write_text("x\n")
    ctx = make_ctx(project, allow=ALLOW + ("Bash(rmdir:*)",), deny=("Edit(**/*.lock)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
    (project / "src" / "pkg" / "uv.lock").write_text("x\n")
    assert verdict_name(await decide_bash(ctx, "rm -rf src")) == "ask"
