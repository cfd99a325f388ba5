"""The files a sed script names: ``r``/``R`` read one, ``w``/``W`` and ``s///w`` write one.

Under ``Bash(sed:*)``, ``sed 'r .env' a.txt`` printed a Read-denied ``.env`` and
``sed -n 'p;w .git/config' a.txt`` wrote a protected path: the file is inside the script word,
so no argument check saw it.  The real-run tests show GNU sed doing both.
"""

from __future__ import annotations

import subprocess

import pytest

from jupyter_agent.permissions.bash_sed import sed_script
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("sed 'r .env' a.txt", "deny"),  # a read-only sed whose r reads .env
    ("sed '1R .env' a.txt", "deny"),  # a read-only sed whose r reads .env
    ("sed -e '$r .env' a.txt", "deny"),  # a read-only sed whose r reads .env
    ("gsed 'r .env' a.txt", "ask"),
    ("sed -n 'p;w .git/config' a.txt", "ask"),  # w takes the rest of the line, ; included
    ("sed -n 's/a/b/w .mcp.json' a.txt", "ask"),
    ("sed -n 'w locked/x' a.txt", "deny"),
    ("sed -n '/a/W locked/x' a.txt", "deny"),
    ("sed -n 's/a/b/gw locked/x' a.txt", "deny"),
    ("gsed -n 'w locked/x' a.txt", "deny"),
    ("sed --sandbox 'r .env' a.txt", "allow"),  # sed refuses r and w
    ("sed 'r notes.txt' a.txt", "allow"),
    ("sed -n 'w out.txt' a.txt", "allow"),
    ("sed -n 'w /dev/stdout' a.txt", "allow"),
    ("sed -n 's/a/b/p' a.txt", "allow"),
    # GNU sed 4.9 ends a label at `;`, a blank or `}`: what follows is a command
    ("sed -n ':a;w locked/x' a.txt", "deny"),
    ("sed -n ':a w locked/x' a.txt", "deny"),
    ("sed -n 'ba;w locked/x\n:a' a.txt", "deny"),
    ("sed -n '{:a};s/x/y/w locked/x' a.txt", "deny"),
    ("sed -n 't a\tr .env' a.txt", "deny"),  # a read-only sed whose r reads .env
    ("sed ':a;N;$!ba;s/\\n/ /g' a.txt", "allow"),  # the joining idiom writes nothing
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_sed_script_files_are_checked(world, command, expected):
    (world.project / "a.txt").write_text("a\n")
    ctx = make_ctx(world.project, allow=("Bash(sed:*)", "Bash(gsed:*)"), deny=("Read(./.env)", "Edit(./locked/**)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected


def test_sed_script_reads_and_writes():
    def script(*words):
        return sed_script([Word(w) for w in words])

    found = script("-n", "1r in.txt\n$w  out.txt\ns/x/y/w o2;p")
    assert (found.reads, found.writes) == (["in.txt"], ["out.txt", "o2;p"])
    assert script("-f", "prog.sed") is None  # a script this decision cannot read
    assert script("--sandbox", "w x").writes == []
    assert script("-n", ":a;w o1").writes == ["o1"] and script("-n", "ba w o2").writes == ["o2"]
    assert script(":a;N;$!ba;s/\\n/ /g").writes == []


def test_real_sed_reads_and_writes_the_named_files(tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / ".git").mkdir()
    out = subprocess.run(["sed", "r .env", "a.txt"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "SECRET=1" in out.stdout
    subprocess.run(["sed", "-n", "p;w .git/config", "a.txt"], cwd=tmp_path, capture_output=True, check=True)
    assert (tmp_path / ".git" / "config").read_text() == "a\n"


@pytest.mark.parametrize("script", [":a;w out", ":a w out", ": a;w out", "{:a};w out", "ba;w out\n:a"])
def test_real_sed_runs_what_follows_a_label(tmp_path, script):
    """The reader's labels end where GNU sed's do: each script writes the file it names."""
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run(["sed", "-n", script, "a.txt"], cwd=tmp_path, capture_output=True)
    assert (tmp_path / "out").exists(), script
    assert sed_script([Word("-n"), Word(script)]).writes == ["out"]
