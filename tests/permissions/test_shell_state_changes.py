"""What one command changes in the shell holds for the rest of its line: ``HOME`` and a sourced
script's ``cd`` or settings.

In bypassPermissions with ``Bash(*)`` allowed, ``HOME=$PWD/.git; echo x >> ~/config`` and
``. ./into-git.sh; echo x >> config`` (the script runs ``cd .git``) both wrote ``.git/config``
unasked: the analysis read ``~`` as the user's home and the line's folder as the one it starts in.
Now a line that sets ``HOME`` and uses ``~`` or a bare ``cd``, and a line that sources a script
which changes the folder, ``HOME``, ``CDPATH`` or what patterns and words mean, ask in every mode.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, write_files

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    write_files(project, {
        ".git/config": "[core]\n", ".env": "KEY=1\n", "notes.txt": "n\n",
        "into-git.sh": "cd .git\n", "dotglob.sh": "shopt -s dotglob\n", "home.sh": "export HOME=$PWD/.git\n",
        "cdpath.sh": "CDPATH=$PWD\n", "keywords.sh": "set -k\n", "plain.sh": "echo sourced\nX=1\n",
        "subshell.sh": "(cd /tmp && ls)\n",
    })
    return project


def _bypass(project: Path, deny: tuple[str, ...] = ()):
    return make_ctx(project, allow=("Bash(*)",), deny=deny, mode="bypassPermissions")


@pytest.mark.parametrize("command", [
    "HOME=$PWD/.git; echo x >> ~/config",
    "HOME=$PWD/.git; cp notes.txt ~/config",
    "export HOME=$PWD/.git; echo x >> ~/config",
    "declare -x HOME=$PWD/.git && tee -a ~/config < notes.txt",
    "read HOME < notes.txt; echo x >> ~/config",
    "printf -v HOME %s .git; cp notes.txt ~/config",
    "for HOME in .git; do echo x >> ~/config; done",
    "HOME=.git; cd && echo x >> config",
    "HOME=.git; cd ~ && echo x >> config",
    "HOME=$PWD; cat ~/.env",  # a Read deny rule's file by another name
])
async def test_a_line_setting_home_asks_where_it_uses_tilde_or_a_bare_cd(project, command):
    verdict = await decide_bash(_bypass(project, deny=("Read(./.env)",)), command)
    assert verdict_name(verdict) == "ask", (command, verdict)
    assert "HOME" in verdict.message and "run time" in verdict.message, verdict.message


@pytest.mark.parametrize("command", [
    "HOME=/tmp/fresh-home pip --version",  # a program's own HOME: what it runs is the mode's business
    "HOME=/tmp/x; echo hi",
    "cp notes.txt ~/copy.txt",  # HOME untouched: ~ is the user's home
    "echo x > ~/copy.txt",
])
async def test_home_untouched_or_unused_runs_in_bypass(project, tmp_path, monkeypatch, command):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert verdict_name(await decide_bash(_bypass(project), command)) == "allow", command


@needs_bash
def test_bash_really_follows_the_new_home_and_the_sourced_cd(project):
    """The threat is real: both lines write .git/config."""
    for line in ("HOME=$PWD/.git; echo one >> ~/config", ". ./into-git.sh; echo two >> config"):
        subprocess.run(["bash", "-c", line], cwd=project, check=True, timeout=30,
                       env={"PATH": os.environ["PATH"], "HOME": str(project.parent)})
    assert (project / ".git" / "config").read_text() == "[core]\none\ntwo\n"


@pytest.mark.parametrize(("command", "said"), [
    (". ./into-git.sh; echo x >> config", "changes the folder (cd .git)"),
    ("source into-git.sh && cp notes.txt config", "changes the folder"),
    (". ./home.sh; echo x >> ~/config", "./home.sh, which the line sources"),
    (". ./home.sh; cd; echo x >> config", "HOME"),
    (". ./cdpath.sh; cd .git && echo x >> config", "where a cd of the line leads"),
    (". ./keywords.sh; echo x", "set -k"),
    (". ./dotglob.sh; cat *", "dotglob"),  # cat * then reads .env
    ("echo 'cd .git' > new.sh; . ./new.sh; echo x >> config", "may be changed by the line first"),
    ('. "$SCRIPT"; echo x >> config', "is not known"),
])
async def test_a_sourced_script_changing_the_shell_asks_for_the_rest_of_the_line(project, command, said):
    verdict = await decide_bash(_bypass(project, deny=("Read(./.env)",)), command)
    assert verdict_name(verdict) == "ask", (command, verdict)
    assert said in verdict.message, verdict.message


@pytest.mark.parametrize("command", [
    ". ./into-git.sh",  # nothing after it in the line
    ". ./plain.sh; cp notes.txt copy.txt",  # changes nothing the line depends on
    "bash ./into-git.sh; echo x >> notes.txt",  # a shell of its own: its cd ends with it
    ". ./missing.sh; echo x >> notes.txt",  # no such file: nothing is sourced
    ". ./dotglob.sh; echo done",  # no pattern after it
])
async def test_a_sourced_script_that_changes_nothing_used_runs_in_bypass(project, command):
    assert verdict_name(await decide_bash(_bypass(project), command)) == "allow", command


async def test_a_sourced_virtualenv_activation_still_runs_in_bypass(project):
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(project / ".venv")], check=True, timeout=120)
    for command in ("source .venv/bin/activate && python -V", ". .venv/bin/activate; pytest -q"):
        assert verdict_name(await decide_bash(_bypass(project), command)) == "allow", command


@pytest.mark.parametrize("command", [
    "HISTFILE=.git/config; set -o history; history -s '[alias]'; history -w",
    "export HISTFILE=$PWD/.git/config && set -o history && history -s x && history -a",
    "read HISTFILE < notes.txt; set -o history; history -s x; history -w",
    "HISTFILE=.env; set -o history; history -r; history",  # prints the denied file's lines
])
async def test_history_with_a_histfile_the_line_sets_asks(project, command):
    verdict = await decide_bash(_bypass(project, deny=("Read(./.env)",)), command)
    assert verdict_name(verdict) == "ask", (command, verdict)
    assert "HISTFILE" in verdict.message, verdict.message


@needs_bash
def test_bash_really_writes_and_reads_the_histfile_the_line_sets(project):
    subprocess.run(["bash", "-c", "HISTFILE=.git/config; set -o history; history -s '[alias]'; history -w"],
                   cwd=project, check=True, timeout=30, env={"PATH": os.environ["PATH"]})
    assert "[alias]" in (project / ".git" / "config").read_text()
    shown = subprocess.run(["bash", "-c", "HISTFILE=.env; set -o history; history -r; history"], cwd=project,
                           check=True, timeout=30, env={"PATH": os.environ["PATH"]}, capture_output=True, text=True)
    assert "KEY=1" in shown.stdout


async def test_history_without_a_histfile_change_runs_in_bypass(project, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for command in ("set -o history; history -s x; history -w", "HISTFILE=x; echo hi"):
        assert verdict_name(await decide_bash(_bypass(project), command)) == "allow", command
