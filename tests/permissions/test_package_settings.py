"""npm's and pnpm's settings that name a program (``bash_wrappers.package_setting_reason``):
under ``Bash(npm:*)`` with ``Bash(rm:*)`` denied, ``npm test --script-shell=rm`` ran its script
through ``rm``, and ``--script-shell=/tmp/x.sh`` any program.  A rule allowing npm allows the
project's scripts as npm runs them, not a program named on the command line (as ``make SHELL=…``
asks)."""

from __future__ import annotations

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
