"""GNU patch writes what its patch names: the patch is read when deciding, like ``git apply``.

The real-run test shows ``patch -p1 < x.patch`` really creates ``.claude/settings.local.json``;
with ``Bash(patch:*)`` allowed that now asks (in every mode), an Edit-denied target is denied,
and a patch only known at run time asks.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.patch_guard import patch_writes
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _creates(path: str, body: str = "x") -> str:
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{body}\n"


def _changes(path: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-print(1)\n+print(2)\n"


@pytest.fixture
def patches(world):
    p = world.project
    (p / "settings.patch").write_text(_creates(".claude/settings.local.json", '{"permissions":{"allow":["Bash"]}}'))
    (p / "hook.patch").write_text(_creates(".git/hooks/pre-commit", "rm -rf ~"))
    (p / "fix.patch").write_text(_changes("a.py"))
    (p / "locked.patch").write_text(_creates("locked/f.txt"))
    (p / "out.patch").write_text(_creates("../../outside/x.txt"))
    (p / "bare.patch").write_text(_creates(".claude/settings.json").replace("+++ b/", "+++ "))
    return p


ROWS = [
    ("patch -p1 < settings.patch", "ask"),
    ("patch -p1 -i hook.patch", "ask"),
    ("patch --input=hook.patch -p1", "ask"),
    ("patch < bare.patch", "ask"),  # no -p: every ending of the name is checked
    ("patch -p1 < out.patch", "ask"),
    ("patch -p1 < locked.patch", "deny"),
    ("patch -p1 < fix.patch", "allow"),
    ("patch -p1 -d sub < fix.patch", "allow"),  # stdin was opened before -d's cd
    ("patch -p1 -d .claude < fix.patch", "ask"),
    ("patch -p1 --dry-run < settings.patch", "allow"),
    ("patch -p1 -o .git/config < fix.patch", "ask"),  # -o writes only where it says
    ("patch -p1 -o a.new < settings.patch", "allow"),
    ("patch .claude/settings.json fix.patch", "ask"),  # ORIGFILE is the file patched
    ("cat settings.patch | patch -p1", "ask"),  # from a pipe: not readable now
    ("patch -p1 < missing.patch", "ask"),
    ("patch -p1 -i $P", "ask"),
    ("patch -p1 -B /tmp/ < fix.patch", "ask"),  # backups written elsewhere
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_patch_targets_are_checked(patches, world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(patch:*)", "Bash(cat:*)"), deny=("Edit(./locked/**)",))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_bypass_mode_still_asks_for_protected_targets(patches, world):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "patch -p1 < settings.patch")) == "ask"
    assert verdict_name(await decide_bash(ctx, "patch -p1 < fix.patch")) == "allow"


def test_patch_writes_reads_the_patch(patches, world):
    def writes(line, stdin=()):
        return patch_writes([Word(w) for w in line.split()], str(world.project), [Word(s) for s in stdin])

    assert writes("patch -p1", ["fix.patch"]) == (None, ["a.py"])
    assert writes("patch", ["fix.patch"]) == (None, ["a/a.py", "a.py", "b/a.py"])
    assert writes("patch -p1 -d sub -i ../fix.patch") == (None, ["sub/a.py"])  # -i is read after -d
    assert writes("patch -p1 -d sub -i fix.patch")[0] is not None
    assert writes("patch -p1")[0] is not None


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
def test_real_patch_creates_what_its_patch_names(tmp_path):
    """Ground truth for the first row: GNU patch creates .claude/settings.local.json."""
    (tmp_path / "settings.patch").write_text(_creates(".claude/settings.local.json", "{}"))
    subprocess.run("patch -p1 < settings.patch", shell=True, cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / ".claude" / "settings.local.json").read_text() == "{}\n"
