"""pipenv run NAME runs the Pipfile's [scripts]: their commands meet the rules (session 36's probe).

With ``Bash(pipenv:*)`` allowed and ``Bash(rm:*)`` denied, in bypassPermissions mode ``pipenv run
clean`` ran the ``rm -rf build`` of the Pipfile's ``clean`` script.  Now the commands of the script
(``permissions/pipenv_scripts.py``) are checked as commands of the line, in the current folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.pipenv_scripts import _READ
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PIPFILE = """\
[scripts]
clean = "rm -rf build"
peek = "cat"
seq = ["echo one", "cat"]
envd = "FOO='a b' rm -f x"
call = {call = "pkg:main"}
odd = {shell = "rm x"}
quoted = "echo 'rm x'"
home = "cat $SECRET_FILE"
"""

ROWS = [
    ("pipenv run clean", "deny"), ("pipenv run peek secret.txt", "deny"), ("pipenv run seq secret.txt", "deny"),
    ("pipenv run envd", "deny"), ("pipenv run --system clean", "deny"), ("pipenv run -v clean", "deny"),
    ("pipenv run --python 3.12 clean", "deny"), ("cd sub/a && pipenv run clean", "deny"),  # Pipfile found upwards
    ("timeout 60 pipenv run clean", "deny"),
    ("pipenv run peek README.md", "allow"), ("pipenv run seq", "allow"), ("pipenv run call", "allow"),
    ("pipenv run quoted", "allow"), ("pipenv run missing", "allow"), ("pipenv install", "allow"),
    ("pipenv run home", "ask"),  # $SECRET_FILE: only known at run time, and Read(./secret.txt) is denied
    ("pipenv run odd", "ask"), ("pipenv run --frob clean", "ask"), ('pipenv run "$S"', "ask"),
    ("PIPENV_PIPFILE=o/Pipfile pipenv run clean", "ask"),
    ("echo '[scripts]' > sub/a/Pipfile && cd sub/a && pipenv run clean", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_scripts_meet_the_rules(world, command, expected):
    (world.project / "Pipfile").write_text(PIPFILE)
    (world.project / "sub" / "a").mkdir(parents=True, exist_ok=True)
    ctx = make_ctx(world.project, allow=("Bash(pipenv:*)",), deny=("Bash(rm:*)", "Read(./secret.txt)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize("text", ["[scripts\n", "scripts = 3\n", "[scripts]\nx = 3\n", "[scripts]\nx = \"a 'b\"\n",
                                  "[scripts]\nx = []\n", "[scripts]\nx = {call = 'nomodule'}\n"])
async def test_a_pipfile_not_read_asks(world, text):
    (world.project / "Pipfile").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(pipenv:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "pipenv run x")) == "ask", text


def _pipenv() -> str | None:
    return shutil.which("pipenv", path=os.path.dirname(sys.executable)) or shutil.which("pipenv")


@pytest.mark.skipif(_pipenv() is None, reason="pipenv is not installed (it is in the test extras)")
def test_real_pipenv_runs_what_is_predicted(tmp_path):
    """A real pipenv run from a subfolder, each command touching a file: every file touched is one
    the predicted commands touch, in the predicted folder, and everything predicted ran."""
    project, home = tmp_path / "p", tmp_path / "home"
    for folder in (project / "sub", home):
        folder.mkdir(parents=True)
    (project / "Pipfile").write_text("""\
[scripts]
mk = "touch by-mk"
seq = ["touch by-s1", "touch by-s2"]
envd = "X=1 touch by-envd"
args = "touch"
unused = "touch by-unused"
""")
    env = dict(os.environ, HOME=str(home), PIPENV_YES="1", PIPENV_NOSPIN="1", PIP_NO_INDEX="1",
               PIPENV_IGNORE_VIRTUALENVS="1", PIPENV_VERBOSITY="-1")
    for name in ("PIPENV_PIPFILE", "VIRTUAL_ENV", "PIPENV_ACTIVE"):
        env.pop(name, None)
    lines = ["pipenv run mk", "pipenv run seq s3", "pipenv run envd", "pipenv run args by-a1 by-a2"]
    predicted: set[str] = set()
    for line in lines:
        for script in _READ(analyze(line).commands[0].innermost, str(project / "sub"), False):
            if script.missing:
                continue
            for command in (script.code or "").splitlines():
                words = shlex.split(command)
                while words and "=" in words[0]:
                    words.pop(0)
                if words[:1] == ["touch"]:
                    predicted.update(os.path.relpath(os.path.join(script.cwd or "", w), project) for w in words[1:])
        done = subprocess.run([_pipenv() or "", *shlex.split(line)[1:]], cwd=project / "sub", env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
    touched = {str(p.relative_to(project)) for p in project.rglob("*") if p.is_file() and p.name != "Pipfile"}
    assert touched == predicted, (touched, predicted)
    assert {"sub/by-mk", "sub/by-s1", "sub/by-s2", "sub/s3", "sub/by-envd", "sub/by-a1", "sub/by-a2"} == touched
