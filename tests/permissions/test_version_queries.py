"""Version and hardware questions a notebook agent asks all the time run without asking:
``python --version``, ``node -v``, ``nvcc --version``, ``nvidia-smi``, ``lscpu`` — with exactly
those options, and nothing else.  ``pip --version`` is not among them: pip is Python code, and
Python's start-up runs every ``.pth`` file of the environment (``python -V`` prints and exits
before that; the real-run test checks both)."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("python --version", "allow"),
    ("python3 -V", "allow"),
    ("python -VV", "allow"),
    ("python3.12 --version", "allow"),
    ("node --version", "allow"),
    ("node -v", "allow"),
    ("nvcc --version", "allow"),
    ("nvidia-smi", "allow"),
    ("nvidia-smi -L", "allow"),
    ("nvidia-smi --query-gpu=name,memory.used --format=csv", "allow"),
    ("lscpu", "allow"),
    ("lscpu -J", "allow"),
    ("python -V x.py", "ask"),
    ("python --version -c 'import os'", "ask"),
    ("python", "ask"),
    ("node -v app.js", "ask"),
    ("nvidia-smi -f out.txt", "ask"),  # writes its log there
    ("nvidia-smi -r", "ask"),  # resets a GPU
    ("nvidia-smi -pm 1", "ask"),
    ("lscpu --sysroot /x", "ask"),
    ("pip --version", "ask"),
    # arithmetic, calendars and a character-set conversion to standard output
    ("expr 1 + 2", "allow"), ("factor 12", "allow"), ("numfmt --to=iec 1048576", "allow"), ("cal", "allow"),
    ("iconv -f latin1 -t utf-8 data.csv", "allow"), ("iconv -f latin1 -t utf-8 -o out.csv data.csv", "ask"),
    ("iconv -f latin1 -t utf-8 --out out.csv data.csv", "ask"),
    ("python -m pip --version", "ask"),
    ("PYTHONPATH=. python -V", "ask"),
    # strings, not files (basename "$PWD" asked as a read of a file known at run time)
    ("basename $PWD", "allow"), ('dirname "$(pwd)"', "allow"), ("basename -s .py src/app.py", "allow"),
    ("yes | head -3", "allow"), ("yes > out.txt", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_version_queries(world, command, expected):
    assert verdict_name(await decide_bash(make_ctx(world.project), command)) == expected


def test_python_version_runs_no_pth_file_but_pip_does(tmp_path):
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (Path(site) / "probe.pth").write_text("import sys; sys.stderr.write('PTH RAN\\n')\n")
    version = subprocess.run([python, "--version"], capture_output=True, text=True, check=True)
    assert "PTH RAN" not in version.stderr and version.stdout.startswith("Python")
    module = subprocess.run([python, "-c", "pass"], capture_output=True, text=True, check=True)
    assert "PTH RAN" in module.stderr  # any other start runs it (pip's included)
