"""Compiled code a line loads: what it runs cannot be read, so a rule naming a program asks.

In bypassPermissions with ``Bash(*)`` allowed and ``Bash(rm:*)`` denied, these loaded compiled
code of the project unasked: ``python3 -c 'import tidy'`` with ``tidy.cpython-*.so`` (an extension
module is found before ``tidy.py``) or a ``tidy.pyc`` alone (Python imports byte code with no
source), ``ctypes.CDLL('./x.so')``, ``node -e 'require("./addon.node")'``, ``node addon.node``,
``ssh-keygen -D ./x.so``, ``ssh-add -s ./x.so`` and ``openssl … -engine ./x.so`` (a library's
constructors run as it loads).  Real Python shows that a lone ``.pyc`` runs.
"""

from __future__ import annotations

import importlib.machinery
import py_compile
import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 64
EXTENSION = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evil.so").write_bytes(ELF)
    (tmp_path / f"tidy{EXTENSION}").write_bytes(ELF)
    (tmp_path / "tidy.py").write_text("print('the source, which the extension module shadows')\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from ._speed import go\n")
    (tmp_path / "pkg" / f"_speed{EXTENSION}").write_bytes(ELF)
    (tmp_path / "addon.node").write_bytes(ELF)
    (tmp_path / "calm.py").write_text("print('calm')\n")
    source = tmp_path / "only_src.py"
    source.write_text("open('ran', 'w').write('yes')\n")
    py_compile.compile(str(source), cfile=str(tmp_path / "only.pyc"))
    source.unlink()
    return tmp_path


ROWS = [
    ("python3 -c 'import tidy'", "ask"), ("python3 -c 'import pkg'", "ask"), ("python3 -c 'import only'", "ask"),
    ("python3 -c 'from pkg import go; go()'", "ask"),
    ("python3 -c 'import ctypes; ctypes.CDLL(\"./evil.so\")'", "ask"),
    ("python3 -c 'import ctypes; ctypes.cdll.LoadLibrary(\"./evil.so\")'", "ask"),
    ("python3 -c 'import cffi; cffi.FFI().dlopen(\"./evil.so\")'", "ask"),
    ("node -e 'require(\"./addon.node\")'", "ask"), ("node addon.node", "ask"),
    ("ssh-keygen -D ./evil.so", "ask"), ("ssh-add -s ./evil.so", "ask"),
    ("openssl req -new -engine ./evil.so", "ask"), ("openssl s_client -provider ./evil.so", "ask"),
    # the system's libraries, or nothing compiled
    ("python3 -c 'import ctypes; ctypes.CDLL(None)'", "allow"),
    ("python3 -c 'import ctypes, ctypes.util; ctypes.CDLL(ctypes.util.find_library(\"c\"))'", "allow"),
    ("python3 -c 'import ctypes; ctypes.CDLL(\"libc.so.6\")'", "allow"),
    ("python3 -c 'import calm'", "allow"), ("python3 -c 'import json'", "allow"),
    ("openssl version", "allow"), ("ssh-keygen -lf key.pub", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_compiled_code_the_line_loads_asks_under_a_rule_naming_a_program(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_python_really_imports_byte_code_with_no_source(project):
    subprocess.run([sys.executable, "-c", "import only"], cwd=project, capture_output=True, timeout=60)
    assert (project / "ran").exists()
