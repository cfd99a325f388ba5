"""Programs that run another program their arguments name (``bash_wrappers.WRAPPERS``):
``busybox rm x`` ran under ``Bash(busybox:*)`` with ``Bash(rm:*)`` denied, and so did
``sg wheel -c 'rm x'``, ``perf record rm x`` and ``hyperfine 'rm x'``.  The multiplexers are
wrappers (``busybox sh -c …`` is a shell); sg, perf and hyperfine always ask, and what they run
is checked against deny rules."""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("busybox rm x", "deny"), ("busybox sh -c 'rm x'", "deny"), ("toybox rm -rf y", "deny"),
    ("sg wheel -c 'rm x'", "deny"), ("perf record rm x", "deny"), ("perf stat -e cycles rm x", "ask"),
    ("hyperfine 'rm x'", "deny"), ("hyperfine --prepare 'rm x' ls", "deny"), ("hyperfine 'sleep 1'", "ask"),
    ("ash -c 'rm x'", "deny"), ("perf report", "ask"), ("busybox ls", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_wrapping_programs_run(world, command, expected):
    allow = tuple(f"Bash({p}:*)" for p in ("busybox", "toybox", "sg", "perf", "hyperfine", "ash"))
    ctx = make_ctx(world.project, allow=allow, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


# Editors run the commands their command line or standard input gives, and those can run a
# shell: `vim -c '!rm -rf y' f` ran rm under Bash(vim:*) with Bash(rm:*) denied.
EDITOR_ROWS = [
    ("vim -c '!rm -rf y' a.py", "ask"), ("vim +'!rm x' a.py", "ask"), ("vim -es a.py", "ask"),
    ("vim -Es '+%p' '+q!' a.py", "ask"), ("nvim --headless -c q", "ask"), ("vi --cmd 'set x' a.py", "ask"),
    ("ed -s a.py", "ask"), ("emacs --eval '(shell-command \"rm x\")'", "ask"), ("emacs --batch -l x.el", "ask"),
    ('vim "$F"', "ask"),
    ("vim a.py", "allow"), ("vim +10 a.py", "allow"), ("emacs -nw a.py", "allow"), ("view a.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), EDITOR_ROWS)
async def test_editor_commands_ask(world, command, expected):
    allow = tuple(f"Bash({p}:*)" for p in ("vim", "vi", "nvim", "ed", "emacs", "view"))
    ctx = make_ctx(world.project, allow=allow, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
