"""Formatters rewrite what is below the folders they are given (``formatters.py``): under
``Bash(ruff:*)`` with ``Edit(./src/**)`` denied, ``ruff format .`` rewrote ``src/app.py``.  A
folder operand (or the current folder a tool formats by default) is written below, so an Edit deny
rule there asks; check and diff runs write nothing; protected folders are left to the tools."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROGRAMS = ("black", "ruff", "isort", "prettier", "autopep8", "eslint", "gofmt", "cargo", "nbqa", "terraform",
            "pre-commit", "cd")
ROWS = [
    ("black .", "ask"), ("ruff format .", "ask"), ("ruff format", "ask"), ("ruff check --fix .", "ask"),
    ("ruff check --fix", "ask"), ("isort .", "ask"), ("prettier --write .", "ask"), ("autopep8 -ir .", "ask"),
    ("eslint --fix .", "ask"), ("gofmt -w .", "ask"), ("cargo fmt", "ask"), ("terraform fmt", "ask"),
    ("nbqa black .", "ask"), ("black src", "ask"), ('ruff format "$DIR"', "ask"),
    ("black --check .", "allow"), ("ruff format --diff .", "allow"), ("ruff check .", "allow"),
    ("prettier --check .", "allow"), ("autopep8 -r .", "allow"), ("black sub", "allow"), ("black a.py", "allow"),
    ("isort --check-only .", "allow"), ("cargo fmt --check", "allow"),
    # pre-commit's hooks fix the files given, else the repository's (from a subfolder too)
    ("pre-commit run --all-files", "ask"), ("pre-commit run", "ask"), ("pre-commit", "ask"),
    ("cd sub && pre-commit run -a", "ask"), ("pre-commit run black --files src/app.py", "deny"),
    ("pre-commit try-repo ../hooks --all-files", "ask"), ("pre-commit run \"$HOOK\"", "ask"),
    ("pre-commit run --files a.py", "allow"), ("pre-commit --version", "allow"), ("pre-commit clean", "allow"),
    ("pre-commit run --help", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_a_formatter_given_a_folder_meets_edit_deny_rules_below_it(world, command, expected):
    (world.project / "src").mkdir()
    (world.project / "src" / "app.py").write_text("x=1\n")
    ctx = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in PROGRAMS), deny=("Edit(./src/**)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize("command", ["black .", "ruff format .", "prettier --write .", "ruff check --fix",
                                     "pre-commit run --all-files"])
async def test_without_deny_rules_and_in_bypass_mode_formatting_runs(world, command):
    allowed = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in PROGRAMS))
    assert verdict_name(await decide_bash(allowed, command)) == "allow", command
    assert verdict_name(await decide_bash(make_ctx(world.project, mode="bypassPermissions"), command)) == "allow"


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_real_ruff_format_rewrites_below_the_folder(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x=1\n")
    subprocess.run([shutil.which("ruff"), "format", "."], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    assert (tmp_path / "src" / "app.py").read_text() == "x = 1\n"
