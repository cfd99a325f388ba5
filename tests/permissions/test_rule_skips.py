"""Deny and ask rules match past options: ``Bash(docker rm:*)`` denies ``docker --context x rm c``.

Options of unknown width are read as flags and as options with one value; any reading that
matches a deny rule denies, one that matches an ask rule asks.  Allow rules skip nothing.
The real-run row shows npm really runs the script a deny rule names when an option sits
between ``npm`` and ``run``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.bash_rule_skips import skip_rules, skipping_match
from jupyter_agent.permissions.bash_rules import compile_bash_pattern
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

DENY = ("Bash(npm publish:*)", "Bash(docker rm:*)", "Bash(kubectl delete:*)", "Bash(aws s3 rm:*)",
        "Bash(gh pr merge:*)", "Bash(qa push:*)", "Bash(rm -rf /:*)", "Bash(make deploy)")
ALLOW = ("Bash(npm:*)", "Bash(docker:*)", "Bash(kubectl:*)", "Bash(aws:*)", "Bash(gh:*)", "Bash(qa:*)",
         "Bash(rm:*)", "Bash(make:*)")

ROWS = [
    ("plain", "npm publish", "deny"),
    ("npm-prefix", "npm --prefix . publish", "deny"),
    ("npm-flag", "npm --loglevel silent publish --access public", "deny"),
    ("npm-workspace", "npm -w pkg publish", "deny"),
    ("docker-context", "docker --context default rm web", "deny"),
    ("docker-host", "docker -H unix:///x.sock rm web", "deny"),
    ("kubectl-namespace", "kubectl -n default delete pod x", "deny"),
    ("kubectl-equals", "kubectl --context=prod delete pod x", "deny"),
    ("aws-profile", "aws --profile p s3 rm s3://b/k", "deny"),
    ("aws-between", "aws s3 --region eu-west-1 rm s3://b/k", "deny"),
    ("gh-repo", "gh -R o/r pr merge 1", "deny"),
    ("gh-between", "gh pr -R o/r merge 1", "deny"),
    ("end-of-options", "qa -- push", "deny"),
    ("rule-with-options", "rm -v -rf /", "deny"),
    ("rule-with-options-value", "rm -rf --one-file-system /", "deny"),
    ("exact-rule", "make -j4 deploy", "deny"),
    # not the denied subcommand: a positional word ends the skipping
    ("other-subcommand", "npm --loglevel silent install", "allow"),
    ("docker-run-named-rm", "docker run --name web alpine rm", "allow"),
    ("kubectl-get", "kubectl -n prod get pods", "allow"),
    ("exact-rule-more-words", "make -j4 deploy now", "allow"),
    ("rm-elsewhere", "rm -rf --one-file-system build", "allow"),
    # a word known only at run time might be the subcommand
    ("dynamic", "kubectl -n $NS get pods", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_deny_rules_skip_options(world, command, expected):
    ctx = make_ctx(world.project, allow=ALLOW, deny=DENY)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_ask_rules_skip_options_in_every_mode(world):
    ctx = make_ctx(world.project, ask=("Bash(git push:*)", "Bash(terraform apply:*)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "terraform -chdir=infra apply -auto-approve")) == "ask"
    assert verdict_name(await decide_bash(ctx, "terraform -chdir=infra plan")) == "allow"


async def test_allow_rules_do_not_skip_options(world):
    ctx = make_ctx(world.project, allow=("Bash(npm test:*)",))
    assert verdict_name(await decide_bash(ctx, "npm --prefix ../other test")) == "ask"


def test_only_plain_word_rules_are_indexed():
    rules = [(r, compile_bash_pattern(r[5:-1])) for r in
             ("Bash(docker rm:*)", "Bash(curl:*)", "Bash(git commit -m 'x':*)", "Bash(a * b)")]
    assert skip_rules(rules) == {"docker": (("Bash(docker rm:*)", ("docker", "rm"), True),)}


def test_a_dynamic_word_is_a_maybe():
    skips = skip_rules([("Bash(qa push:*)", compile_bash_pattern("qa push:*"))])
    words = (Word("qa"), Word("-x"), Word("$y", static=False), Word("z"))
    assert skipping_match(words, skips) == ("Bash(qa push:*)", False)
    assert skipping_match((Word("qa"), Word("pull")), skips) is None


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
async def test_npm_really_runs_the_script_past_its_option(world, tmp_path):
    """Ground truth: ``npm --loglevel silent run deploy`` runs the deploy script; then: denied."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    marker = tmp_path / "deployed"
    (pkg / "package.json").write_text(json.dumps({"name": "p", "version": "1.0.0",
                                                  "scripts": {"deploy": f"touch {marker}"}}))
    command = "npm --loglevel silent run deploy"
    subprocess.run(["/bin/bash", "-c", command], cwd=pkg, timeout=120, capture_output=True,
                   env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)})
    assert marker.exists()
    ctx = make_ctx(world.project, allow=("Bash(npm:*)",), deny=("Bash(npm run deploy:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == "deny"


# A rule naming options matches them in any order, cluster or spelling (bash_rule_skips._SAME):
# under `Bash(git push --force:*)` each of these force-pushed before (the text did not match).
OPTION_DENY = ("Bash(git push --force:*)", "Bash(rm -rf:*)", "Bash(git reset --hard:*)", "Bash(git clean -fd:*)",
               "Bash(npm install -g:*)", "Bash(git branch -D:*)")
OPTION_ROWS = [
    ("git push -f origin main", "deny"), ("git push origin main --force", "deny"),
    ("git push origin main -f", "deny"), ("git push -uf origin main", "deny"), ("git push --forc origin", "deny"),
    ("git push --force-with-lease", "deny"), ("git push origin +main", "deny"),
    ("git -C . push origin main -f", "deny"),
    ("rm -fr x", "deny"), ("rm -r -f x", "deny"), ("rm --recursive --force x", "deny"), ("rm -Rf x", "deny"),
    ("git reset HEAD~1 --hard", "deny"), ("git clean -df", "deny"), ("git clean --force -d", "deny"),
    ("npm install lodash --global", "deny"),
    # without the option: as the rules say
    ("git push origin main", "allow"), ("git push -u origin main", "allow"), ("rm -r x", "allow"),
    ("rm -f x", "allow"), ("git reset HEAD~1", "allow"), ("git clean -f", "allow"), ("rm -r -- -f", "allow"),
    ("npm install lodash", "allow"),
    ("git push $FLAG origin main", "ask"),  # a word only known at run time may be -f
    # git branch -D is --delete --force: -d alone is not it
    ("git branch -D old", "deny"), ("git branch --delete --force old", "deny"), ("git branch -d -f old", "deny"),
    ("git branch -d old", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), OPTION_ROWS)
async def test_a_deny_rule_naming_options_matches_them_in_any_spelling(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(git:*)", "Bash(rm:*)", "Bash(npm:*)"), deny=OPTION_DENY,
                   mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_real_git_pushes_a_plus_refspec_by_force(tmp_path):
    """``git push origin +main`` rewrites the remote's history as ``--force`` does."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}

    def git(cwd, *args):
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=30)

    remote, work = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "one")
    git(work, "commit", "-q", "--allow-empty", "-m", "two")
    git(work, "push", "-q", str(remote), "main")
    git(work, "reset", "-q", "--hard", "HEAD~1")
    assert git(work, "push", "-q", str(remote), "main").returncode != 0  # not a fast-forward
    assert git(work, "push", "-q", str(remote), "+main").returncode == 0
    assert git(remote, "log", "--format=%s", "main").stdout.split() == ["one"]
