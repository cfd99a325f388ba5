"""The parse layer's shortcuts give exactly what the full, slow path gives.

``parse_uncached`` skips work for the usual line: the separate per-leaf ``skipped_text`` walk
and the general walker (``fast_parse`` reads plain commands itself, hands every other
statement to the general walker and checks for skipped text as it goes), node-by-node text
decoding (ASCII lines are sliced) and the frozen dataclasses' ``__init__``.  ``_reference`` below is the path with none
of these shortcuts; every line of a corpus (the benchmark's commands, the attack table, the
fuzz pieces and seeded random lines) must give an equal ``ParsedCommand``.
"""

from __future__ import annotations

import copy
import pickle
import random
import sys
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions import bash_parse
from jupyter_agent.permissions.bash import check_bash_permission
from jupyter_agent.permissions.bash_commands import ParsedCommand, SimpleCommand, new_simple
from jupyter_agent.permissions.bash_fastparse import fast_parse
from jupyter_agent.permissions.bash_heredoc import dash_problem, dash_repair
from jupyter_agent.permissions.bash_lexcheck import (
    CONTINUATION_PROBLEM,
    bad_characters,
    join_continuations,
    skipped_text,
)
from jupyter_agent.permissions.bash_loops import unroll_loops
from jupyter_agent.permissions.bash_words import Word, WordReader, make_word
from tests.permissions.test_bash_attacks import ROWS as ATTACK_ROWS
from tests.permissions.test_bash_fuzz import HIDE, RM, SAFE, SEPARATORS
from tests.permissions.test_bash_vs_bash import TOKENS
from tests.permissions.tools import make_ctx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import permissions as benchmark  # noqa: E402

EXTRA = [
    "git diff HEAD~1 -- src/app.py", "~/bin/tool x", "ls ~", "echo a~b", "cat x # note", "# only",
    "ls\tx", "ls  -la   src", "'git' status", "ls '' x", "echo 'a b' c", "echo \"a b\"",
    "cat -- -x", "a=1", "a=1 ls", "ls > out", "ls 2>&1 | tail", "ls; ls & ls", "!ls", "( ls )",
    "ls;\\ x", "ls \\ x", "ls\\\tx", "ls\\ \\ x", "echo é", "echo a\u2003b", "ls \u00a0x",
    "echo {a,b}", "echo {a}", "echo a}", "ls [ab]", "ls ?", "echo $HOME", "echo `ls`", "",
    "   ", "ls && ", "x | y | z || w && v", "time ls", "ls |& cat", "coproc ls",
    "2>a ls >b 2>&1", "2>&1!python - > out | }", "ls < in > out", "ls 3<&- x", "ls 2> /dev/null x",
    "ls >&2", "ls &> log", "ls > a > b", "ls 2>10#$(rm x)", "echo 10#$(rm x)", "echo -20 0x1F",
    "ls | ls | ls\nrm x && ls", "ls >out\nrm x", "ls\n> out", "cat <<EOF > out\nbody\nEOF",
    "x=1 && ls", "export A=1 && ls | wc", "for i in a; do ls; done && ls", "ls && echo \"$x\"",
    "a && b > out 2>&1", "a | b >> log", "a && b 2>&1 | c > out", "a && b > $x", "a && b\n> out",
    "a || b < in > out", "(a && b) > out", "a && b > out\nrm x",
    "ls $ x", "ls push$\"\"", "ls \"a\n\nb\"", "ls \" \"x", "ls p=~/x P=a:~/b --f=~/x", "ls == x =~ y",
    "ls x~ p=~", "echo push | xargs git", "find . -exec rm {} \\;",
]


def _reference(command: str) -> ParsedCommand:
    """``parse_uncached`` before the shortcuts: every check, the general walker, node.text."""
    out = ParsedCommand()
    problem = bad_characters(command)
    if problem is not None:
        out.problems.append(problem)
        return out
    data = command.encode("utf-8", "surrogateescape")
    root = bash_parse._parser().parse(data).root_node
    if root.has_error:
        out.problems.append("the command does not parse (tree-sitter-bash cannot read the <> redirection, or a "
                            "syntax error or unterminated quote)" if b"<>" in data else
                            "the command does not parse (syntax error or unterminated quote)")
        return out
    joined = join_continuations(root, data)  # `ls \<newline> x`: as bash reads it
    if joined is None:
        out.problems.append(CONTINUATION_PROBLEM)
        return out
    if joined != data:
        return _reference(joined.decode("utf-8", "surrogateescape"))
    unrolled = unroll_loops(root, data)  # for f in *.py; do …; done: each value's body
    if unrolled is not None:
        return _reference(unrolled.decode("utf-8", "surrogateescape"))
    skipped = skipped_text(root, data)
    reader = WordReader()  # no source: texts decoded per node
    if skipped is not None:
        repaired = dash_repair(root, data, bash_parse._parser())  # `python - <<'EOF'`
        if repaired is None or skipped_text(repaired[0], data) is not None:
            out.problems.append(f"the parser skipped part of the command: {skipped!r}")
            return out
        root, reader = repaired
    bash_parse._Walker(out, reader).run(root)
    if dash_problem(reader) is not None:
        out.problems.append(dash_problem(reader))
    if not out.commands and not out.problems and command.strip():
        out.problems.append("no command found")
    return out


def _random_lines(count: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    pieces = TOKENS + ["git", "ls", "-la", "src/a.py", "'q r'", "HEAD~1", "~/x", "\\ ", "\\\t", "é"]
    return ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 8))) for _ in range(count)]


def _corpus() -> list[str]:
    lines = benchmark.commands(400) + [row[2] for row in ATTACK_ROWS] + SAFE + EXTRA
    lines += [h.format(r=r) for h in HIDE for r in RM]
    lines += [a + sep + b for a in SAFE[:4] for sep in SEPARATORS for b in SAFE[4:]]
    return list(dict.fromkeys(lines + _random_lines(3000, seed=3)))


CORPUS = _corpus()


def test_corpus_reaches_every_shortcut():
    results = [_fast(line) for line in CORPUS]
    fast = [r for r in results if r is not None]
    handed_over = sum(bool(r.problems) or any(c.nested for c in r.commands) for r in fast)
    assert len(fast) > 1000 and len(CORPUS) - len(fast) > 1000  # both paths are exercised
    assert handed_over > 100  # statements read by the general walker inside the fast path


def _fast(line: str) -> ParsedCommand | None:
    if not line.isascii() or bad_characters(line) is not None:
        return None
    root = bash_parse._parser().parse(line.encode()).root_node
    if root.has_error:
        return None
    return fast_parse(root, line, line.isprintable(), bash_parse._Walker)


def test_parse_equals_the_full_path_on_the_corpus():
    different = [line for line in CORPUS if bash_parse.parse_uncached(line) != _reference(line)]
    assert different == []


def test_fast_path_equals_the_general_walker():
    checked = 0
    for line in CORPUS:
        fast = _fast(line)
        if fast is None:
            continue
        out = ParsedCommand()
        bash_parse._Walker(out, WordReader()).run(bash_parse._parser().parse(line.encode()).root_node)
        assert fast == out, line
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("line", ["ls;\\ x", "ls \\ x", "ls\n  \\ x", "echo a;\\\tx", "a && \\ b"])
def test_skipped_backslash_blank_is_still_caught(line):
    assert _fast(line) is None
    problems = bash_parse.parse_uncached(line).problems
    assert problems and "skipped" in problems[0]


def test_heredoc_dash_the_parser_drops_is_read_back():
    """tree-sitter-bash loses the ``-`` of ``python - <<'EOF'`` without an error node: the line
    is parsed again with a stand-in word there, read back as ``-``."""
    parsed = bash_parse.parse_uncached("python - <<'EOF'\nimport sys\nEOF")
    assert parsed.problems == []
    assert [[w.text for w in c.words] for c in parsed.commands] == [["python", "-"]]
    caught = bash_parse.parse_uncached("python - \\ x <<'EOF'\nimport sys\nEOF").problems
    assert caught and "skipped" in caught[0]


def test_fast_path_never_accepts_a_line_with_skipped_text():
    rnd = random.Random(11)
    alphabet = list("ab \t\n\\;|&()'\"$`#<>{}=~*-") + ["\\ ", "\\\t", "EOF", "<<EOF\n", "\n", "python - "]
    lines = CORPUS + ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 14))) for _ in range(6000)]
    accepted = 0
    for line in lines:
        if _fast(line) is not None:
            data = line.encode()
            assert skipped_text(bash_parse._parser().parse(data).root_node, data) is None, line
            accepted += 1
    assert accepted > 500


@pytest.mark.parametrize("line", ["echo \u2003x", "ls \u00a0-la", "echo\u3000x", "ls \ufeffx", "echo é"])
def test_non_ascii_lines_take_the_general_path(line):
    assert bash_parse.parse_uncached(line) == _reference(line)


@pytest.mark.parametrize(
    "line", ["ls | ls | ls\nrm x && ls", "ls | ls\nrm x", "ls >out\nrm x", "ls > a\nrm x 2>&1"]
)
def test_a_command_glued_over_a_newline_is_a_problem(tmp_path, line):
    """tree-sitter read ``ls | ls | ls`` newline ``rm x`` as ``ls`` with arguments ``rm x``;
    bash runs ``rm x`` (found by the fuzz test): a problem, so not allowed under Bash(ls:*)."""
    parsed = bash_parse.parse_uncached(line)
    glued = "a command continues past a newline (bash would split it there)" in parsed.problems
    assert glued or not any(c.words[0].text == "ls" and len(c.words) > 1 for c in parsed.commands)
    context = make_ctx(tmp_path, deny=("Bash(rm:*)",), allow=("Bash(ls:*)",))
    assert not isinstance(check_bash_permission(line, context), PermissionAllow)


@pytest.mark.parametrize("line", ["! !", "! '!'", "ls && ! !"])
def test_a_bang_without_command_is_a_problem(line):
    """bash runs nothing for ``! !``; tree-sitter reads a command named ``!`` (found by the
    differential test against bash)."""
    assert "a '!' with no command after it" in bash_parse.parse_uncached(line).problems


def test_lone_surrogate_is_a_problem_not_a_crash():
    parsed = bash_parse.parse_uncached("echo \ud800")
    assert parsed.commands == [] and parsed.problems == ["the command is not valid text (lone surrogate)"]
    escaped = bash_parse.parse_uncached("echo \udcff")  # an escaped byte still round-trips
    assert escaped == _reference("echo \udcff")


def test_fast_word_is_an_ordinary_frozen_word():
    word = make_word("a b")
    assert word == Word("a b") and hash(word) == hash(Word("a b"))
    assert repr(word) == "Word(text='a b', static=True, glob=False)"
    assert [f.name for f in fields(Word)] == ["text", "static", "glob"]
    assert word.literal == "a b" and make_word("*", True, True).literal is None
    assert word.rendered == "'a b'" and word.rendered is word.rendered  # computed once
    assert make_word("$x", False).rendered == "$x" and Word("").rendered == "''"
    assert pickle.loads(pickle.dumps(word)) == word and copy.deepcopy(word).rendered == "'a b'"
    with pytest.raises(FrozenInstanceError):
        word.text = "x"  # type: ignore[misc]
    with pytest.raises((FrozenInstanceError, TypeError)):  # (3.11's slots+frozen: TypeError)
        word._rendered = "x"  # type: ignore[misc]


def test_fast_simple_command_equals_the_dataclass_one():
    words = (Word("ls"),)
    fast = new_simple(words, (("A", Word("1")),), True, "test", ("-f",))
    slow = SimpleCommand(words, (("A", Word("1")),), True, "test", ("-f",))
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    with pytest.raises(FrozenInstanceError):
        fast.nested = False  # type: ignore[misc]


def test_parsed_command_keeps_its_constructor():
    assert ParsedCommand() == ParsedCommand([], [], [])
    assert ParsedCommand(problems=["p"]).problems == ["p"] and ParsedCommand().commands is not ParsedCommand().commands


@pytest.mark.parametrize("line", ["echo 10#$(rm x)", "echo 36#`rm x`", "ls > 10#$(rm x)", "10#$(rm x)"])
def test_a_substitution_inside_a_number_is_seen(line):
    """tree-sitter reads ``10#$(rm x)`` as a number; bash runs the substitution."""
    parsed = bash_parse.parse_uncached(line)
    assert any(p.startswith("a number with an expansion") for p in parsed.problems)
    assert any(c.nested and c.words[0].text == "rm" for c in parsed.commands)


@pytest.mark.parametrize("line", ['echo "$(ls;\\ x)"', 'echo "$(ls;\\\tx)"', 'echo "a $(ls;\\ x) b"'])
def test_skipped_text_inside_a_quoted_substitution_is_seen(line):
    assert bash_parse.parse_uncached(line).problems[0].startswith("the parser skipped part")


@pytest.mark.parametrize("line", ["echo 10#$(rm x)", "echo 36#`rm x`", 'echo "$(ls;\\ rm x)"'])
def test_hidden_commands_are_not_allowed(tmp_path, line):
    context = make_ctx(tmp_path, deny=("Bash(rm:*)",), allow=("Bash(echo:*)", "Bash(ls:*)"))
    assert not isinstance(check_bash_permission(line, context), PermissionAllow)
