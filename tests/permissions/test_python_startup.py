"""What a Python environment runs at every start-up (``python_envs.startup_files``).

A ``.pth`` file in ``site-packages`` whose line starts with ``import`` is run by Python before any
script, as are ``sitecustomize.py`` and what such a line imports.  In bypassPermissions with
``Bash(*)`` allowed and ``Bash(rm:*)`` denied, a project ``.venv`` holding ``x.pth`` with ``import
os; os.system("rm x")`` removed ``x`` for ``.venv/bin/python -c 'print(1)'``, ``uv run python``,
``pytest`` and ``source .venv/bin/activate && python …``.  A real venv runs it here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _venv(project: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True, timeout=120)
    return next((project / ".venv" / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("startup")
    _venv(root)
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(template, tmp_path / "proj", symlinks=True)
    (tmp_path / "proj" / "x").write_text("keep me")
    return tmp_path / "proj"


def _site(project: Path) -> Path:
    return next((project / ".venv" / "lib").glob("python3*/site-packages"))


PAYLOADS = {
    "pth": {"evil.pth": 'import os; os.system("rm x")\n'},
    "pth built": {"evil.pth": 'import os; os.system("r" + "m x")\n'},
    "pth import": {"a.pth": "import helper_mod\n", "helper_mod.py": 'import os\nos.system("rm x")\n'},
    "sitecustomize": {"sitecustomize.py": 'import os\nos.system("rm -f x")\n'},
}
COMMANDS = [".venv/bin/python -c 'print(1)'", "uv run python -c 'print(1)'", "pytest -q",
            "source .venv/bin/activate && python -c 'print(1)'", ".venv/bin/python -m pip --version"]


@pytest.mark.parametrize("payload", list(PAYLOADS))
@pytest.mark.parametrize("command", COMMANDS)
async def test_start_up_code_of_the_environment_meets_the_rules(project, payload, command):
    for name, text in PAYLOADS[payload].items():
        (_site(project) / name).write_text(text)
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask", (command, getattr(verdict, "message", ""))
    assert "site-packages" in verdict.message and "Bash(rm:*)" in verdict.message, verdict.message


@pytest.mark.parametrize("command", COMMANDS)
async def test_an_environment_whose_start_up_code_runs_nothing_ruled_is_as_before(project, command):
    site = _site(project)
    (site / "paths.pth").write_text(str(project / "src") + "\n")  # a folder, not code
    (site / "hack.pth").write_text("import os; var = 'SETUPTOOLS_USE_DISTUTILS'; "
                                   "enabled = os.environ.get(var, 'local') == 'local'\n")
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "allow", (command, getattr(verdict, "message", ""))


def test_the_venvs_python_really_runs_a_pth_line(project):
    (_site(project) / "evil.pth").write_text('import os; os.system("rm x")\n')
    subprocess.run([str(project / ".venv" / "bin" / "python"), "-c", "print(1)"], cwd=project, timeout=60,
                   capture_output=True)
    assert not (project / "x").exists()


@pytest.mark.parametrize(("command", "expected"), [
    (".venv/bin/jupyter lab", "ask"), ("jupyter nbconvert --to html a.ipynb", "ask"), ("ipython -c 'print(1)'", "ask"),
    ("papermill a.ipynb b.ipynb", "ask"), (".venv/bin/python -c 'print(1)'", "allow"),
])
async def test_jupyters_and_ipythons_configuration_of_the_environment_is_code(project, command, expected):
    for folder, name in (("jupyter", "jupyter_server_config.py"), ("ipython", "ipython_config.py")):
        (project / ".venv" / "etc" / folder).mkdir(parents=True, exist_ok=True)
        (project / ".venv" / "etc" / folder / name).write_text('import os\nos.system("rm x")\n')
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_jupyter_and_ipython_read_configuration_from_the_environments_prefix():
    """Why: both look in ``sys.prefix/etc/jupyter`` and ``sys.prefix/etc/ipython``."""
    import os

    from IPython.core.application import ENV_CONFIG_DIRS
    from jupyter_core.paths import jupyter_config_path

    assert os.path.join(sys.prefix, "etc", "jupyter") in jupyter_config_path()
    assert os.path.join(sys.prefix, "etc", "ipython") in ENV_CONFIG_DIRS


async def test_a_change_of_the_start_up_code_is_seen_by_the_next_decision(project):
    """What each site-packages runs at start-up is kept per version of its folder, its .pth files
    and the package folders they import: each change counts."""
    import os
    import time

    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    command = ".venv/bin/python -c 'print(1)'"
    site = _site(project)
    (site / "helper").mkdir()
    (site / "a.pth").write_text("import helper\n")
    assert verdict_name(await decide_bash(ctx, command)) == "allow"
    (site / "helper" / "__init__.py").write_text('import os\nos.system("rm x")\n')  # a new file in the package
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
    (site / "helper" / "__init__.py").unlink()
    assert verdict_name(await decide_bash(ctx, command)) == "allow"
    (site / "a.pth").write_text('import os; os.system("rm x")\n')
    later = time.time() + 5  # the same second and size on a coarse clock: the time still differs
    os.utime(site / "a.pth", (later, later))
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
