"""A word known only at run time may be a whole option (``bash_arguments._may_be_option``):
``X=--output=.claude/settings.json; git log "$X"`` wrote the settings file under
``Bash(git log:*)`` and in bypassPermissions, and ``X=--basetemp=.git; pytest "$X"`` would empty
``.git``.  For a program that writes what an option names, or runs what an option names
(``npm --script-shell=``, ``make SHELL=``, ``ssh -oProxyCommand=``), such a word asks in every mode — unless
it is the user's (a variable from the environment the line does not set) or a loop variable
over words that cannot begin with ``-`` (``for t in tests/*.py``)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = ("Bash(git log:*)", "Bash(git diff:*)", "Bash(pytest:*)", "Bash(python:*)", "Bash(curl:*)",
         "Bash(jupytext:*)", "Bash(mkdir:*)", "Bash(npm:*)", "Bash(make:*)", "Bash(ssh:*)", "Bash(man:*)", "Bash(go:*)")
ROWS = [  # (command, default mode with ALLOW, bypassPermissions)
    ('X=--output=.claude/settings.json; git log "$X"', "ask", "ask"),
    ('X=--basetemp=.git; pytest "$X"', "ask", "ask"),
    ("X=--output=.mcp.json; git diff ${X}", "ask", "ask"),
    ("git log $(cat f)", "ask", "ask"), ('git log "$(cat f)"', "ask", "ask"), ("git log `cat f`", "ask", "ask"),
    ('python -m pytest "$(cat f)"', "ask", "ask"), ('H=-o.bashrc; curl -s "$H" https://x', "ask", "ask"),
    # unrolled as pytest *.py: the files the glob matches now are checked (a --basetemp=… one asks)
    ('for t in *.py; do pytest "$t"; done', "allow", "allow"),
    ('for t in $(ls); do pytest "$t"; done', "ask", "ask"),
    ('X=1; git log -n "$X"', "ask", "ask"),  # the value of -n, but read alone it may be --output=…
    ('jupytext --to py "$(cat x)"', "ask", "ask"),
    # or run a program: npm --script-shell=, make SHELL=, ssh -oProxyCommand=, man -P, go -exec
    ('X=--script-shell=rm; npm test "$X"', "ask", "ask"), ('X=SHELL=/tmp/evil; make "$X" test', "ask", "ask"),
    ("X='-oProxyCommand=rm x'; ssh \"$X\" host", "ask", "ask"), ('X=-P; man "$X" rm ls', "ask", "ask"),
    ('X=-exec=rm; go test "$X" ./...', "ask", "ask"),
    ('npm install "$PKG"', "allow", "allow"), ('for p in a b; do npm install "$p"; done', "allow", "allow"),
    ('for t in tests/*.py; do pytest "$t"; done', "allow", "allow"),  # each begins with tests/
    ('for t in a b; do pytest "$t"; done', "allow", "allow"),
    ('git log "$X"', "allow", "allow"),  # the user's environment
    ('curl -s -H "$H" -o page https://example.com', "allow", "allow"),  # -H sets no variable
    ("python train.py --out $(date +%s).pt", "allow", "allow"),  # the script's own words
    ("pytest tests", "allow", "allow"), ("git log -- $(cat f)", "allow", "allow"),
]


@pytest.mark.parametrize(("command", "default", "bypass"), ROWS)
async def test_a_run_time_word_that_may_be_an_option(world, command, default, bypass):
    assert verdict_name(await decide_bash(make_ctx(world.project, allow=ALLOW), command)) == default, command
    bypassing = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(bypassing, command)) == bypass, command


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_git_writes_the_option_a_variable_holds(tmp_path):
    for argv in (["init", "-q"], ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *argv], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run(["bash", "-c", 'X=--output=written.txt; git log "$X"'], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "written.txt").read_text().startswith("commit ")


async def test_a_loop_over_a_glob_that_matches_an_option_named_file_asks(world):
    """``for t in *; do pytest "$t"; done`` is read as ``pytest *``: a file named
    ``--basetemp=.git`` among the matches would have pytest empty ``.git``."""
    (world.project / "--basetemp=.git").write_text("")
    for mode in ("default", "bypassPermissions"):
        ctx = make_ctx(world.project, allow=ALLOW, mode=mode)
        assert verdict_name(await decide_bash(ctx, 'for t in *; do pytest "$t"; done')) == "ask", mode
