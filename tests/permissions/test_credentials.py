"""Commands that print a credential ask in every mode, under a rule that allows their program
too (``bash_credentials.py``): ``Bash(git:*)`` ran ``git credential fill`` and ``Bash(gh:*)``
``gh auth token``, printing the keys into the conversation.  A rule that names the subcommand
(``Bash(gh auth token)``) allows it."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROGRAMS = ("git", "gh", "aws", "gcloud", "az", "kubectl", "security", "secret-tool", "pass", "vault", "op",
            "npm", "docker-credential-desktop", "glab", "doppler", "sops")
RULES = tuple(f"Bash({p}:*)" for p in PROGRAMS)
ASK = [
    "git credential fill", "printf 'protocol=https\\nhost=github.com\\n' | git credential fill",
    "git credential-store get", "gh auth token", "gh auth status --show-token", "aws configure get aws_secret_access_key",
    "aws sts get-session-token", "aws ecr get-login-password", "gcloud auth print-access-token",
    "az account get-access-token", "kubectl config view --raw", "kubectl get secret db -o yaml",
    "security find-generic-password -s x -w", "secret-tool lookup service x", "pass show email",
    "vault kv get secret/x", "op read op://vault/item/field", "npm config get //registry.npmjs.org/:_authToken",
    "docker-credential-desktop get", "glab auth status -t", "doppler secrets",
    "sops -d secrets.enc.yaml", "sops --decrypt secrets.enc.yaml", "sops decrypt secrets.enc.yaml",
]
RUN = ["gh auth status", "aws configure get region", "kubectl config view", "npm config get registry",
       "git status", "kubectl get pods", "gh pr list", "sops -e -i secrets.yaml",
       "sops -d --output plain.yaml secrets.enc.yaml"]


@pytest.mark.parametrize("command", ASK)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_credential_printers_ask(world, command, mode):
    ctx = make_ctx(world.project, allow=RULES, mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


@pytest.mark.parametrize("command", RUN)
async def test_the_rest_runs_under_the_rule(world, command):
    assert verdict_name(await decide_bash(make_ctx(world.project, allow=RULES), command)) == "allow", command


async def test_a_rule_naming_the_subcommand_allows_it(world):
    ctx = make_ctx(world.project, allow=("Bash(gh auth token)", "Bash(git credential fill:*)", "Bash(sops -d:*)"))
    assert verdict_name(await decide_bash(ctx, "gh auth token")) == "allow"
    assert verdict_name(await decide_bash(ctx, "sops -d x.yaml")) == "allow"
    assert verdict_name(await decide_bash(ctx, "git credential fill")) == "allow"
    assert verdict_name(await decide_bash(ctx, "gh auth status -t")) == "ask"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_real_git_credential_fill_prints_the_password(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".git-credentials").write_text("https://me:SECRET-c4d2@example.com\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    subprocess.run(["git", "config", "--global", "credential.helper", "store"], env=env, check=True, timeout=30)
    done = subprocess.run(["git", "credential", "fill"], input="protocol=https\nhost=example.com\n\n", env=env,
                          capture_output=True, text=True, timeout=30)
    assert "password=SECRET-c4d2" in done.stdout


@pytest.mark.parametrize("command", ["uv run gh auth token", "timeout 5 gh auth token", "/usr/bin/gh auth token"])
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_every_form_of_the_command_is_checked(world, command, mode):
    """What a runner runs, and a program spelled by its path, is checked as the program."""
    ctx = make_ctx(world.project, allow=(*RULES, "Bash(uv:*)", "Bash(timeout:*)"), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
