"""``docker build`` sends its context to the image builder (``docker_context.py``): a file in it
a ``Read`` deny rule covers asks unless ``.dockerignore`` leaves it out (``COPY . .`` then
``docker run img cat .env`` printed the denied file under ``Bash(docker:*)``).  The
``.dockerignore`` matcher follows Docker's documented rules (no Docker daemon here to run)."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.docker_context import build_context, ignored, parse_dockerignore
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


@pytest.mark.parametrize(("lines", "path", "left_out"), [
    ("*/temp*", "somedir/temporary.txt", True), ("*/temp*", "somedir/temp", True), ("*/temp*", "temp.txt", False),
    ("*/*/temp*", "a/b/temp.x", True), ("*/*/temp*", "a/temp.x", False),
    ("temp?", "tempa", True), ("temp?", "temp", False),
    ("**/*.go", "main.go", True), ("**/*.go", "a/b/c.go", True),
    ("*.md\n!README*.md\nREADME-secret.md", "README.md", False),
    ("*.md\n!README*.md\nREADME-secret.md", "README-secret.md", True),
    ("*.md\n!README*.md\nREADME-secret.md", "notes.md", True),
    ("secrets", "secrets/key.pem", True), ("secrets/", "secrets/key.pem", True), ("/.env", ".env", True),
    ("*.env", "sub/x.env", False),  # * stays within one name, from the root
    ("**/.env", "sub/.env", True), (".env\n!.env", ".env", False), ("# .env", ".env", False),
    ("[a-c].txt", "b.txt", True), ("[^a].txt", "b.txt", True), ("[^a].txt", "a.txt", False),
    ("[!a].txt", "a.txt", True),  # Go: only ^ negates, ! is a character of the class
])
def test_dockerignore(lines, path, left_out):
    assert ignored(path, parse_dockerignore(lines)) is left_out


def _project(world, dockerignore=None):
    (world.project / ".env").write_text("KEY=1\n")
    (world.project / "src").mkdir()
    (world.project / "src" / "app.py").write_text("print(1)\n")
    (world.project / "Dockerfile").write_text("FROM python\nCOPY . .\n")
    if dockerignore is not None:
        (world.project / ".dockerignore").write_text(dockerignore)
    return make_ctx(world.project, allow=("Bash(docker:*)",), deny=("Read(./.env)",))


@pytest.mark.parametrize(("dockerignore", "expected"), [
    (None, "ask"), (".env\n", "allow"), ("**/.env\n", "allow"), ("*\n!src\n", "allow"), ("*\n!.env\n", "ask"),
    ("secrets/\n", "ask"),
])
async def test_a_build_context_holding_a_denied_file(world, dockerignore, expected):
    ctx = _project(world, dockerignore)
    for command in ("docker build -t app .", "docker buildx build --load -t app ."):
        assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_other_contexts(world):
    ctx = _project(world)
    assert verdict_name(await decide_bash(ctx, "docker build -t app src")) == "allow"
    assert verdict_name(await decide_bash(ctx, "docker build -t app $DIR")) == "ask"
    assert verdict_name(await decide_bash(ctx, "docker build https://github.com/x/y.git")) == "allow"
    no_rule = make_ctx(world.project, allow=("Bash(docker:*)",))
    assert verdict_name(await decide_bash(no_rule, "docker build -t app .")) == "allow"


async def test_a_dockerfile_specific_ignore_file(world):
    ctx = _project(world, ".env\n")
    (world.project / "build").mkdir()
    (world.project / "build" / "app.Dockerfile").write_text("FROM python\nCOPY . .\n")
    (world.project / "build" / "app.Dockerfile.dockerignore").write_text("src\n")  # used instead: .env goes
    assert verdict_name(await decide_bash(ctx, "docker build -f build/app.Dockerfile .")) == "ask"
    assert verdict_name(await decide_bash(ctx, "docker build -t x .")) == "allow"


def test_build_context():
    def context(*words):
        return build_context([Word(w) for w in words])

    assert context("docker", "build", "-t", "app", ".") == (".", None)
    assert context("docker", "buildx", "build", "-f", "d/Dockerfile", "ctx") == ("ctx", "d/Dockerfile")
    assert context("docker", "run", "img") is None
    assert context("docker", "build") is None
    assert context("docker", "build", "--pull") is None
    assert build_context([Word("docker"), Word("build"), Word("$DIR", static=False)]) == (None, None)
