"""Python task runners' tasks meet the rules (session 31's probe).

With ``Bash(rm:*)`` in deny, in bypassPermissions mode ``pdm run clean``, ``hatch run clean`` and
``poe clean`` ran ``rm -rf build`` from ``pyproject.toml`` (``rye run clean`` too, session 34).  Now their tasks' commands are checked
as commands of the line, in the project's folder (``permissions/pyproject_scripts.py``).
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PYPROJECT = """\
[project]
name = "p"

[tool.pdm.scripts]
clean = "rm -rf build"
show = "cat"
serve = {cmd = "flask run", env_file = ".env"}
lint = {shell = "ruff check . && cat .env"}
test = {cmd = ["pytest", "-q"]}
all = {composite = ["clean", "test"]}
pre_release = "rm -f dist/old.whl"
release = "twine upload dist/*"
call = {call = "pkg:main"}
quoted = "echo 'rm -rf x'"
post_install = "rm -rf .tmp-cache"

[tool.hatch.envs.default.scripts]
clean = "rm -rf dist {args}"
cov = ["- coverage erase", "pytest --cov"]
full = ["clean", "cov"]

[tool.hatch.envs.docs.scripts]
build = "sphinx-build docs out"
wipe = "rm -rf out"

[tool.poe.tasks]
clean = "rm -rf out"
sh = {shell = "echo hi; rm -f x"}
seq = ["lint", {ref = "sh"}]
seq2 = ["lint", "clean"]  # strings in a sequence name tasks
seq3 = {sequence = ["ls", "rm -f y"], default_item_type = "cmd"}
lint = "ruff check ."
py = {script = "pkg:main"}
view = "cat"
app = {cmd = "uvicorn app:app", envfile = ".env"}
sw = {switch = [{run = "rm x"}]}
withdeps = {cmd = "pytest", deps = ["clean"]}

[tool.rye.scripts]
clean = "rm -rf build"
safe = ["echo", "hi"]
all = { chain = ["safe", "clean"] }
peek = { cmd = "ls", env-file = ".env" }
show = "cat"
fn = { call = "pkg:main" }
odd = { chain = "clean" }
"""

ROWS = [
    ("pdm run clean", "deny"), ("pdm run lint", "deny"), ("pdm run all", "deny"), ("pdm run release", "deny"),
    ("hatch run clean", "deny"), ("hatch run full", "deny"), ("hatch run docs:wipe", "deny"),
    ("poe clean", "deny"), ("poe sh", "deny"), ("poe seq", "deny"), ("poe seq2", "deny"), ("poe seq3", "deny"), ("poe withdeps", "deny"),
    ("uv run poe clean", "deny"), ("cd sub && pdm run clean", "deny"), ("pdm run -v clean", "deny"),
    ("pdm clean", "deny"), ("pdm install", "deny"), ("pdm sync", "deny"), ("pdm add x", "deny"),
    ("pdm run show .env", "deny"), ("pdm run show -- .env", "deny"), ("poe view .env", "deny"),
    ("pdm run serve", "deny"), ("poe app", "deny"),  # they load .env, as source .env does
    ("poe sw", "ask"), ('poe "$T"', "ask"), ("pdm -p other run clean", "ask"), ("hatch -e docs run wipe", "deny"),
    ("echo x >> pyproject.toml && poe lint", "ask"),
    ("pdm run test", "allow"), ("pdm run call", "allow"), ("pdm run pytest", "allow"), ("pdm run quoted", "allow"), ("pdm run show notes.txt", "allow"),
    ("hatch run cov", "allow"), ("hatch run docs:build", "allow"), ("poe lint", "allow"), ("poe py", "allow"),
    ("pdm lock", "allow"), ("pdm list", "allow"), ("poe", "allow"), ("hatch run missing", "allow"),
    ("rye run clean", "deny"), ("rye run all", "deny"), ("rye run peek", "deny"), ("rye run show .env", "deny"),
    ("rye run -v clean", "deny"), ("rye run safe x", "allow"), ("rye run fn", "allow"), ("rye run python -c 1", "allow"),
    ("rye sync", "allow"), ("rye run --pyproject o/pyproject.toml clean", "ask"), ("rye run odd", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_tasks_meet_the_rules(world, command, expected):
    (world.project / "pyproject.toml").write_text(PYPROJECT)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_a_broken_pyproject_is_not_known(world):
    (world.project / "pyproject.toml").write_text("[tool.poe.tasks\nclean = 'rm x'\n")
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "poe clean")) == "ask"


async def test_hatch_toml_is_read_too(world):
    """(Session 36: hatch.toml, which asked before, is read; more in test_hatch_envs.py.)"""
    (world.project / "pyproject.toml").write_text(PYPROJECT)
    (world.project / "hatch.toml").write_text("[envs.default.scripts]\nwipe = 'rm -rf x'\n")
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "hatch run wipe")) == "deny"
    assert verdict_name(await decide_bash(ctx, "hatch run cov")) == "allow"  # its envs table replaced pyproject's


async def test_without_deny_rules_they_run(world):
    (world.project / "pyproject.toml").write_text(PYPROJECT)
    ctx = make_ctx(world.project, allow=("Bash(pdm:*)", "Bash(poe:*)", "Bash(hatch:*)"))
    for command in ("pdm run clean", "poe sw", "hatch run full"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


PDM_DIRS = """\
[project]
name = "p"
[tool.pdm.scripts]
clean = "rm -rf build"
peek = {shell = "cat .env", working_dir = "sub"}
peek2 = {cmd = "cat .env"}
both = {composite = ["peek2"], working_dir = "sub"}
"""


@pytest.mark.parametrize(("command", "expected"), [
    # session 36: pdm run's options that take a value took it for the script's name (rm ran)
    ("pdm run --working-dir sub clean", "deny"), ("pdm run --env-file .env clean", "deny"),
    ("pdm run -k post_run clean", "deny"), ("pdm -v run clean", "deny"), ("pdm run -vv clean", "deny"),
    ("pdm run --frob clean", "ask"), ("pdm run --working-dir \"$D\" clean", "ask"), ("pdm run -l", "allow"),
    # where the script runs: its working_dir, a composite's over its items', or --working-dir
    ("pdm run peek", "deny"), ("pdm run peek2", "allow"), ("pdm run both", "deny"),
    ("pdm run --working-dir sub peek2", "deny"),
    ("pdm run --env-file sub/.env peek2", "deny"), ("pdm run --env-file .env peek2", "allow"),
])
async def test_pdm_options_and_working_dirs(world, command, expected):
    (world.project / "pyproject.toml").write_text(PDM_DIRS)
    (world.project / "sub").mkdir(exist_ok=True)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(./sub/.env)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    ("poe peek", "deny"), ("poe peek2", "allow"), ("poe seq", "deny"), ("poe seqsub", "deny"), ("poe pwd", "ask"),
])
async def test_poe_tasks_run_in_their_cwd(world, command, expected):
    """(Session 36) a poe task's ``cwd``, or its sequence's, is where its commands run."""
    (world.project / "pyproject.toml").write_text("""\
[tool.poe.tasks]
peek = {cmd = "cat .env", cwd = "sub"}
peek2 = "cat .env"
seq = {sequence = ["peek2"], cwd = "sub"}
seqsub = {sequence = [{shell = "cat .env"}], cwd = "sub"}
pwd = {cmd = "cat .env", cwd = "${POE_PWD}"}
""")
    (world.project / "sub").mkdir(exist_ok=True)
    ctx = make_ctx(world.project, deny=("Read(./sub/.env)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)
