"""A program allowed by a rule that names a file an Edit deny rule covers may write it.

Only a list of well-known writers (rm, cp, mv, sed -i, tee, …) had their targets checked, so
under ``Edit(./locked/**)`` denied, ``curl -o locked/x``, ``gzip locked/f`` or
``pip install --target locked`` ran when a rule allowed the program.  Now naming such a file
(or a folder the rule closes as a whole) asks; a known writer is denied outright (``rm``,
``cp``, … and, since their written files are known too, ``curl -o``, ``gzip``, ``tar cf``,
``pip install --target`` …: ``bash_option_writes``).
"""

from __future__ import annotations

import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROGRAMS = ("curl", "wget", "split", "gzip", "gunzip", "xz", "zstd", "zip", "tar", "rsync", "scp", "mkdir", "mktemp",
            "git", "pip", "python", "uv", "jupyter", "pandoc", "sqlite3", "xxd", "cmake", "mkfifo", "rm", "mv",
            "ruff", "pytest", "make")
ALLOW = tuple(f"Bash({p}:*)" for p in PROGRAMS)

ROWS = [
    ("rsync a.txt locked/", "ask"),
    ("scp a.txt locked/", "ask"),
    ("git init locked", "ask"),
    ("cmake -B locked", "ask"),
    ("curl -o review/x https://example.com/a", "ask"),  # an Edit ask rule
    # known writers are denied outright: rm, mv, … (bash_writes) and those whose option or
    # operand names what they write (bash_option_writes)
    ("rm locked/f.txt", "deny"),
    ("uv venv locked/venv", "deny"),
    ("sqlite3 locked/db 'create table t(x)'", "deny"),  # the database file (session 28)
    ("pandoc a.md -olocked/x.html", "deny"),
    ("mkfifo locked/x", "deny"),
    ("curl -o locked/x https://example.com/a", "deny"),
    ("curl --output=locked/x https://example.com/a", "deny"),
    ("wget -O locked/x https://example.com/a", "deny"),
    ("split -b 1 a.txt locked/part", "deny"),
    ("gzip locked/f.txt", "deny"),
    ("gunzip locked/f.gz", "deny"),
    ("xz -k locked/f.txt", "deny"),
    ("zstd a.txt -o locked/a.zst", "deny"),
    ("zip locked/x.zip a.txt", "deny"),
    ("tar -czf locked/x.tgz a.txt", "deny"),
    ("mkdir -p locked/new/dir", "deny"),
    ("mktemp -p locked", "deny"),
    ("git clone https://example.com/r locked/r", "deny"),
    ("pip install --target locked x", "deny"),
    ("pip download -d locked x", "deny"),
    ("python -m venv locked/venv", "deny"),
    ("jupyter nbconvert --to html a.ipynb --output locked/x", "deny"),
    ("mv a.txt locked/", "deny"),
    # naming nothing the rules cover
    ("curl -o out.txt https://example.com/a", "allow"),
    ("gzip a.txt", "allow"),
    ("ruff check .", "allow"),
    ("pytest -q tests", "allow"),
    ("make -C sub", "allow"),
    ("python -m venv .venv", "allow"),
    ("pip install -e .", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_named_files_under_edit_rules(world, command, expected):
    (world.project / "locked").mkdir()
    (world.project / "locked" / "f.txt").write_text("x\n")
    (world.project / "a.txt").write_text("a\n")
    ctx = make_ctx(world.project, allow=ALLOW, deny=("Edit(./locked/**)",), ask=("Edit(./review/**)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected


@pytest.mark.parametrize(("command", "changed"), [
    ("gzip locked/f.txt", "locked/f.txt.gz"),
    ("split -b 1 a.txt locked/part", "locked/partaa"),
])
def test_real_programs_write_what_they_name(tmp_path, command, changed):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "f.txt").write_text("x\n")
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / changed).exists()
