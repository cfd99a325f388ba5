"""The notebooks ``nbdev-test`` runs (``permissions/nbdev_tests.py``).

Session 34's probe: with ``Bash(nbdev-test:*)`` allowed (or in bypassPermissions) and
``Bash(rm:*)`` denied, ``nbdev-test`` ran a notebook cell's ``!rm -rf data`` (nbdev runs cells in
an IPython shell).  Which notebooks and cells run, and where, is checked against a real nbdev.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.nbdev_tests import nbdev_scripts
from tests.permissions.tools import decide_bash, make_ctx

C, M, R = nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell, nbformat.v4.new_raw_cell


def _notebook(path: Path, cells: list) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = cells
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _project(root: Path, run: str) -> None:
    """An nbdev project whose cells run ``run NAME`` (NAME: which cell ran)."""
    (root / "mylib").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[project]\nname = "mylib"\nversion = "0.0.1"\n\n'
                                         '[tool.nbdev]\nnbs_path = "nbs"\ntst_flags = "slow"\nlib_path = "mylib"\n')
    nbs = root / "nbs"
    _notebook(nbs / "a.ipynb", [C(f"!{run} a"), C(f"#| eval: false\n!{run} a-off"), C(f"#| slow\n!{run} a-slow"),
                                C(f"#|eval:false\n!{run} a-off2")])
    _notebook(nbs / "sub" / "b.ipynb", [C(f"!{run} b")])
    _notebook(nbs / "_c.ipynb", [C(f"!{run} c")])
    _notebook(nbs / "_under" / "d.ipynb", [C(f"!{run} d")])
    _notebook(nbs / ".dot" / "e.ipynb", [C(f"!{run} e")])
    _notebook(nbs / "quiet" / "f.ipynb", [C(f"!{run} f")])
    (nbs / "quiet" / ".notest").write_text("")
    _notebook(nbs / "g.ipynb", [R("---\nskip_exec: true\n---"), C(f"!{run} g")])
    _notebook(nbs / "h.ipynb", [M("---\nskip_exec: true\n---"), C(f"!{run} h")])
    _notebook(nbs / "i.ipynb", [C(f"#| skip_exec\n!{run} i"), C(f"%%bash\n{run} i2")])
    _notebook(root / "top.ipynb", [C(f"!{run} top")])


CASES = [  # (the words after nbdev-test, the folder below the project it runs from, the cells that run)
    ("", "", {"a", "b", "i", "i2"}),
    ("--flags slow", "", {"a", "a-slow", "b", "i", "i2"}),
    ("", "nbs/sub", {"a", "b", "i", "i2"}),
    ("top.ipynb", "", {"top"}),
    ("nbs/sub", "", {"b"}),
]


def _cells_by_analysis(args: str, cwd: Path) -> set[str]:
    (info,) = analyze(f"nbdev-test {args}").commands
    ran = set()
    for script in nbdev_scripts(info, [str(cwd)], {}):
        assert script.cwd == os.path.dirname(script.path or ""), script
        ran |= {line.split()[-1] for line in (script.code or "").split("\n") if line.strip()}
    return ran


@pytest.mark.parametrize(("args", "folder", "expected"), CASES)
def test_the_cells_nbdev_runs(tmp_path, args, folder, expected):
    _project(tmp_path, "echo")
    assert _cells_by_analysis(args, tmp_path / folder) == expected


@pytest.mark.skipif(shutil.which("nbdev-test") is None, reason="nbdev is not installed (it is in the test extras)")
@pytest.mark.timeout(600)
def test_the_cells_are_those_a_real_nbdev_runs(tmp_path):
    proj = tmp_path / "proj"
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$1 $(pwd)" >> {log}\n')
    probe.chmod(0o755)
    _project(proj, "probe")
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
    for args, folder, _expected in CASES:
        log.write_text("")
        result = subprocess.run(["nbdev-test", *args.split()], cwd=proj / folder, env=env, capture_output=True,
                                text=True, timeout=300)
        ran = dict(line.split(" ", 1) for line in log.read_text().splitlines() if line.strip())
        assert set(ran) == _cells_by_analysis(args, proj / folder), (args, folder, result.stderr[-1500:])
        for name, where in ran.items():  # each notebook in its own folder
            expected_folder = {"b": proj / "nbs" / "sub", "top": proj}.get(name, proj / "nbs")
            assert where == str(expected_folder), (name, where)


@pytest.mark.parametrize(("command", "expected"), [
    ("nbdev-test", "deny"), ("nbdev_test", "deny"), ("nbdev-prepare", "deny"), ("cd nbs && nbdev-test", "deny"),
    ("nbdev-test nbs/a.ipynb", "deny"), ("nbdev-test --n-workers 2 --timing", "deny"),
    ("nbdev-test nbs/g.ipynb", "allow"), ("nbdev-test --help", "allow"), ("nbdev-export", "allow"),
    ("nbdev-test --file-glob '*.qmd'", "ask"), ("nbdev-test \"$NB\"", "ask"), ("nbdev-test --weird", "ask"),
])
def test_nbdev_runs_meet_the_bash_rules(tmp_path, command, expected):
    _project(tmp_path, "rm -rf")
    ctx = make_ctx(tmp_path, mode="bypassPermissions", allow=("Bash(nbdev-test:*)",), deny=("Bash(rm:*)",))
    verdict = asyncio.run(decide_bash(ctx, command))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message


def test_nbdev_2_settings_and_no_project(tmp_path):
    _project(tmp_path, "rm -rf")
    (tmp_path / "pyproject.toml").unlink()
    ctx = make_ctx(tmp_path, mode="bypassPermissions", deny=("Bash(rm:*)",))
    assert isinstance(asyncio.run(decide_bash(ctx, "nbdev_test")), PermissionAllow)  # no project: it fails
    (tmp_path / "settings.ini").write_text("[DEFAULT]\nlib_name = mylib\nnbs_path = nbs\n")
    assert isinstance(asyncio.run(decide_bash(ctx, "nbdev_test")), PermissionDeny)
