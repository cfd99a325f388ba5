"""What an awk program runs, writes and reads besides its input (``bash_awk.py``).

Under ``Bash(awk:*)``, ``awk 'BEGIN { system("touch M") }'`` ran past ``Bash(touch:*)`` in deny,
``print > "locked/x"`` past ``Edit(./locked/**)``, ``print > ".git/hooks/pre-commit"`` past the
protected paths, and ``getline < ".env"`` past ``Read(./.env)``.  The real-run tests show awk
doing each.
"""

from __future__ import annotations

import subprocess

import pytest

from jupyter_agent.permissions.bash_awk import awk_program
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = ("Bash(awk:*)", "Bash(gawk:*)")
DENY = ("Bash(touch:*)", "Read(./.env)", "Edit(./locked/**)")

ROWS = [
    ("awk 'BEGIN { system(\"touch M\") }'", "deny"),
    ("awk '{ print $1 | \"touch M\" }' a.txt", "deny"),
    ("awk 'BEGIN { \"touch M\" | getline x }'", "deny"),
    ("awk '{ print > \"locked/x\" }' a.txt", "deny"),
    ("awk '{ printf(\"%s\\n\", $1) >> \"locked/x\" }' a.txt", "deny"),
    ("awk '{ print > \".git/hooks/pre-commit\" }' a.txt", "ask"),
    ("awk 'BEGIN { while ((getline l < \".env\") > 0) print l }'", "ask"),
    ("awk 'BEGIN { cmd = \"touch M\"; system(cmd) }'", "ask"),  # built at run time
    ("awk 'BEGIN { print \"x\" |& \"cat\" }'", "ask"),  # a gawk coprocess
    ("awk -f prog.awk a.txt", "ask"),  # a program this decision cannot read
    ("gawk '@include \"lib\"; BEGIN { f() }'", "ask"),
    ("awk '{ i++ /system(\"touch M\")/ 2 }' a.txt", "deny"),  # division, not a regular expression
    ("awk '{ print $1 }' a.txt", "allow"),
    ("awk '$3 > 100' a.txt", "allow"),  # a comparison, not a redirection
    ("awk '{ print ($1 > 2) }' a.txt", "allow"),
    ("awk -F, '{ s += $2 } END { print s }' a.txt", "allow"),
    ("awk '/a|b/ { print }' a.txt", "allow"),  # | inside a regular expression
    ("awk '{ print $1 | \"sort -u\" }' a.txt", "allow"),  # sort runs read-only
    ("awk '{ print > \"out.txt\" }' a.txt", "allow"),
    ("awk 'BEGIN { system(\"ls\") }'", "allow"),
    # gawk's --source PROG (the next word) is program text too: it was read as the text "source"
    ("gawk --source 'BEGIN { system(\"touch M\") }'", "deny"),
    ("gawk --source='BEGIN { system(\"touch M\") }'", "deny"),
    # a file named at run time: any file (a protected or denied one too) asks
    ("awk 'BEGIN { f = \"locked/x\"; print 1 > f }'", "ask"),
    ("awk '{ print > \"locked/\" \"x\" }' a.txt", "ask"),  # a concatenation
    ("awk '{ print > (\"locked\" \"/x\") }' a.txt", "ask"),
    ("awk '{ print > $1 }' a.txt", "ask"),
    ("awk 'BEGIN { f = \".env\"; while ((getline l < f) > 0) print l }'", "ask"),  # a Read deny rule
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_awk_programs_are_read(world, command, expected):
    (world.project / "a.txt").write_text("a 1\n")
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY)
    assert verdict_name(await decide_bash(ctx, command)) == expected


def test_awk_program():
    def program(*words):
        return awk_program([Word(w) for w in words])

    found = program("-F:", '{ print $1 > "o1"; print | "sort" } END { system("cmd " x); getline y < "in" }')
    assert (found.runs, found.writes, found.reads) == (["sort", None], ["o1"], ["in"])
    assert program("-e", 'BEGIN { system("a") }').runs == ["a"]  # gawk's -e program text
    assert program("--source", 'BEGIN { system("a") }').runs == ["a"]
    assert program("--source=BEGIN { system(\"a\") }").runs == ["a"]
    assert program('{ print > $1; print > "o" "2" }').writes == [None, None]  # named at run time
    assert program("-f", "p.awk") is None
    assert program('BEGIN { print "unterminated }') is None


@pytest.mark.parametrize(("program", "made"), [
    ('BEGIN { system("touch M") }', "M"),
    ('BEGIN { print "x" > ".git/hooks/pre-commit" }', ".git/hooks/pre-commit"),
    ('BEGIN { print "x" | "cat > piped" }', "piped"),
])
def test_real_awk_runs_and_writes(tmp_path, program, made):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    subprocess.run(["awk", program], cwd=tmp_path, check=True, capture_output=True, timeout=10)
    assert (tmp_path / made).exists()


def test_real_gawk_runs_its_source_option(tmp_path):
    import shutil

    if shutil.which("gawk") is None:
        pytest.skip("gawk is not installed")
    subprocess.run(["gawk", "--source", 'BEGIN { system("touch M") }'], cwd=tmp_path, check=True, timeout=10)
    assert (tmp_path / "M").exists()


def test_real_awk_reads_the_file_getline_names(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    out = subprocess.run(["awk", 'BEGIN { while ((getline l < ".env") > 0) print l }'], cwd=tmp_path,
                         check=True, capture_output=True, text=True, timeout=10)
    assert "SECRET=1" in out.stdout
