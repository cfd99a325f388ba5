"""Copies write names that come from their sources: a folder holding ``.claude/`` copied with
``cp -r`` creates a protected path no argument spells.  The real-run test shows it does."""

from __future__ import annotations

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
