"""Differential test against real bash: where the analyzer is sure, bash must see the same commands.

Bash parses a generated line as a function body and prints it back (``declare -f``) without
running it; the analyzer then reads bash's canonical text.  Both views must name the same
programs.  The vocabulary only names programs that do not exist and bash runs with
``PATH=/nonexistent`` in an empty folder, so even a line that escapes the function body does
nothing.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.permissions.bash_parse import parse_uncached

BASH = "/bin/bash"
TOKENS = [
    "qa", "qb", "qc", " ", " ", " ", ";", "&&", "||", "|", "&", "\n", "$(", ")", "`", "'", '"', "\\",
    "<<", "EOF", "\nEOF\n", ">", "<", "#", "{ ", " }", "(", "$x", "${x:-", "}", "=", "2>", "&>", "<(",
    "$'", "\t", "!", "if ", "then ", "fi", "for qa in qb; do ", "done", "case qa in qb) ", ";;", "esac",
    "[[ ", " ]]", "<<-", "<<'EOF'", "\n\\", "{qa,qb}", "*", "~", "while ", "<<<", "qa=qb ", "export ",
]

pytestmark = pytest.mark.skipif(not os.path.exists(BASH), reason="needs /bin/bash")


def _programs(text: str) -> tuple[list[str], list[str]]:
    parsed = parse_uncached(text)
    return parsed.problems, sorted((c.words[0].literal or "?") for c in parsed.commands if c.words)


def _bash_canonical(line: str, folder: str) -> str | None:
    source = "f() {\n" + line + "\n}\ndeclare -f f"
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", source], capture_output=True, text=True, timeout=10,
        cwd=folder, env={"PATH": "/nonexistent"},
    )
    if done.returncode != 0 or not done.stdout.startswith("f () "):
        return None
    body = done.stdout.split("\n", 1)[1].strip()
    return body[1:-1] if body.startswith("{") and body.endswith("}") else None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12).map("".join))
def test_sure_analysis_agrees_with_bash(tmp_path, line):
    problems, ours = _programs(line)
    if problems:
        return  # the analyzer already asks
    canonical = _bash_canonical(line, str(tmp_path))
    if canonical is None:
        return  # bash rejects the line: it would not run
    problems2, theirs = _programs(canonical)
    if problems2:
        return
    assert len(ours) == len(theirs), (line, ours, theirs, canonical)
    assert all(p == "?" or p in theirs or p == "!" for p in ours), (line, ours, theirs, canonical)


@pytest.mark.parametrize("line", ["ls\n\\rm x", "ls 2>out\n\\rm x", "ls;\\ x", "ls \n  \\ x"])
def test_known_tree_sitter_differentials_are_problems(line):
    assert parse_uncached(line).problems


# Line continuations: removed before the analysis where bash removes them (between words), kept in
# single quotes; anywhere else the line asks.  Bash's own reading (``declare -f``) must then give
# the very same commands, word for word.
CONTINUED_WORDS = ["qa", "qb", "-x", "'a \\\nb'", "$(qa \\\n -y)", "`qb \\\n -z`", "> o", '"a b"', "x\\ y",
                   "{ qa; \\\n }", "( \\\n qb )", "<<EOF\nx \\\ny\nEOF\n", "<<'EOF'\nx \\\ny\nEOF\n"]
CONTINUED_GAPS = [" ", " \\\n", " \\\n  ", "\\\n", " && \\\n", " | \\\n", "; ", "\n", " # c \\\n", "x\\\\\n",
                  '"a \\\nb"', "$'a\\\nb'", "\\\n\\\n"]
CONTINUED = st.lists(st.tuples(st.sampled_from(CONTINUED_WORDS), st.sampled_from(CONTINUED_GAPS)), min_size=1,
                     max_size=6).map(lambda pairs: "".join(w + g for w, g in pairs) + "qa")


def _words(text: str) -> list[tuple[str, ...]] | None:
    """Each command's words (``?`` for one with an expansion: bash respaces those), sorted."""
    parsed = parse_uncached(text)
    if parsed.problems:
        return None
    return sorted(tuple("?" if w.literal is None else w.literal for w in c.words) for c in parsed.commands)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(CONTINUED)
def test_continuations_are_read_as_bash_reads_them(tmp_path, line):
    ours = _words(line)
    if ours is None:
        return  # the analyzer asks
    canonical = _bash_canonical(line, str(tmp_path))
    if canonical is None:
        return
    theirs = _words(canonical)
    if theirs is None:  # bash's rendering is one the analyzer asks about (`qa"a b"\`qb\`;`: tree-sitter splits it)
        return
    assert ours == theirs, (line, canonical)


@pytest.mark.parametrize(("line", "words"), [
    ("qa -x \\\n  -y \\\n  z", [("qa", "-x", "-y", "z")]),
    ("qa && \\\nqb", [("qa",), ("qb",)]),
    ("qa 'a \\\nb'", [("qa", "a \\\nb")]),
    ("qa <<'EOF'\nx \\\nEOF\nqb", [("qa",), ("qb",)]),  # a quoted heredoc's lines are read as they are
    ('qa "a \\\nb" "c\\\\\nd"', [("qa", "a b", "c\\\nd")]),  # in double quotes too, unless escaped
    ("qa $(qb \\\n -y)", [("qa", "?"), ("qb", "-y")]),
])
def test_continuations_between_words_are_removed(line, words):
    assert _words(line) == sorted(words)


@pytest.mark.parametrize("line", ["ec\\\nho x", "qa # c \\\nqb", "qa $'a\\\nb'",
                                  "cat <<EOF\n$(qa \\\n)\nEOF", "qa x\\\\\nqb",
                                  "qa <<EOF\nx \\\nEOF\nqb\nEOF"])  # bash: `x EOF` is no delimiter: qb is text
def test_other_continuations_ask(line):
    assert parse_uncached(line).problems
