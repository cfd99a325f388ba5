"""A variable set for a command whose value is a protected path (``bash_arguments.
protected_assignments``): in bypassPermissions ``GIT_CONFIG_GLOBAL=.claude/settings.json git config
--global a.b c`` rewrote the settings file, ``PIP_LOG=.git/config pip list`` appended to git's
settings and ``GIT_TEMPLATE_DIR=/tmp/t git init`` copied hooks into ``.git/hooks``.  Each asks in
every mode, as naming the path in an argument does."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("GIT_CONFIG_GLOBAL=.claude/settings.json git config --global a.b c", "ask"),
    ("PIP_LOG=.git/config pip list", "ask"), ("env PIP_LOG=.claude/settings.json pip list", "ask"),
    ("HISTFILE=~/.bashrc bash -i", "ask"), ("LESSHISTFILE=.mcp.json less a.py", "ask"),
    ("PYTHONPATH=src:.vscode python a.py", "ask"),  # one entry of a list
    ("GIT_TEMPLATE_DIR=/tmp/t git init", "ask"), ("GIT_TEMPLATE_DIR=/tmp/t git clone https://x/y z", "ask"),
    ("GIT_TEMPLATE_DIR=/tmp/t git status", "allow"), ("FOO=1 pytest", "allow"), ("X=~/data python a.py", "allow"),
    ("PYTHONPATH=src python a.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_a_protected_path_in_a_variable_asks_in_bypass_mode(world, command, expected):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_git_writes_where_the_variables_say(tmp_path):
    template = tmp_path / "template" / "hooks"
    template.mkdir(parents=True)
    (template / "pre-commit").write_text("#!/bin/sh\necho hook\n")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], env={"GIT_TEMPLATE_DIR": str(tmp_path / "template"),
                                                        "PATH": "/usr/bin:/bin"}, check=True)
    assert (repo / ".git" / "hooks" / "pre-commit").read_text().startswith("#!/bin/sh")
    target = repo / "settings.json"
    subprocess.run(["git", "config", "--global", "a.b", "c"], cwd=repo, check=True,
                   env={"GIT_CONFIG_GLOBAL": str(target), "PATH": "/usr/bin:/bin"})
    assert "[a]" in target.read_text()


@pytest.mark.parametrize(("command", "expected"), [
    ("NPM_CONFIG_USERCONFIG=.env npm config list", "ask"),  # npm prints the settings it read
    ("KUBECONFIG=.env kubectl config view", "ask"), ("PIP_LOG=sub/x.py pip list", "ask"),
    ("PIP_LOG=log.txt pip list", "allow"), ("npm config list", "allow"),
])
async def test_a_denied_path_in_a_variable_asks(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(npm:*)", "Bash(kubectl:*)", "Bash(pip:*)"),
                   deny=("Read(./.env)", "Edit(./sub/**)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
