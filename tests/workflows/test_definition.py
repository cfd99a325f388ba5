from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.workflows.definition import WorkflowError, parse_workflow
from jupyter_agent.workflows.runner import TemplateError, render_template


def test_parse_yaml_steps_and_defaults():
    wf = parse_workflow(
        "steps:\n  - tool: Read\n    input: {file_path: a}\n  - agent: Explore\n    prompt: look\n",
        Path("x/demo.yaml"),
    )
    assert wf.name == "demo" and [s.id for s in wf.steps] == ["step1", "step2"]
    assert wf.steps[0].kind == "tool" and wf.steps[1].agent == "Explore"


@pytest.mark.parametrize("text, message", [
    ("steps: []", "non-empty `steps`"),
    ("- a", "not a mapping"),
    ("steps:\n  - {tool: Bash, prompt: x}", "a tool step has no prompt"),
    ("steps:\n  - {id: a, prompt: x}\n  - {id: a, prompt: y}", "unique"),
    ("steps: [", "invalid YAML"),
])
def test_bad_files(text, message):
    with pytest.raises(WorkflowError, match=message):
        parse_workflow(text, Path("w.yaml"))


def test_templates_substitute_nested_values_and_refuse_unknown_names():
    value = {"cmd": ["echo {{inputs.a}}", "{{ steps.s1.output }}!"], "n": 3}
    assert render_template(value, {"a": "1"}, {"s1": "done"}) == {"cmd": ["echo 1", "done!"], "n": 3}
    with pytest.raises(TemplateError, match="unknown earlier step 's2'"):
        render_template("{{ steps.s2.output }}", {}, {})
