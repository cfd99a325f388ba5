"""hatch's environments: the commands ``hatch run``, ``test``, ``fmt``, ``check``, ``env run`` and
making an environment run meet the rules (session 36's probe).

With ``Bash(hatch:*)`` allowed and ``Bash(rm:*)`` denied, in bypassPermissions mode ``hatch run
test:rm x``, ``hatch run :rm x``, ``hatch run +py=3.12 rm x`` and ``hatch env run -e test -- rm x``
ran ``rm``; so did ``hatch test`` with ``[tool.hatch.envs.hatch-test.scripts] run = "rm …"``, an
environment's ``post-install-commands``, and a script of ``hatch.toml`` or of an environment's
template.  Now ``permissions/hatch_envs.py`` reads what hatch runs, checked against a real hatch.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.hatch_envs import hatch_scripts
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PYPROJECT = """\
[project]
name = "p"
version = "0"

[tool.hatch.envs.default]
skip-install = true
[tool.hatch.envs.default.scripts]
clean = "rm -rf dist {args}"
cov = ["- coverage erase", "pytest --cov"]
full = ["clean", "cov"]
show = "cat {args:README.md}"
peek = "cat {env:PEEK_AT:README.md}"
quoted = "echo '{args}'"

[tool.hatch.envs.docs]
skip-install = false
post-install-commands = ["rm -rf .cache"]
[tool.hatch.envs.docs.scripts]
build = "sphinx-build docs out"
wipe = "rm -rf out"

[tool.hatch.envs.lone]
detached = true
[tool.hatch.envs.lone.scripts]
ok = "echo lone"

[tool.hatch.envs.test]
[[tool.hatch.envs.test.matrix]]
v = ["a", "b"]
[tool.hatch.envs.test.scripts]
unit = "pytest -k {matrix:v}"

[tool.hatch.envs.hatch-test.scripts]
run = "rm -rf x {args}"

[tool.hatch.envs.hatch-static-analysis.extra-scripts]
lint-fix = "rm -f lint"
"""

ROWS = [
    ("hatch run clean", "deny"), ("hatch run full", "deny"), ("hatch run docs:wipe", "deny"),
    ("hatch -e docs run wipe", "deny"), ("HATCH_ENV=docs hatch run wipe", "deny"), ("hatch run test:clean", "deny"),
    ("hatch run test.a:clean", "deny"),  # an environment the matrix makes: the template's scripts
    ("hatch run test:rm x", "deny"), ("hatch run +v=a test:rm x", "deny"), ("hatch run :rm x", "deny"),
    ("hatch env run -e test -- rm x", "deny"), ("hatch env run -e test -e docs wipe", "deny"),
    ("hatch test", "deny"), ("hatch test -c tests/unit", "allow"),  # --cover runs run-cov, hatch's own
    ("hatch run show .env", "deny"), ("hatch run show", "allow"), ("hatch run show -- README.md", "allow"),
    ("PEEK_AT=x hatch run peek", "allow"),
    # hatch puts the words in as shell code, already quoted: echo ''$(rm x)'' runs rm
    ("hatch run quoted '$(rm x)'", "deny"), ("hatch run quoted 'a b'", "allow"),
    ("hatch run docs:build", "ask"),  # docs is made (not skip-install): its post-install rm may run
    ("hatch env create docs", "ask"), ("hatch shell docs", "ask"),
    ("hatch run cov", "allow"), ("hatch run lone:ok", "allow"), ("hatch run lone:clean", "allow"),  # detached
    ("hatch fmt", "allow"),  # extra-scripts do not replace hatch's own lint-fix
    ("hatch fmt --check", "allow"), ("hatch check", "allow"), ("hatch test -s", "allow"),
    ("hatch build", "allow"), ("hatch version", "allow"), ("hatch run missing", "allow"),
    ('hatch run "rm x"', "allow"),  # hatch quotes it: the shell looks for a program named "rm x"
    ("hatch -p other run cov", "ask"), ('hatch run "$X"', "ask"), ("hatch --frob run cov", "ask"),
    ('hatch -e "$E" run wipe', "ask"), ('HATCH_ENV="$E" hatch run cov', "ask"), ("HATCH_PROJECT=o hatch run cov", "ask"),
    ("timeout 60 hatch run clean", "deny"),
    ("echo '[tool.hatch.envs.default.scripts]' > pyproject.toml && hatch run x", "ask"),
]


def _project(root) -> None:
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "sub").mkdir(exist_ok=True)


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_environments_meet_the_rules(world, command, expected):
    _project(world.project)
    ctx = make_ctx(world.project, allow=("Bash(hatch:*)",), deny=("Bash(rm:*)", "Read(./.env)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_hatch_toml_tables_replace_pyprojects(world):
    (world.project / "pyproject.toml").write_text(PYPROJECT)
    (world.project / "hatch.toml").write_text("[envs.default.scripts]\ncov = 'rm -rf htmlcov'\n")
    ctx = make_ctx(world.project, allow=("Bash(hatch:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "hatch run cov")) == "deny"
    assert verdict_name(await decide_bash(ctx, "hatch run clean")) == "allow"  # hatch.toml's envs table is all
    assert verdict_name(await decide_bash(ctx, "hatch run docs:wipe")) == "allow"  # no docs environment now


async def test_without_a_pyproject_nothing_is_installed(world):
    (world.project / "hatch.toml").write_text("[envs.default]\npost-install-commands = ['rm -rf x']\n")
    ctx = make_ctx(world.project, allow=("Bash(hatch:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "hatch run echo hi")) == "allow"
    (world.project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    assert verdict_name(await decide_bash(ctx, "hatch run echo hi")) == "ask"  # may run: the env may be new


async def test_from_a_subfolder_commands_run_there(world):
    """hatch runs its commands in the current folder (not the project's, as pdm or poe do)."""
    (world.project / "sub").mkdir(exist_ok=True)
    (world.project / "pyproject.toml").write_text("[tool.hatch.envs.default.scripts]\nshow = 'cat .env'\n")
    ctx = make_ctx(world.project, allow=("Bash(hatch:*)",), deny=("Read(./sub/.env)",))
    assert verdict_name(await decide_bash(ctx, "hatch run show")) == "allow"
    assert verdict_name(await decide_bash(ctx, "cd sub && hatch run show")) == "deny"


@pytest.mark.parametrize("text", [
    "[tool.hatch.envs.default.scripts\n", "[tool.hatch]\nenvs = 3\n", "[tool.hatch.envs.default.scripts]\nx = 3\n",
    "[tool.hatch.envs.default]\ntemplate = 'nosuch'\n", "[tool.hatch.envs.a]\ntemplate = 'b'\n[tool.hatch.envs.b]\n"
    "template = 'a'\n", "[tool.hatch.envs.default.scripts]\nx = 'x'\n", "[tool.hatch.envs.default.scripts]\n"
    "x = 'awk \"{print $1}\" f'\n", "[tool.hatch.envs.default.overrides]\nmatrix.v.scripts = {x = 'rm y'}\n",
])
async def test_what_cannot_be_read_asks(world, text):
    (world.project / "pyproject.toml").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(hatch:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "hatch run x")) == "ask", text


def _hatch() -> str | None:
    return shutil.which("hatch", path=os.path.dirname(sys.executable)) or shutil.which("hatch")


_BACKEND = '''\
import base64, hashlib, os, zipfile
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "p-0-py3-none-any.whl"
    files = {"p-0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: p\\nVersion: 0\\n",
             "p-0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(text.encode())}")
        z.writestr("p-0.dist-info/RECORD", "\\n".join(record + ["p-0.dist-info/RECORD,,"]) + "\\n")
    return name
'''
_REAL = """\
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[project]
name = "p"
version = "0"

[tool.hatch.envs.default]
dev-mode = false
pre-install-commands = ["touch by-pre"]
post-install-commands = ["mk {args:post-default}"]
[tool.hatch.envs.default.scripts]
mk = "touch by-mk {args}"
two = ["mk one", "- false", "touch by-two-{env:HX_SUFFIX:plain}"]
dflt = "touch {args:by-dflt}"
unused = "touch by-unused"

[tool.hatch.envs.t]
skip-install = true
template = "default"
[[tool.hatch.envs.t.matrix]]
v = ["a", "b"]
[tool.hatch.envs.t.scripts]
mine = "touch by-t-{matrix:v}"

[tool.hatch.envs.solo]
detached = true
[tool.hatch.envs.solo.scripts]
mk = "touch by-solo"

[tool.hatch.envs.hatch-test]
skip-install = true
dependencies = []
[tool.hatch.envs.hatch-test.scripts]
run = "touch by-test {args}"
"""


@pytest.mark.skipif(_hatch() is None, reason="hatch is not installed (it is in the test extras)")
def test_real_hatch_runs_what_is_predicted(tmp_path):
    """Real hatch runs from a subfolder, each command touching a file: every file touched is one the
    predicted commands touch (in the predicted folder), and everything predicted to run for sure ran.
    The first line makes the default environment: its install commands, which only *may* run, ran."""
    project, home = tmp_path / "p", tmp_path / "home"
    for folder in (project / "sub", home):
        folder.mkdir(parents=True)
    (project / "pyproject.toml").write_text(_REAL)
    (project / "backend.py").write_text(_BACKEND)
    env = dict(os.environ, HOME=str(home), HATCH_DATA_DIR=str(home / "data"), HATCH_CACHE_DIR=str(home / "cache"),
               PIP_NO_INDEX="1", HX_SUFFIX="sfx", PYTHONDONTWRITEBYTECODE="1")
    env.pop("HATCH_ENV", None)
    lines = ["hatch run mk a1", "hatch run two", "hatch run dflt", "hatch run t:mine", "hatch run t.b:mk b2",
             "hatch run solo:mk", "hatch run :touch by-system", "hatch env run -e solo -- mk", "hatch test",
             "hatch test x1", "hatch run touch 'by-cmd'"]
    predicted: set[str] = set()
    certain: set[str] = set()
    os.environ["HX_SUFFIX"] = "sfx"  # {env:…} reads the kernel's variables, which the shell inherits
    try:
        for line in lines:
            info = analyze(line).commands[0]
            for script in hatch_scripts(info, [str(project / "sub")], {}):
                if script.missing:
                    continue
                assert script.path is not None or script.code is not None, (line, script)
                for command in (script.code or "").splitlines():
                    words = command.replace("'", "").replace('"', "").split()
                    if words[:1] == ["touch"]:
                        made = {os.path.relpath(os.path.join(script.cwd or "", w), project) for w in words[1:]}
                        predicted |= made
                        if script.certain:
                            certain |= made
            done = subprocess.run([_hatch() or "", *shlex.split(line)[1:]], cwd=project / "sub", env=env,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
    finally:
        os.environ.pop("HX_SUFFIX", None)
    touched = {str(p.relative_to(project)) for p in project.rglob("*")
               if p.is_file() and p.name not in ("pyproject.toml", "backend.py") and "__pycache__" not in p.parts}
    # a word only known at run time ({matrix:v}) stands for any text
    def matches(path: str, patterns: set[str]) -> bool:
        return any(fnmatch.fnmatchcase(path, p.replace("${HATCH_VALUE}", "*")) for p in patterns)
    assert all(matches(path, predicted) for path in touched), (touched, predicted)
    assert all(matches(path, certain) or any(matches(path, {p}) for p in certain) for path in touched
               if matches(path, certain)), certain
    assert all(any(fnmatch.fnmatchcase(t, p.replace("${HATCH_VALUE}", "*")) for t in touched) for p in certain), \
        (certain, touched)
    assert {"sub/by-pre", "sub/by-mk", "sub/post-default", "sub/a1", "sub/by-two-sfx", "sub/one", "sub/by-dflt",
            "sub/by-t-a", "sub/by-t-b", "sub/b2", "sub/by-solo", "sub/by-system", "sub/by-test", "sub/tests",
            "sub/x1", "sub/by-cmd"} <= touched, touched
    assert "sub/by-unused" not in predicted
