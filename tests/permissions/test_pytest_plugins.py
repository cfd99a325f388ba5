"""Plugin modules pytest loads early by name (``code_files._pytest_plugins``).

``python -m pytest`` with ``addopts = -p evilplug`` in ``pytest.ini`` imported the folder's
``evilplug.py``, whose ``os.system("rm x")`` ran unasked under ``Bash(rm:*)`` denied in
bypassPermissions: the plugin was no file the analysis read.  Real pytest shows the import.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CONFIGS = {
    "pytest.ini": "[pytest]\naddopts = -p evilplug\n",
    "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-q -p evilplug"\n',
    "setup.cfg": "[tool:pytest]\naddopts = -pevilplug\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evilplug.py").write_text('import os\nos.system("rm x")\n')
    (tmp_path / "calmplug.py").write_text("def pytest_configure(config):\n    pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    return tmp_path


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("command", ["pytest -q", "python3 -m pytest -q tests"])
async def test_a_plugin_the_configuration_names_is_read(project, config, command):
    (project / config).write_text(CONFIGS[config])
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == "ask" and "evilplug.py" in verdict.message, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    ("pytest -p evilplug -q", "ask"), ("pytest -pevilplug", "ask"), ("PYTEST_PLUGINS=calmplug pytest -q", "ask"),  # (a variable that loads code)
    ("pytest -p calmplug -q", "allow"), ("pytest -p no:evilplug -q", "allow"), ("pytest -q", "allow"),
])
async def test_a_plugin_the_line_names_is_read(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_python_m_pytest_really_imports_the_plugin(project):
    (project / "evilplug.py").write_text("open('ran', 'w').write('yes')\n")
    (project / "pytest.ini").write_text(CONFIGS["pytest.ini"])
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project,
                   capture_output=True, timeout=120)
    assert (project / "ran").exists()
