"""Python tools that run a script or import a module the line names (``python_launchers.py``).

``coverage run app.py``, ``python -m cProfile app.py``, ``uvicorn app:app``, ``celery -A proj
worker``, ``streamlit run app.py``, ``alembic upgrade head`` … each ran the project's ``os.system("rm
x")`` unasked under ``Bash(rm:*)`` denied in bypassPermissions, while ``python app.py`` asked.  Real
Python shows what ``-m cProfile`` and ``-m trace`` run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

EVIL = 'import os\nos.system("rm x")\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("app.py", "proj/__init__.py", "alembic/env.py", "tests/test_a.py", "svc/main.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(EVIL)
    (tmp_path / "svc" / "__init__.py").write_text("")
    (tmp_path / "alembic" / "versions").mkdir()
    (tmp_path / "alembic.ini").write_text("[alembic]\nscript_location = alembic\n")
    (tmp_path / "calm.py").write_text("print('calm')\n")
    (tmp_path / "x").write_text("keep me")
    return tmp_path


ROWS = [
    ("python3 -m cProfile app.py", "ask"), ("python3 -m cProfile -o out.prof app.py", "ask"),
    ("python3 -m pdb app.py", "ask"), ("python3 -m trace --trace app.py", "ask"), ("python3 -m profile app.py", "ask"),
    ("python3 -m coverage run app.py", "ask"), ("coverage run app.py", "ask"), ("coverage run -m pytest", "ask"),
    ("coverage run --source=src -m pytest tests", "ask"), ("coverage run -m svc.main", "ask"),
    ("pyinstrument app.py", "ask"), ("memray run app.py", "ask"), ("scalene app.py", "ask"),
    ("kernprof -l app.py", "ask"), ("viztracer app.py", "ask"), ("python3 -m IPython app.py", "ask"),
    ("uvicorn app:app", "ask"), ("uvicorn svc.main:app --host 0.0.0.0 --port 8000", "ask"),
    ("gunicorn -b 0.0.0.0:8000 app:app", "ask"), ("hypercorn app:app", "ask"), ("python3 -m uvicorn app:app", "ask"),
    ("celery -A proj worker", "ask"), ("celery --app=proj worker", "ask"), ("streamlit run app.py", "ask"),
    ("fastapi run app.py", "ask"), ("panel serve app.py", "ask"), ("locust -f app.py", "ask"),
    ("alembic upgrade head", "ask"), ("python3 -m alembic upgrade head", "ask"),
    # what runs nothing of the project, or nothing a rule names
    ("coverage report", "allow"), ("uvicorn --version", "allow"), ("python3 -m cProfile calm.py", "allow"),
    ("coverage run calm.py", "allow"), ("python3 -m json.tool calm.json", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_python_launcher_runs_is_read(project, command, expected):
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "Bash(rm:*)" in verdict.message, verdict.message


@pytest.mark.parametrize("module", ["cProfile", "trace --count"])
def test_the_launcher_really_runs_the_script(project, module):
    (project / "app.py").write_text("open('ran', 'w').write('yes')\n")
    subprocess.run([sys.executable, "-m", *module.split(), "app.py"], cwd=project, capture_output=True, timeout=60)
    assert (project / "ran").exists()


@pytest.mark.parametrize(("command", "expected"), [
    ("python3 -m unittest", "ask"), ("python3 -m unittest discover -s tests", "ask"),
    ("python3 -m unittest tests.test_a", "ask"), ("python3 -m unittest -v", "ask"), ("nose2", "ask"),
    ("python3 -m doctest app.py", "ask"), ("pydoc svc.main", "ask"), ("python3 -m pydoc proj", "ask"),
    ("pdoc proj", "ask"), ("python3 -m unittest discover -s calmtests", "allow"),
])
async def test_unittest_doctest_and_pydoc_run_the_modules_they_are_given(project, command, expected):
    (project / "tests" / "__init__.py").write_text("")
    (project / "calmtests").mkdir()
    (project / "calmtests" / "test_c.py").write_text("import unittest\n")
    verdict = await decide_bash(make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",),
                                         mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.parametrize(("command", "config"), [
    ("mypy .", ("mypy.ini", "[mypy]\nplugins = evilplug\n")),
    ("mypy src", ("pyproject.toml", '[tool.mypy]\nplugins = ["evilplug"]\n')),
    ("pylint proj", (".pylintrc", "[MASTER]\nload-plugins=evilplug\n")),
    ("pylint --load-plugins=evilplug proj", None), ("pylint --load-plugins evilplug,other proj", None),
])
async def test_mypy_and_pylint_run_their_plugins_not_the_code_they_check(project, command, config):
    (project / "evilplug.py").write_text(EVIL)
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    if config is not None:
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command  # proj/app hold rm: not run
        (project / config[0]).write_text(config[1])
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == "ask" and "evilplug.py" in verdict.message, (command, verdict)


def test_unittest_really_runs_the_tests_it_discovers(project):
    (project / "tests" / "__init__.py").write_text("")
    (project / "tests" / "test_a.py").write_text("open('ran', 'w').write('yes')\n")
    subprocess.run([sys.executable, "-m", "unittest"], cwd=project, capture_output=True, timeout=60)
    assert (project / "ran").exists()
