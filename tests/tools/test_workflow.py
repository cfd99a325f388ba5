"""Workflow: real tool steps (Bash, Write) and a subagent step against the scripted model server."""

from __future__ import annotations

import pytest

from jupyter_agent.core.events import ToolCallProgress
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.subagents.runtime import RUNTIME_KEY
from jupyter_agent.testing import ScriptedServer, reply, text
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.workflow import WorkflowTool
from jupyter_agent.workflows.runner import WorkflowProgress
from tests.support.sessions import scripted_runtime
from tests.support.tools import make_context

CHECK = """\
description: Count lines, then summarize
inputs:
  file: {description: The file to count}
  label: {default: lines}
steps:
  - id: count
    name: Count the lines
    tool: Bash
    input: {command: "wc -l < {{ inputs.file }} | tee {{ inputs.file }}.count"}
  - id: summary
    prompt: "The file has {{ steps.count.output }} {{ inputs.label }}. Say so in one sentence."
"""

FAILING = """---
inputs: [dir]
steps:
  - id: first
    tool: Bash
    input: {command: "echo first ran"}
  - id: boom
    tool: Bash
    input: {command: "echo about to fail; exit 3"}
  - id: never
    tool: Bash
    input: {command: "touch {{ inputs.dir }}/never"}
---
Stops on the second step.
"""


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def _ctx(server, tmp_path):
    ctx = make_context([WorkflowTool(), BashTool(), ReadTool()], tmp_path)
    ctx.extra[RUNTIME_KEY] = scripted_runtime(server, tmp_path)
    folder = tmp_path / ".claude" / "workflows"
    folder.mkdir(parents=True)
    (folder / "check.yaml").write_text(CHECK)
    (folder / "failing.md").write_text(FAILING)
    (folder / "broken.yml").write_text("steps: [{nothing: here}]\n")
    return ctx


async def wf(ctx, approve, events=None, **payload):
    sink = events.append if events is not None else None
    return await run_tool_use(ToolUseRequest("w", "Workflow", payload), ctx, approve, on_event=sink)


async def test_tool_then_agent_step_with_inputs_and_progress(server, tmp_path, approve):
    (tmp_path / "data.txt").write_text("a\nb\nc\n")
    server.push(reply(text("data.txt has three lines.")))
    ctx = _ctx(server, tmp_path)
    events: list = []
    out = await wf(ctx, approve, events, workflow="check", inputs={"file": "data.txt"})
    assert not out.is_error, out.text
    assert out.text.startswith("Workflow 'check' completed (2 steps).")
    assert "## count (Count the lines) — ok" in out.text and "## summary (summary) — ok" in out.text
    assert out.text.rstrip().endswith("data.txt has three lines.")
    (request,) = server.message_requests
    assert "The file has 3 lines. Say so in one sentence." in str(request.body["messages"][0])
    progress = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert [p.line() for p in progress if isinstance(p, WorkflowProgress)] == [
        "[1/2] Count the lines: running", "[1/2] Count the lines: ok",
        "[2/2] summary: running", "[2/2] summary: ok",
    ]
    assert [name for name, _ask in approve.asks] == ["Bash"]  # the step's own tool call was asked


async def test_a_failing_step_stops_the_run_with_a_report(server, tmp_path, approve):
    ctx = _ctx(server, tmp_path)
    out = await wf(ctx, approve, workflow="failing", inputs={"dir": str(tmp_path)})
    assert out.is_error
    assert out.text.startswith("Workflow 'failing' failed at step 'boom': Exit code 3")
    assert "## first (first) — ok" in out.text and "first ran" in out.text
    assert "about to fail" in out.text and "## never (never) — skipped" in out.text
    assert not (tmp_path / "never").exists()


async def test_a_denied_step_fails_the_run(server, tmp_path, reject):
    (tmp_path / "data.txt").write_text("a\n")
    ctx = _ctx(server, tmp_path)
    out = await wf(ctx, reject, workflow="check", inputs={"file": "data.txt"})
    assert out.is_error and "failed at step 'count'" in out.text and "## summary (summary) — skipped" in out.text
    assert server.message_requests == []


async def test_list_and_input_errors(server, tmp_path, approve):
    ctx = _ctx(server, tmp_path)
    out = await wf(ctx, approve, action="list")
    assert "- check: Count lines, then summarize (2 steps; inputs: file, label?)" in out.text
    assert "- failing: Stops on the second step. (3 steps; inputs: dir)" in out.text
    assert "broken.yml" in out.text and "needs `tool`" in out.text
    for payload, message in [
        ({"workflow": "nope"}, "No workflow named 'nope'"),
        ({"workflow": "check"}, "missing required input(s): file"),
        ({"workflow": "check", "inputs": {"file": "x", "color": "red"}}, "unknown input(s) color"),
        ({}, "needs the workflow's name"),
    ]:
        out = await wf(ctx, approve, **payload)
        assert out.is_error and message in out.text, (payload, out.text)
