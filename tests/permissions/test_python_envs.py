"""Editable installs (``python_envs.py``): the project's own packages installed from another
folder (a workspace member, ``pip install -e ../lib``) are imported through the ``.pth`` files of
the environment, and their strings count as the script's.  Under ``Bash(rm:*)`` denied, a
member's ``os.system("rm -rf build")`` asks; before, the "ask" rows ran unasked.

The environment is real: a venv, with setuptools' own editable installs of two members (a
``src/`` layout, written as a ``.pth`` folder line, and a flat layout, written as a finder module);
the ground truth is that venv's Python running a script whose every module logs itself."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jupyter_agent.permissions import python_envs
from jupyter_agent.permissions.code_imports import loaded_files

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

setuptools = pytest.importorskip("setuptools", reason="the editable installs are built with setuptools")

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
WIPE = 'import os\n\ndef go():\n    os.system("rm -rf build")\n'
_LOG = "open(__import__('os').environ['LOG'], 'a').write(__file__ + '\\n')\n"

MEMBERS = {
    "packages/srclib/pyproject.toml": '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
                                      '[project]\nname = "srclib"\nversion = "0.1"\n'
                                      '[project.scripts]\nsrccli = "srclib.cli:main"\n',
    "packages/srclib/src/srclib/__init__.py": "from .jobs import go\n",
    "packages/srclib/src/srclib/jobs.py": WIPE,
    "packages/srclib/src/srclib/calm.py": "def go():\n    print('to rm a file use rm')\n",
    "packages/srclib/src/srclib/cli.py": "from srclib.jobs import go\n\ndef main():\n    go()\n",
    "packages/flat/pyproject.toml": '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
                                    '[project]\nname = "flatlib"\nversion = "0.1"\n[tool.setuptools]\npackages = ["flatlib"]\n'
                                    '[project.scripts]\nflatcli = "flatlib.calm:go"\n',
    "packages/flat/flatlib/__init__.py": "",
    "packages/flat/flatlib/wipe.py": WIPE,
    "packages/flat/flatlib/calm.py": "def go():\n    print('to rm a file use rm')\n",
    "tool.py": "import srclib\nsrclib.go()\n",
    "flat_tool.py": "from flatlib import wipe\nwipe.go()\n",
    "calm_tool.py": "import json\nprint(json.dumps(1))\n",
    "app/run.py": "import srclib.jobs\n",
    # a Python script of no suffix, known by its #! line
    "manage": "#!/usr/bin/env python3\nimport helpers\n",
    "manage_calm": "#!/usr/bin/env python3\nimport json\n",
    "helpers.py": WIPE,
}



@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    project = tmp_path_factory.mktemp("editable") / "proj"
    write_files(project, MEMBERS)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--prefix", str(project / ".venv"),
                    "--no-build-isolation", "--no-deps", "--no-index", "-e", "packages/srclib", "-e", "packages/flat"],
                   cwd=project, check=True, capture_output=True, timeout=300)
    return project


ROWS = [
    (".venv/bin/python tool.py", "ask"), ("python3 tool.py", "ask"), ("python3 flat_tool.py", "ask"),
    ("python3 -c 'import srclib'", "ask"), ("cd app && python3 run.py", "ask"),
    ("python3 - <<'EOF'\nfrom flatlib import wipe\nEOF", "ask"),
    # a console script an editable install made in the environment: its wrapper's import
    ("srccli --help", "ask"), ("cd app && srccli", "ask"), (".venv/bin/srccli", "ask"), ("./manage runserver", "ask"),
    ("python3 calm_tool.py", "allow"), ("python3 -c 'import flatlib.calm'", "allow"), ("flatcli", "allow"),
    ("./manage_calm", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_an_editable_member_of_the_project_is_followed(workspace, command, expected):
    verdict = await decide_bash(make_ctx(workspace, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_the_files_found_are_the_files_the_environment_runs(workspace, tmp_path):
    """The venv's own Python, with setuptools' real .pth line and finder, is the judge."""
    log = tmp_path / "ran.log"
    script = workspace / "both.py"
    script.write_text(_LOG + "import srclib\nfrom flatlib import wipe\n")
    originals = {}
    for name in ("packages/srclib/src/srclib/__init__.py", "packages/srclib/src/srclib/jobs.py",
                 "packages/flat/flatlib/__init__.py", "packages/flat/flatlib/wipe.py"):
        originals[name] = (workspace / name).read_text()
        (workspace / name).write_text(_LOG + originals[name])
    try:
        subprocess.run([str(workspace / ".venv" / "bin" / "python"), str(script)], cwd=workspace, check=True,
                       timeout=60, env={**os.environ, "LOG": str(log), "PYTHONPATH": ""})
        ran = {os.path.realpath(line) for line in log.read_text().split()} - {os.path.realpath(script)}
        found = set(loaded_files([os.path.realpath(script)], os.path.realpath(workspace)))
    finally:
        for name, text in originals.items():
            (workspace / name).write_text(text)
        script.unlink()
    assert {os.path.basename(p) for p in ran} == {"__init__.py", "jobs.py", "wipe.py"}, ran
    assert found == ran


def test_an_environment_named_by_the_line_or_virtual_env_counts(workspace, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    venv_python = str(workspace / ".venv" / "bin" / "python")
    src = os.path.realpath(workspace / "packages" / "srclib" / "src")
    assert src not in python_envs.editable_roots(str(elsewhere))  # no environment of it in sight
    assert src in python_envs.editable_roots(str(elsewhere), venv_python)  # /path/to/.venv/bin/python x.py
    monkeypatch.setenv("VIRTUAL_ENV", str(workspace / ".venv"))
    assert src in python_envs.editable_roots(str(elsewhere))


def test_pth_files_that_name_nothing_usable_are_skipped(tmp_path, monkeypatch):
    """Comments, code lines, missing folders, installed folders, a finder whose MAPPING is no
    literal, binary bytes: none is a root, nothing fails."""
    env = tmp_path / "env"
    site = env / "lib" / "python3.11" / "site-packages"
    (site / "inside").mkdir(parents=True)
    (tmp_path / "real").mkdir()
    (site / "a.pth").write_text(f"# comment\n\nimport os; os.getcwd()\n{tmp_path / 'missing'}\n{site / 'inside'}\n"
                                f"{tmp_path / 'real'}\n")
    (site / "b.pth").write_bytes(b"\xff\xfe\x00garbage\n")
    (site / "c.pth").write_text("import __editable___bad_finder; __editable___bad_finder.install()\n")
    (tmp_path / "bad" / "x").mkdir(parents=True)  # a root, were the MAPPING read as code
    (site / "__editable___bad_finder.py").write_text(f"MAPPING = {{'x': str({str(tmp_path / 'bad' / 'x')!r})}}\n")
    (site / "d.pth").write_text("import __editable___gone_finder; __editable___gone_finder.install()\n")
    monkeypatch.setenv("VIRTUAL_ENV", str(env))
    roots = python_envs.editable_roots(str(tmp_path))
    assert str(tmp_path / "real") in roots
    assert not {str(site / "inside"), str(tmp_path / "missing"), str(tmp_path / "bad")} & set(roots)
