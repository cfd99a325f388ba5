"""Subagents in a real kernel through %agent: an Explore agent reads, a general-purpose agent's
write is approved by a click on the parent's transcript (a comm message, like JupyterLab)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from tests.ui.kernel_harness import agent_kernel

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


def system_starts(prefix: str):
    def match(body) -> bool:
        system = body.get("system") or []
        return bool(system) and isinstance(system[0], dict) and system[0].get("text", "").startswith(prefix)
    return match


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def kernel(server: ScriptedServer, tmp_path: Path):
    yield from agent_kernel(server.url, tmp_path)


def test_subagents_in_a_real_kernel(kernel, server):
    h, project = kernel
    (project / "data.csv").write_text("a,b\n1,2\n")
    out_file = project / "summary.txt"
    server.route(system_starts("You are a read-only code exploration agent"),
                 reply(tool_use("Read", {"file_path": str(project / "data.csv")})),
                 reply(text("data.csv has columns a and b.")), name="explore")
    server.route(system_starts("You are an agent working for a coding assistant"),
                 reply(tool_use("Write", {"file_path": str(out_file), "content": "columns: a, b\n"})),
                 reply(text("Wrote summary.txt.")), name="general")
    server.push(
        reply(tool_use("Agent", {"description": "inspect csv", "prompt": "Describe data.csv", "subagent_type": "Explore"})),
        reply(tool_use("Agent", {"description": "write summary", "prompt": "Write summary.txt"})),
        reply(text("All done: summary.txt written.")),
    )
    start = len(h.messages)
    h.execute("%agent summarise data.csv into summary.txt", cell_id="cell-sub")
    approve = h.wait_widget("ButtonModel", after=start, description="Approve")
    assert not out_file.exists()  # the subagent's write waits for the user
    h.click(approve)
    h.wait_for(lambda m: "All done: summary.txt written." in str(m["content"].get("data", {})), timeout=120, start=start)
    assert out_file.read_text() == "columns: a, b\n"
    routes = [r.route for r in server.message_requests]
    assert routes == ["default", "explore", "explore", "default", "general", "general", "default"]
    final = server.message_requests[-1].messages[-1]["content"]
    assert any("Wrote summary.txt." in str(b.get("content")) for b in final)
