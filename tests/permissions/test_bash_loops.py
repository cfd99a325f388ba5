"""``for f in *.py; do wc -l "$f"; done`` is read as its body once per value (``bash_loops.py``).

``"$f"`` alone is a file only known at run time, so such loops asked (and, under a Read deny
rule, asked in every mode) where ``wc -l *.py`` runs freely.  The real-bash test runs loops with
a stub program that logs its arguments and checks that each argument bash gave it is one the
analysis saw.
"""

from __future__ import annotations

import glob
import subprocess

import pytest

from jupyter_agent.permissions.bash_parse import parse_uncached
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _commands(line: str) -> list[list[str]]:
    parsed = parse_uncached(line)
    assert not parsed.problems, parsed.problems
    return [[w.text for w in c.words] for c in parsed.commands if c.words]


@pytest.mark.parametrize(("line", "commands"), [
    ('for f in *.py; do wc -l "$f"; done', [["wc", "-l", "*.py"]]),
    ('for f in a b; do echo $f; cat "${f}" > out; done | sort',
     [["echo", "a"], ["cat", "a"], ["echo", "b"], ["cat", "b"], ["sort"]]),
    ("for f in 'x y' \"z w\"; do cat \"$f\"; done", [["cat", "x y"], ["cat", "z w"]]),
    ('for i in 1 2; do for j in a b; do echo "$i" "$j"; done; done',
     [["echo", "1", "a"], ["echo", "1", "b"], ["echo", "2", "a"], ["echo", "2", "b"]]),
    ('for f in *.py; do echo $f; done', [["echo", "$f"]]),  # unquoted: bash splits and globs the value
    ('for nb in a.ipynb; do jupyter nbconvert "$nb" --output "$nb.py"; done',
     [["jupyter", "nbconvert", "a.ipynb", "--output", "$nb.py"]]),  # a run-time value stays one
])
def test_loops_are_read_once_per_value(line, commands):
    assert sorted(_commands(line)) == sorted(commands)


@pytest.mark.parametrize("line", [
    'for f in x; do read f; cat "$f"; done',  # the body sets it
    'for f in x; do : ${f:=y}; cat "$f"; done',
    'for f in x; do let f++; cat "$f"; done',
    'for f in x; do f=.env; cat "$f"; done',
    'for f in $(ls); do cat "$f"; done',  # a value only known at run time
    'for f in ~/x; do cat "$f"; done',
    'for f in {a,b}; do cat "$f"; done',
    'for PATH in ./bin; do ls; done',  # it changes what runs: stays a loop, which asks
    'select f in a b; do cat "$f"; done',
    'for f; do cat "$f"; done',
])
def test_loops_that_may_not_be_unrolled_stay_loops(line):
    parsed = parse_uncached(line)
    assert any(w.text.startswith(("$", '"$')) for c in parsed.commands for w in c.words) or parsed.problems or any(
        c.kind == "assignment" for c in parsed.commands), line


@pytest.mark.parametrize(("command", "mode", "expected"), [
    ('for f in *.py; do wc -l "$f"; done', "default", "allow"),  # it asked: "$f" was not known
    ('for f in *.py; do wc -l "$f"; done', "bypassPermissions", "allow"),
    ('for f in .e*; do cat "$f"; done', "bypassPermissions", "deny"),  # .env is one of them
    ('for f in a.py .env; do head -1 "$f"; done', "bypassPermissions", "deny"),
    ('for f in a.py b.py; do rm "$f"; done', "bypassPermissions", "deny"),
    ('for f in x; do let f++; cat "$f"; done', "bypassPermissions", "ask"),  # not unrolled: not known
])
async def test_unrolled_loops_meet_the_rules(world, command, mode, expected):
    (world.project / "a.py").write_text("x\n")
    (world.project / "env-link").unlink()
    ctx = make_ctx(world.project, allow=("Bash(wc:*)", "Bash(let:*)"), deny=("Bash(rm:*)", "Read(./.env)"), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


LOOPS = [
    'for f in *.py; do qa "$f"; done',
    'for f in a.py d.txt; do qa $f "$f"; done',
    "for f in 'b c.py' x; do qa \"$f\" \"${f}\"; done",
    'for i in 1 2; do for j in *.txt; do qa "$i" "$j"; done; done',
    'for f in *.none; do qa "$f"; done',  # no match: the pattern itself
    'for f in *.py; do qa "$f" "$f.bak"; done',
    'for f in d.txt; do qa "$f"; done > out.log',
]


@pytest.mark.parametrize("line", LOOPS)
def test_real_bash_gives_the_program_the_arguments_the_analysis_sees(tmp_path, line):
    for name in ("a.py", "b c.py", "d.txt"):
        (tmp_path / name).write_text("x\n")
    bin_dir, log = tmp_path / "bin", tmp_path / "log"
    bin_dir.mkdir()
    log.mkdir()
    (bin_dir / "qa").write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done >> "$QA_LOG/$$"\n')
    (bin_dir / "qa").chmod(0o755)
    subprocess.run(["/bin/bash", "-c", line], cwd=tmp_path, capture_output=True, timeout=10,
                   env={"PATH": f"{bin_dir}:/usr/bin:/bin", "QA_LOG": str(log)})
    given = {arg for run in log.iterdir() for arg in run.read_text().split("\0") if arg}
    seen: set[str] = set()
    for words in _commands(line):
        for text in words[1:]:
            if text.startswith(("$", '"')):
                continue  # a value only known at run time: any argument
            matches = glob.glob(text, root_dir=tmp_path) if any(c in text for c in "*?[") else []
            seen |= set(matches) or {text.strip("'\"")}
    runtime = any(t.startswith(("$", '"')) for words in _commands(line) for t in words[1:])
    assert given, line  # bash ran the program
    if runtime:  # "$f.bak": any argument there; the fixed ones are still exactly bash's
        assert seen <= given, (line, given, seen)
    else:
        assert given == seen, (line, given, seen)
