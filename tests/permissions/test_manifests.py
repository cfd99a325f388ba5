"""Package managers rewrite the project's manifest, lock file and package folder (session 30).

Every row of ``DENIED`` was allowed under a rule allowing the manager (and in bypassPermissions)
though it wrote a file an ``Edit`` deny rule closes: ``npm pkg set scripts.test='rm -rf x'``
rewrites ``package.json`` with ``Edit(./package.json)`` in deny.  A real ``npm pkg set`` run in a
subfolder writes the ``package.json`` above it, and ``cargo generate-lockfile`` in ``src/deep``
writes ``Cargo.lock`` beside ``Cargo.toml``: the manifest is found walking upwards, as here.
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

MANIFESTS = ("package.json", "pyproject.toml", "Cargo.toml", "go.mod", "Gemfile", "composer.json", "Pipfile")
DENY = tuple(f"Edit(./{name})" for name in MANIFESTS) + ("Edit(./locked/**)",)
DENIED = [
    "npm pkg set scripts.test='rm -rf x'", "npm pkg delete scripts.test", "npm set-script test 'rm x'",
    "npm version patch", "npm init -y", "npm install lodash", "npm i lodash", "npm uninstall lodash",
    "npm update", "npm audit fix", "npm --loglevel warn install x", "npm install --save-dev x",
    "npm --foo bar install x", "yarn add global",
    "yarn add x", "yarn version --patch", "yarn", "yarn init -y", "pnpm add x", "pnpm install", "pnpm init",
    "bun add x", "bun install", "poetry add requests", "poetry remove x", "poetry version patch",
    "poetry init -n", "uv add requests", "uv remove x", "uv version 1.2.3", "uv init", "pdm add x",
    "pdm install", "pipenv install x", "cargo add serde", "cargo remove x", "go get example.com/x",
    "go mod tidy", "go mod edit -replace a=b", "go mod init example.com/x", "bundle add x", "bundle",
    "composer require x/y", "composer update",
    # the manifest above the folder it runs in, or in the folder an option names
    "cd sub && npm pkg set x=y", "cd sub && uv add x", "npm --prefix locked install", "npm -C locked install",
    "npm --prefix=locked install", "uv --directory locked sync", "uv --project=locked add x",
    "cargo build --manifest-path locked/Cargo.toml", "go -C locked mod tidy", "pnpm -C locked add x",
    "yarn --cwd locked add x", "poetry -C locked add x", "composer -d locked require x",
    "bundle install --gemfile locked/Gemfile",
    # through a runner: a package at a version runs as its program, corepack runs the manager
    "npx -y npm@10 pkg set x=y", "npx npm pkg set x=y", "npm exec npm@9 -- pkg set x=y", "pnpm dlx npm@10 install x",
    "corepack pnpm add x", "corepack pnpm@8.1.0 add x", "corepack yarn@4.1.0 add x", "corepack npm@10 pkg set x=y",
    "python -m uv add x", "uvx --from uv uv add x", "timeout 60 npm install x",
]
# no project file written, or only ones no rule closes
ALLOWED = [
    "npm run test", "npm test", "npm run build", "npm ls", "npm view x", "npm -g install x",
    "npm install --global x", "npm --location global install x",
    "npm --location=global install x", "npm install --dry-run x", "npm pkg get name", "npm version", "npm ci",
    "npm --version", "yarn global add x", "yarn run build", "pnpm -g add x", "uv run --no-sync pytest",
    "uv pip list", "uv lock --check", "uv version", "poetry show", "poetry lock", "poetry run pytest",
    "cargo --version", "cargo build", "cargo test", "go build ./...", "go test ./...", "go vet ./...",
    "go mod download", "go mod graph", "bundle exec rake", "composer show", "npm --prefix sub install",
]
VERSIONED = [  # with Bash(rm:*) in deny: the package's program is rm
    ("npx -y rm@1 x", "deny"), ("npx rm@latest -rf x", "deny"), ("npx @scope/rm@2 x", "deny"),
    ("bunx rm@1 x", "deny"), ("npx -y cowsay@1 hi", "allow"), ("npx ./local-pkg x", "allow"),
    ("corepack enable", "allow"), ("corepack yarn@4 remove x", "allow"),
]
RUNTIME = ["npm \"$CMD\"", "npm --prefix \"$D\" install", "npm pkg \"$VERB\" x=y", "uv --directory \"$D\" add x"]
ALLOW = tuple(f"Bash({p}:*)" for p in ("npm", "yarn", "pnpm", "bun", "poetry", "uv", "pdm", "pipenv", "cargo",
                                        "go", "bundle", "composer", "cd", "npx", "bunx", "corepack", "python",
                                        "uvx", "timeout"))


def _project(world):
    (world.project / "locked").mkdir()
    for name in MANIFESTS:
        (world.project / name).write_text("{}\n")
        (world.project / "locked" / name).write_text("{}\n")
    return world.project


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("command", DENIED)
async def test_rewriting_a_denied_manifest_is_denied(world, command, mode):
    ctx = make_ctx(_project(world), allow=ALLOW, deny=DENY, mode=mode)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "deny", command
    assert "has been denied by the rule Edit(./" in verdict.message


@pytest.mark.parametrize("command", ALLOWED)
async def test_commands_that_write_no_closed_file_run(world, command):
    ctx = make_ctx(_project(world), allow=ALLOW, deny=DENY)
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize("command", DENIED + ALLOWED)
async def test_without_edit_rules_the_manager_rule_allows_them(world, command):
    ctx = make_ctx(_project(world), allow=ALLOW)
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.parametrize(("command", "expected"), VERSIONED)
async def test_a_package_at_a_version_runs_as_its_program(world, command, expected):
    ctx = make_ctx(world.project, allow=ALLOW, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize("command", RUNTIME)
async def test_a_subcommand_or_folder_known_only_at_run_time_asks(world, command):
    ctx = make_ctx(_project(world), allow=ALLOW, deny=DENY)
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


async def test_the_nearest_lock_upwards_is_written_too(world):
    """A workspace member's ``uv lock`` writes the workspace's ``uv.lock`` at its root."""
    (world.project / "pyproject.toml").write_text("[tool.uv.workspace]\n")
    (world.project / "uv.lock").write_text("")
    (world.project / "sub" / "pyproject.toml").write_text("[project]\n")
    ctx = make_ctx(world.project, allow=ALLOW, deny=("Edit(./uv.lock)",))
    assert verdict_name(await decide_bash(ctx, "cd sub && uv lock")) == "deny"
    assert verdict_name(await decide_bash(ctx, "cd sub && uv run pytest")) == "deny"
    assert verdict_name(await decide_bash(ctx, "cd sub && uv run --no-sync pytest")) == "allow"


async def test_a_manifest_above_the_working_directories_asks(world):
    """No package.json in the project, one in the folder above it: npm writes that one."""
    (world.root / "package.json").write_text("{}\n")
    ctx = make_ctx(world.project, allow=ALLOW)
    verdict = await decide_bash(ctx, "npm pkg set x=y")
    assert verdict_name(verdict) == "ask"
    assert "outside the working directories" in verdict.message
    (world.project / "package.json").write_text("{}\n")  # now the project's own is found first
    assert verdict_name(await decide_bash(ctx, "npm pkg set x=y")) == "allow"


@pytest.mark.parametrize("command", ["cd .claude && npm init -y", "npm --prefix .claude install x",
                                     "uv --directory .vscode init", "cd .git && go mod init x"])
async def test_a_manifest_in_a_protected_folder_asks_in_every_mode(world, command):
    for folder in (".claude", ".vscode"):
        (world.project / folder).mkdir()
    ctx = make_ctx(world.project, allow=ALLOW, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command


async def test_a_file_kept_only_where_it_exists_is_checked_where_it_exists(world):
    """npm rewrites npm-shrinkwrap.json only when the project has one (else package-lock.json)."""
    ctx = make_ctx(world.project, allow=ALLOW, deny=("Edit(./npm-shrinkwrap.json)",))
    assert verdict_name(await decide_bash(ctx, "npm install x")) == "allow"
    (world.project / "npm-shrinkwrap.json").write_text("{}\n")
    assert verdict_name(await decide_bash(ctx, "npm install x")) == "deny"
    assert verdict_name(await decide_bash(ctx, "npm --prefix . install x")) == "deny"

