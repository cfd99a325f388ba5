"""lefthook runs the commands of its configuration for a git hook: they meet the rules (session
32's probe).

With ``Bash(git:*)`` allowed and ``Bash(rm:*)`` denied, ``git commit`` ran the hook ``lefthook
install`` writes, which ran ``lefthook.yml``'s ``run: rm -rf build``.  Now ``lefthook run HOOK`` and
that git hook (``permissions/lefthook_hooks.py``, ``git_hooks.py``) check the hook's commands,
scripts and jobs as commands of the line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.lefthook_hooks import _scripts_of
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

LEFTHOOK_YML = """\
pre-commit:
  commands:
    lint:
      glob: "*.py"
      run: ruff check {staged_files}
    clean:
      root: web/
      run: rm -rf dist
  scripts:
    "check.sh":
      runner: bash
pre-push:
  jobs:
    - name: peek
      run: cat .env
    - group:
        jobs:
          - run: rm -f 'out/{push_files}'
commit-msg:
  commands:
    ok:
      run: ls
post-checkout:
  scripts:
    "run.sh": {}
"""


def _project(world, text: str = LEFTHOOK_YML, name: str = "lefthook.yml") -> None:
    (world.project / name).write_text(text)
    (world.project / "web").mkdir(exist_ok=True)
    folder = world.project / ".lefthook"
    for hook, script, body in (("pre-commit", "check.sh", "ls\n"), ("post-checkout", "run.sh", "rm -rf cache\n")):
        (folder / hook).mkdir(parents=True, exist_ok=True)
        (folder / hook / script).write_text(body)


ROWS = [
    ("lefthook run pre-commit", "deny"), ("lefthook run pre-push", "deny"), ("lefthook run commit-msg", "allow"),
    ("lefthook run post-checkout", "deny"),  # a script run by its path (shell: read)
    ("lefthook run pre-commit --all-files", "deny"), ("cd web && lefthook run pre-commit", "deny"),
    ("lefthook run nothing", "allow"), ("lefthook install", "ask"), ("lefthook version", "allow"),
    ('lefthook run "$H"', "ask"), ("echo x >> lefthook-local.yml && lefthook run commit-msg", "ask"),
    ("echo x >> lefthook.yml && lefthook run commit-msg", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_lefthook_commands_meet_the_rules(world, command, expected):
    _project(world)
    ctx = make_ctx(world.project, allow=("Bash(lefthook:*)",), deny=("Bash(rm:*)", "Read(./.env)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize(("name", "text"), [
    ("lefthook-local.yml", "commit-msg:\n  commands:\n    x:\n      run: rm -rf y\n"),  # merged in
    (".lefthook.json", '{"commit-msg": {"commands": {"x": {"run": "rm -rf y"}}}}'),
    (".config/lefthook.toml", '[commit-msg.commands.x]\nrun = "rm -rf y"\n'),
])
async def test_other_configuration_files(world, name, text):
    _project(world, "commit-msg:\n  commands:\n    ok:\n      run: ls\n")
    (world.project / name).parent.mkdir(exist_ok=True)
    (world.project / name).write_text(text)
    if name.startswith("."):
        (world.project / "lefthook.yml").unlink()
    ctx = make_ctx(world.project, allow=("Bash(lefthook:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "lefthook run commit-msg")) == "deny"


@pytest.mark.parametrize("text", ["pre-commit: [", "remotes:\n  - git_url: https://x\npre-commit: {}\n",
                                  "pre-commit:\n  commands:\n    x: {script: 1}\n", "- 1\n"])
async def test_configuration_not_read_asks(world, text):
    (world.project / "lefthook.yml").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(lefthook:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "lefthook run pre-commit")) == "ask", text


async def test_the_git_hook_lefthook_writes(world):
    _project(world)
    hooks = world.project / ".git" / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text('#!/bin/sh\ncall_lefthook()\n{\n  "$LEFTHOOK_BIN" "$@"\n}\n\n'
                                      'call_lefthook run "pre-commit" "$@"\n')
    ctx = make_ctx(world.project, allow=("Bash(git:*)",), deny=("Bash(rm:*)",))
    verdict = await decide_bash(ctx, "git commit -m x")
    assert verdict_name(verdict) == "deny" and "lefthook's pre-commit commands" in verdict.message


LEFTHOOK = shutil.which("lefthook", path=os.path.dirname(sys.executable))


@pytest.mark.skipif(LEFTHOOK is None or shutil.which("git") is None, reason="lefthook or git is not installed")
async def test_real_lefthook_runs_what_is_predicted(world, tmp_path):
    """lefthook install, then git commit: its git hook has the line this reads, and every file the
    configuration's commands touched is one the predicted commands touch."""
    repo = world.project
    shutil.rmtree(repo / ".git")
    (repo / "sub").mkdir(exist_ok=True)
    (repo / "lefthook.yml").write_text(
        "pre-commit:\n  commands:\n    mark:\n      run: touch by-command\n    rooted:\n      root: sub/\n"
        "      run: touch by-root\n  scripts:\n    s.sh:\n      runner: sh\n  jobs:\n    - run: touch by-job\n"
        "    - group:\n        jobs:\n          - run: touch by-group-job\n")
    (repo / ".lefthook" / "pre-commit").mkdir(parents=True)
    (repo / ".lefthook" / "pre-commit" / "s.sh").write_text("touch by-script\n")
    env = {**os.environ, "HOME": str(world.home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    env.pop("LEFTHOOK", None)
    (repo / "sub" / "f").write_text("x\n")
    for args in (["git", "init", "-q"], [LEFTHOOK, "install"], ["git", "add", "sub/f"], ["git", "commit", "-qm", "x"]):
        done = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    touched = {str(p.relative_to(repo)) for p in repo.rglob("by-*")}
    assert {"by-command", "by-job", "by-group-job", "by-script", "sub/by-root"} <= touched
    predicted = set()
    for script in _scripts_of(analyze("lefthook run pre-commit").commands[0].innermost, str(repo), False):
        for line in (script.code or "").splitlines():
            words = line.split()
            if words[0] == "touch":
                predicted.add(os.path.relpath(os.path.join(script.cwd or "", words[1]), repo))
            else:  # sh .lefthook/pre-commit/s.sh: that script's touch
                predicted.add("by-script")
    assert touched <= predicted, (touched, predicted)
    ctx = make_ctx(repo, allow=("Bash(git:*)",), deny=("Bash(touch:*)",))
    assert verdict_name(await decide_bash(ctx, "git commit -m y")) == "deny"
