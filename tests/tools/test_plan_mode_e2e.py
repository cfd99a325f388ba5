"""Plan mode and AskUserQuestion end to end in a real kernel: %agent, the scripted model, the
question form and the plan-approval widget answered by comm messages like JupyterLab sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from tests.ui.kernel_harness import agent_kernel

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

QUESTION = {
    "question": "Which format should the report use?",
    "header": "Format",
    "options": [{"label": "Markdown", "description": "plain text"}, {"label": "HTML", "description": "web page"}],
    "multiSelect": False,
}


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def kernel(server: ScriptedServer, tmp_path: Path):
    yield from agent_kernel(server.url, tmp_path)


def tool_results(server: ScriptedServer) -> list[tuple[bool, str]]:
    last = server.message_requests[-1]
    out = []
    for message in last.messages:
        content = message.get("content")
        if message["role"] == "user" and isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result":
                    text_ = "\n".join(b.get("text", "") for b in block.get("content") or [])
                    out.append((bool(block.get("is_error")), text_))
    return out


def test_plan_mode_with_a_question_and_approval_in_a_real_kernel(kernel, server):
    h, project = kernel
    target = project / "report.md"
    server.push(
        reply(tool_use("EnterPlanMode", {})),
        reply(tool_use("Write", {"file_path": str(target), "content": "too early"})),
        reply(tool_use("AskUserQuestion", {"questions": [QUESTION]})),
        reply(tool_use("ExitPlanMode", {"plan": "1. Write `report.md` in HTML"})),
        reply(tool_use("Write", {"file_path": str(target), "content": "<h1>Report</h1>\n"})),
        reply(text("The report is written.")),
    )
    start = len(h.messages)
    h.execute("%agent plan and write the report", cell_id="cell-plan")

    radio = h.wait_widget("RadioButtonsModel", after=start)
    h.comm_msg(radio, {"method": "update", "state": {"index": 1}, "buffer_paths": []})  # "HTML"
    h.click(h.wait_widget("ButtonModel", after=start, description="Submit answers"))

    approve = h.wait_widget("ButtonModel", after=start, description="Approve plan")
    assert not target.exists()
    h.click(approve)  # the mode dropdown's default: acceptEdits
    h.wait_for(lambda m: "The report is written." in str(m["content"].get("data", {})), timeout=120, start=start)

    assert target.read_text() == "<h1>Report</h1>\n"
    results = tool_results(server)
    assert [err for err, _ in results] == [False, True, False, False, False]
    assert "Entered plan mode" in results[0][1]
    assert "Plan mode is on" in results[1][1]
    assert '"Which format should the report use?"="HTML"' in results[2][1]
    assert "User has approved your plan. Permission mode is now acceptEdits." in results[3][1]
