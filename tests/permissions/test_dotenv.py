"""Programs that load a ``.env`` no word of the line names (session 30's probe).

With ``Read(./.env)`` in deny and a rule allowing the program, each of these ran: ``dotenv list``
and ``dotenvx get KEY`` print the file's values; ``pipenv run env``, ``honcho run env``, ``bun
run env`` hand them to a command that prints them.  Printing is a read of the file (denied, as
``cat .env``); handing them over asks.
"""

from __future__ import annotations

import os

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    # printed: a read of the file
    ("dotenv list", "deny"), ("dotenv get KEY", "deny"), ("dotenv -f .env list", "deny"),
    ("dotenv --file=.env get KEY", "deny"), ("python -m dotenv list", "deny"), ("dotenvx get KEY", "deny"),
    ("dotenvx get KEY -f .env", "deny"), ("dotenvx decrypt --stdout", "deny"), ("uv run dotenv list", "deny"),
    ("dotenv -f prod.env list", "deny"), ("dotenvx get -f ok.env,prod.env", "deny"),
    # handed to what they run
    ("dotenv run -- env", "ask"), ("dotenv run printenv", "ask"), ("dotenv -e .env -- env", "ask"),
    ("dotenvx run -- env", "ask"), ("pipenv run env", "ask"), ("pipenv shell", "ask"), ("honcho run env", "ask"),
    ("honcho -e ok.env,prod.env run env", "ask"), ("foreman run env", "ask"), ("flask run", "ask"),
    ("bun run env", "ask"), ("bun x.ts", "ask"), ("bun test", "ask"), ("bun --env-file=.env x.ts", "ask"),
    ("deno run --env-file x.ts", "ask"), ("deno run --env-file=prod.env x.ts", "ask"), ("heroku local", "ask"),
    ("cd sub && pipenv run env", "ask"), ("dotenv -f \"$F\" run env", "ask"),
    # nothing loaded, or a file no rule closes
    ("dotenv -f ok.env list", "allow"), ("dotenv -f ok.env run -- env", "allow"), ("dotenv set K V -f ok.env", "allow"),
    ("bun install", "allow"), ("bun add x", "allow"), ("bun --no-env-file x.ts", "allow"), ("deno run x.ts", "allow"),
    ("pipenv install x", "allow"), ("honcho --no-env run env", "allow"), ("honcho -e ok.env run env", "allow"),
    ("heroku apps", "allow"), ("dotenv --help", "allow"), ("dotenv run -f ok.env -- env", "allow"),
]
PROGRAMS = ("dotenv", "dotenvx", "pipenv", "honcho", "foreman", "flask", "bun", "deno", "heroku", "python", "uv", "cd")


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_a_dotenv_file_loaded_unnamed_is_checked(world, command, expected):
    for name in ("prod.env", "ok.env", "Pipfile"):
        (world.project / name).write_text("K=1\n")
    ctx = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in PROGRAMS),
                   deny=("Read(./.env)", "Read(./prod.env)"))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize("command", [c for c, _ in ROWS if c != "pipenv shell"])  # a shell reading stdin asks
async def test_without_a_read_rule_they_run(world, command):
    ctx = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in PROGRAMS))
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_bypass_mode_still_asks_before_handing_the_values_over(world):
    ctx = make_ctx(world.project, deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "pipenv run env")) == "ask"
    assert verdict_name(await decide_bash(ctx, "dotenv list")) == "deny"


# Session 50: library calls read .env though no string of the code names it; under Read(./.env)
# these printed it in bypassPermissions (`python -c` under Bash(*), a script, a NotebookExecute cell).
LIBRARY_LOADS = [
    "from dotenv import load_dotenv; load_dotenv(); import os; print(os.environ['K'])",
    "import dotenv; print(dotenv.dotenv_values())", "import decouple; print(decouple.config('K'))",
    "from environs import Env; env = Env(); env.read_env()", "import environ; environ.Env.read_env()",
]


@pytest.mark.parametrize("code", LIBRARY_LOADS)
async def test_dotenv_library_calls_count_as_naming_the_file(world, code):
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, f'python -c "{code}"')) == "ask", code
    (world.project / "app.py").write_text(code.replace("; ", "\n") + "\n")
    assert verdict_name(await decide_bash(ctx, "python app.py")) == "ask", code
    (world.project / "sub").mkdir(exist_ok=True)  # found upwards from a folder below
    assert verdict_name(await decide_bash(ctx, f'cd sub && python -c "{code}"')) == "ask", code
    plain = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(plain, f'python -c "{code}"')) == "allow", code


@pytest.mark.parametrize(("command", "expected"), [
    ("node -r dotenv/config x.js", "ask"), ("node --require=dotenv/config x.js", "ask"),
    ("node --import dotenv/config x.mjs", "ask"), ("tsx -r dotenv/config x.ts", "ask"),
    ("node x.js -r dotenv/config", "allow"), ("node -r ts-node/register x.js", "allow"),
    ("node -e 'require(\"dotenv\").config({quiet: true})'", "ask"),
])
async def test_node_preloading_dotenv_loads_the_file(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_real_python_dotenv_reads_the_file_no_string_names(world):
    """Ground truth: load_dotenv() with no argument finds ./.env (and from a folder below)."""
    import subprocess
    import sys

    pytest.importorskip("dotenv")
    (world.project / ".env").write_text("K=from-dotenv\n")
    (world.project / "sub").mkdir(exist_ok=True)
    code = "from dotenv import load_dotenv; load_dotenv(); import os; print(os.environ.get('K'))"
    for folder in (world.project, world.project / "sub"):
        done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=60,
                              env={k: v for k, v in os.environ.items() if k != "K"})
        assert done.stdout.strip() == "from-dotenv", (folder, done.stderr)
