"""What a sourced script puts on PATH, when it can be told (``path_values.py``).

``source .venv/bin/activate && pytest -q`` asked under any Bash deny rule: the script sets PATH,
so a later command was a program only known at run time, which the rule might name.  A venv's
activate script puts exactly one folder first on PATH; the analysis now follows it there and
looks at the programs in that folder instead: one that is a program a rule names under another
name (``bin/ls``, a copy of ``rm``), or a script running what a rule names, asks; so does a
folder the line may put a program into.  Real bash shows the effect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions.path_values import path_effects
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

SEARCH = "/usr/local/bin:/usr/bin:/bin"
ENV = (("PATH", SEARCH), ("HOME", "/home/u"))  # the PATH a script starts with among them


def _gained(text: str) -> tuple[str, ...] | None:
    effects = path_effects(text, ENV)
    return effects.gained if effects is not None else None


# the shape of virtualenv 20's (and so uv's) activate script, cut down
VIRTUALENV_LIKE = """\
if [ "${BASH_SOURCE-}" = "$0" ]; then
    echo "You must source this script: \\$ source $0" >&2
    exit 33
fi
deactivate () {
    unset -f pydoc >/dev/null 2>&1 || true
    if ! [ -z "${_OLD_VIRTUAL_PATH:+_}" ] ; then
        PATH="$_OLD_VIRTUAL_PATH"
        export PATH
        unset _OLD_VIRTUAL_PATH
    fi
    if ! [ -z "${_OLD_VIRTUAL_PYTHONHOME+_}" ] ; then
        PYTHONHOME="$_OLD_VIRTUAL_PYTHONHOME"
        export PYTHONHOME
        unset _OLD_VIRTUAL_PYTHONHOME
    fi
    hash -r 2>/dev/null
    unset VIRTUAL_ENV
    if [ ! "${1-}" = "nondestructive" ] ; then
        unset -f deactivate
    fi
}
deactivate nondestructive
VIRTUAL_ENV='/w/p/.venv'
if ([ "$OSTYPE" = "cygwin" ] || [ "$OSTYPE" = "msys" ]) && $(command -v cygpath &> /dev/null) ; then
    VIRTUAL_ENV=$(cygpath -u "$VIRTUAL_ENV")
fi
export VIRTUAL_ENV
_OLD_VIRTUAL_PATH="$PATH"
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
if [ "x" != x ] ; then
    VIRTUAL_ENV_PROMPT=""
else
    VIRTUAL_ENV_PROMPT=$(basename "$VIRTUAL_ENV")
fi
PS1="(${VIRTUAL_ENV_PROMPT}) ${PS1-}"
alias pydoc 2>/dev/null >/dev/null && unalias pydoc || true
pydoc () {
    python -m pydoc "$@"
}
hash -r 2>/dev/null || true
"""

# Python 3.13's venv: VIRTUAL_ENV set in a case on $(uname), cygpath for Windows
PY313_LIKE = """\
deactivate () {
    if [ -n "${_OLD_VIRTUAL_PATH:-}" ] ; then
        PATH="${_OLD_VIRTUAL_PATH:-}"
        export PATH
        unset _OLD_VIRTUAL_PATH
    fi
    unset VIRTUAL_ENV
}
deactivate nondestructive
case "$(uname)" in
    CYGWIN*|MSYS*)
        VIRTUAL_ENV=$(cygpath /w/p/.venv)
        export VIRTUAL_ENV
        ;;
    *)
        export VIRTUAL_ENV=/w/p/.venv
        ;;
esac
_OLD_VIRTUAL_PATH="$PATH"
PATH="$VIRTUAL_ENV/"bin":$PATH"
export PATH
"""


@pytest.mark.parametrize(("text", "gained"), [
    (VIRTUALENV_LIKE, ("/w/p/.venv/bin",)),
    (PY313_LIKE, ("/w/p/.venv/bin",)),
    ('PATH="/p/bin:$PATH"', ("/p/bin",)),
    ('PATH="$PATH:/p/tail"', ("/p/tail",)),
    ('PATH+=":/p/tail"', ("/p/tail",)),
    ('V=/p; export PATH="${V}/bin:${PATH:-}"', ("/p/bin",)),
    ('if [ -n "$X" ]; then PATH=/a:$PATH; else PATH=/b:$PATH; fi', ("/a", "/b")),  # either way
    ('f() { PATH=/f:$PATH; }\nf', ("/f",)),
    ('PATH="$HOME/bin:$PATH"', ("/home/u/bin",)),  # the environment's HOME
    ('PATH="/usr/bin:$PATH"', ()),  # already there
    ('X=$(cygpath /c); PATH="$X/bin:$PATH"', ()),  # no cygpath: X is empty, /bin is there
    ('_O="$PATH"; PATH=/v/bin:$PATH; PATH="$_O"', ("/v/bin",)),
    ("PATH=/p/bin:$PATH ls", ("/p/bin",)),  # what ls runs with
    ("X=$(PATH=/z; ls)", ("/z",)),  # code in $( … ) that sets PATH for what it runs there
    ("f() { PATH=/f:$PATH; }; X=$(f; ls)", ("/f",)),  # a function called in $( … )
    ("f() { PATH=$X:$PATH; }; X=/given f", ("/given",)),  # a function runs with NAME=V in front
    ('printf "%s\\n" x; PATH=/a:$PATH', ("/a",)),  # printf without -v sets nothing
])
def test_what_a_script_puts_on_path(text, gained):
    assert _gained(text) == gained


@pytest.mark.parametrize("text", [
    'PATH="bin:$PATH"',  # relative: the current folder at run time
    'PATH="/p/bin::$PATH"',  # an empty entry: the current folder
    'PATH="$PATH:"',
    "unset PATH",  # no PATH: the current folder
    "PATH=",
    'eval "$X"; PATH=/p:$PATH',
    "read PATH",
    "printf -v PATH /x",
    "declare -n r=PATH; r=/x",
    'for d in /a /b; do PATH="$d:$PATH"; done',
    "$C PATH",  # a program only known at run time (read, eval …)
    "PATH=~/bin:$PATH",
    'X=$(pwd); PATH="$X:$PATH"',
    ": ${X:=/evil}; PATH=\"${X:-/safe}:$PATH\"",  # ${X:=…} assigns
    ": $((x))",  # x='PATH=0' would assign: a value is evaluated as arithmetic
    "[[ x -eq 0 ]]",
    "echo ${a[i]}",
    "(( PATH=1 ))",
    "let PATH=0",
    "for ((i=0; i<2; i++)); do :; done",
    ". ./other.sh; PATH=/p:$PATH",
    'PATH="$(cat /etc/paths):$PATH"',
    'PATH="$PWD/.venv/bin:$PATH"',  # where the command runs, not the environment's PWD
    "command unset PATH",
    "builtin export PATH=/x",
])
def test_what_cannot_be_told(text):
    assert _gained(text) is None


def test_only_restored_variables_count_as_harmless():
    effects = path_effects(VIRTUALENV_LIKE, ENV)
    assert effects is not None and "PYTHONHOME" in effects.restored
    effects = path_effects("PYTHONHOME=/evil; PATH=/p:$PATH", ENV)
    assert effects is not None and "PYTHONHOME" not in effects.restored


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", ".venv"], cwd=tmp_path, check=True,
                   env={**os.environ, "PYTHONHOME": ""} if "PYTHONHOME" in os.environ else None)
    (tmp_path / "victim").write_text("x")
    return tmp_path


RULES = {"allow": ("Bash(pytest:*)", "Bash(source:*)", "Bash(ls:*)", "Bash(cp:*)", "Bash(python:*)",
                   "Bash(pip:*)"),
         "deny": ("Bash(rm:*)",)}


@pytest.mark.parametrize("command", ["source .venv/bin/activate && pytest -q", ". .venv/bin/activate; ls",
                                     "source .venv/bin/activate && python -c 'print(1)'"])
async def test_activating_a_venv_runs_under_a_deny_rule(venv, command):
    if command.startswith(". "):
        command = command.replace(". ", "source ", 1)
    verdict = await decide_bash(make_ctx(venv, **RULES), command)
    assert verdict_name(verdict) == "allow", verdict


async def test_a_program_in_the_venv_that_is_a_denied_one_asks(venv):
    shutil.copy2(shutil.which("rm") or "/bin/rm", venv / ".venv" / "bin" / "ls")
    verdict = await decide_bash(make_ctx(venv, **RULES), "source .venv/bin/activate && ls victim")
    assert verdict_name(verdict) == "ask" and "where ls is rm" in verdict.message, verdict


async def test_a_script_in_the_venv_that_runs_a_denied_command_asks(venv):
    script = venv / ".venv" / "bin" / "pytest"
    script.write_text("#!/bin/sh\nrm -rf victim\n")
    script.chmod(0o755)
    verdict = await decide_bash(make_ctx(venv, **RULES), "source .venv/bin/activate && pytest -q")
    assert verdict_name(verdict) == "ask" and "Bash(rm:*)" in verdict.message, verdict


@pytest.mark.parametrize("command", [
    "source .venv/bin/activate; cp /bin/rm .venv/bin/ls; ls victim",
    "cp /bin/rm .venv/bin/ls; source .venv/bin/activate && ls victim",
    "source .venv/bin/activate && pip install x && ls victim",  # pip writes programs there
])
async def test_a_line_that_may_put_a_program_there_asks(venv, command):
    verdict = await decide_bash(make_ctx(venv, **RULES), command)
    assert verdict_name(verdict) == "ask" and "may put one there" in verdict.message, verdict


async def test_a_changed_activate_script_that_cannot_be_followed_asks(venv):
    activate = venv / ".venv" / "bin" / "activate"
    activate.write_text(activate.read_text() + '\nPATH="$(cat paths.txt):$PATH"\n')
    verdict = await decide_bash(make_ctx(venv, **RULES), "source .venv/bin/activate && pytest -q")
    assert verdict_name(verdict) == "ask" and "may match the deny rule Bash(rm:*)" in verdict.message, verdict


def test_real_bash_runs_the_venvs_program_first(venv):
    shutil.copy2(shutil.which("rm") or "/bin/rm", venv / ".venv" / "bin" / "ls")
    subprocess.run(["bash", "-c", "source .venv/bin/activate && ls victim"], cwd=venv, timeout=10, check=True)
    assert not (venv / "victim").exists()


@pytest.mark.parametrize(("setup", "command", "expected"), [
    (None, "source .venv/bin/activate && cat notes.txt", "allow"),  # cat is /usr/bin/cat still
    (None, "source .venv/bin/activate && ls", "allow"),
    ("ls", "source .venv/bin/activate && ls", "ask"),  # the venv's ls runs instead
    (None, "source .venv/bin/activate; cp /bin/ls .venv/bin/cat; cat notes.txt", "ask"),
    (None, "source ./relative.sh && cat notes.txt", "ask"),  # PATH=./bin:$PATH: not followed
])
async def test_read_only_commands_after_activation_stay_read_only(venv, setup, command, expected):
    """With only ``Bash(source:*)`` allowed (default mode), a read-only command after the venv is
    activated stays read-only unless the venv's bin holds a program of that name."""
    (venv / "notes.txt").write_text("n\n")
    (venv / "relative.sh").write_text("PATH=./bin:$PATH\n")
    if setup is not None:
        shutil.copy2(shutil.which(setup) or f"/bin/{setup}", venv / ".venv" / "bin" / setup)
    verdict = await decide_bash(make_ctx(venv, allow=("Bash(source:*)", "Bash(cp:*)")), command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize(("command", "expected"), [
    ('export PATH="{p}/clean:$PATH"; ls victim', "allow"),
    ('export PATH="{p}/tools:$PATH"; ls victim', "ask"),  # tools/ls is a copy of rm
    ('PATH={p}/clean:$PATH; cp /bin/rm {p}/clean/ls; ls victim', "ask"),  # the line puts it there first
    ('PATH={p}/clean:$PATH; ls; cp /bin/rm {p}/clean/ls', "allow"),  # after the last look-up
    ('PATH=./tools:$PATH; ls victim', "ask"),  # relative: the folder at run time
    ('export PATH="$PWD/tools:$PATH"; ls victim', "ask"),
    ('export PATH="{p}/shared:$PATH"; ls victim', "ask"),  # anyone may write there: not looked through
])
async def test_a_path_set_in_the_line_itself_is_followed_too(tmp_path, command, expected):
    for folder in ("clean", "tools", "shared"):
        (tmp_path / folder).mkdir()
    (tmp_path / "shared").chmod(0o777)
    shutil.copy2(shutil.which("rm") or "/bin/rm", tmp_path / "tools" / "ls")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",))
    verdict = await decide_bash(ctx, command.format(p=tmp_path))
    assert verdict_name(verdict) == expected, verdict


def test_real_bash_runs_the_program_of_the_folder_the_line_puts_first(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy2(shutil.which("rm") or "/bin/rm", tmp_path / "tools" / "ls")
    (tmp_path / "victim").write_text("x")
    subprocess.run(["bash", "-c", f'export PATH="{tmp_path}/tools:$PATH"; ls victim'], cwd=tmp_path, timeout=10)
    assert not (tmp_path / "victim").exists()
