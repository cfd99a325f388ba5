"""Installed Python code is protected (``paths._installed_reason``).

In acceptEdits, the Write tool rewrote ``.venv/lib/python3.11/site-packages/black/__init__.py``
in the project unasked; the next ``black --check .`` under the user's ``Bash(black:*)``, which
runs without a question, would have run what was written.  The kernel imports ipykernel from its environment's
``site-packages`` at every start, and the standard library's ``site.py`` runs with every
interpreter.  So a write inside a ``site-packages``/``dist-packages`` folder or inside
``lib/pythonX.Y`` asks in every mode, like ``.venv/bin/rg``.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig

import pytest

from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.paths import protected_reason_of
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import EditLike, PathInput, decide_bash, make_ctx

ROWS = [
    (".venv/lib/python3.11/site-packages/black/__init__.py", "ask"),
    (".venv/lib/python3.11/site-packages/black/__pycache__/x.cpython-311.pyc", "ask"),  # used if it matches
    (".venv/lib/python3.11/site-packages/shadow.py", "ask"),  # a new module, imported by name later
    (".venv/lib/python3.13t/site-packages/x.py", "ask"),
    ("env/Lib/site-packages/x.py", "ask"),  # a Windows layout
    ("debian/usr/lib/python3/dist-packages/x.py", "ask"),
    ("py/lib/python3.11/site.py", "ask"),  # the standard library: run at every start
    ("py/lib/python3.11/json/__init__.py", "ask"),
    (".venv/lib/python3.11/site-packages", "allow"),  # the folder itself (made by hand)
    ("src/lib/python3/helpers.py", "allow"),  # a project's own lib/python3
    ("lib/python_utils.py", "allow"),
    ("site_packages.py", "allow"),
    ("docs/site-packages.md", "allow"),
]


@pytest.mark.parametrize(("name", "expected"), ROWS)
async def test_installed_code_asks_in_every_mode(tmp_path, name, expected):
    target = tmp_path / name
    assert (protected_reason_of(str(target), str(target)) is None) == (expected == "allow")
    for mode in ("acceptEdits", "bypassPermissions"):
        ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode=mode)
        write = await has_permission_to_use_tool(EditLike("Write"), PathInput(file_path=str(target)), ctx)
        assert verdict_name(write) == expected, (mode, name)
    bypass = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(bypass, f"echo 'import os' >> {name}")) == expected


def test_the_kernels_own_library_is_protected():
    for key in ("purelib", "stdlib"):
        module = sysconfig.get_paths()[key] + "/some_module.py"
        assert protected_reason_of(module, module) is not None, key


def test_a_module_written_into_site_packages_is_what_the_environment_imports(tmp_path):
    """Why: an environment's ``python`` imports a module put in its site-packages by name."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    site = subprocess.run([str(env / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    module = f"{site}/planted.py"
    with open(module, "w") as f:
        f.write("print('PLANTED-RAN')\n")
    out = subprocess.run([str(env / "bin" / "python"), "-c", "import planted"], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert "PLANTED-RAN" in out.stdout
    assert protected_reason_of(module, module) is not None
