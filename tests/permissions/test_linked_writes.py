"""A write in place through a hard link changes the file under all its names.

uv (on Linux) and conda install packages as hard links to their caches, so
``~/.cache/uv/archive-v0/…/pkg/__init__.py`` and the kernel's ``.venv/lib/…/site-packages/pkg/
__init__.py`` are one file.  With the project in home, ``echo 'import os; …' >> <the cache's
name>`` ran unasked in bypassPermissions and rewrote the installed package, a protected path, which
the kernel imports at its next start.  No walk can find every other name of a file, so a shell
write in place (``>``, ``>>``, ``cp``, ``tee``, ``dd``, ``truncate``) to a file with more than one
name asks in every mode.  Writers that put a new file in place (``mv``, ``sed -i``, ``install``) or
only remove a name do not: the other names keep the old file — as the Write and Edit tools do,
which write a new file and rename it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, write_files

CACHED = "cache/pkg/__init__.py"
INSTALLED = ".venv/lib/python3.11/site-packages/pkg/__init__.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    write_files(project, {CACHED: "VERSION = 1\n", "notes.txt": "n\n", "sub/__init__.py": "x = 1\n",
                          "plain.py": "y = 1\n"})
    (project / INSTALLED).parent.mkdir(parents=True)
    os.link(project / CACHED, project / INSTALLED)
    return project


def _bypass(project: Path):
    return make_ctx(project, allow=("Bash(*)",), mode="bypassPermissions")


@pytest.mark.parametrize("command", [
    f"echo 'import os' >> {CACHED}",
    f"echo x > {CACHED}",
    f"cp notes.txt {CACHED}",
    "cp sub/__init__.py cache/pkg/",  # lands on the linked name
    f"tee -a {CACHED} < notes.txt",
    f"dd if=notes.txt of={CACHED}",
    f"truncate -s 0 {CACHED}",
])
async def test_a_write_in_place_to_a_file_with_other_names_asks_in_every_mode(project, command):
    verdict = await decide_bash(_bypass(project), command)
    assert verdict_name(verdict) == "ask", command
    assert "hard links" in verdict.message, verdict.message


@pytest.mark.parametrize("command", [
    f"mv notes.txt {CACHED}",  # a new name for another file: the installed one stays as it is
    f"sed -i s/1/2/ {CACHED}",  # sed writes a new file and renames it
    f"rm {CACHED}",
    f"install -m 644 notes.txt {CACHED}",
    "echo x >> plain.py",  # one name only
    "cp notes.txt plain.py",
])
async def test_writers_that_leave_the_other_names_alone_still_run(project, command):
    assert verdict_name(await decide_bash(_bypass(project), command)) == "allow", command


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_really_changes_the_installed_name_in_place_and_sed_does_not(project):
    run = {"cwd": project, "check": True, "timeout": 30, "env": {"PATH": os.environ["PATH"]}}
    subprocess.run(["bash", "-c", f"sed -i s/1/2/ {CACHED}"], **run)
    assert (project / INSTALLED).read_text() == "VERSION = 1\n"  # sed's new file: the link is broken
    os.unlink(project / CACHED)
    os.link(project / INSTALLED, project / CACHED)
    subprocess.run(["bash", "-c", f"echo 'import os' >> {CACHED}"], **run)
    assert (project / INSTALLED).read_text() == "VERSION = 1\nimport os\n"


async def test_the_write_tool_writes_a_new_file_and_leaves_the_other_names(project):
    ctx = make_ctx(project, mode="acceptEdits", tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write")))
    approver = RecordingApprover()
    path = str(project / CACHED)
    assert not (await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, approver)).is_error
    out = await run_tool_use(ToolUseRequest("w", "Write", {"file_path": path, "content": "VERSION = 2\n"}), ctx,
                             approver)
    assert not out.is_error and approver.asks == [], out.text
    assert (project / CACHED).read_text() == "VERSION = 2\n"
    assert (project / INSTALLED).read_text() == "VERSION = 1\n"
