"""deno task runs the tasks of deno.json(c) and the scripts of package.json: their commands meet the rules (session 35's probe).

With ``Bash(deno:*)`` allowed and ``Bash(rm:*)`` denied, ``deno task clean`` ran the ``rm -rf dist``
of ``deno.json``, and ``deno task lint`` the ``rm`` of package.json's ``prelint``.  Now the commands
of the tasks it runs (``permissions/deno_tasks.py``) are checked as commands of the line, in the
task's folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.deno_tasks import _READ
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CONFIG = """\
// comments and trailing commas: deno.jsonc
{
  "tasks": {
    "clean": "rm -rf dist",
    "build": { "command": "echo build", "dependencies": ["clean"] },
    "ok": "echo ok /* not a comment */ // nor this",
    "peek": "cat",
    "both": { "dependencies": ["ok", "clean"], },
    "up": "cat ../.env",
  },
}
"""

ROWS = [
    ("deno task ok", "allow"), ("deno task peek README.md", "allow"), ("deno task show", "allow"),
    ("deno task clean", "deny"), ("deno task build", "deny"), ("deno task both", "deny"), ('deno task "cl*"', "deny"),
    ("deno task peek .env", "deny"), ("deno task -q peek -- .env", "deny"),  # deno passes `--` on: cat -- .env
    ("deno task lint", "deny"),  # package.json's prelint
    ("cd sub && deno task up", "allow"),  # in the config's folder: ../.env is outside the project
    ("deno task --cwd sub up", "deny"),  # in sub: ../.env is the project's
    ("deno task --eval 'rm x'", "deny"), ("timeout 60 deno task clean", "deny"),
    ("deno task", "allow"), ("deno task nosuch", "allow"), ("deno run main.ts", "allow"), ("deno task --help", "allow"),
    ('deno task "$T"', "ask"), ("deno task --future ok", "ask"),
    ("echo '{\"tasks\":{\"ok\":\"rm z\"}}' > deno.json && deno task ok", "ask"),
]


def _project(root) -> None:
    (root / "deno.jsonc").write_text(CONFIG)
    (root / "package.json").write_text('{"scripts": {"lint": "echo lint", "prelint": "rm -f .cache", "show": "ls"}}')
    (root / "sub").mkdir(exist_ok=True)


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_tasks_meet_the_rules(world, command, expected):
    _project(world.project)
    ctx = make_ctx(world.project, allow=("Bash(deno:*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_workspace_members_with_recursive(world):
    (world.project / "deno.json").write_text('{"workspace": ["./pkgs/*"], "tasks": {"t": "echo root"}}')
    member = world.project / "pkgs" / "a"
    member.mkdir(parents=True)
    (member / "deno.json").write_text('{"tasks": {"t": "rm -rf out"}}')
    ctx = make_ctx(world.project, allow=("Bash(deno:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "deno task t")) == "allow"
    assert verdict_name(await decide_bash(ctx, "deno task -r t")) == "deny"
    assert verdict_name(await decide_bash(ctx, "cd pkgs/a && deno task t")) == "deny"


@pytest.mark.parametrize("text", ["{", '{"tasks": 3}', '{"tasks": {"x": 3}}', '{"tasks": {"x": {"dependencies": [1]}}}'])
async def test_a_config_not_read_asks(world, text):
    (world.project / "deno.json").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(deno:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "deno task x")) == "ask", text


def _deno() -> str | None:
    return shutil.which("deno", path=os.path.dirname(sys.executable)) or shutil.which("deno")


@pytest.mark.skipif(_deno() is None, reason="deno is not installed (it is in the test extras)")
def test_real_deno_runs_what_is_predicted(tmp_path):
    """A real deno task run, each command touching a file: every file touched is one the predicted
    commands touch, in the predicted folder, and everything predicted ran."""
    project, home = tmp_path / "p", tmp_path / "home"
    for folder in (project / "sub", home):
        folder.mkdir(parents=True)
    (project / "deno.jsonc").write_text("""\
// a comment
{
  "tasks": {
    "build": { "command": "touch by-build", "dependencies": ["gen", "lint"] },
    "gen": "touch by-gen",
    "w-1": "touch by-w1",
    "w-2": "touch by-w2",
    "unused": "touch by-unused",
  },
}
""")
    (project / "package.json").write_text(
        '{"scripts": {"lint": "touch by-lint", "prelint": "touch by-prelint", "postlint": "touch by-postlint"}}')
    env = dict(os.environ, HOME=str(home), DENO_NO_UPDATE_CHECK="1", DENO_DIR=str(home / "deno"))
    lines = ["deno task build", "deno task 'w-*' extra", "deno task --eval 'touch by-eval'"]
    predicted = set()
    for line in lines:
        for script in _READ(analyze(line).commands[0].innermost, str(project / "sub"), False):
            if script.missing:
                continue
            for command in (script.code or "").splitlines():
                parts = command.replace("'", "").split()
                if parts[:1] == ["touch"]:
                    predicted.update(os.path.relpath(os.path.join(script.cwd or "", w), project) for w in parts[1:])
        done = subprocess.run([_deno() or "", *shlex.split(line)[1:]], cwd=project / "sub", env=env,
                              capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
    touched = {str(p.relative_to(project)) for p in project.rglob("*") if p.is_file() and p.suffix not in (".json", ".jsonc")}
    assert touched <= predicted, (touched, predicted)
    assert {"by-build", "by-gen", "by-lint", "by-prelint", "by-postlint", "by-w1", "by-w2", "extra",
            "sub/by-eval"} <= touched, touched
    assert "by-unused" not in predicted
