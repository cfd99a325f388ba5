"""awk as a read-only command, and awk programs two awks may read differently.

A print-only awk program (``awk -F, 'NR>1 { s += $2 } END { print s/NR }' data.csv``) runs
without asking; its file operands are reads (path checks, Read deny rules).  Anything else asks:
``system``, pipes, ``print > file``, ``getline``, ``ENVIRON``/``PROCINFO`` (the kernel's
credentials), ``ARGV``/``ARGC``, gawk's ``@`` forms, options besides ``-F``/``-v``.

awk decides between a regular expression and a division by its grammar, which a lexer cannot
see: ``print $/"/ | "sh" # "`` is a regular expression after ``$`` to gawk and mawk (so the pipe
runs), a division to a plain lexer (which then reads ``"/ | "`` as a string and sees no pipe).
Under ``Bash(awk:*)`` with ``Bash(rm:*)`` denied that ran ``rm``.  Such text, and bracket
expressions awks read differently, is now flagged as ambiguous: it asks in every mode.

The oracle runs every generated program the classifier calls read-only with real gawk and mawk.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_awk import awk_files, awk_program
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

AWKS = [a for a in ("gawk", "mawk", "original-awk", "busybox") if shutil.which(a)]
COUNT = int(os.environ.get("AWK_ORACLE_EXAMPLES", "400"))
SECRET = "SECRET-4be1"

DEFAULT_ROWS = [
    ("awk '{print $1}' data.csv", "allow"),
    ("awk -F, 'NR>1 {s+=$2} END {print s/NR}' data.csv", "allow"),
    ("awk '{print $1/1024 \" KB\"}' data.csv", "allow"),  # no second / on the line: a division
    ("awk '/a|b/ {print}' data.csv", "allow"),
    ("awk -v x=1 '{print x, $0}' data.csv n=2", "allow"),  # n=2: an assignment, not a file
    ("awk '{ gsub(/[[:space:]]+/, \" \"); print }' data.csv", "allow"),
    ("awk '{printf \"%s %d\\n\", $1, $2}' data.csv", "allow"),
    ("git log --oneline | awk '{print $1}' | head", "allow"),
    ("awk '{print}' *.csv", "allow"),
    ("gawk 'NR==1' data.csv", "allow"),
    ("mawk 'NR==1' data.csv", "allow"),
    ("awk '{print}' .env", "deny"),  # Read(./.env)
    ("awk '{print}' .e?v", "deny"),
    ("awk '{print}' /etc/passwd", "ask"),  # outside the working directories
    ("awk '{print > \"out\"}' data.csv", "ask"),
    ("awk '{print 1,\n 2 > \"out\"}' data.csv", "ask"),  # the statement goes on after the comma
    ("awk '{print | \"sort\"}' data.csv", "ask"),
    ("awk 'BEGIN { system(\"ls\") }'", "ask"),
    ("awk 'BEGIN { print ENVIRON[\"HOME\"] }'", "ask"),
    ("awk 'BEGIN { print PROCINFO[\"pid\"] }'", "ask"),
    ("awk 'BEGIN { while ((getline l < \"notes.txt\") > 0) print l }'", "ask"),
    ("awk 'BEGIN { ARGV[1] = \".env\"; ARGC = 2 } { print }'", "ask"),  # a file no operand names
    ("awk '{print}' ARGC=5 data.csv", "ask"),
    ("awk -f prog.awk data.csv", "ask"),
    ("awk --dump-variables '{print}' data.csv", "ask"),  # gawk writes awkvars.out
    ("awk -o '{print}' data.csv", "ask"),  # gawk --pretty-print writes awkprof.out
    ("gawk '@load \"filefuncs\"; {print}' data.csv", "ask"),
    ("find . -name '*.csv' | xargs awk 'END {print NR}'", "ask"),  # files named at run time
    ("awk '{ sub(/[^/]+$/, \"\"); print }' data.csv", "ask"),  # a / inside brackets: awks differ
    ("awk 'BEGIN { $0 = \"a\"; print $/\"/ | \"sh\" # \"\n}'", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), DEFAULT_ROWS)
async def test_awk_in_default_mode(world, command, expected):
    for name in ("data.csv", "notes.txt"):
        (world.project / name).write_text("a,1\nb,2\n")
    (world.project / ".env").write_text("KEY=1\n")
    ctx = make_ctx(world.project, deny=("Read(./.env)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected


# Under a rule allowing awk, what a second reading runs or writes is not seen: ask in every mode.
RULE_ROWS = [
    "awk 'BEGIN { $0 = \"a\"; print $/\"/ | \"rm -rf x\" # \"\n}'",  # a regular expression after $
    "awk 'BEGIN { if (1) /\"/; print \"x\" | \"rm -rf x\" # \"\n}'",  # ... after if (…)
    "awk 'BEGIN { x = /a/ /\"/; print \"x\" | \"rm -rf x\" # \"/\n}'",  # a division after a regexp
    "awk '/[]\"]/; { print \"x\" | \"rm -rf x\" } # \"'",  # ] first in brackets is a character
]


@pytest.mark.parametrize("command", RULE_ROWS)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_ambiguous_programs_ask_under_a_rule(world, command, mode):
    ctx = make_ctx(world.project, allow=("Bash(awk:*)",), deny=("Bash(rm:*)",), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) in ("ask", "deny")


@pytest.mark.parametrize(("program", "seen"), [
    ('BEGIN { $0 = "a"; print $/"/ | "touch RAN" # "\n}', None),  # mawk: a syntax error
    ('BEGIN { if (1) /"/; print "x" | "touch RAN" # "\n}', None),  # mawk: a syntax error
    ('BEGIN { print 1,\n 2 > "RAN" }', "RAN"),
])
@pytest.mark.parametrize("awk", ["gawk", "mawk"])
def test_real_awks_run_what_a_plain_lexer_misses(tmp_path, awk, program, seen):
    """Why those rows ask: the awks really run the pipe or write the file, and the program
    reader now reports it (an unknown run and write for the ambiguous ones)."""
    if shutil.which(awk) is None:
        pytest.skip(f"{awk} is not installed")
    done = subprocess.run([awk, program], cwd=tmp_path, capture_output=True, timeout=10)
    if not (tmp_path / "RAN").exists():  # (gawk may then fail writing to touch: a broken pipe)
        assert awk == "mawk" and seen is None and b"syntax error" in done.stderr, done.stderr
    found = awk_program([Word(program)])
    assert found is not None
    if seen is None:
        assert found.ambiguous and None in found.runs and None in found.writes
    else:
        assert found.writes == [seen]


def test_awk_files():
    def files(*words):
        found = awk_files([Word(w) for w in words], False)
        return None if found is None else [w.text for w in found]

    assert files("-F,", "{ print $1 }", "a.csv", "x=1", "b.csv") == ["a.csv", "b.csv"]
    assert files("-v", "n=2", "--", "NR > n", "-") == ["-"]
    assert files("--field-separator=:", "--assign=k=v", "1") == []
    assert files("-v", "ENVIRON=1", "1") is None
    assert files("-version", "1") is None
    assert files("-e", "1") is None
    assert files("{ print }") == []
    assert files() is None
    assert awk_files([Word("1")], True) is None  # xargs adds files


def _expression(rnd: random.Random) -> str:
    return rnd.choice([
        "$1", "$2/2", "NR", "s/NR", '"a/b"', '"#"', '"|"', "$/\"/", "length", "x++ / 2", '(a) /"/',
        "$1 /2/ 1", '/"/', "/[/]/", "/[]/]/", "/[^/]+/", "/[[:alpha:]/]/", "/a\\/b/", '"\\""', "n /=2",
        'ENVIRON["SECRET"]', "x", "$0 ~ /a|b/", "a[1] /3", '1 /"/',
    ])


def _statement(rnd: random.Random) -> str:
    e = _expression(rnd)
    return rnd.choice([
        f"print {e}", f"print {e}, {_expression(rnd)}", f'printf "%s\\n", {e}', f"s += {e}",
        f"if ({e}) print", f'if (1) {e}', f'print {e} > "out"', f'print {e},\n {_expression(rnd)} > "out"',
        f'print {e} | "touch RAN"', 'system("touch RAN")', 'getline l < "secret.txt"; print l',
        '"touch RAN" | getline', 'x = "# "', f"{e}", f'print ({e} > 1)', 'print "x" | "touch RAN" # "',
        f'x = {e}; print "y" > "out" # "', "print", f"if ({e}) print \"a\"; else print > \"out\"",
    ])


def _program(rnd: random.Random) -> str:
    pattern = rnd.choice(["", "NR>1 ", "/a/ ", "$1 ~ /b/ ", "!/#/ ", "/[/]/ ", "/[]/]/ ", "END ", "BEGIN ",
                          '$/"/ ', "/a|b/ "])
    body = rnd.choice(["; ", "\n", ";\n"]).join(_statement(rnd) for _ in range(rnd.randint(1, 3)))
    tail = rnd.choice(["", "", ' # "', '\n# "', ' # x'])
    return f"{pattern}{{ {body} }}{tail}"


def _folder(tmp: Path) -> Path:
    folder = tmp / "run"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    (folder / "a.txt").write_text('a/b "x" 1\n#c 2\n1 2\n')
    (folder / "secret.txt").write_text(SECRET + "\n")
    return folder


def _state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.skipif(not AWKS, reason="neither gawk nor mawk is installed")
def test_every_print_only_program_only_prints(tmp_path):
    """Each generated program called read-only is run by each awk here: no file may appear or
    change, nothing may run, and neither the environment's secret nor an unnamed file's text
    may be printed."""
    rnd = random.Random(20261204)
    read_only = valid = 0
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "SECRET": SECRET}
    for _ in range(COUNT):
        program = _program(rnd)
        if awk_files([Word(program), Word("a.txt")], False) is None:
            continue
        read_only += 1
        for awk in AWKS:
            folder = _folder(tmp_path)
            before = _state(folder)
            argv = [awk, program, "a.txt"] if awk != "busybox" else [awk, "awk", program, "a.txt"]
            try:
                done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=10, env=env)
            except subprocess.TimeoutExpired:
                continue
            valid += done.returncode == 0
            assert _state(folder) == before, (awk, program, "a file was created or changed")
            assert SECRET.encode() not in done.stdout, (awk, program, "printed a secret")
    assert read_only > COUNT // 10  # the generator reaches the read-only side often enough
    assert valid > read_only // 2  # and most of those are programs the awks run
