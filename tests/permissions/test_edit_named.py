"""A program allowed by a rule that names a file an Edit deny rule covers may write it.

Only a list of well-known writers (rm, cp, mv, sed -i, tee, …) had their targets checked, so
under ``Edit(./locked/**)`` denied, ``curl -o locked/x``, ``gzip locked/f`` or
``pip install --target locked`` ran when a rule allowed the program.  Now naming such a file
(or a folder the rule closes as a whole) asks; a known writer is still denied outright.
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
    ("curl -o locked/x https://example.com/a", "ask"),
    ("curl --output=locked/x https://example.com/a", "ask"),
    ("wget -O locked/x https://example.com/a", "ask"),
    ("split -b 1 a.txt locked/part", "ask"),
    ("gzip locked/f.txt", "ask"),
    ("gunzip locked/f.gz", "ask"),
    ("xz -k locked/f.txt", "ask"),
    ("zstd a.txt -o locked/a.zst", "ask"),
    ("zip locked/x.zip a.txt", "ask"),
    ("tar -czf locked/x.tgz a.txt", "ask"),
    ("rsync a.txt locked/", "ask"),
    ("scp a.txt locked/", "ask"),
    ("mkdir -p locked/new/dir", "ask"),
    ("mktemp -p locked", "ask"),
    ("git clone https://example.com/r locked/r", "ask"),
    ("git init locked", "ask"),
    ("pip install --target locked x", "ask"),
    ("pip download -d locked x", "ask"),
    ("python -m venv locked/venv", "ask"),
    ("uv venv locked/venv", "ask"),
    ("jupyter nbconvert --to html a.ipynb --output locked/x", "ask"),
    ("pandoc a.md -olocked/x.html", "ask"),
    ("sqlite3 locked/db 'create table t(x)'", "ask"),
    ("cmake -B locked", "ask"),
    ("mkfifo locked/x", "ask"),
    ("curl -o review/x https://example.com/a", "ask"),  # an Edit ask rule
    # known writers are denied outright
    ("rm locked/f.txt", "deny"),
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
