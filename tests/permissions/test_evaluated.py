"""Builtins that run code hidden in a quoted word, or change what the rest of the line means.

Under rules that allow the builtin (``Bash(printf:*)``, ``Bash(shopt:*)``), a deny rule was
talked past: ``printf -v 'a[$(touch M)]' 1`` ran ``touch`` with ``Bash(touch:*)`` denied, and
``shopt -s dotglob; rm -rf *`` removed ``.git`` under ``Bash(rm:*)``.  The real-run tests show
bash doing it.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

BUILTINS = ("printf", "read", "test", "[", "declare", "typeset", "local", "export", "readonly", "unset",
            "getopts", "wait", "mapfile", "readarray", "let", "shopt", "set", "hash", "alias", "jobs", "rm",
            "cat", "ls", "echo", "printenv", "compgen", "history", "enable")
ALLOW = tuple(f"Bash({b}:*)" for b in BUILTINS)
DENY = ("Bash(touch:*)", "Read(./.env)", "Edit(./locked/**)")

# bash 5.2 runs `touch M` in each of these (test_real_bash_runs_the_hidden_code)
HIDDEN = [
    "printf -v 'a[$(touch M)]' 1",
    "printf -v'a[$(touch M)]' 1",
    "test -v 'a[$(touch M)]'",
    "[ -v 'a[$(touch M)]' ]",
    "declare 'a[$(touch M)]=1'",
    "typeset 'a[$(touch M)]=1'",
    "declare -a 'a=($(touch M))'",
    "declare -i y='a[$(touch M)]'",
    "declare -i y; y='a[$(touch M)]'",
    "read 'a[$(touch M)]' <<< x",
    "read -r 'a[$(touch M)]' < a.py",
    "let 'a[$(touch M)]=1'",
    "x='a[$(touch M)]'; let x+1",
    "mapfile -C 'touch M' -c 1 arr < a.py",
    "readarray -C 'touch M' -c 1 arr < a.py",
    "jobs -x touch M",
    "compgen -W '$(touch M)' x",
]
ROWS = [
    *[(line, "deny" if "-C " in line or "jobs" in line else "ask") for line in HIDDEN],
    ("compgen -C 'touch M' x", "ask"),
    # other versions of bash evaluate these names too
    ("unset 'a[$(touch M)]'", "ask"),
    ("getopts ab 'a[$(touch M)]'", "ask"),
    ("wait -p 'a[$(touch M)]'", "ask"),
    ("export 'a[$(touch M)]=1'", "ask"),
    ("readonly 'a[$(touch M)]=1'", "ask"),
    ("mapfile -t 'a[$(touch M)]' < a.py", "ask"),
    ("declare -n r='a[$(touch M)]'", "ask"),
    ("read 'a[i]' <<< x", "ask"),  # i's value is evaluated as arithmetic
    # what the rest of the line means
    ("shopt -s dotglob; rm -rf *", "ask"),
    ("shopt -s dotglob; cat *", "ask"),
    ("shopt -s nocaseglob; cat .EN*", "ask"),
    ("shopt -u globskipdots; echo .*", "ask"),  # .* takes ..
    ("shopt -s expand_aliases", "ask"),
    ("shopt -so keyword", "ask"),
    ("set -k; ls LD_PRELOAD=./x.so", "ask"),
    ("set -o keyword; ls LD_PRELOAD=./x.so", "ask"),
    ("hash -p /usr/bin/touch ls; ls M", "ask"),
    ("alias ls='touch M'", "deny"),  # the value is read as code: with expand_aliases, `ls` runs it
    ("alias ll='ls -la'", "ask"), ("alias ll=\"$X\"", "ask"), ("alias ok='ls' bad='touch M'", "deny"),
    ("shopt -s expand_aliases\nalias ll='touch M'\nll", "deny"),
    # everyday uses stay allowed
    ("printf -v out '%s' x", "allow"),
    ("printf -v 'a[0]' '%s' x", "allow"),
    ("printf '%s[x]\\n' a", "allow"),
    ("read -r line < a.py", "allow"),
    ("read -a arr -p 'name[x]: ' < a.py", "allow"),
    ("test -v HOME", "allow"),
    ("test -f 'a[$(x)]'", "allow"),  # a file name, not evaluated
    ("declare x=1", "allow"),
    ("declare -i n=5", "allow"),
    ("declare -n r=HOME", "ask"),  # r=/tmp/evil would then set HOME (git reads $HOME/.gitconfig)
    ("let 1+2", "allow"),
    ("getopts ab opt", "allow"),
    ("jobs", "allow"),
    ("shopt -s checkwinsize", "allow"),
    ("shopt dotglob", "allow"),
    ("set -euo pipefail", "allow"),
    ("hash ls", "allow"),
    ("alias", "allow"),
    ("compgen -W 'start stop' st", "allow"),
    ("compgen -c", "allow"),
    # history -r FILE reads it (then `history` prints it), -w/-a FILE write
    ("history -r .env; history", "ask"),
    ("history -w locked/h", "deny"),
    ("history -a locked/h", "deny"),
    ("history -w h.txt", "allow"),
    # enable -f loads a shared library's code into the shell; -n makes `echo` the program on PATH
    ("enable -f ./lib.so hello", "ask"), ("enable -n echo; echo x", "ask"), ("enable -d hello", "ask"),
    ("enable -fn ./lib.so x", "ask"), ("enable \"$X\" y", "ask"), ("enable -p", "allow"), ("enable echo", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_hidden_code_and_changed_meaning_ask(world, command, expected):
    (world.project / "a.py").write_text("x\n")
    (world.project / "env-link").unlink()  # else `cat *` reads .env without dotglob

    verdict = await decide_bash(make_ctx(world.project, allow=ALLOW, deny=DENY), command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize("command", HIDDEN)
def test_real_bash_runs_the_hidden_code(tmp_path, command):
    (tmp_path / "a.py").write_text("x\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10)
    assert (tmp_path / "M").exists(), command


# [[ ]] evaluates both sides of -eq/-ne/-lt/-le/-gt/-ge as arithmetic, and -v a subscript
TEST_HIDDEN = [
    "[[ 'a[$(touch M)]' -eq 1 ]]",
    "[[ a[$(touch M)] -eq 1 ]]",
    "x='a[$(touch M)]'; [[ $x -eq 1 ]]",
    "x='a[$(touch M)]'; [[ 1 -lt \"$x\" ]]",
    "[[ -v 'a[$(touch M)]' ]]",
    "a=(1); unset 'a[$(touch M)]'",
    "f() { local 'a[$(touch M)]=2'; }; f",
    "x='a[$(touch M)]'; let y=x",
]


@pytest.mark.parametrize("command", [*HIDDEN, *TEST_HIDDEN])
@pytest.mark.parametrize("allow", [ALLOW, ("Bash(*)",)])
async def test_hidden_code_meets_the_deny_rules_in_bypass_mode(world, command, allow):
    """Session 39: the hidden code asked only as an ordinary question, so bypassPermissions (or
    an allow rule for everything) ran `touch` under `Bash(touch:*)` denied.  It is code only known
    at run time now, which a deny rule may name."""
    (world.project / "a.py").write_text("x\n")
    ctx = make_ctx(world.project, allow=allow, deny=DENY, mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict in ("ask", "deny"), (command, verdict)


@pytest.mark.parametrize("command", TEST_HIDDEN)
def test_real_bash_runs_the_code_in_a_test_or_a_name(tmp_path, command):
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10)
    assert (tmp_path / "M").exists(), command


@pytest.mark.parametrize("command", ["[[ $# -eq 1 ]]", "[[ \"$?\" -ne 0 ]] && echo failed", "[ $# -gt 0 ]",
                                     "[[ 10 -gt -1 ]]", "[[ -f a.py && $# -eq 0 ]]", "[ \"$x\" = y ]",
                                     "let i=1+2 j=3", "let 2+3", "printf -v out '%s' x", "declare -a arr",
                                     "read -r line < a.py", "test -v HOME",
                                     "shopt -s globstar; ls **/*.py"])  # (a listing: _line_change_checks)
async def test_numbers_and_plain_names_stay_allowed_in_bypass_mode(world, command):
    (world.project / "a.py").write_text("x\n")
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=DENY, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize(("command", "asks"), [("let i==2", True), ("let i=j", True), ("let i++", True),
                                               ("[[ $x -eq 1 ]]", True), ("[[ x -eq 1 ]]", True),
                                               ("[[ $1 -eq 1 ]]", True), ("[[ $$ -gt 1 ]]", False)])
async def test_what_evaluates_a_variable_asks(world, command, asks):
    """A variable's value is evaluated as arithmetic in turn (`x='a[$(touch M)]'; let y=x`)."""
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=DENY, mode="bypassPermissions")
    assert (verdict_name(await decide_bash(ctx, command)) == "ask") is asks, command


# a builtin keeps shell code that runs later in the line: at exit, or when an alias's name is used
DEFERRED = ["trap 'touch M' EXIT", "trap -- 'touch M' TERM; kill -TERM $$",
            "shopt -s expand_aliases\nalias t='touch M'\nt", "set -o history\ntrue\nfc -e 'touch M; true'"]


@pytest.mark.parametrize("command", DEFERRED)
async def test_deferred_code_meets_the_deny_rules_in_bypass_mode(world, command):
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY, mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == ("ask" if "fc " in command else "deny"), (command, verdict)  # fc's history: unknown code


@pytest.mark.parametrize("command", DEFERRED)
def test_real_bash_runs_the_deferred_code(tmp_path, command):
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10)
    assert (tmp_path / "M").exists(), command


# a loop or a builtin that sets PATH by name: the next command runs a program from that folder
SETS_PATH = ["for PATH in ./bin; do qa; done", "select PATH in ./bin; do qa; break; done < one",
             "read PATH <<< ./bin; qa", "printf -v PATH ./bin; qa"]


@pytest.mark.parametrize("command", [*SETS_PATH, "mapfile -t PATH <<< ./bin; qa", "getopts x PATH -x; qa",
                                     "let PATH=0; qa", "let BASH_ENV=0; bash -c qa",
                                     "wait -p PATH; qa", 'read "$N" <<< ./bin; qa'])
async def test_setting_path_by_name_meets_the_deny_rules(world, command):
    ctx = make_ctx(world.project, allow=(*ALLOW, "Bash(qa:*)", "Bash(getopts:*)"), deny=DENY, mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "chosen at run time" in verdict.message, (command, verdict)


@pytest.mark.parametrize("command", SETS_PATH)
def test_real_bash_runs_the_program_of_the_path_set_by_name(tmp_path, command):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "qa").write_text("#!/bin/sh\n/usr/bin/touch M\n")  # (PATH is ./bin in there)
    (tmp_path / "one").write_text("1\n")
    (tmp_path / "bin" / "qa").chmod(0o755)
    subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10,
                   env={"PATH": "/usr/bin:/bin"})
    assert (tmp_path / "M").exists(), command


def test_real_bash_let_sets_path_to_a_relative_folder(tmp_path):
    """``let PATH=0`` gives PATH the value 0: a folder named 0 in the current one."""
    (tmp_path / "0").mkdir()
    (tmp_path / "0" / "qa").write_text("#!/bin/sh\n/usr/bin/touch M\n")
    (tmp_path / "0" / "qa").chmod(0o755)
    subprocess.run(["/bin/bash", "-c", "let PATH=0; qa"], cwd=tmp_path, capture_output=True, timeout=10,
                   env={"PATH": "/usr/bin:/bin"})
    assert (tmp_path / "M").exists()


# no PATH at all: bash looks for a command in the current folder (as for PATH= or PATH='')
UNSETS_PATH = ["unset PATH; qa", "unset -v PATH; qa", "unset -- PATH; qa", "command unset PATH; qa"]


@pytest.mark.parametrize("command", [*UNSETS_PATH, "unset $N; qa"])
async def test_unsetting_path_meets_the_deny_rules(world, command):
    ctx = make_ctx(world.project, allow=(*ALLOW, "Bash(qa:*)"), deny=DENY, mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "chosen at run time" in verdict.message, (command, verdict)


@pytest.mark.parametrize("command", ["unset -f PATH; qa", "unset A B; qa"])
async def test_unsetting_other_names_or_a_function_is_no_path_change(world, command):
    ctx = make_ctx(world.project, allow=(*ALLOW, "Bash(qa:*)", "Bash(unset:*)"), deny=DENY, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", UNSETS_PATH)
def test_real_bash_runs_the_program_of_the_current_folder_without_path(tmp_path, command):
    (tmp_path / "qa").write_text("#!/bin/sh\n/usr/bin/touch M\n")
    (tmp_path / "qa").chmod(0o755)
    subprocess.run(["/bin/bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10,
                   env={"PATH": "/usr/bin:/bin"})
    assert (tmp_path / "M").exists(), command


@pytest.mark.parametrize("command", ["while IFS= read -r line; do echo \"$line\"; done < a.py",
                                     "IFS=, read -ra parts <<< 'a,b'", "for f in a b; do echo \"$f\"; done",
                                     "read -r line < a.py"])
async def test_everyday_loops_and_reads_stay_allowed(world, command):
    (world.project / "a.py").write_text("x\n")
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


def test_real_bash_history_prints_the_file_it_reads(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    done = subprocess.run(["bash", "-c", "history -r .env; history"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=10)
    assert "SECRET=1" in done.stdout, done


@pytest.mark.parametrize(("command", "found"), [
    ("shopt -s dotglob; echo *", ".git"),
    ("shopt -s nocaseglob; echo .GI*", ".git"),
    ("set -k; printenv FOO FOO=bar", "bar"),
    ("hash -p /bin/echo ls; ls HASHED", "HASHED"),
])
def test_real_bash_reads_the_rest_of_the_line_otherwise(tmp_path, command, found):
    (tmp_path / ".git").mkdir()
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=10)
    assert found in done.stdout.split(), done
