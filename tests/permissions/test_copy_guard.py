"""Copies write names that come from their sources: a folder holding ``.claude/`` copied with
``cp -r`` creates a protected path no argument spells.  The real-run test shows it does."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


@pytest.fixture
def trees(world):
    p = world.project
    (p / "src" / ".claude").mkdir(parents=True)
    (p / "src" / ".claude" / "settings.local.json").write_text("{}")
    (p / "plain").mkdir()
    (p / "plain" / "a.txt").write_text("x")
    return p


ROWS = [
    ("cp -r src/. out/", "ask"),
    ("cp -a src out", "ask"),  # out/src/.claude/…
    ("cp -R src/ -t out", "ask"),
    ("cp -r -tout src", "ask"),
    ("rsync -a src/ out/", "ask"),
    ("rsync --archive --delete src/ out/", "ask"),
    ("cp -r plain/. out/", "allow"),
    ("rsync -av plain/ out/", "allow"),
    ("cp plain/a.txt .mcp.json.bak", "allow"),  # one file, under the name it is given
    ("scp host:.mcp.json .", "ask"),  # lands under its own name
    ("scp host:/data/x.csv .", "allow"),
    ("scp -r host:x out", "ask"),  # a folder from another machine
    ("rsync -a host:/x/ out/", "ask"),
    ("rsync -a --files-from=list.txt . out/", "ask"),
    ("cp -r $SRC out/", "ask"),
    # sftp's commands come from a batch file or stdin (sftp(1): `get` writes, `!cmd` runs locally)
    ("sftp -b batch.txt host", "ask"),
    ("sftp host <<< 'get .mcp.json'", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_copied_names_are_checked(trees, world, command, expected):
    for mode, allow in (("default", ("Bash(cp:*)", "Bash(rsync:*)", "Bash(scp:*)", "Bash(sftp:*)")),
                        ("bypassPermissions", ())):
        verdict = await decide_bash(make_ctx(world.project, allow=allow, mode=mode), command)
        assert verdict_name(verdict) == expected, (mode, verdict)


def test_real_cp_creates_the_protected_path(trees):
    """Ground truth for the first row."""
    subprocess.run(["bash", "-c", "cp -r src/. out/"], cwd=trees, check=True, capture_output=True)
    assert (trees / "out" / ".claude" / "settings.local.json").read_text() == "{}"


# rsync --delete empties what a source's copy lands in: with DEST `.` that is the project, its
# .git and (a Read deny blocks writing too) .env; --remove-source-files removes the sources
REMOVAL_ROWS = [
    ("rsync -a --delete plain/ .", "ask"),  # the project loses .git and .env
    ("rsync -a --del plain/ ./", "ask"),
    ("rsync -a --delete-after plain/. .", "ask"),
    ("rsync -a --delete-excluded $SRC .", "ask"),  # where it lands: only at run time
    ("rsync -a --delete plain .", "allow"),  # it lands in ./plain (and empties only that)
    ("rsync -a --delete plain/ out/", "allow"),
    ("rsync -a plain/ .", "allow"),  # no deletion: only plain's entries land
    ("rsync -a --delay-updates plain/ .", "allow"),  # not a deletion (rsync takes no abbreviation)
    ("rsync -a --remove-source-files . /tmp/elsewhere/", "ask"),  # . loses .git's files
    ("rsync --remove-source-files plain/a.txt out/", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), REMOVAL_ROWS)
async def test_rsync_removals_are_checked(trees, world, command, expected):
    (world.project / "out").mkdir()
    for mode, allow in (("default", ("Bash(rsync:*)",)), ("bypassPermissions", ())):
        ctx = make_ctx(world.project, allow=allow, mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, verdict)


@pytest.mark.parametrize("command", ["rm -rf .", "find . -delete", "rsync -a --delete plain/ .", "rm -r sub/.."])
async def test_removing_a_folder_that_holds_a_read_denied_file_asks(tmp_path, command):
    """No .git here: only the Read deny on .env stands in the way (a Read deny blocks writing)."""
    project = tmp_path / "proj"
    for folder in ("plain", "sub", "build"):
        (project / folder).mkdir(parents=True)
    (project / ".env").write_text("SECRET=1\n")
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask", verdict
    assert "Read(./.env)" in verdict.message
    for elsewhere in ("rm -rf build", "find build -delete", "rsync -a --delete plain/ build/"):
        assert verdict_name(await decide_bash(ctx, elsewhere)) == "allow", elsewhere


@pytest.mark.skipif(shutil.which("rsync") is None, reason="needs rsync")
def test_real_rsync_delete_empties_the_destination(tmp_path):
    """Ground truth: --delete with `plain/` empties `.` (hidden files too); `plain` lands in ./plain;
    --del is a real option; an abbreviation is refused."""
    project = tmp_path / "proj"
    (project / "plain").mkdir(parents=True)
    (project / ".env").write_text("SECRET=1\n")
    (project / ".git").mkdir()
    run = lambda cmd: subprocess.run(["bash", "-c", cmd], cwd=project, capture_output=True)  # noqa: E731
    assert run("rsync -a --dele plain/ .").returncode != 0
    assert run("rsync -a --delete plain .").returncode == 0
    assert (project / ".env").exists() and (project / ".git").exists()
    assert run("rsync -a --del plain/ .").returncode == 0
    assert not (project / ".env").exists() and not (project / ".git").exists()
