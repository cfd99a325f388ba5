"""bypassPermissions waves ordinary asks through, never a deny rule: a line the analyzer could not
fully read may run what a deny (or ask) rule names, so with such rules it asks in every mode; with
no rules it may still write a protected path (``.git/``), which bypassPermissions asks about.
Real bash shows what each line would have run."""

from __future__ import annotations

import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("c-style-loop", "for ((i=0;i<n;i++)); do rm victim; done", "ask"),  # n: arithmetic on a variable
    ("function-body", "f() { rm victim; }; f", "deny"),  # a body is read as the commands it runs
    ("function-keyword", "function g { rm victim; }; g", "deny"),
    ("line-continuation", "rm\\\n victim", "ask"),
    ("continuation-in-a-word", 'r"m\\\n" victim', "deny"),  # in double quotes: removed, as bash does
    ("plain-deny", "rm victim", "deny"),
    ("plain-allowed", "ls", "allow"),
    ("other-program-unread", "for ((i=0;i<n;i++)); do ls; done", "ask"),  # unread: the rule might match it
    ("other-program-in-a-function", "f() { ls; }; f", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_bypass_mode_keeps_deny_rules_on_unread_lines(tmp_path, command, expected):
    (tmp_path / "victim").write_text("x")
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected


# with no rule at all: an unread line may still write where bypassPermissions asks (.git/, .claude/)
PROTECTED_WRITES = ["f() { echo x > .git/config; }; f", "arr=(.git/config); cp victim ${arr[0]}"]


@pytest.mark.parametrize("command", PROTECTED_WRITES)
async def test_without_rules_an_unread_line_still_asks_in_bypass(tmp_path, command):
    ctx = make_ctx(tmp_path, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
    assert verdict_name(await decide_bash(ctx, "ls; echo x > out.txt")) == "allow"  # read: runs


@pytest.mark.parametrize("command", PROTECTED_WRITES)
def test_those_lines_really_write_git_config(tmp_path, command):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "victim").write_text("x\n")
    subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, timeout=10, check=False)
    assert (tmp_path / ".git" / "config").read_text() == "x\n"


@pytest.mark.parametrize("command", [r[1] for r in ROWS if r[0] in ("function-body", "line-continuation")])
def test_those_lines_really_run_rm(tmp_path, command):
    (tmp_path / "victim").write_text("x")
    subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, timeout=10, check=False)
    assert not (tmp_path / "victim").exists()
