"""Host paths handed to a container are reads: ``Bash(docker:*)`` allows docker, not reading a
file a ``Read`` deny rule covers or a folder outside the working directories through a mount.

``docker run -v .env:/x img``, ``--mount type=bind,source=.env,…``, ``docker build --secret
id=x,src=.env`` and ``--ssh default=KEY`` ran under ``Bash(docker:*)`` with ``Read(./.env)``
denied; a whole folder holding a denied file asks as ``tar cf - .`` does, and one outside the
working directories asks as ``cp /opt/x .`` does (soft: bypassPermissions and Read allow
rules lift it).  Named volumes (``-v data:/data``) are not paths.  (What a container writes to
a read-write mount is not checked here: see the README.)
"""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_copies import container_mounts
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("docker run -v .env:/x img", "deny"),
    ("docker run --volume=.env:/x:ro img", "deny"),
    ("docker run --mount type=bind,source=.env,target=/x img", "deny"),
    ("podman run --mount=type=bind,src=./.env,dst=/x img", "deny"),
    ("docker build --secret id=x,src=.env .", "deny"),
    ("docker buildx build --secret id=x,source=.env .", "deny"),
    ("docker build --ssh default=.env .", "deny"),
    ("docker run -v .:/w img ls", "ask"),  # the folder holds .env
    ("docker run -v.:/w img ls", "ask"),
    ("nerdctl run -v $PWD:/w img ls", "ask"),  # known only at run time, where a Read deny rule may apply
    ("docker build --build-context ctx=. .", "ask"),
    ("docker run -v /opt:/o img", "ask"),  # outside the working directories
    ("docker run -v ~/.ssh:/k img", "ask"),
    ("docker run -v ./src:/w img ls", "allow"),
    ("docker run -v data:/data img", "allow"),  # a named volume
    ("docker run -v /data img", "allow"),  # an anonymous volume
    ("docker build --secret id=x,env=TOKEN src", "allow"),  # (the context . holds .env: test_docker_context)
    ("docker run --rm img echo hi", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_mounts_are_reads(world, command, expected):
    (world.project / ".env").write_text("KEY=1\n")
    (world.project / "src").mkdir()
    ctx = make_ctx(world.project, allow=("Bash(docker:*)", "Bash(podman:*)", "Bash(nerdctl:*)"),
                   deny=("Read(./.env)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_outside_mounts_are_soft_asks(world):
    ctx = make_ctx(world.project, allow=("Bash(docker:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "docker run -v /opt:/o img")) == "allow"
    ctx = make_ctx(world.project, allow=("Bash(docker:*)", "Read(//opt/**)"))
    assert verdict_name(await decide_bash(ctx, "docker run -v /opt:/o img")) == "allow"


def test_container_mounts():
    def mounts(*words):
        return container_mounts([Word(w) for w in words])

    assert mounts("run", "-v", "/a:/b", "--volume=./c:/d:ro", "-v", "vol:/e", "-v/f:/g", "img") == ["/a", "./c", "/f"]
    assert mounts("run", "--mount", "type=bind,source=/h,target=/i", "--mount=type=volume,src=v,dst=/j") == ["/h", "v"]
    assert mounts("build", "--secret", "id=s,src=k.txt", "--ssh", "default=a,b", "--ssh", "default") == [
        "k.txt", "a", "b"]
    assert container_mounts([Word("-v"), Word("$PWD:/w", static=False)]) == [None]


async def test_compose_config_prints_the_env_file(world):
    """``docker compose config`` fills the project's ``.env`` into what it prints."""
    (world.project / ".env").write_text("KEY=1\n")
    denied = make_ctx(world.project, allow=("Bash(docker:*)", "Bash(docker-compose:*)"), deny=("Read(./.env)",))
    for command in ("docker compose config", "docker-compose config", "docker compose -f c.yml config"):
        assert verdict_name(await decide_bash(denied, command)) == "ask", command
    for command in ("docker compose up -d", "docker compose ps"):
        assert verdict_name(await decide_bash(denied, command)) == "allow", command
    plain = make_ctx(world.project, allow=("Bash(docker:*)",))
    assert verdict_name(await decide_bash(plain, "docker compose config")) == "allow"
