"""Workflow engines run shell commands from files not read here (``workflow_engines.py``, session 40).

``nextflow run`` (the processes' ``script:`` blocks), ``cwltool`` and the other CWL runners,
``miniwdl run``/``cromwell run`` (WDL ``command`` blocks), ``ploomber build`` and ``go generate``
(``//go:generate`` comments) ran what their files say under ``Bash(rm:*)`` in bypassPermissions
without a question.  What they run is code only known at run time: under a deny or ask rule it
asks; with none, the engine runs (the rule or approval for the line covers it).
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("nextflow run main.nf", "ask"),
    ("nextflow run nf-core/rnaseq -profile docker", "ask"),
    ("cwltool wf.cwl job.yml", "ask"),
    ("cwl-runner wf.cwl", "ask"),
    ("toil-cwl-runner wf.cwl job.yml", "ask"),
    ("miniwdl run wf.wdl", "ask"),
    ("cromwell run wf.wdl", "ask"),
    ("ploomber build", "ask"),
    ("go generate ./...", "ask"),
    ("go -C sub generate ./...", "ask"),
    ("timeout 3600 nextflow run main.nf", "ask"),
    # build systems running their rules' shell commands, CI runners running a pipeline's steps here
    ("bazel build //:x", "ask"), ("bazel run //:x", "ask"), ("bazelisk test //...", "ask"),
    ("buck2 build //:x", "ask"), ("pants test ::", "ask"), ("plz build", "ask"), ("act", "ask"),
    ("act -j test", "ask"), ("earthly +build", "ask"), ("gitlab-runner exec shell test", "ask"),
    ("bazel query //...", "allow"), ("bazel version", "allow"), ("pants --version", "allow"),
    ("act -l", "allow"), ("act -n", "allow"),
    # what runs nothing of the workflow's
    ("nextflow run main.nf -preview", "allow"),
    ("nextflow -version", "allow"),
    ("nextflow list", "allow"),
    ("cwltool --validate wf.cwl", "allow"),
    ("miniwdl check wf.wdl", "allow"),
    ("ploomber status", "allow"),
    ("go generate -n ./...", "allow"),
    ("go build ./...", "allow"),
    ("go test ./...", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_workflow_engines_ask_under_a_deny_rule(tmp_path, command, expected):
    (tmp_path / "sub").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.parametrize("command", [c for c, v in ROWS if v == "ask"])
async def test_with_no_command_rule_the_engine_runs(tmp_path, command):
    (tmp_path / "sub").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "allow", command
