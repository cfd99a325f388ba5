"""A subcommand spelled another way meets the same deny and ask rules.

npm takes aliases and unambiguous abbreviations (``npm pub`` runs publish), docker's management
commands repeat the top-level ones (``docker container rm`` = ``docker rm``), and a git word that
is no git command runs an alias from git's settings.  The real-run rows show npm and git really
run the denied command under the other spelling.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.bash_rule_skips import GIT_COMMANDS
from jupyter_agent.permissions.bash_synonyms import canonical_rule, npm_command
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ALLOW = ("Bash(npm:*)", "Bash(docker:*)", "Bash(podman:*)", "Bash(git:*)")
ROWS = [
    # the command's spelling is canonicalized
    ("Bash(npm publish:*)", "npm pub", "deny"),
    ("Bash(npm publish:*)", "npm publ --access public", "deny"),
    ("Bash(npm publish:*)", "npm --loglevel silent pub", "deny"),
    ("Bash(npm uninstall:*)", "npm rm left-pad", "deny"),
    ("Bash(npm uninstall:*)", "npm r left-pad", "deny"),
    ("Bash(npm run deploy:*)", "npm run-script deploy", "deny"),
    ("Bash(npm run deploy:*)", "npm rum deploy", "deny"),
    ("Bash(npm run deploy:*)", "npm run-s deploy", "deny"),  # an abbreviation of an alias
    ("Bash(npm install-test:*)", "npm installTest", "deny"),  # camelCase is kebab-case to npm
    ("Bash(docker rm:*)", "docker container rm web", "deny"),
    ("Bash(docker rm:*)", "docker container remove web", "deny"),
    ("Bash(docker rmi:*)", "docker image rm app", "deny"),
    ("Bash(docker rm:*)", "podman container rm web", "allow"),  # another program
    ("Bash(podman rm:*)", "podman container rm web", "deny"),
    # the rule's spelling is canonicalized
    ("Bash(npm i:*)", "npm install left-pad", "deny"),
    ("Bash(npm i:*)", "npm add left-pad", "deny"),
    ("Bash(docker container rm:*)", "docker rm web", "deny"),
    ("Bash(docker image rm:*)", "docker rmi app", "deny"),
    # not the same command
    ("Bash(npm publish:*)", "npm pack", "allow"),
    ("Bash(npm run deploy:*)", "npm ru deploy", "allow"),  # ambiguous: npm runs nothing
    ("Bash(npm run deploy:*)", "npm run build", "allow"),
    ("Bash(docker rm:*)", "docker container ls", "allow"),
    # a word that is no git command may be an alias for the rule's command
    ("Bash(git push:*)", "git p origin main", "ask"),
    ("Bash(git push:*)", "git -C . p", "ask"),
    ("Bash(git push:*)", "git status", "allow"),
    ("Bash(git push:*)", "git log --oneline", "allow"),
    # git's other commands that push
    ("Bash(git push:*)", "git send-pack ../bare.git main", "deny"),
    ("Bash(git push:*)", "git -C . send-pack origin main", "deny"),
    ("Bash(git push:*)", "git http-push https://example.com/r.git main", "deny"),
    ("Bash(git push:*)", "git subtree push --prefix=lib origin main", "deny"),
    ("Bash(git push:*)", "git svn dcommit", "deny"),
    ("Bash(git push:*)", "git p4 submit", "deny"),
    ("Bash(git push origin main:*)", "git send-pack origin main", "deny"),
    ("Bash(git push:*)", "git stash push", "allow"),  # not a push to another repository
    ("Bash(git subtree push:*)", "git push origin main", "allow"),  # the rule is not widened
]


@pytest.mark.parametrize(("deny", "command", "expected"), ROWS)
async def test_other_spellings_meet_the_deny_rule(world, deny, command, expected):
    ctx = make_ctx(world.project, allow=ALLOW, deny=(deny,))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_an_ask_rule_meets_an_alias_in_every_mode(world):
    ctx = make_ctx(world.project, ask=("Bash(npm publish:*)", "Bash(git push:*)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "npm pub")) == "ask"
    assert verdict_name(await decide_bash(ctx, "git pushit")) == "ask"
    assert verdict_name(await decide_bash(ctx, "npm pack")) == "allow"


async def test_without_a_git_rule_aliases_run_as_allowed(world):
    ctx = make_ctx(world.project, allow=("Bash(git:*)",))
    assert verdict_name(await decide_bash(ctx, "git lg")) == "allow"


def test_npm_command_follows_npms_rules():
    assert npm_command("pub") == "publish"
    assert npm_command("un") == "uninstall"
    assert npm_command("run-s") == "run"
    assert npm_command("ru") is None  # run, run-script and rum: ambiguous
    assert npm_command("bogus") is None
    assert npm_command("") is None


def test_canonical_rule():
    assert canonical_rule("npm i") == "npm install"
    assert canonical_rule("docker container rm -f") == "docker rm -f"
    assert canonical_rule("npm install") is None
    assert canonical_rule("npm --global i") is None
    assert canonical_rule("git push") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_commands_include_every_installed_command():
    listed = subprocess.run(["git", "--list-cmds=builtins,main"], capture_output=True, text=True, check=True)
    missing = {c for c in listed.stdout.split() if "--" not in c} - GIT_COMMANDS
    assert not missing


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
async def test_npm_really_publishes_under_an_abbreviation(world, tmp_path):
    """Ground truth: ``npm pub --dry-run`` is npm's publish (it says so); then: denied."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0"}))
    done = subprocess.run(["npm", "pub", "--dry-run", "--offline"], cwd=pkg, capture_output=True, text=True,
                          timeout=120, env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})
    assert "Publishing to" in done.stdout + done.stderr
    ctx = make_ctx(world.project, allow=("Bash(npm:*)",), deny=("Bash(npm publish:*)",))
    assert verdict_name(await decide_bash(ctx, "npm pub --dry-run")) == "deny"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_really_runs_a_denied_command_through_an_alias(world, tmp_path):
    """Ground truth: the repository's alias ``t`` runs ``git tag``; then: not allowed."""
    repo = tmp_path / "repo"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True, capture_output=True)
    for args in (["config", "alias.t", "tag"],
                 ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run(["git", "t", "v1"], cwd=repo, env=env, check=True, capture_output=True)
    tags = subprocess.run(["git", "tag"], cwd=repo, env=env, capture_output=True, text=True).stdout.split()
    assert tags == ["v1"]
    ctx = make_ctx(world.project, allow=("Bash(git:*)",), deny=("Bash(git tag:*)",))
    assert verdict_name(await decide_bash(ctx, "git t v2")) == "ask"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_send_pack_really_pushes(tmp_path):
    """Ground truth for the send-pack rows: the bare repository receives the branch."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    repo, bare = tmp_path / "repo", tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], env=env, check=True, capture_output=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], env=env, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=repo, env=env, check=True, capture_output=True)
    subprocess.run(["git", "send-pack", "../bare.git", "main"], cwd=repo, env=env, check=True, capture_output=True)
    heads = subprocess.run(["git", "branch"], cwd=bare, env=env, capture_output=True, text=True).stdout
    assert "main" in heads


PROGRAM_ROWS = [
    # (deny, allow, command, expected): one program under several names
    ("Bash(python:*)", "Bash(python3:*)", "python3 train.py", "deny"),
    ("Bash(python:*)", "Bash(python3.12:*)", "python3.12 -c 1", "deny"),
    ("Bash(python3:*)", "Bash(python:*)", "python train.py", "deny"),  # the rule is read as python too
    ("Bash(pip uninstall:*)", "Bash(pip3:*)", "pip3 uninstall -y x", "deny"),
    ("Bash(pip uninstall:*)", "Bash(pip3.11:*)", "pip3.11 uninstall x", "deny"),
    ("Bash(node:*)", "Bash(nodejs:*)", "nodejs app.js", "deny"),
    # JupyterLab's jlpm is its bundled yarn (session 36: package.json's scripts ran under it unread)
    ("Bash(yarn:*)", "Bash(jlpm:*)", "jlpm build", "deny"), ("Bash(yarn publish:*)", "Bash(jlpm:*)", "jlpm publish", "deny"),
    ("Bash(yarn:*)", "Bash(yarnpkg:*)", "yarnpkg install", "deny"),
    ("Bash(pip uninstall:*)", "Bash(pip3:*)", "pip3 install x", "allow"),
    ("Bash(python:*)", "Bash(python3-config:*)", "python3-config --libs", "allow"),  # another program
]


@pytest.mark.parametrize(("deny", "allow", "command", "expected"), PROGRAM_ROWS)
async def test_one_program_under_several_names(world, deny, allow, command, expected):
    ctx = make_ctx(world.project, allow=(allow,), deny=(deny,))
    assert verdict_name(await decide_bash(ctx, command)) == expected


@pytest.mark.parametrize(("command", "expected"), [
    ("jlpm build", "deny"), ("jlpm run build", "deny"), ("jlpm install", "deny"), ("jlpm", "deny"),
    ("jlpm dlx rm x", "deny"), ("yarnpkg build", "deny"), ("jlpm run lint", "allow"),
])
async def test_jlpm_runs_package_json_scripts_as_yarn_does(world, command, expected):
    (world.project / "package.json").write_text(
        '{"name": "ext", "scripts": {"build": "rm -rf lib && tsc", "postinstall": "rm -rf x", "lint": "eslint ."}}')
    ctx = make_ctx(world.project, allow=("Bash(jlpm:*)", "Bash(yarnpkg:*)"), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
