"""JavaScript tools' configuration files are code (``permissions/js_tool_configs.py``).

``eslint .``, ``jest``, ``vite build``, ``webpack``, ``next build``, ``playwright test`` … load an
``eslint.config.js`` (the tool's own file) the project holds; one with
``require("child_process").execSync("rm x")`` ran unasked under ``Bash(rm:*)`` denied in
bypassPermissions, also through ``npx`` and a package script.  A test runner's test files run too,
and ``nodemon x.js``, ``pm2 start x.js`` and ``c8 node x.js`` run ``x.js``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.permissions.js_tool_configs import CONFIGS
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

EVIL = 'require("child_process").execSync("rm x"); module.exports = {};\n'
CALM = "module.exports = { rules: {} };\n"

TOOLS = [("jest", "jest.config.js"), ("webpack", "webpack.config.js"), ("vite build", "vite.config.ts"),
         ("rollup -c", "rollup.config.mjs"), ("eslint .", "eslint.config.js"), ("eslint .", ".eslintrc.cjs"),
         ("playwright test", "playwright.config.ts"), ("next build", "next.config.mjs"),
         ("babel src -d lib", "babel.config.js"), ("prettier --check .", "prettier.config.cjs"),
         ("tailwindcss -o out.css", "tailwind.config.js"), ("postcss in.css -o out.css", "postcss.config.js"),
         ("vitest run", "vite.config.ts"), ("mocha", ".mocharc.js"), ("npx eslint .", "eslint.config.js"),
         ("pnpm exec jest", "jest.config.js"), ("eslint -c lint/custom.js .", "lint/custom.js"),
         ("cd src && eslint .", "eslint.config.js")]  # (the folders above, up to package.json's)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "package.json").write_text('{"scripts": {"lint": "eslint .", "test": "jest"}}')
    (tmp_path / "src").mkdir()
    (tmp_path / "x").write_text("keep me")
    return tmp_path


def _ctx(project: Path):
    return make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")


@pytest.mark.parametrize(("command", "config"), TOOLS)
async def test_a_tools_configuration_file_is_code_the_line_runs(project, command, config):
    (project / config).parent.mkdir(parents=True, exist_ok=True)
    (project / config).write_text(EVIL)
    verdict = await decide_bash(_ctx(project), command)
    assert verdict_name(verdict) == "ask" and "Bash(rm:*)" in verdict.message, (command, verdict)
    (project / config).write_text(CALM)
    assert verdict_name(await decide_bash(_ctx(project), command)) == "allow", command


@pytest.mark.parametrize("command", ["npm run lint", "npm test"])
async def test_a_package_script_running_the_tool_reads_it_too(project, command):
    for name in ("eslint.config.js", "jest.config.js"):
        (project / name).write_text(EVIL)
    assert verdict_name(await decide_bash(_ctx(project), command)) == "ask", command


@pytest.mark.parametrize(("command", "files"), [
    ("jest", {"src/a.test.js": EVIL}), ("vitest run", {"__tests__/b.ts": EVIL}), ("mocha", {"test/c.js": EVIL}),
    ("nodemon server.js", {"server.js": EVIL}), ("pm2 start server.js", {"server.js": EVIL}),
    ("c8 node server.js", {"server.js": EVIL}),
])
async def test_test_files_and_launched_scripts_are_read(project, command, files):
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    assert verdict_name(await decide_bash(_ctx(project), command)) == "ask", command


def test_every_configuration_name_is_javascript_or_typescript():
    for tool, names in CONFIGS.items():
        assert all(n.endswith((".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")) for n in names), tool
