"""tree-sitter-bash crashes the process on some lines holding a character past U+1FFFF
(``{9`` + U+99B03 + ``9$``; found by the tool fuzzer).  The analyzer does not hand such a line
to the parser; it asks.  Each check runs in a child process, so a crash fails the test instead
of ending the run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from jupyter_agent.permissions.bash_analysis import analyze_uncached

CHILD = textwrap.dedent('''
    import random, sys
    from jupyter_agent.permissions.bash_analysis import analyze_uncached
    from jupyter_agent.permissions import bash_parse
    crashers = ["{9\\U00099b03" + "9$", "\\u0084\\u00ae{9\\U0010fb1b\\u00a9\\u00be\\U00099b03" + "9$", "{9\\U0010ff41" + "9"]
    for _ in range(200):
        for line in crashers:
            assert analyze_uncached(line).problems, line
    rnd = random.Random(int(sys.argv[1]))
    tokens = ["{", "}", "9", "$", "${", "$(", ")", "'", '"', " ", "<<", "EOF\\n", "\\n", "a", "=", "`", "|", ";", "~", "*"]
    for _ in range(int(sys.argv[2])):
        parts = []
        for _ in range(rnd.randint(1, 10)):
            if rnd.random() < 0.35:
                cp = rnd.randrange(0x80, 0x110000)
                parts.append(chr(0x4E2D if 0xD800 <= cp <= 0xDFFF else cp))
            else:
                parts.append(rnd.choice(tokens))
        line = "".join(parts)
        analyze_uncached(line)
        bash_parse.parse_uncached(line)
    print("survived")
''')


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lines_that_crash_tree_sitter_bash_are_not_parsed(seed):
    done = subprocess.run([sys.executable, "-c", CHILD, str(seed), "4000"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "survived" in done.stdout, done.stderr[-2000:]


@pytest.mark.parametrize("line", ["echo 𠀀", "cat {9\U00099b03" + "9$", "echo \U0010ffff"])
def test_such_a_line_asks_with_a_reason(line):
    problems = analyze_uncached(line).problems
    assert problems and "U+" in problems[0] and "tree-sitter-bash" in problems[0]


@pytest.mark.parametrize("line", ["echo 🚀 done", "echo 中文 é", "grep -n 'ü' notes.md"])
def test_characters_below_u20000_are_parsed(line):
    assert analyze_uncached(line).problems == []
