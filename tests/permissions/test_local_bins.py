"""Programs runners find in the project's own bin folders (``permissions/local_bins.py``).

In bypassPermissions with ``Bash(*)`` allowed and ``Bash(rm:*)`` denied, ``npx tidy``, ``npm exec
tidy``, ``yarn tidy``, ``pnpm exec tidy``, ``bunx tidy``, ``uv run black`` and ``poetry run black``
ran a ``node_modules/.bin/tidy`` or ``.venv/bin/black`` that ran ``rm x`` (or was a copy of
``rm``): the rules met the name, not the file.  Run by its path, the same file was read and denied.
Real npx shows the effect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RM = shutil.which("rm")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    bins, venv = tmp_path / "node_modules" / ".bin", tmp_path / ".venv" / "bin"
    bins.mkdir(parents=True)
    venv.mkdir(parents=True)
    (tmp_path / "node_modules" / "eslint" / "bin").mkdir(parents=True)
    for folder, name in ((bins, "tidy"), (venv, "black")):
        (folder / name).write_text("#!/bin/sh\nrm x\n")
        (folder / name).chmod(0o755)
    eslint = tmp_path / "node_modules" / "eslint" / "bin" / "eslint.js"
    eslint.write_text('#!/usr/bin/env node\nrequire("child_process").execSync("rm -rf x")\n')
    (bins / "eslint").symlink_to(os.path.relpath(eslint, bins))
    (venv / "mypy").write_text('#!/usr/bin/env python3\nimport os\nos.system("rm -rf x")\n')
    (bins / "calm").write_text("#!/bin/sh\necho formatted\n")
    (venv / "calm").write_text("#!/bin/sh\necho checked\n")
    if RM is not None:
        shutil.copy2(RM, venv / "ruff")  # a copy of rm under another name
        shutil.copy2(RM, bins / "prettier")
    (tmp_path / "sub").mkdir()
    (tmp_path / "x").write_text("keep me")
    return tmp_path


ROWS = [
    ("npx tidy", "deny"), ("npx --yes tidy", "deny"), ("npm exec tidy", "deny"), ("npm exec -- tidy a", "deny"),
    ("npm x tidy", "deny"), ("yarn tidy", "deny"), ("yarn run tidy", "deny"), ("yarn exec tidy", "deny"),
    ("pnpm exec tidy", "deny"), ("pnpm tidy", "deny"), ("bunx tidy", "deny"), ("bun run tidy", "deny"),
    ("timeout 5 npx tidy", "deny"), ("cd sub && npx tidy", "deny"),  # the nearest node_modules above
    ("uv run black .", "deny"), ("uv run -- black", "deny"), ("poetry run black .", "deny"),
    ("pdm run black", "deny"), ("hatch run black", "deny"), ("pipenv run black", "deny"), ("rye run black", "deny"),
    ("npx eslint .", "ask"),  # a node script: its string
    ("uv run mypy .", "ask"),  # a Python script: its string
    # what is not there, or runs nothing a rule names
    ("npx cowsay", "allow"), ("uv run pytest", "allow"), ("npx calm", "allow"), ("uv run calm", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_a_program_of_the_projects_bin_folder_meets_the_rules(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.skipif(RM is None, reason="needs rm")
@pytest.mark.parametrize("command", ["npx prettier x", "uv run ruff x", "poetry run ruff x"])
async def test_a_copy_of_a_denied_program_in_a_bin_folder_is_that_program(project, command):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == "deny" and "is rm: a link to it or a copy of it" in verdict.message, verdict


async def test_an_allow_rule_for_the_runner_does_not_cover_what_its_program_runs(project):
    ctx = make_ctx(project, allow=("Bash(npx tidy:*)", "Bash(npx calm:*)"), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "npx tidy")) == "deny"
    assert verdict_name(await decide_bash(ctx, "npx calm")) == "allow"


@pytest.mark.skipif(shutil.which("npx") is None, reason="needs npx")
def test_npx_really_runs_the_projects_bin(project):
    """Why: npx runs node_modules/.bin/tidy, whose rm removes x."""
    subprocess.run(["npx", "--no-install", "tidy"], cwd=project, capture_output=True, timeout=120,
                   env={**os.environ, "npm_config_update_notifier": "false"})
    assert not (project / "x").exists()


SCRIPTS = '{"scripts": {"lint": "tidy src", "fmt": "prettier x", "js": "eslint .", "both": "echo a && tidy", ' \
          '"calm": "calm && echo done"}}'


@pytest.mark.parametrize(("command", "expected"), [
    ("npm run lint", "deny"), ("yarn lint", "deny"), ("pnpm run lint", "deny"), ("npm run both", "deny"),
    ("cd sub && npm run lint", "deny"), ("npm run js", "ask"), ("npm run calm", "allow"),
])
async def test_a_package_script_runs_the_programs_of_node_modules_bin(project, command, expected):
    """npm, yarn, pnpm and bun put node_modules/.bin first on PATH for a package script: ``"lint":
    "tidy src"`` runs the project's ``tidy``."""
    (project / "package.json").write_text(SCRIPTS)
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.skipif(RM is None, reason="needs rm")
async def test_a_package_script_naming_a_copy_of_a_denied_program_is_denied(project):
    (project / "package.json").write_text(SCRIPTS)
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), "npm run fmt")
    assert verdict_name(verdict) == "deny" and "is rm: a link to it or a copy of it" in verdict.message, verdict


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_npm_run_really_runs_the_projects_bin(project):
    (project / "package.json").write_text(SCRIPTS)
    subprocess.run(["npm", "run", "lint"], cwd=project, capture_output=True, timeout=120,
                   env={**os.environ, "npm_config_update_notifier": "false"})
    assert not (project / "x").exists()
