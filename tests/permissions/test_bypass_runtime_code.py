"""Code only known at run time meets the deny rules in bypassPermissions (session 39).

Each of these asked only as an ordinary question, so bypassPermissions — or an allow rule for
everything — ran ``rm`` with ``Bash(rm:*)`` denied: a Makefile's recipes run by ``make SHELL=rm``,
the lines ``cat list | xargs nice`` makes a program of, Jupyter's browser command, ``capsh --
-c CODE`` (a bash), ``start-stop-daemon --exec PROG``, a cargo runner, socat's ``EXEC:CMD``,
netcat's ``-e PROG``/``-c CODE``, ``ssh localhost CMD``, TeX's shell escape and pandoc's
``--filter PROG``.  What runs is now a program
chosen at run time (which a deny rule may name) or, where the line names it, that program.  Real
runs show the program running where the tools are installed.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("make SHELL=rm test", "ask"),
    ("make SHELL=rm .SHELLFLAGS=-f test", "ask"),
    ("make MAKEFLAGS='--eval=test: ; rm x' test", "ask"),
    ("cat list.txt | xargs nice", "ask"),
    ("cat list.txt | xargs xargs", "ask"),
    ("jupyter lab --ServerApp.browser='rm y %s'", "ask"),
    ("jupyter notebook --NotebookApp.browser=\"$B\"", "ask"),
    ("jupytext --pipe \"$CMD\" nb.ipynb", "ask"),
    ("cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"rm -rf x\"' run", "ask"),
    ("cargo --config \"$C\" run", "ask"),
    ("capsh -- -c 'rm x'", "deny"),
    ("capsh --shell=/bin/rm -- x", "deny"),
    ("start-stop-daemon --start --exec /bin/rm -- x", "deny"),
    ("start-stop-daemon --start --startas /bin/rm --exec /bin/ls -- x", "deny"),
    ("start-stop-daemon --start --exec \"$P\"", "ask"),
    # socat's EXEC:/SYSTEM: addresses and netcat's -e/-c run a command per connection
    ("socat - EXEC:'rm x'", "deny"),
    ("socat TCP-LISTEN:9,fork SYSTEM:'rm x'", "deny"),
    ("socat - exec:\"rm x\",pty,stderr", "deny"),
    ("socat - \"EXEC:'rm x'\"", "ask"),  # quotes inside the address: not read
    ("socat - $A", "ask"),
    ("nc -e /bin/rm x", "deny"),
    ("nc -l -p 9 -e /bin/sh", "ask"),  # a shell reading the connection
    ("nc -c 'rm x' -l 9", "deny"),
    ("ncat --sh-exec 'rm x' -l 9", "deny"),
    ("ncat --exec=/bin/rm -l 9", "deny"),
    ("ncat --lua-exec x.lua -l 9", "ask"),
    # ssh to this machine runs its command here (in the home folder)
    ("ssh localhost rm x", "deny"),
    ("ssh -p 22 me@127.0.0.1 'ls; rm x'", "deny"),
    ("ssh ssh://me@localhost:2222 rm x", "deny"),
    ("ssh -o StrictHostKeyChecking=no ::1 rm x", "deny"),
    # TeX with shell escape runs the document's \\write18{…}; pandoc runs its filters and engine
    ("pdflatex -shell-escape doc.tex", "ask"),
    ("xelatex --shell-escape doc.tex", "ask"),
    ("latexmk -pdf -shell-escape doc.tex", "ask"),
    ("tectonic -Z shell-escape doc.tex", "ask"),
    ("pandoc doc.md -o doc.pdf --pdf-engine-opt=-shell-escape", "ask"),
    ("pandoc --filter rm doc.md", "deny"),
    ("pandoc -F rm doc.md", "deny"),
    ("pandoc --pdf-engine=rm doc.md -o x.pdf", "deny"),
    # what stays allowed
    ("pdflatex doc.tex", "allow"),  # (restricted shell escape: a few known programs only)
    ("latexmk -pdf doc.tex", "allow"),
    ("pandoc doc.md -o out.html --filter pandoc-crossref", "allow"),
    ("ssh build-server ls", "allow"),  # (another machine's rm meets the rules too: test_remote_commands.py)
    ("ssh localhost ls", "allow"),
    ("socat - EXEC:ls", "allow"),
    ("socat TCP-LISTEN:9,fork TCP:localhost:80", "allow"),
    ("nc -zv localhost 80", "allow"),
    ("make test", "allow"),
    ("make -j4 V=1 test", "allow"),
    ("jupyter lab --no-browser", "allow"),
    ("jupyter lab --config=x.py", "allow"),  # Python it runs, as `python x.py` runs
    ("cargo --config 'profile.release.lto=true' build", "allow"),
    ("capsh --print", "allow"),
    ("capsh -- -c 'ls'", "allow"),
    ("start-stop-daemon --start --exec /bin/ls -- x", "allow"),
    ("echo a.py | xargs wc -l", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_runtime_code_meets_the_deny_rules_in_bypass_mode(tmp_path, command, expected):
    (tmp_path / "Makefile").write_text("test:\n\techo hi\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_real_make_runs_its_recipes_with_the_shell_given(tmp_path):
    (tmp_path / "Makefile").write_text("test:\n\techo hi\n")
    (tmp_path / "echo hi").write_text("")
    subprocess.run(["make", "SHELL=rm", ".SHELLFLAGS=-f", "test"], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "echo hi").exists()  # rm -f 'echo hi'


def test_real_xargs_makes_a_program_of_what_it_reads(tmp_path):
    (tmp_path / "x").write_text("")
    (tmp_path / "list.txt").write_text("rm x\n")
    subprocess.run("cat list.txt | xargs nice", shell=True, cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "x").exists()


@pytest.mark.skipif(shutil.which("capsh") is None, reason="needs capsh")
def test_real_capsh_runs_bash_with_the_arguments_after_dashes(tmp_path):
    (tmp_path / "x").write_text("")
    subprocess.run(["capsh", "--", "-c", "rm x"], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "x").exists()


async def test_ssh_to_this_machine_runs_in_the_home_folder(tmp_path):
    """Under Bash(ssh:*) in the default mode the command of `ssh localhost` runs from the home
    folder, outside the working directories: it asks; another machine's folders are its own."""
    ctx = make_ctx(tmp_path, allow=("Bash(ssh:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "ssh localhost ls")) == "ask"
    assert verdict_name(await decide_bash(ctx, "ssh build-server ls")) == "allow"
