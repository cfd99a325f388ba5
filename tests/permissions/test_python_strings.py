"""Strings Python code builds from literals (``python_strings.py``): under ``Read(./.env)`` in
bypassPermissions, a NotebookExecute cell, ``python -c`` or a ``.py`` file the line runs printed
``.env`` through ``open('.e' + 'nv')``, ``''.join(['.', 'env'])``, ``'vne.'[::-1]`` or
``base64.b64decode('LmVudg==').decode()`` — no literal of the code named the file."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jupyter_agent.core.permission_types import PermissionAsk
from jupyter_agent.permissions.notebook_shell import cells_strings_check
from jupyter_agent.permissions.python_strings import folded_strings
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

BUILT = [
    "print(open('.e' + 'nv').read())",
    "print(open(f\"{'.'}env\").read())",
    "print(open(''.join(['.', 'env'])).read())",
    "print(open('.' 'env').read())",  # one constant, two literals to a regex
    "p = '.e'\np += 'nv'\nprint(open(p).read())",
    "d = '.'\nname = d + 'env'\nprint(open(name).read())",
    "print(open('vne.'[::-1]).read())",
    "print(open('xx.envyy'[2:6]).read())",
    "print(open(chr(46) + 'env').read())",
    "import base64\nprint(open(base64.b64decode('LmVudg==').decode()).read())",
    "print(open(bytes.fromhex('2e656e76').decode()).read())",
    "print(open('%s%s' % ('.', 'env')).read())",
    "print(open('{}env'.format('.')).read())",
    "print(open(''.join(reversed('vne.'))).read())",
    "import codecs\nprint(open(codecs.decode('.rai', 'rot13')).read())",
    "import os\nprint(open(os.path.join('.', '.e' + 'nv')).read())",
    "print(open('.ENV'.lower()).read())",
]
PLAIN = [
    "print(open('data' + '/a.csv').read())",
    "x = input()\nprint(open(x + 'nv').read())",  # only known at run time: not followed
    "print('%0999999999d' % 1)",  # a width: never computed
    "print('{:0999999999}'.format(1))",
    "x = 'a' * 63\nprint(x.replace('a', x).replace('a', x))",
    "for p in ['a', 'b']:\n    p += 'nv'\n    print(p)",  # a loop's name is not one value
]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "data").mkdir(parents=True)
    (root / ".env").write_text("SECRET=1\n")
    (root / "data" / "a.csv").write_text("x\n")
    return root


@pytest.mark.parametrize("code", BUILT)
def test_a_cell_building_a_denied_name_asks(project, code):
    assert ".env" in folded_strings(code) or "./.env" in folded_strings(code), folded_strings(code)
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = cells_strings_check([("c1", code)], ctx, [str(project)])
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), code


@pytest.mark.parametrize("code", PLAIN)
def test_other_code_needs_only_the_approval(project, code):
    assert all(len(text) <= 4096 for text in folded_strings(code))
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    assert cells_strings_check([("c1", code)], ctx, [str(project)]) is None, code


@pytest.mark.parametrize("code", BUILT[:1] + BUILT[6:7] + BUILT[9:10])
def test_the_code_really_prints_the_denied_file(project, code):
    out = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60)
    assert "SECRET=1" in out.stdout, out.stderr


@pytest.mark.parametrize("code", [BUILT[0], BUILT[4], BUILT[9]])
async def test_python_c_and_a_python_file_building_it_ask(project, code):
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    one_line = code.replace("\n", "; ")
    assert verdict_name(await decide_bash(ctx, f'python -c "{one_line}"')) == "ask"
    (project / "dump.py").write_text(code + "\n")
    assert verdict_name(await decide_bash(ctx, "python dump.py")) == "ask"
    (project / "ok.py").write_text(PLAIN[0] + "\n")
    assert verdict_name(await decide_bash(ctx, "python ok.py")) == "allow"


def test_odd_code_folds_nothing_and_fails_nothing():
    for code in ["(", "x = (" * 400 + ")" * 400, "'a' + 1", "b'x' + 'y'", "'%s' % ()", "'{}'.format()",
                 "chr(-1) + 'x'", "'abc'[99]", "'abc'[::0]", "'x' * (1 << 80)", "%time x = '.e' + 'nv'"]:
        assert isinstance(folded_strings(code), tuple)
