"""A shell's own command line, read as the shell reads it (session 43).

``bash -eo pipefail -c 'rm x'`` ran ``rm x`` unasked under ``Bash(rm:*)``: the analyzer took
``-eo`` for one option without a value, so ``pipefail`` became the script file (missing: nothing
runs) and the ``-c`` code was never read.  Each ``o``/``O`` of a cluster takes the next word
(``-Oc dotglob 'code'``, ``-cO dotglob 'code'``), options go on after ``-c``, and a lone ``-``
ends the options (``echo ls | bash - evil.sh`` runs evil.sh, not ``ls``); ``bash --rcfile evil.sh
-i -c ls`` runs evil.sh first.  And GNU parallel puts each ``:::`` argument into its command:
``parallel bash -c ::: 'rm x'`` runs ``bash -c 'rm x'``.  Options that change how
the code reads come before it: ``bash -O dotglob -c 'cat ?env'`` reads a Read-denied ``.env`` as
``shopt -s dotglob; cat ?env`` does; and zsh's code is read with its patterns (``zsh -c 'cat
**/.env'`` takes ``./.env``; ``setopt globdots``).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jupyter_agent.permissions.shell_invocation import shell_call
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CALLS = [
    (["-c", "x"], "command", 1, ""),
    (["-eo", "pipefail", "-c", "x"], "command", 3, ""),
    (["-xo", "pipefail", "x.sh"], "file", 2, ""),
    (["-Oc", "dotglob", "x"], "command", 2, "shopt -s dotglob\n"),
    (["-cO", "dotglob", "x"], "command", 2, "shopt -s dotglob\n"),
    (["-c", "-O", "dotglob", "x", "a0"], "command", 3, "shopt -s dotglob\n"),
    (["-O", "nocaseglob", "+O", "globskipdots", "x.sh"], "file", 4,
     "shopt -s nocaseglob\nshopt -u globskipdots\n"),
    (["-ek", "x.sh"], "file", 1, "set -k\n"),
    (["-o", "keyword", "-s"], "stdin", None, "set -o keyword\n"),
    (["-H"], "stdin", None, "set -H\n"),
    (["-e", "-u", "-o", "errexit"], "stdin", None, ""),  # nothing that changes how code reads
    (["-"], "stdin", None, ""),
    (["-", "x.sh"], "file", 1, ""),  # `-` is `--`
    (["--", "-"], "file", 1, ""),  # a file named -
    (["+c", "x"], "command", 1, ""),  # c whatever its sign
    (["-s", "-c", "x"], "command", 2, ""),  # -c wins
    (["-c"], "command", None, ""),  # (bash: option requires an argument)
    (["--norc", "--rcfile", "r", "-c", "x"], "command", 4, ""),
    (["-o", None, "-c", "x"], "unknown", 1, ""),
    ([None], "unknown", 0, ""),
    (["-c", None], "command", 1, ""),  # bash -c "$X": the code only known at run time
]


@pytest.mark.parametrize(("texts", "rcfile"), [
    (["--rcfile", "r.sh", "-i", "-c", "x"], 1),
    (["--init-file", "r.sh", "-ic", "x"], 1),
    (["--rcfile", "r.sh", "-c", "x"], None),  # not interactive: not read
    (["-i", "-c", "x"], None),  # ~/.bashrc: a protected start-up file
])
def test_the_file_an_interactive_shell_runs_first(texts, rcfile):
    assert shell_call(texts).rcfile == rcfile
    assert shell_call(["--rcfile", None, "-i"]).mode == "unknown"


@pytest.mark.parametrize(("texts", "mode", "operand", "prelude"), CALLS)
def test_a_shell_command_line_is_read_as_bash_reads_it(texts, mode, operand, prelude):
    call = shell_call(texts)
    assert (call.mode, call.operand, call.prelude) == (mode, operand, prelude)


def test_zsh_code_is_read_with_its_own_patterns():
    call = shell_call(["-o", "globdots", "-c", "x"], "zsh")
    assert call.prelude == "emulate zsh\nsetopt globdots\n"
    assert shell_call(["-c", "x"], "zsh").prelude == "emulate zsh\n"


DENIED = ("Bash(rm:*)", "Read(./.env)")
ROWS = [
    # the -c code after clustered options is read (it ran unasked)
    ("bash -eo pipefail -c 'rm x'", "deny"),
    ("bash -euo pipefail -c 'rm x'", "deny"),
    ("sh -eo errexit -c 'rm x'", "deny"),
    ("bash -xo pipefail -c 'rm x'", "deny"),
    ("bash -eO dotglob -c 'rm x'", "deny"),
    ("bash -Oc dotglob 'rm x'", "deny"),
    ("bash -cO dotglob 'rm x'", "deny"),
    ("bash -c -O dotglob 'rm x'", "deny"),
    ("bash -eo pipefail -c 'cat .env'", "deny"),
    ("bash - evil.sh", "deny"),  # `-` ends the options: evil.sh runs
    ("echo ls | bash - evil.sh", "deny"),  # (it read `ls` as the code)
    ("bash -e - evil.sh <<< ls", "deny"),
    ("bash -eo pipefail evil.sh", "deny"),
    ("bash --rcfile evil.sh -i -c ls", "deny"),  # an interactive shell runs its rcfile first
    ("bash --init-file evil.sh -i < /dev/null", "deny"),
    ("eval -- 'rm x'", "deny"),  # -- ends eval's options (the code was read as `-- 'rm x'`)
    # options that change what patterns match come before the code
    ("bash -O dotglob -c 'cat ?env'", "ask"),
    ("bash -O nocaseglob -c 'cat .EN[V]'", "ask"),
    ("bash -O extglob -c 'cat @(.env)'", "ask"),
    ("bash -O dotglob <<< 'cat ?env'", "ask"),
    ("bash -O dotglob globbed.sh", "ask"),
    ("zsh -c 'cat **/.env'", "ask"),
    ("zsh -o globdots -c 'cat ?env'", "ask"),
    ("zsh -c 'setopt globdots; cat ?env'", "ask"),
    ("./zglob", "ask"),  # #!/bin/zsh
    ("bash -k -c 'ls LD_PRELOAD=./x.so'", "ask"),
    ("zsh -c '=rm x'", "deny"),  # zsh expands =rm to rm's path (bash: not found)
    ("zsh -c 'command =rm x'", "deny"),
    ("zsh -c 'noglob rm x'", "deny"), ("zsh -c 'nocorrect rm x'", "deny"), ("zsh -c -- '- rm x'", "deny"),
    ("zsh -c 'repeat 2 rm x'", "deny"), ("zsh -c 'sched +1 rm x'", "deny"),  # zsh's precommand modifiers …
    # a script's own shopt (it ran: only the line's were checked)
    ("bash dotglob.sh", "ask"),
    ("source dotglob.sh", "ask"),
    # what runs nothing denied
    ("bash -eo pipefail -c 'ls | wc -l'", "allow"),
    ("bash -euxo pipefail -c 'git status'", "allow"),
    ("bash -O dotglob -c 'ls'", "allow"),
    ("bash -e -o pipefail globbed.sh", "allow"),  # ?env: .env is not taken without dotglob
    ("cat ?env", "allow"),
    ("zsh -c 'git status'", "allow"),
    ("bash -eo pipefail missing.sh", "allow"),  # no such file: nothing runs
]


def _project(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "evil.sh").write_text("rm x\n")
    (tmp_path / "globbed.sh").write_text("cat ?env\n")
    (tmp_path / "dotglob.sh").write_text("shopt -s dotglob\ncat ?env\n")
    (tmp_path / "zglob").write_text("#!/bin/zsh\ncat **/.env\n")
    (tmp_path / "zglob").chmod(0o755)


async def _verdict(tmp_path, command):
    """The decision on ``command`` in the test project, bypassPermissions, ``DENIED`` in deny."""
    _project(tmp_path)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=DENIED, mode="bypassPermissions")
    return verdict_name(await decide_bash(ctx, command))


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_shell_options_and_operands_meet_the_rules(tmp_path, command, expected):
    assert await _verdict(tmp_path, command) == expected, command


@pytest.mark.parametrize("command", ["bash -O dotglob -c 'cp a.py */config'", "zsh -c 'cp a.py **/config'"])
async def test_a_pattern_that_may_take_git_asks_in_bypass_mode(tmp_path, command):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("")
    ctx = make_ctx(tmp_path, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask"


_REAL = [
    ("bash -eo pipefail -c 'rm x'", False),
    ("bash -Oc dotglob 'rm x'", False),
    ("bash -c -O dotglob 'rm x'", False),
    ("echo ls | bash - evil.sh", False),
    ("bash -O dotglob -c 'cat ?env > out'", True),
    ("bash -O nocaseglob -c 'cat .EN[V] > out'", True),
    ("bash dotglob.sh > out", True),
    ("bash --rcfile evil.sh -i -c ls", False),
    ("eval -- 'rm x'", False),
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("command", "reads_env"), _REAL)
def test_real_bash_reads_its_options_so(tmp_path, command, reads_env):
    """The ground truth the rows stand on: these run ``rm x`` or read ``.env``."""
    _project(tmp_path)
    (tmp_path / "x").write_text("")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    if reads_env:
        assert (tmp_path / "out").read_text() == "SECRET=1\n", command
    else:
        assert not (tmp_path / "x").exists(), command


PARALLEL = [
    ("parallel bash -c ::: 'rm x'", "deny"),  # runs bash -c 'rm x' (it read `bash -c ::: 'rm x'`)
    ("parallel sh -c ::: y ::: 'rm x'", "deny"),  # any argument may land as the code
    ("parallel 'bash -c {}' ::: 'rm x'", "deny"),
    ("parallel bash -eo pipefail -c ::: 'rm x'", "deny"),
    ("parallel 'cat {}' ::: .env", "deny"),
    ("parallel bash -c :::: cmds.txt", "ask"),  # arguments from a file: only known at run time
    ("parallel cat :::: list.txt", "ask"),
    ("parallel echo ::: a b", "allow"),
    ("parallel wc -l ::: a.py", "allow"),
    ("parallel echo :::: list.txt", "allow"),  # quoted arguments of echo: nothing runs or is read
]


@pytest.mark.parametrize(("command", "expected"), PARALLEL)
async def test_parallel_puts_each_argument_into_its_command(tmp_path, command, expected):
    assert await _verdict(tmp_path, command) == expected, command


@pytest.mark.skipif(shutil.which("parallel") is None, reason="needs GNU parallel")
@pytest.mark.parametrize("command", ["parallel --will-cite bash -c ::: 'rm x'",
                                     "parallel --will-cite 'bash -c {}' ::: 'rm x'"])
def test_real_parallel_runs_its_argument_as_code(tmp_path, command):
    (tmp_path / "x").write_text("")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert not (tmp_path / "x").exists(), command


@pytest.mark.parametrize(("makefile", "justfile", "expected"), [
    (".SHELLFLAGS := -O dotglob -c\nSHELL := /bin/bash\nbuild:\n\tcat ?env\n",
     'set shell := ["bash", "-O", "dotglob", "-c"]\nbuild:\n    cat ?env\n', "ask"),
    ("SHELL := /bin/zsh\nbuild:\n\tcat **/.env\n", 'set shell := ["zsh", "-c"]\nbuild:\n    cat **/.env\n', "ask"),
    (".SHELLFLAGS := -eu -o pipefail -c\nSHELL := bash\nbuild:\n\tls\n",
     'set shell := ["bash", "-euo", "pipefail", "-c"]\nbuild:\n    ls\n', "allow"),
])
async def test_recipes_run_by_a_shell_that_reads_them_otherwise(tmp_path, makefile, justfile, expected):
    """make's SHELL and .SHELLFLAGS, just's ``set shell``: with options that change how the recipes
    read (or zsh), they are not read as bash reads them, so a Read deny rule asks."""
    _project(tmp_path)
    (tmp_path / "Makefile").write_text(makefile)
    (tmp_path / "justfile").write_text(justfile)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=DENIED, mode="bypassPermissions")
    for command in ("make build", "just build"):
        verdict = verdict_name(await decide_bash(ctx, command))
        assert verdict == expected, (command, verdict)
