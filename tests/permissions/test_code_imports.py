"""The project's code files a code file loads (``code_imports.py``): a helper module's
``os.system("rm -rf x")`` asks, under a deny rule naming ``rm``, as the script's own string does.

Bypass mode with ``Bash(*)`` allowed; before, each "ask" row ran unasked.  The ground truth: real
Python runs a project whose every module logs that it ran, and the files the module finds are
exactly those that ran."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.permissions.code_imports import loaded_files

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
PY = "python3"
WIPE = 'import os\n\ndef go():\n    os.system("rm -rf build")\n'
CALM = 'def go():\n    print("to rm a file use rm")\n'

FILES = {
    # Python: a module of the script's folder, a package's module, a relative import, a package's
    # __init__.py, importlib, a chain of imports, a local module shadowing the standard library's
    "tool.py": "import helpers\nhelpers.go()\n",
    "helpers.py": WIPE,
    "calm.py": CALM,
    "quiet.py": "import os, sys, calm\nimport collections.abc\nfrom calm import go\ngo()\n",
    "pkgtool.py": "from pkg import jobs\n",
    "pkg/__init__.py": "",
    "pkg/jobs.py": WIPE,
    "pkg/runner.py": "from .jobs import go\n",
    "pkg/calm_runner.py": "from . import calm_part\n",
    "pkg/calm_part.py": CALM,
    "initpkg/__init__.py": WIPE,
    "initpkg/quiet.py": "",
    "deep.py": "from pkg2.sub.mod import go\n",
    "pkg2/__init__.py": "",
    "pkg2/sub/__init__.py": "",
    "pkg2/sub/mod.py": WIPE,
    "dynamic.py": 'import importlib\nimportlib.import_module("helpers").go()\n',
    "chain.py": "import middle\n",
    "middle.py": "import helpers\n",
    "cycle_a.py": "import cycle_b\n",
    "cycle_b.py": "import cycle_a\nimport helpers\n",
    "shadow.py": "import json\n",
    "json.py": WIPE,
    "py2.py": 'import helpers\nprint "old"\n',  # Python cannot parse it: its import lines are read
    "runs.py": 'import subprocess, sys\nsubprocess.run([sys.executable, "helpers.py"])\n',
    "app/main.py": "import util\n",  # the script's own folder first (sys.path[0])
    "app/util.py": WIPE,
    "other/stray.py": WIPE,  # not imported
    "strays.py": "import stray\n",  # not on the path: other/ is not a root
    "syspath.py": 'import sys\nsys.path.insert(0, "vendor")\nimport vendored\n',  # the path it sets
    "syspath2.py": 'import os, sys\nsys.path.append(os.path.join(os.path.dirname(__file__), "vendor"))\n'
                   "from vendored import go\n",
    "plainimport.py": "import vendored\n",
    "vendor/vendored.py": WIPE,
    "src/mylib/__init__.py": "from .core import go\n",
    "src/mylib/core.py": WIPE,
    "uselib.py": "import mylib\n",
    # JavaScript, Ruby, R
    "main.js": 'const lib = require("./lib");\nlib.go();\n',
    "lib.js": 'module.exports.go = () => require("child_process").execSync("rm -rf x");\n',
    "esm.mjs": 'import { go } from "./lib.js";\ngo();\n',
    "bare.js": 'require("lodash");\n',
    "node_modules/lodash/index.js": 'require("child_process").execSync("rm -rf x");\n',
    "app.rb": 'require_relative "lib/clean"\n',
    "lib/clean.rb": 'system("rm -rf x")\n',
    "run.R": 'source("clean.R")\n',
    "clean.R": 'system("rm -rf x")\n',
    "tests/test_uses.py": "import helpers\n\ndef test_it():\n    helpers.go()\n",
    # a shell script or a notebook a string names: the script's commands, the notebook's code cells
    "shells.py": 'import subprocess\nsubprocess.run(["bash", "scripts/clean.sh"])\n',
    "system_sh.py": 'import os\nos.system("sh scripts/clean.sh --all")\n',
    "calm_sh.py": 'import os\nos.system("bash scripts/calm.sh")\n',
    "scripts/clean.sh": "#!/bin/sh\nset -e\nrm -rf build\n",
    "scripts/calm.sh": "#!/bin/sh\necho 'to rm a file use rm'\n",
    "nbrun.py": 'import subprocess\nsubprocess.run(["jupyter", "execute", "wipe.ipynb"])\n',
    "nbprose.py": 'import subprocess\nsubprocess.run(["jupyter", "execute", "prose.ipynb"])\n',
    "tests/test_calm.py": "import calm\n\ndef test_it():\n    calm.go()\n",
    # Go: the module's own packages a file imports (go.mod's module path), not other modules'
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "gocmd/main.go": 'package main\n\nimport (\n\t"fmt"\n\tjobs "example.com/app/internal/jobs"\n)\n'
                     "func main() { fmt.Println(jobs.Go()) }\n",
    "internal/jobs/jobs.go": 'package jobs\nimport "example.com/app/internal/shell"\nfunc Go() { shell.Run() }\n',
    "internal/shell/shell.go": 'package shell\nimport "os/exec"\nfunc Run() { exec.Command("rm", "-rf", "x").Run() }\n',
    "internal/shell/shell_test.go": "package shell\n",
    "gocalm/main.go": 'package main\nimport "github.com/other/internal/shell"\nfunc main() { shell.Run() }\n',
    # a folder an interpreter runs: its __main__.py, a package's main (or index.js); npm start's server.js
    "apppkg/__main__.py": WIPE + "go()\n",
    # a module imported by its dotted name in a string (Django's settings, celery's include)
    "manage.py": 'import os\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "site1.settings")\n',
    "site1/__init__.py": "",
    "site1/settings.py": WIPE,
    "nodeapp/package.json": '{"main": "lib/start"}',
    "nodeapp/lib/start.js": 'require("child_process").execSync("rm -rf x")\n',
    "plainnode/index.js": 'require("child_process").execSync("rm -rf x")\n',
    "srv/package.json": '{"name": "srv"}',
    "srv/server.js": 'require("child_process").execSync("rm -rf x")\n',
    "srv2/package.json": '{"scripts": {"start": "echo hi"}}',
    "srv2/server.js": 'require("child_process").execSync("rm -rf x")\n',
}

ROWS = [
    (f"{PY} tool.py", "ask"), (f"{PY} pkgtool.py", "ask"), (f"{PY} -m pkg.runner", "ask"),
    (f"{PY} -m initpkg.quiet", "ask"), (f"{PY} deep.py", "ask"), (f"{PY} dynamic.py", "ask"),
    (f"{PY} chain.py", "ask"), (f"{PY} cycle_a.py", "ask"), (f"{PY} shadow.py", "ask"), (f"{PY} py2.py", "ask"),
    (f"{PY} runs.py", "ask"), (f"{PY} app/main.py", "ask"), (f"cd app && {PY} main.py", "ask"),
    (f"{PY} uselib.py", "ask"), ("pytest tests/test_uses.py", "ask"), ("pytest tests", "ask"),
    ("node main.js", "ask"), ("node esm.mjs", "ask"), ("ruby app.rb", "ask"), ("Rscript run.R", "ask"),
    # Python code of the line itself: -c CODE, a heredoc, what is piped in
    (f"{PY} -c 'import helpers; helpers.go()'", "ask"), (f"{PY} - <<'EOF'\nfrom pkg import jobs\nEOF", "ask"),
    (f"echo 'import helpers' | {PY}", "ask"), (f"cd app && {PY} -c 'import util'", "ask"),
    (f"{PY} shells.py", "ask"), (f"{PY} system_sh.py", "ask"), (f"{PY} nbrun.py", "ask"),
    (f"{PY} calm_sh.py", "allow"), (f"{PY} nbprose.py", "allow"),
    (f"{PY} syspath.py", "ask"), (f"{PY} syspath2.py", "ask"), (f"PYTHONPATH=vendor {PY} plainimport.py", "ask"),
    (f"export PYTHONPATH=vendor:lib; {PY} plainimport.py", "ask"), (f"PYTHONPATH=vendor {PY} -c 'import vendored'", "ask"),
    (f"{PY} plainimport.py", "allow"),
    (f"{PY} -c 'import calm'", "allow"), (f"{PY} - <<'EOF'\nimport os, sys\nEOF", "allow"),
    ("go run ./gocmd", "ask"), ("go build ./gocmd", "allow"), ("go run ./gocalm", "allow"),
    (f"{PY} manage.py runserver", "ask"), (f"{PY} apppkg", "ask"), ("node nodeapp", "ask"), ("cd nodeapp && node .", "ask"), ("node plainnode/", "ask"),
    ("cd srv && npm start", "ask"), ("cd srv && pnpm start", "ask"), ("cd srv2 && npm start", "allow"),
    (f"{PY} quiet.py", "allow"), (f"{PY} -m pkg.calm_runner", "allow"), (f"{PY} strays.py", "allow"),
    ("node bare.js", "allow"), ("pytest tests/test_calm.py", "allow"),
]


def _notebook(cells):
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": kind, "source": text, "metadata": {}, **({"outputs": [], "execution_count": None}
                                                               if kind == "code" else {})}
        for kind, text in cells]})


def _write(root, files):
    files = {**files, "wipe.ipynb": _notebook([("markdown", "# Clean"), ("code", 'import os\nos.system("rm -rf x")')]),
             "prose.ipynb": _notebook([("markdown", "rm -rf x is how to delete"), ("code", "print(1)")])}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


SCRIPT_ROWS = [
    # a console script of the project (installed editable): its module, and what that imports
    ("mycli --help", "ask"), ("uv run mycli", "ask"), ("cd sub && mycli", "ask"), ("gui", "ask"),
    ("poetry-cli", "ask"), ("cfgcli x", "ask"),
    ("quietcli", "allow"), ("othercli", "allow"), ("mycli2", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), SCRIPT_ROWS)
async def test_a_console_script_of_the_project_runs_its_module(world, command, expected):
    _write(world.project, {
        "pyproject.toml": '[project]\nname = "mylib"\n[project.scripts]\nmycli = "mylib.cli:main"\n'
                          'quietcli = "mylib.calm:main"\nothercli = "elsewhere.cli:main"\n'
                          '[project.gui-scripts]\ngui = "wipelib:main"\n'
                          '[tool.poetry.scripts]\npoetry-cli = { callable = "mylib.jobs:main" }\n',
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    cfgcli = mylib.jobs:main\n",
        "src/mylib/__init__.py": "",
        "src/mylib/jobs.py": WIPE,
        "src/mylib/cli.py": "from mylib import jobs\n",
        "src/mylib/calm.py": CALM,
        "src/wipelib/__init__.py": "from mylib.jobs import go\n",  # a package's __init__.py runs
    })
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_code_file_loads_of_the_project(world, command, expected):
    _write(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "may be shell code a program runs" in verdict.message, verdict.message


READ_ROWS = [
    # a code file the line runs, or one it loads, naming a file a Read deny rule covers (as
    # python -c "open('.env')" does): its output may show the secret
    (f"{PY} direct.py", "ask"), (f"{PY} main.py", "ask"), (f"{PY} linked.py", "ask"),
    (f"{PY} -c 'import cfg'", "ask"), (f"cd sub && {PY} ../direct.py", "ask"),  # (from the script's folder too)
    (f"{PY} calm.py", "allow"),
    (f"{PY} dotenv_search.py", "ask"),  # session 50: load_dotenv() reads .env unnamed (inline_code)
]


@pytest.mark.parametrize(("command", "expected"), READ_ROWS)
async def test_a_code_file_naming_a_read_denied_file_asks(world, command, expected):
    _write(world.project, {
        "direct.py": 'print(open(".env").read())\n',
        "cfg.py": 'from pathlib import Path\n\nSECRET = Path(".env").read_text()\n',
        "main.py": "import cfg\nprint(cfg.SECRET)\n",
        "linked.py": 'print(open("notes.txt").read())\n',  # notes.txt is another name of .env
        "calm.py": 'print(open("README.md").read())\n',
        "dotenv_search.py": "from dotenv import load_dotenv\nload_dotenv()\n",
    })
    os.symlink(world.project / ".env", world.project / "notes.txt")
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "which the rule Read(./.env) denies reading" in verdict.message, verdict.message
    # with no Read deny rule, nothing of this is read
    ctx = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_a_code_file_too_long_to_read_asks(world):
    """A module the script imports that is too long to read whole: what it runs is not known, so
    the line asks (under a rule naming a program, or a Read deny rule), rather than running."""
    (world.project / "big.py").write_text("x = 1\n" * 800_000)  # 4.8 MB
    (world.project / "uses_big.py").write_text("import big\n")
    for rules in ({"deny": ("Bash(rm:*)",)}, {"deny": ("Read(./.env)",)}):
        ctx = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions", **rules)
        verdict = await decide_bash(ctx, f"{PY} uses_big.py")
        assert verdict_name(verdict) == "ask", verdict
        assert "big.py, which the line runs, could not be read (it is longer than" in verdict.message, verdict.message
    ctx = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, f"{PY} uses_big.py")) == "allow"


def test_loaded_files_bad_input_reads_nothing(tmp_path):
    """Binary files, files that do not decode, imports of names that are no identifiers, a folder
    named like a module: nothing raises, nothing is followed."""
    (tmp_path / "bin.py").write_bytes(b"\x00\xff\xfe import helpers")
    (tmp_path / "odd.py").write_text('import helpers\nfrom ... import x\n__import__("a-b")\nfrom .. import y\n')
    (tmp_path / "helpers").mkdir()  # a namespace folder with no module in it
    (tmp_path / "weird.js").write_bytes(b'require("./\xff")')
    files = [str(tmp_path / n) for n in ("bin.py", "odd.py", "weird.js")]
    assert loaded_files(files, str(tmp_path)) == []


def test_loaded_files_are_bounded(tmp_path):
    for i in range(400):
        (tmp_path / f"m{i}.py").write_text(f"import m{i + 1}\n")
    found = loaded_files([str(tmp_path / "m0.py")], str(tmp_path))
    assert 250 <= len(found) <= 300 and found[0] == str(tmp_path / "m1.py")


# ground truth: a project whose every module logs its own name when Python runs it
_TRUTH = {
    "main.py": "import helpers, json\nfrom pkg import jobs\nfrom pkg.deep import leaf\nimport importlib\n"
               "importlib.import_module('late')\nimport os.path\n",
    "helpers.py": "import os\n",
    "json.py": "",  # shadows the standard library's
    "late.py": "",
    "pkg/__init__.py": "",
    "pkg/jobs.py": "from . import sibling\nfrom .deep.leaf import x\n",
    "pkg/sibling.py": "",
    "pkg/deep/__init__.py": "",
    "pkg/deep/leaf.py": "x = 1\n",
    "pkg/unused.py": "",
    "unused.py": "",
}


def test_the_files_found_are_the_files_python_runs(tmp_path):
    log = tmp_path / "ran.log"
    for name, text in _TRUTH.items():
        path = tmp_path / "proj" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"open({str(log)!r}, 'a').write(__file__ + '\\n')\n" + text)
    project = tmp_path / "proj"
    subprocess.run([sys.executable, "-S", "main.py"], cwd=project, check=True, env={**os.environ, "PYTHONPATH": ""})
    ran = {os.path.realpath(line) for line in log.read_text().split()} - {os.path.realpath(project / "main.py")}
    found = set(loaded_files([os.path.realpath(project / "main.py")], os.path.realpath(project)))
    assert found == ran
    assert {os.path.basename(p) for p in ran} >= {"helpers.py", "json.py", "late.py", "leaf.py", "sibling.py"}


@pytest.mark.skipif(not shutil.which("npm") or not shutil.which("node"), reason="npm is not installed")
def test_real_npm_start_runs_server_js_when_no_start_script(tmp_path):
    """The ground truth for ``npm start`` with no start script: npm runs ``node server.js``."""
    (tmp_path / "package.json").write_text('{"name": "srv", "version": "1.0.0"}')
    (tmp_path / "server.js").write_text('require("fs").writeFileSync("ran.txt", "yes")\n')
    subprocess.run(["npm", "start", "--silent"], cwd=tmp_path, check=True, capture_output=True, timeout=120,
                   env={**os.environ, "npm_config_update_notifier": "false"})
    assert (tmp_path / "ran.txt").read_text() == "yes"
