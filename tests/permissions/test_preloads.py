"""Modules an interpreter loads before its script (``code_files._preloaded``).

``node -r ./evil.js calm.js`` (also ``--require``, ``--import``, ``--loader``, a package of
``node_modules``) and ``ruby -r ./evil.rb calm.rb`` (``-I . -r evil``) ran the preloaded file's
``rm x`` unasked under ``Bash(rm:*)`` denied in bypassPermissions: only the script was read.
Real node shows the preload runs.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

EVIL_JS = 'require("child_process").execSync("rm x")\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evil.js").write_text(EVIL_JS)
    (tmp_path / "evil.mjs").write_text('import { execSync } from "node:child_process";\nexecSync("rm x");\n')
    (tmp_path / "calm.js").write_text("console.log(1)\n")
    (tmp_path / "evil.rb").write_text('system("rm x")\n')
    (tmp_path / "calm.rb").write_text("puts 1\n")
    (tmp_path / "node_modules" / "evilpkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "evilpkg" / "index.js").write_text(EVIL_JS)
    (tmp_path / "x").write_text("keep me")
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), [
    ("node -r ./evil.js calm.js", "ask"), ("node --require ./evil calm.js", "ask"),
    ("node --import ./evil.mjs calm.js", "ask"), ("node --loader=./evil.mjs calm.js", "ask"),
    ("node --experimental-loader ./evil.mjs calm.js", "ask"), ("node -r evilpkg calm.js", "ask"),
    ("bun --preload ./evil.js calm.js", "ask"), ("ruby -r ./evil.rb calm.rb", "ask"),
    ("ruby -I . -r evil calm.rb", "ask"), ("ruby -I. -revil calm.rb", "ask"), ("ruby -W0 -I . -r evil calm.rb", "ask"),
    ("node -r ./calm.js calm.js", "allow"), ("ruby -r json calm.rb", "allow"), ("node calm.js", "allow"),
])
async def test_a_preloaded_module_is_a_code_file_the_line_runs(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_node_really_runs_the_preloaded_module(project):
    subprocess.run(["node", "-r", "./evil.js", "calm.js"], cwd=project, capture_output=True, timeout=60)
    assert not (project / "x").exists()
