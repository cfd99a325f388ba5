"""A program given as a path that is a program a deny or ask rule names, under another name.

``./bin/ls x`` ran ``rm x`` under ``Bash(rm:*)`` denied (and ``Bash(*)`` allowed) when
``bin/ls`` was a symbolic link to ``/bin/rm``, a hard link of it or a copy of it: the rules
matched ``ls x``.  The file is now found as the program on PATH it is.  Real bash shows the
effect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RM = shutil.which("rm")
pytestmark = pytest.mark.skipif(RM is None, reason="needs rm on PATH")


@pytest.fixture
def disguises(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ls").symlink_to(RM)
    shutil.copy2(RM, bin_dir / "tidy")  # a copy: same bytes, another inode
    try:
        os.link(os.path.realpath(RM), bin_dir / "hl")  # a hard link: same inode (same file system only)
    except OSError:
        shutil.copy2(RM, bin_dir / "hl")
    shutil.copy2(shutil.which("ls") or "/bin/ls", bin_dir / "myls")  # ls in disguise is still ls
    (tmp_path / "run.sh").write_text("./bin/tidy -f victim\n")
    (tmp_path / "victim").write_text("x")
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), [
    ("./bin/ls victim", "deny"),
    ("bin/tidy -f victim", "deny"),
    ("bin/hl victim", "deny"),
    ("timeout 5 bin/tidy victim", "deny"),
    ("cd bin && ./tidy ../victim", "deny"),
    ("bash run.sh", "deny"),  # a command of a script the line runs
    ("bin/myls", "allow"),
    ("bin/missing victim", "allow"),  # no such file: nothing runs
    ("cp /bin/rm bin/new && bin/new victim", "ask"),  # the line makes it: not known before it runs
])
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_a_link_or_copy_of_a_denied_program_is_that_program(disguises, command, expected, mode):
    ctx = make_ctx(disguises, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode=mode)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict
    if expected == "deny" and command.startswith(("./bin/ls", "bin/tidy")):
        assert "is rm: a link to it or a copy of it" in verdict.message, verdict.message


async def test_an_ask_rule_meets_a_copy_too(disguises):
    ctx = make_ctx(disguises, allow=("Bash(*)",), ask=("Bash(rm -f:*)",))
    verdict = await decide_bash(ctx, "bin/tidy -f victim")
    assert verdict_name(verdict) == "ask" and "ask rule Bash(rm -f:*)" in verdict.message, verdict
    assert verdict_name(await decide_bash(ctx, "bin/tidy victim")) == "allow"  # rm without -f: no rule names it


def test_real_bash_runs_rm_through_each_disguise(disguises):
    for program in ("./bin/ls", "bin/tidy", "bin/hl"):
        (disguises / "victim").write_text("x")
        subprocess.run(["bash", "-c", f"{program} victim"], cwd=disguises, timeout=10, check=True)
        assert not (disguises / "victim").exists(), program
