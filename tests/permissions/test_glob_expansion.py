"""Braces and globs in read arguments are expanded before the check (braces as bash does, see
``bash_braces``), globs only where Python's ``glob`` lists exactly what bash would; other
patterns (``[^…]``, ``[[:alpha:]]``, escapes in brackets) ask.  A word tree-sitter splits in two
(``.[\\e]nv``) asks too."""

from __future__ import annotations

import glob
import os
import subprocess

import pytest

from jupyter_agent.permissions.bash_parse import parse_uncached
from jupyter_agent.permissions.bash_patterns import globs_like_bash as _globs_like_bash
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ENV = ("Read(./.env)",)

ROWS = [
    ("brace-list", "cat {.env,a.py}", "deny"),
    ("brace-inside", "cat .e{n,}v", "deny"),
    ("brace-dot", "cat .{env,x}", "deny"),
    ("brace-outside", "cat {/etc/hostname,a.py}", "ask"),
    ("brace-harmless", "cat {a,b}.py", "allow"),
    ("brace-quoted", "cat {'.env',a.py}", "ask"),
    ("caret-negation", "cat .[^x]nv", "ask"),
    ("posix-class", "cat .[[:alpha:]]nv", "ask"),
    ("escape-in-brackets", "cat .[\\e]nv", "ask"),
    ("bang-negation", "cat .[!x]nv", "deny"),
    ("question", "cat .?nv", "deny"),
    ("star", "cat .e*", "deny"),
    ("range", "cat .[d-f]nv", "deny"),
    ("bracket-dot-is-not-explicit", "cat [.]env", "allow"),
    ("star-skips-dot-files", "cat *env", "allow"),
    ("plain-glob", "ls *.py", "allow"),
    # ~+ is $PWD, ~- is $OLDPWD, ~N / ~+N / ~-N the directory stack: known only at run time
    ("tilde-plus", "cat ~+/.env", "ask"),
    ("tilde-minus", "cat ~-/.env", "ask"),
    ("tilde-stack", "cat ~0/.env", "ask"),
    ("tilde-plus-stack", "cat ~+0/.env", "ask"),
    ("tilde-cd", "cd ~+ && ls", "ask"),
    ("tilde-write", "echo x > ~+/y", "ask"),
    ("tilde-escaped-is-literal", "cat \\~+/a.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_glob_rows(world, command, expected):
    ctx = make_ctx(world.project, deny=ENV)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


PATTERNS = ["*", ".*", ".e*", ".?nv", ".[!x]nv", ".[d-f]nv", ".[]e]nv", "[.]env", "*/.env", "**/.env",
            "sub/*", "sub/.*", "?.py", "[ab].py", "[!a].py", "*.[pP][yY]", "a.p[y]", ".[!.]*",
            "{a,b}.py", ".[^x]nv", ".[[:alpha:]]nv", ".[\\e]nv", "[a-", "*[", "a\\*"]


@pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="needs /bin/bash")
def test_patterns_python_expands_are_expanded_like_bash(tmp_path):
    for name in (".env", ".ev", "a.py", "b.py", "A.PY", "sub/.env", "sub/x", "[a-", "a*"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    checked = 0
    for pattern in PATTERNS:
        if not _globs_like_bash(pattern):
            continue
        done = subprocess.run(["/bin/bash", "--norc", "-c", f"shopt -s nullglob; printf '%s\\n' {pattern}"],
                              cwd=tmp_path, capture_output=True, text=True, check=True)
        ours = sorted(glob.glob(pattern, root_dir=tmp_path))
        assert sorted(done.stdout.split()) == ours, pattern
        checked += 1
    assert checked >= 15


@pytest.mark.parametrize("line", ["cat .[\\e]nv", "ls x[\\a]b", "echo a[\\]]b"])
def test_a_word_tree_sitter_splits_is_a_problem(line):
    parsed = parse_uncached(line)
    assert any("splits in two" in p for p in parsed.problems), parsed
