"""Programs that load a ``.env`` no word of the line names (session 30's probe).

With ``Read(./.env)`` in deny and a rule allowing the program, each of these ran: ``dotenv list``
and ``dotenvx get KEY`` print the file's values; ``pipenv run env``, ``honcho run env``, ``bun
run env`` hand them to a command that prints them.  Printing is a read of the file (denied, as
``cat .env``); handing them over asks.
"""

from __future__ import annotations

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
