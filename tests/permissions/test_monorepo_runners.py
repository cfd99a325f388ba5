"""turbo, lerna and nx run the workspaces' package scripts (``package_scripts.monorepo_scripts``).

With ``"build": "rm y"`` in a workspace's ``package.json``, ``turbo run build`` and ``lerna run
build`` ran ``rm`` under ``Bash(rm:*)`` in bypassPermissions (session 39): they are read as
``npm run build --workspaces``; an option that narrows the packages makes a deny rule ask; nx's
targets are code only known at run time.
"""

from __future__ import annotations

import json

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("turbo run build", "deny"),
    ("turbo build", "deny"),
    ("npx turbo run build", "deny"),
    ("turbo run build --filter=b", "ask"),
    ("lerna run build", "deny"),
    ("npx lerna run build --stream", "deny"),
    ("lerna run build --scope b", "ask"),
    ("nx run a:build", "ask"),
    ("nx run-many -t build", "ask"),
    ("turbo run test lint", "allow"),
    ("lerna run test", "allow"),
    ("lerna list", "allow"),
    ("nx graph", "allow"),
    ("turbo prune a", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_monorepo_runners_meet_the_deny_rules(tmp_path, command, expected):
    (tmp_path / "package.json").write_text(json.dumps({"workspaces": ["packages/*"], "scripts": {"build": "turbo"}}))
    for name, scripts in (("a", {"build": "rm y", "test": "jest"}), ("b", {"lint": "eslint ."})):
        (tmp_path / "packages" / name).mkdir(parents=True)
        (tmp_path / "packages" / name / "package.json").write_text(json.dumps({"name": name, "scripts": scripts}))
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)
