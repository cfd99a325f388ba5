"""The command ``mlflow run`` runs from an ``MLproject`` (``permissions/mlflow_projects.py``).

Session 34's probe: with ``Bash(mlflow:*)`` allowed (or in bypassPermissions) and ``Bash(rm:*)``
denied, ``mlflow run .`` whose entry point's command says ``rm -rf data`` was allowed.  The
command and its folder are checked against a real ``mlflow run`` below.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.mlflow_projects import mlflow_scripts
from tests.permissions.tools import decide_bash, make_ctx

MLPROJECT = """\
name: t
entry_points:
  main:
    parameters:
      alpha: {type: float, default: 0.5}
      word: {type: string, default: "a b"}
    command: "probe main {alpha} {word}"
  other:
    command: "probe other"
"""


def _project(proj: Path) -> None:
    proj.mkdir(parents=True, exist_ok=True)
    (proj / "MLproject").write_text(MLPROJECT)
    (proj / "step.sh").write_text('probe step "$@"\n')


CASES = [  # the words after `mlflow run`, and the command the analysis reads (what a real mlflow ran)
    ("proj", 'probe main "${MLFLOW_PARAMETER}" "${MLFLOW_PARAMETER}"'),
    ("proj -e other", "probe other"),
    ("proj -P alpha=2 -P extra=7", 'probe main "${MLFLOW_PARAMETER}" "${MLFLOW_PARAMETER}" --extra 7'),
    ("proj -e step.sh -P x=1", "bash step.sh --x 1"),
    ("proj -e missing", None),
]


@pytest.mark.parametrize(("args", "expected"), CASES)
def test_the_command_mlflow_runs(tmp_path, args, expected):
    _project(tmp_path / "proj")
    (info,) = analyze(f"mlflow run {args} --env-manager local").commands
    scripts = mlflow_scripts(info, [str(tmp_path)], {})
    if expected is None:
        assert scripts == []
        return
    (script,) = scripts
    assert script.code == expected and script.cwd == str(tmp_path / "proj")


@pytest.mark.skipif(shutil.which("mlflow") is None, reason="mlflow is not installed (mlflow-skinny is in the test extras)")
@pytest.mark.timeout(600)
def test_the_commands_are_those_a_real_mlflow_runs(tmp_path):
    """Each case run by a real ``mlflow run``: the probe logs the words it got and its folder; the
    analysis's command, its parameter words filled in as mlflow fills them, gives the same words."""
    _project(tmp_path / "proj")
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$(pwd)|$*" >> {log}\n')
    probe.chmod(0o755)
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", MLFLOW_ALLOW_FILE_STORE="true",
               MLFLOW_TRACKING_URI=(tmp_path / "mlruns").as_uri(), SHELL="/bin/bash")
    for args, expected in CASES:
        log.write_text("")
        result = subprocess.run(["mlflow", "run", *args.split(), "--env-manager", "local"], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=300)
        lines = log.read_text().splitlines()
        if expected is None:
            assert lines == [], (args, result.stderr[-800:])
            continue
        assert len(lines) == 1, (args, result.stderr[-800:])
        where, ran = lines[0].split("|", 1)
        assert where == str(tmp_path / "proj")
        filled = expected.replace('"${MLFLOW_PARAMETER}"', "{}")
        values = {"proj": ("0.5", "a b"), "proj -P alpha=2 -P extra=7": ("2", "a b")}.get(args, ())
        words = filled.format(*values).split(" ", 1)[1] if expected.startswith("probe") else None
        if words is not None:
            assert ran == words, args
        else:  # bash step.sh --x 1: the script's probe got the words after the script
            assert ran == "step --x 1", args


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    _project(proj)
    (proj / "MLproject").write_text(MLPROJECT.replace('"probe other"', '"rm -rf data"').replace(
        "probe main {alpha} {word}", "cat .env {word}"))
    (proj / ".env").write_text("K=1\n")
    (proj / "step.sh").write_text("echo step\n")
    return proj


@pytest.mark.parametrize(("command", "expected"), [
    ("mlflow run . -e other", "deny"), ("mlflow run --entry-point=other .", "deny"),
    ("uv run mlflow run . -e other", "deny"), ("mlflow run . -e step.sh", "allow"), ("mlflow run .", "denyread"),
    ("mlflow ui", "allow"), ("mlflow run . -e missing", "allow"), ("mlflow run nowhere", "allow"),
    ("mlflow run https://github.com/x/y", "ask"), ("mlflow run . -b databricks", "ask"),
    ("mlflow run . --weird", "ask"), ("mlflow run \"$P\"", "ask"),
])
def test_mlflow_runs_meet_the_bash_rules(project, command, expected):
    ctx = make_ctx(project, mode="bypassPermissions", allow=("Bash(mlflow:*)", "Bash(uv:*)"),
                   deny=("Bash(rm:*)", "Read(./.env)"))
    verdict = asyncio.run(decide_bash(ctx, command))
    kinds = {"deny": PermissionDeny, "denyread": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message and "'other' entry point" in verdict.message
    if expected == "denyread":
        assert "Read(./.env)" in verdict.message


def test_an_unreadable_mlproject_is_code_only_known_at_run_time(project):
    (project / "MLproject").write_text("entry_points: [\n")
    ctx = make_ctx(project, mode="bypassPermissions", deny=("Bash(rm:*)",))
    verdict = asyncio.run(decide_bash(ctx, "mlflow run ."))
    assert isinstance(verdict, PermissionAsk) and "MLproject" in verdict.message
