"""tox runs the ``commands`` of its configuration: they meet the rules (session 32's probe).

With ``Bash(tox:*)`` allowed and ``Bash(rm:*)`` denied, ``tox -e clean`` ran ``[testenv:clean]``'s
``rm -rf build``.  Now the lines of the environments tox runs (``permissions/tox_commands.py``)
are checked as commands of the line, in their ``change_dir``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.tox_commands import _of_form
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

TOX_INI = """\
[tox]
env_list = py312, lint

[testenv]
deps = pytest
commands_pre = python -c "print('pre')"
commands = pytest {posargs:tests}

[testenv:lint]
commands =
    ruff check src
    py312: rm -rf lint-cache

[testenv:clean]
skip_install = true
commands = rm -rf build

[testenv:peek]
commands = cat {toxinidir}/.env

[testenv:docs]
change_dir = docs
commands = {[testenv:clean]commands}

[testenv:post]
commands = pytest
commands_post =
    - rm -f .coverage

[testenv:cont]
commands = echo one \\
    two
"""

ROWS = [
    ("tox -e clean", "deny"), ("tox r -e clean", "deny"), ("tox run -e lint,clean", "deny"),
    ("tox -e lint", "deny"),  # a factor-conditional line counts for every environment
    ("tox -e peek", "deny"), ("tox -e docs", "deny"), ("tox -e post", "deny"), ("tox -e cont", "allow"),
    ("tox", "deny"), ("tox -e ALL", "deny"), ("tox p", "deny"),  # every environment of the file
    ("tox -e py312", "allow"), ("tox -e py312 -- -x tests/unit", "allow"), ("tox -e py312 -- .env", "ask"),
    ("cd sub && tox -e clean", "deny"),  # tox.ini found upwards
    ("uvx tox -e clean", "deny"), ("tox -c other.ini -e clean", "allow"), ("tox -c missing.ini", "allow"),
    ("tox list", "allow"), ("tox --version", "allow"), ("tox -e clean --notest", "allow"),
    ('tox -e "$E"', "ask"), ("tox -x testenv.commands=rm -e py312", "ask"),
    ("echo x >> tox.ini && tox -e py312", "ask"),
    ("cd docs && printf '[testenv:x]\\ncommands = ls\\n' > tox.ini && tox -e x", "ask"),  # made first: read then
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_tox_commands_meet_the_rules(world, command, expected):
    (world.project / "tox.ini").write_text(TOX_INI)
    (world.project / "other.ini").write_text("[testenv:clean]\ncommands = ls\n")
    ctx = make_ctx(world.project, allow=("Bash(tox:*)", "Bash(uvx:*)"), deny=("Bash(rm:*)", "Read(./.env)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize(("name", "text"), [
    ("setup.cfg", "[metadata]\nname = x\n[tox:tox]\nenv_list = clean\n[tox:testenv:clean]\ncommands = rm -rf b\n"),
    ("pyproject.toml", '[tool.tox]\nlegacy_tox_ini = """\n[testenv:clean]\ncommands = rm -rf b\n"""\n'),
])
async def test_other_configuration_files(world, name, text):
    (world.project / name).write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(tox:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "tox -e clean")) == "deny"


@pytest.mark.parametrize("text", ['[tool.tox]\nenv_list = ["a"]\n', "[testenv\ncommands = x\n"])
async def test_configuration_not_read_asks(world, text):
    name = "pyproject.toml" if text.startswith("[tool") else "tox.ini"
    (world.project / name).write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(tox:*)",), deny=("Bash(rm:*)",))
    verdict = await decide_bash(ctx, "tox -e a")
    assert verdict_name(verdict) == "ask", verdict
    # without deny or ask rules, what runs is what the rule allowing tox allows
    assert verdict_name(await decide_bash(make_ctx(world.project, allow=("Bash(tox:*)",)), "tox -e a")) == "allow"


@pytest.mark.skipif(shutil.which("tox", path=os.path.dirname(sys.executable)) is None, reason="tox is not installed")
def test_real_tox_runs_what_is_predicted(tmp_path):
    """A real tox run, each command touching a file: every file it touched is one the predicted
    commands touch, in the predicted folder."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "tox.ini").write_text(
        "[tox]\nenv_list = lint\nskipsdist = true\n\n[testenv]\nskip_install = true\nallowlist_externals = touch\n"
        "commands_pre = touch pre-{envname}\ncommands = touch base {posargs:dflt}\n\n[testenv:lint]\n"
        "change_dir = other\ncommands =\n    touch lint-{envname} \\\n      continued\n"
        "commands_post = - touch post-{env_name}\n")
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
           "TOX_WORK_DIR": str(tmp_path / ".tox")}
    for name in ("TOXENV", "TOX_ENV", "TOX_OVERRIDE"):
        env.pop(name, None)
    for command in (["tox", "-e", "lint,py", "--", "given"], ["tox"]):
        done = subprocess.run(command, cwd=tmp_path / "sub", env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    touched = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()
               and ".tox" not in p.parts and p.name != "tox.ini"}
    predicted = set()
    for command in ("tox -e lint,py -- given", "tox"):
        for script in _of_form(analyze(command).commands[0].innermost, str(tmp_path / "sub"), False):
            for line in (script.code or "").splitlines():
                for word in line.split()[1:]:
                    predicted.add(os.path.relpath(os.path.join(script.cwd or "", word), tmp_path))
    assert touched and touched <= predicted, (touched, predicted)
    assert {"other/lint-lint", "other/continued", "other/pre-lint", "given", "pre-py", "base"} <= touched
