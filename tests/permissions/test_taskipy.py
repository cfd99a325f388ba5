"""taskipy's ``task NAME`` runs ``[tool.taskipy.tasks]`` of ``pyproject.toml`` (session 39).

With ``k = "rm x"`` there, ``task k`` (and ``uv run task k``, ``poetry run task k``) ran ``rm``
under ``Bash(rm:*)`` in bypassPermissions: only go-task's ``Taskfile.yml`` was read for ``task``.
taskipy runs each task as shell code in the project's folder, after ``pre_NAME`` and before
``post_NAME``, with the words after the name appended, the ``runner`` setting in front and, with
``use_vars``, ``{name}`` filled in from ``[tool.taskipy.variables]`` (seen with taskipy 1.14).
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PYPROJECT = """\
[tool.taskipy.settings]
use_vars = true

[tool.taskipy.variables]
out = "build"
nested = { var = "x", recursive = true }

[tool.taskipy.tasks]
clean = "rm -rf build"
lint = "ruff check ."
pre_lint = "rm -rf .ruff_cache"
test = "pytest -q"
post_test = "echo done"
wipe = { cmd = "rm -rf {out}", help = "remove the output" }
show = "echo {out}"
odd = "echo {nested}"
sub = { cmd = "ls", cwd = "src" }
bare = "echo"
"""

ROWS = [
    ("task clean", "deny"),
    ("uv run task clean", "deny"),
    ("poetry run task clean", "deny"),
    ("python -m taskipy clean", "deny"),  # the module's program is `task`
    ("task lint", "deny"),  # its pre_lint
    ("task wipe", "deny"),  # rm -rf build, the variable filled in
    ("task bare rm", "allow"),  # echo rm: the words are appended to the code
    ("task odd", "ask"),  # a variable that is not a plain string: not known
    ("task test", "allow"),
    ("task show", "allow"),
    ("task sub", "allow"),
    ("task --list", "allow"),
    ("task missing", "allow"),  # no such task: taskipy fails
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_taskipy_tasks_meet_the_deny_rules(tmp_path, command, expected):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "src").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_the_runner_setting_goes_in_front(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.taskipy.settings]\nrunner = "rm -f"\n[tool.taskipy.tasks]\nt = "x"\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "task t")) == "deny"


async def test_a_go_task_taskfile_is_still_read(tmp_path):
    (tmp_path / "Taskfile.yml").write_text("version: 3\ntasks:\n  clean:\n    cmds:\n      - rm -rf build\n")
    (tmp_path / "pyproject.toml").write_text('[tool.taskipy.tasks]\nlint = "ruff check ."\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "task clean")) == "deny"
    assert verdict_name(await decide_bash(ctx, "task lint")) == "allow"


async def test_modules_run_as_their_programs(tmp_path):
    """python -m poethepoet / pre_commit / nbconvert are poe, pre-commit, jupyter nbconvert."""
    (tmp_path / "pyproject.toml").write_text('[tool.poe.tasks]\nq = "rm x"\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "python -m poethepoet q")) == "deny"
    assert verdict_name(await decide_bash(ctx, "python -m nbconvert --ServerApp.browser='rm x' a.ipynb")) == "ask"
    assert verdict_name(await decide_bash(ctx, "python -m pip list")) == "allow"
