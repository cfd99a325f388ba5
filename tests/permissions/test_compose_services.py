"""docker compose up/run starts services whose command: meets the rules (session 36's probe).

``docker run IMG rm x`` was held to a ``Bash(rm:*)`` deny rule, but with ``Bash(docker:*)`` allowed,
in bypassPermissions mode, ``docker compose up`` started a service whose ``command:`` in
``compose.yaml`` is ``rm -rf /data``.  Now the commands of the services it starts
(``permissions/compose_services.py``) are checked as commands of the line.  No compose binary can
be installed here: these rows follow Compose v2's documentation.
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

COMPOSE = """\
services:
  app:
    image: x
    command: rm -rf /data
    depends_on: [db]
  db:
    image: postgres
    entrypoint: ["sh", "-c"]
    command: ["echo ok"]
  web:
    image: x
    command: ["python", "-m", "http.server"]
    depends_on:
      worker:
        condition: service_started
  worker:
    image: x
    command: "echo $$HOME ${SECRET}"
  dbg:
    image: x
    profiles: [debug]
    command: rm -f /tmp/x
  shell:
    image: x
    entrypoint: ["sh", "-c"]
    command: ["rm -rf /cache"]
"""

ROWS = [
    ("docker compose up", "deny"), ("docker compose up -d app", "deny"), ("docker compose run app", "deny"),
    ("docker compose start app", "deny"), ("docker compose restart app", "deny"), ("docker compose create app", "deny"),
    ("docker compose up dbg", "deny"),  # named: its profile does not matter
    ("docker compose up shell", "deny"),  # the entrypoint sh -c runs the command as shell code
    ("docker-compose up app", "deny"), ("podman compose up app", "deny"), ("docker -H tcp://h compose up app", "deny"),
    ("docker compose -f compose.yaml up app", "deny"), ("cd sub && docker compose up app", "deny"),  # found upwards
    ("docker compose run web rm x", "deny"),  # the command given (bash_runner_table)
    ("docker compose up web", "allow"), ("docker compose up db", "allow"), ("docker compose run web", "allow"),
    ("docker compose run --no-deps web", "allow"), ("docker compose --profile debug up web", "allow"),
    ("docker compose --dry-run up", "allow"), ("docker compose up --no-start", "allow"),
    ("docker compose ps", "allow"), ("docker compose down", "allow"), ("docker compose logs app", "allow"),
    ("docker ps", "allow"), ("docker run img", "allow"), ("docker --version", "allow"),
    ("docker compose up --frob", "ask"), ('docker compose up "$S"', "ask"), ("COMPOSE_FILE=x.yml docker compose up", "ask"),
    ("docker compose -f - up", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_services_meet_the_rules(world, command, expected):
    (world.project / "compose.yaml").write_text(COMPOSE)
    (world.project / "sub").mkdir(exist_ok=True)
    ctx = make_ctx(world.project, allow=("Bash(docker:*)", "Bash(docker-compose:*)", "Bash(podman:*)"),
                   deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_the_override_file_is_merged_over(world):
    (world.project / "compose.yaml").write_text(COMPOSE)
    (world.project / "compose.override.yaml").write_text("services:\n  web:\n    command: rm -rf /srv\n")
    ctx = make_ctx(world.project, allow=("Bash(docker:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "docker compose up web")) == "deny"
    assert verdict_name(await decide_bash(ctx, "docker compose -f compose.yaml up web")) == "allow"  # -f: no override


@pytest.mark.parametrize("text", ["services: [\n", "services: 3\n", "services:\n  a: 3\n",
                                  "include: [other.yaml]\nservices: {}\n",
                                  "services:\n  a:\n    extends: {service: b}\n",
                                  "services:\n  a:\n    command: \"echo 'x\"\n", "services:\n  a:\n    command: {x: 1}\n"])
async def test_a_file_not_read_asks(world, text):
    (world.project / "compose.yaml").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(docker:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "docker compose up a")) == "ask", text
