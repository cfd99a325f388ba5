"""npm's and pnpm's settings that name a program (``bash_wrappers.package_setting_reason``):
under ``Bash(npm:*)`` with ``Bash(rm:*)`` denied, ``npm test --script-shell=rm`` ran its script
through ``rm``, and ``--script-shell=/tmp/x.sh`` any program.  A rule allowing npm allows the
project's scripts as npm runs them, not a program named on the command line (as ``make SHELL=…``
asks)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("npm run test --script-shell='rm x'", "ask"), ("npm run test --script-shell=/tmp/evil.sh", "ask"),
    ("npm test --script-shell rm", "ask"), ("npm test --scrip=/tmp/x", "ask"),  # an abbreviation npm takes
    ("npm --git=./evil install", "ask"), ("npm test --node-options='--require ./x.js'", "ask"),
    ("npm --userconfig /tmp/rc test", "ask"), ("npm exec --shell=/tmp/x -- jest", "ask"),
    ("npm test --\"$X\"=y", "ask"), ("pnpm --script-shell=x run test", "ask"), ("npx --shell=x jest", "ask"),
    ("npm run test -- --script-shell=x", "allow"),  # after --: the script's own argument
    ("npm run test", "allow"), ("npm install --global x", "allow"), ("npm test --save", "allow"),
    ("npm run test --silent", "allow"), ("npm ci", "allow"), ("npm install --global-style", "allow"),
    ("npm config get editor", "allow"), ("yarn test", "allow"),
    ("npm exec -- rm x", "deny"), ("npx rm x", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_npm_settings_that_name_a_program(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(npm:*)", "Bash(pnpm:*)", "Bash(npx:*)", "Bash(yarn:*)"),
                   deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


FILE_ROWS = [
    # the package's own settings files: what runs its scripts
    (".npmrc", "script-shell=./sh.sh\n", "npm run build", "ask"),
    (".npmrc", "script-shell = ./sh.sh\n", "pnpm run build", "ask"),
    (".npmrc", "node-options=--require ./x.js\n", "npm test", "ask"),
    (".npmrc", "script-shell=./sh.sh\n", "npm install", "ask"),  # dependencies' scripts run through it too
    (".npmrc", "script-shell=./sh.sh\n", "yarn build", "ask"),
    (".yarnrc", 'yarn-path "./evil.js"\n', "yarn build", "ask"),
    (".yarnrc.yml", "yarnPath: ./evil.cjs\n", "yarn build", "ask"),
    (".npmrc", "script-shell=./sh.sh\n", "npm ls", "allow"),  # runs no script
    (".npmrc", "registry=https://r.example.com/\n; script-shell=x\n# shell=y\n=\n:\n", "npm run build", "allow"),
    (".yarnrc.yml", "yarnPath: ./evil.cjs\n", "npm run build", "allow"),  # npm does not read it
]


@pytest.mark.parametrize(("name", "text", "command", "expected"), FILE_ROWS)
async def test_settings_files_that_name_what_runs_the_scripts(world, name, text, command, expected):
    (world.project / "package.json").write_text('{"scripts": {"build": "echo hi", "test": "echo t"}}')
    (world.project / name).write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_really_runs_its_scripts_through_the_script_shell_npmrc_names(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "a", "version": "1.0.0", "scripts": {"build": "echo hi"}}')
    (tmp_path / ".npmrc").write_text("script-shell=./sh.sh\n")
    (tmp_path / "sh.sh").write_text("#!/bin/sh\ntouch ran\n")
    (tmp_path / "sh.sh").chmod(0o755)
    subprocess.run(["npm", "run", "build"], cwd=tmp_path, check=True, timeout=120, capture_output=True)
    assert (tmp_path / "ran").exists()
