"""The shell commands Snakemake's rules run (``permissions/snakemake_rules.py``).

Session 34's probe: with ``Bash(snakemake:*)`` allowed (or in bypassPermissions) and
``Bash(rm:*)`` denied, ``snakemake -c1 clean`` whose rule says ``shell: "rm -rf results"`` was
allowed.  The commands, their folder and the file names filled in are checked against a real
Snakemake below.
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
from jupyter_agent.permissions.snakemake_rules import snakemake_scripts
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.tools import decide_bash, make_ctx

SNAKEFILE = """\
include: "rules/extra.smk"

rule all:
    input: "out/a.txt", "out/b.txt"

rule a:
    output: "out/a.txt"
    shell:
        "{run} a && "
        "mkdir -p out && echo {{{{x}}}} > {{output}}"

rule b:
    input: "out/a.txt"
    output: main=temp("out/b.txt"), other="out/b2.txt"
    script: "scripts/b.sh"

rule clean:
    shell: "{run} clean"

rule pick:
    output: "out/{{sample}}.txt"
    shell: "{run} pick && touch {{output}}"
"""
EXTRA = 'rule extra:\n    output: "out/extra.txt"\n    shell: "{run} extra; touch {{output[0]}}"\n'
SCRIPT = '{run} b\nmkdir -p out && touch out/b.txt out/b2.txt\n'


def _workflow(root: Path, run: str) -> None:
    (root / "rules").mkdir(parents=True, exist_ok=True)
    (root / "scripts").mkdir(exist_ok=True)
    (root / "Snakefile").write_text(SNAKEFILE.format(run=run))
    (root / "rules" / "extra.smk").write_text(EXTRA.format(run=run))
    (root / "scripts" / "b.sh").write_text(SCRIPT.format(run=run))


def _scripts(args: str, cwd: Path) -> dict[str, object]:
    (info,) = analyze(f"snakemake {args}").commands
    return {s.shown.split()[2]: s for s in snakemake_scripts(info, [str(cwd)], {})}


def test_what_is_read_from_a_snakefile(tmp_path):
    _workflow(tmp_path, "echo")
    scripts = _scripts("-c1 clean", tmp_path)
    assert set(scripts) == {"a", "b", "clean", "pick", "extra"}
    assert scripts["a"].code == "echo a && mkdir -p out && echo {x} > out/a.txt"  # {{x}}: braces
    assert scripts["pick"].code == 'echo pick && touch "${SNAKEMAKE_VALUE}"'  # a wildcard
    assert scripts["extra"].code == "echo extra; touch out/extra.txt"
    assert scripts["b"].code == f"bash {tmp_path / 'scripts' / 'b.sh'}"
    assert scripts["clean"].certain and not scripts["a"].certain  # named on the line: it runs
    assert {s.cwd for s in scripts.values()} == {str(tmp_path)}


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake is not installed (it is in the test extras)")
@pytest.mark.timeout(600)
def test_the_commands_are_those_a_real_snakemake_runs(tmp_path):
    """A real Snakemake, from the workflow's folder and from another with -s/-d: each rule that
    ran is one the analysis reads, its folder the analysis's, its command the analysis's."""
    wf = tmp_path / "wf"
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$1 $(pwd)" >> {log}\n')
    probe.chmod(0o755)
    _workflow(wf, "probe")
    other = tmp_path / "other"
    other.mkdir()
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
    for args, cwd in (("-c1", wf), ("-c1 clean", wf), ("-c1 extra out/x.txt --forceall", wf),
                      (f"-c1 -s {wf / 'Snakefile'} -d {other} all", tmp_path)):
        log.write_text("")
        shutil.rmtree(wf / "out", ignore_errors=True)
        shutil.rmtree(other / "out", ignore_errors=True)
        result = subprocess.run(["snakemake", *args.split()], cwd=cwd, env=env, capture_output=True, text=True,
                                timeout=300)
        ran = dict(line.split(" ", 1) for line in log.read_text().splitlines() if line.strip())
        scripts = _scripts(args, cwd)
        assert ran, (args, result.stderr[-1500:])
        for name, where in ran.items():
            assert name in scripts, (args, name)
            assert where == scripts[name].cwd, (args, name, where)
            if name == "a":  # the file names filled in are those snakemake filled in
                assert (Path(where) / "out" / "a.txt").read_text() == "{x}\n"


@pytest.fixture
def project(tmp_path):
    _workflow(tmp_path, "echo")
    (tmp_path / "Snakefile").write_text((tmp_path / "Snakefile").read_text().replace(
        'shell: "echo clean"', 'shell: "rm -rf out"') + '\nrule peek:\n    shell: "cat .env"\n')
    (tmp_path / ".env").write_text("K=1\n")
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), [
    ("snakemake -c1 clean", "deny"), ("snakemake --cores 2 clean", "deny"), ("snakemake -c1 peek", "deny"),
    ("uv run snakemake -c1 clean", "deny"),
    ("snakemake -c1", "sticky"), ("snakemake -c1 all", "sticky"),  # clean may run: a deny rule asks
    ("snakemake -n clean", "allow"), ("snakemake --list", "allow"), ("snakemake --dag", "allow"),
    ("snakemake -c1 --delete-all-output", "ask"), ("snakemake -c1 -s \"$F\"", "ask"),
])
def test_snakemake_runs_meet_the_bash_rules(project, command, expected):
    ctx = make_ctx(project, mode="bypassPermissions", allow=("Bash(snakemake:*)", "Bash(uv:*)"),
                   deny=("Bash(rm:*)", "Read(./.env)"))
    verdict = asyncio.run(decide_bash(ctx, command))
    if expected == "sticky":
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict) and "may run" in verdict.message
        return
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)


def test_what_is_not_known(project):
    ctx = make_ctx(project, mode="bypassPermissions", deny=("Bash(rm:*)",))
    (project / "Snakefile").write_text('rule w:\n    wrapper: "v1.0/bio/fastqc"\n')
    verdict = asyncio.run(decide_bash(ctx, "snakemake -c1"))
    assert isinstance(verdict, PermissionAsk) and "wrapper" in verdict.message
    (project / "Snakefile").write_text('rule f:\n    shell: f"rm -rf {x}"\n')
    verdict = asyncio.run(decide_bash(ctx, "snakemake -c1"))
    assert isinstance(verdict, PermissionAsk) and "expression" in verdict.message
    (project / "Snakefile").write_text('module other:\n    snakefile: "x"\nuse rule * from other\n')
    verdict = asyncio.run(decide_bash(ctx, "snakemake -c1"))
    assert isinstance(verdict, PermissionAsk) and "module" in verdict.message
    (project / "Snakefile").unlink()
    assert isinstance(asyncio.run(decide_bash(ctx, "snakemake -c1")), PermissionAllow)  # none: it fails
    (project / "workflow").mkdir()
    (project / "workflow" / "Snakefile").write_text('rule c:\n    shell: "rm -rf x"\n')
    assert isinstance(asyncio.run(decide_bash(ctx, "snakemake -c1 c")), PermissionDeny)
