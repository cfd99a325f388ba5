"""The stage commands ``dvc repro`` and ``dvc exp run`` run (``permissions/dvc_stages.py``).

Session 34's probe: with ``Bash(dvc:*)`` allowed (or in bypassPermissions) and ``Bash(rm:*)``
denied, ``dvc repro`` whose ``dvc.yaml`` stage says ``cmd: rm -rf data`` was allowed.  Which
stages a line runs, and in which folder, is checked against a real ``dvc`` below.
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
from jupyter_agent.permissions.dvc_stages import dvc_scripts
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.tools import decide_bash, make_ctx

ROOT_PIPELINE = """\
vars:
  - who: world
stages:
  prep:
    cmd:
      - {log} prep
      - mkdir -p data
      - echo x > data/raw
    outs: [data/raw]
  train:
    cmd:
      - {log} train ${{who}}
      - pwd >> {where}
      - echo m > model
    wdir: sub
    deps: [../data/raw]
    outs: [model]
  loop:
    foreach: [a, b]
    do:
      cmd: {log} loop-${{item}}
  cold:
    cmd: {log} cold
    frozen: true
  side:
    cmd: {log} side
    deps: [elsewhere]
"""
SUB_PIPELINE = """\
stages:
  eval:
    cmd:
      - {log} eval
      - echo 1 > scores.json
    deps: [model]
    metrics:
      - scores.json:
          cache: false
"""


def _pipelines(proj: Path, log: str, where: str) -> None:
    (proj / ".dvc").mkdir(parents=True, exist_ok=True)
    (proj / "sub").mkdir(exist_ok=True)
    (proj / "dvc.yaml").write_text(ROOT_PIPELINE.format(log=log, where=where))
    (proj / "sub" / "dvc.yaml").write_text(SUB_PIPELINE.format(log=log))


def _stages(command: str, cwd: Path) -> list[str]:
    (info,) = analyze(command).commands
    return [s.shown.split()[2] for s in dvc_scripts(info, [str(cwd)], {})]


# (the line, the folder it runs in below the project, the stages dvc runs with -f): what a real dvc 3 ran
CASES = [
    ("dvc repro", "", ["prep", "train", "loop", "side"]),
    ("dvc repro train", "", ["train", "prep"]),
    ("dvc repro -s train", "", ["train"]),
    ("dvc repro sub/dvc.yaml:eval", "", ["eval", "train", "prep"]),
    ("dvc repro -s sub/dvc.yaml:eval", "", ["eval"]),
    ("dvc repro sub/dvc.yaml", "", ["eval", "train", "prep"]),
    ("dvc repro --downstream prep", "", ["prep", "train", "eval"]),
    ("dvc repro --glob 'lo*'", "", ["loop"]),
    ("dvc repro loop@a", "", ["loop"]),
    ("dvc repro -P", "", ["prep", "train", "loop", "side", "eval"]),
    ("dvc repro -R sub", "", ["eval", "train", "prep"]),
    ("dvc repro cold", "", []),
    ("dvc repro", "sub", ["eval", "train", "prep"]),
    ("dvc --cd sub repro", "", ["eval", "train", "prep"]),
    ("dvc repro --dry", "", []),
    ("dvc repro data/raw.dvc", "", []),
]


@pytest.mark.parametrize(("command", "folder", "expected"), CASES)
def test_the_stages_a_line_runs(tmp_path, command, folder, expected):
    proj = tmp_path / "proj"
    _pipelines(proj, "echo", str(tmp_path / "where"))
    assert sorted(_stages(command, proj / folder)) == sorted(expected)


def _have_dvc() -> bool:
    return shutil.which("dvc") is not None


@pytest.mark.skipif(not _have_dvc(), reason="dvc is not installed (it is in the test extras)")
@pytest.mark.timeout(600)
def test_the_stages_are_those_a_real_dvc_runs(tmp_path):
    """Each line of CASES run by a real ``dvc`` with ``-f`` (every stage it picks runs): the stages
    that logged are those the analysis reads, and ``train`` runs in its ``wdir``."""
    proj = tmp_path / "proj"
    proj.mkdir()
    log, where = tmp_path / "log", tmp_path / "where"
    env = dict(os.environ, DVC_NO_ANALYTICS="1", PYTHONDONTWRITEBYTECODE="1", DVC_SITE_CACHE_DIR=str(tmp_path / "c"))
    subprocess.run(["dvc", "init", "--no-scm", "-q"], cwd=proj, env=env, check=True, timeout=120)
    _pipelines(proj, f"echo >> {log}", str(where))
    (proj / "data").mkdir()
    (proj / "elsewhere").write_text("x\n")
    for command, folder, _expected in CASES:
        log.write_text("")
        words = command.replace("'", "").split()
        words.insert(words.index("repro") + 1, "-f")
        result = subprocess.run(words, cwd=proj / folder, env=env, capture_output=True, text=True, timeout=300)
        ran = sorted({line.split()[0].split("-")[0] for line in log.read_text().splitlines() if line.strip()})
        assert sorted(set(_stages(command, proj / folder))) == ran, (command, result.stderr[-800:])
        if "train" in ran:
            assert where.read_text().splitlines()[-1] == str(proj / "sub")  # its wdir


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    _pipelines(proj, "echo", str(tmp_path / "where"))
    (proj / ".env").write_text("K=1\n")
    return proj


def _decide(proj: Path, command: str, **rules) -> object:
    ctx = make_ctx(proj, mode=rules.pop("mode", "bypassPermissions"), **rules)
    return asyncio.run(decide_bash(ctx, command))


def _with(proj: Path, stage: str, cmd: str, extra: str = "") -> None:
    text = (proj / "dvc.yaml").read_text()
    (proj / "dvc.yaml").write_text(text + f"  {stage}:\n    cmd: {cmd}\n{extra}")


@pytest.mark.parametrize(("command", "expected"), [
    ("dvc repro", "deny"), ("dvc repro nuke", "deny"), ("dvc exp run nuke", "deny"),
    ("dvc experiments run -n e1 -S who=x nuke", "deny"), ("dvc exp run --temp -fs nuke", "deny"),
    ("dvc repro -s train", "allow"), ("dvc repro --dry", "allow"), ("dvc exp run --queue", "allow"),
    ("dvc status", "allow"), ("dvc add \"$f\"", "allow"), ("dvc exp show", "allow"),
    ("dvc queue start", "ask"), ("dvc exp run --run-all", "ask"), ("dvc repro \"$t\"", "ask"),
    ("dvc repro nope", "ask"), ("dvc repro --frobnicate", "ask"), ("dvc --weird repro", "ask"),
    ("cd \"$d\" && dvc repro", "ask"), ("uv run dvc repro nuke", "deny"), ("dvc -q", "allow"), ("dvc", "allow"),
    ("echo 'cmd: ls' > dvc.yaml && dvc repro", "ask"),
])
def test_stage_commands_meet_the_bash_rules(project, command, expected):
    _with(project, "nuke", "rm -rf data")
    verdict = _decide(project, command, allow=("Bash(dvc:*)", "Bash(uv:*)"), deny=("Bash(rm:*)",))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message and "the stage nuke of" in verdict.message


def test_a_stage_reading_a_denied_file_and_templates(project):
    _with(project, "peek", "cat ${file}", "    deps: [../x]\n")
    verdict = _decide(project, "dvc repro -s sub/dvc.yaml:eval", deny=("Read(./.env)",))
    assert isinstance(verdict, PermissionAllow)
    (project / "sub" / "dvc.yaml").write_text("stages:\n  eval:\n    cmd: cat ../.env\n")
    verdict = _decide(project, "dvc repro -s sub/dvc.yaml:eval", deny=("Read(./.env)",))
    assert isinstance(verdict, PermissionDeny) and "Read(./.env)" in verdict.message  # from the stage's folder
    # a template is a word only known at run time, as `cat "$f"` on a line is
    verdict = _decide(project, "dvc repro -s peek", deny=("Bash(cat:*)",))
    assert isinstance(verdict, PermissionDeny) and "cat ${DVC_VALUE}" in verdict.message
    _with(project, "who", "${prog} -rf data")  # the program itself: chosen at run time
    verdict = _decide(project, "dvc repro -s who", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict)


def test_outputs_dvc_deletes_are_writes(project):
    """dvc deletes a stage's outputs before running it: an Edit deny rule on them denies, unless the
    output is ``persist: true``; a stage writing into .git asks in every mode."""
    _with(project, "fresh", "ls", "    outs: [data/fresh]\n")
    _with(project, "kept", "ls", "    outs:\n      - data/kept:\n          persist: true\n")
    verdict = _decide(project, "dvc repro -s fresh", deny=("Edit(./data/**)",))
    assert isinstance(verdict, PermissionDeny) and "data/fresh" in verdict.message
    assert isinstance(_decide(project, "dvc repro -s kept", deny=("Edit(./data/**)",)), PermissionAllow)
    (project / ".git" / "hooks").mkdir(parents=True)
    _with(project, "hook", "cp x .git/hooks/pre-commit")
    verdict = _decide(project, "dvc repro -s hook")
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict)


def test_outside_a_dvc_repository_nothing_runs(tmp_path):
    (tmp_path / "dvc.yaml").write_text("stages:\n  nuke:\n    cmd: rm -rf data\n")
    verdict = _decide(tmp_path, "dvc repro", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAllow)  # no .dvc: dvc fails before running a stage
    verdict = _decide(tmp_path, "dvc init -q --no-scm && dvc repro", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk)  # the line makes the repository first: not known
    assert "dvc.yaml before it runs" in verdict.message


def test_unreadable_pipelines_are_code_only_known_at_run_time(project):
    (project / "dvc.yaml").write_text("stages: [not, a, mapping]\n")
    verdict = _decide(project, "dvc repro", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and "not a mapping" in verdict.message
    (project / "dvc.yaml").write_text("stages:\n  s:\n    cmd: ls\n    wdir: ${dir}\n")
    verdict = _decide(project, "dvc repro", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and "only known at run time" in verdict.message
    # without a Bash deny or ask rule, code only known at run time is what allowing dvc allows
    assert isinstance(_decide(project, "dvc repro"), PermissionAllow)
