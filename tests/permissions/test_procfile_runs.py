"""Procfile runners start the Procfile's processes (``procfile_runs.py``, session 39).

With ``worker: rm -rf build`` in ``Procfile``, ``honcho start`` (and foreman, overmind, hivemind,
forego, goreman, nf) ran ``rm`` under ``Bash(rm:*)`` in bypassPermissions, and ``honcho run rm
x`` ran it too.  Each process is now a command of the line; real honcho (test extras) shows the
process and ``honcho run``'s command running.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROCFILE = "# processes\nweb: python -m http.server\nworker: rm -rf build\n"

ROWS = [
    ("honcho start", "deny"),
    ("uv run honcho start", "deny"),
    ("honcho start web", "ask"),  # every process counts: a deny rule asks
    ("foreman start", "deny"),
    ("overmind start", "deny"),
    ("overmind s", "deny"),
    ("hivemind", "deny"),
    ("forego start", "deny"),
    ("goreman start", "deny"),
    ("nf start", "deny"),
    ("honcho -d sub start", "deny"),  # the Procfile here, run in sub
    ("honcho run rm x", "deny"),
    ("honcho -e run run rm x", "deny"),  # the command is after the second `run`, not the -e value
    ("foreman run rm x", "deny"),
    ("honcho --unknown start", "ask"),
    ("honcho -f \"$P\" start", "ask"),
    ("honcho -f Procfile.dev start", "allow"),
    ("hivemind Procfile.dev", "allow"),
    ("nf -j Procfile.dev start", "allow"),
    ("honcho run ls", "allow"),
    ("honcho check", "allow"),
    ("honcho -f missing start", "allow"),  # no such file: honcho fails
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_procfile_processes_meet_the_deny_rules(tmp_path, command, expected):
    (tmp_path / "Procfile").write_text(PROCFILE)
    (tmp_path / "Procfile.dev").write_text("web: ls\n")
    (tmp_path / "sub").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_a_process_writing_a_protected_path_asks(tmp_path):
    (tmp_path / "Procfile").write_text("web: echo x > .git/config\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "honcho start")) == "ask"


@pytest.mark.skipif(shutil.which("honcho") is None, reason="needs honcho (test extras)")
@pytest.mark.parametrize("command", [["honcho", "start"], ["honcho", "run", "rm", "-f", "victim"]])
def test_real_honcho_runs_them(tmp_path, command):
    (tmp_path / "Procfile").write_text("worker: rm -f victim\n")
    (tmp_path / "victim").write_text("")
    subprocess.run(command, cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "victim").exists()
