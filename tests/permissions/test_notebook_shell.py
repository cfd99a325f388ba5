"""Shell code in notebook cells meets the Bash rules (session 31's probe).

In bypassPermissions with ``Bash(rm:*)`` denied, NotebookExecute ran a cell ``!rm -rf build`` (or a
``%%bash`` cell): running the cells was the only check.  Now their shell code gets the Bash
check's deny and sticky asks (``permissions/notebook_shell.py``).
"""

from __future__ import annotations

import pytest

from jupyter_agent.core.permission_types import PermissionAsk, PermissionDeny
from jupyter_agent.permissions.notebook_shell import cell_shell_code, cells_shell_check
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.tools import make_ctx


@pytest.mark.parametrize(("source", "code"), [
    ("!rm -rf build", "rm -rf build"), ("  !!ls -la", "ls -la"), ("files = !ls {path}", 'ls "${PYTHON_VALUE}"'),
    ("x = 1\n!echo $HOME", "echo $HOME"), ("%sx rm z", "rm z"), ("%system rm z", "rm z"),
    ("%%bash\nrm -rf x\necho done", "rm -rf x\necho done"), ("%%sh\nrm y", "rm y"),
    ("%%script bash --bg\nrm y", "rm y"), ("%%script /bin/sh\nrm y", "rm y"), ("%%sx\nrm y", "rm y"),
    ("%%script python3\nprint(1)", ""), ("%%writefile run.sh\nrm q", ""), ('print("!not shell")', ""),
    ("import os\nos.system('rm x')", ""),  # Python: a program, as a .py file's
])
def test_the_shell_code_of_a_cell(source, code):
    assert cell_shell_code(source) == code


@pytest.mark.parametrize(("source", "expected"), [
    ("!rm -rf build", "deny"), ("%%bash\necho hi\nrm -rf build", "deny"), ("!cat .env", "deny"),
    ("!echo x > .git/hooks/pre-commit", "sticky"), ('!bash -c "$CMD"', "sticky"), ("!ls {folder}", None),
    ("!ls -la", None), ("x = 1", None), ("%%script python3\nimport shutil", None),
])
def test_cells_meet_the_bash_rules_in_every_mode(tmp_path, source, expected):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".env").write_text("K=1\n")
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", source)], ctx)
    if expected is None:
        assert verdict is None
    elif expected == "deny":
        assert isinstance(verdict, PermissionDeny) and "cell c1" in verdict.message
    else:
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict) and "Cell c1" in verdict.message


def test_without_rules_a_cell_needs_only_the_approval_to_run(tmp_path):
    ctx = make_ctx(tmp_path)
    assert cells_shell_check([("c1", "!rm -rf build"), ("c2", "%%bash\nnpm install")], ctx) is None
