"""%agent --mode auto in a real kernel: the reviewer (the scripted server, told apart by its
system prompt) approves one call and refuses another; no Approve card is shown and the static
transcript records who decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.agent.auto_mode import SYSTEM
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from tests.e2e.test_kernel_agent import result_text, tool_results, turn_end
from tests.ui.kernel_harness import agent_kernel

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture
def kernel(server: ScriptedServer, tmp_path: Path):
    yield from agent_kernel(server.url, tmp_path)


def test_auto_mode_decides_without_a_card(server: ScriptedServer, kernel):
    h, project = kernel
    (project / "data").mkdir()
    server.route(lambda body: body.get("system") == SYSTEM, reply(text('{"ok": true}')),
                 reply(text('{"ok": false, "reason": "Removing data/ was not part of the request."}')),
                 name="review")
    server.push(
        reply(tool_use("Bash", {"command": "install -D /dev/null report.txt"}, id="touch"),
              tool_use("Bash", {"command": "rm -rf data"}, id="rm")),
        reply(text("report.txt is ready.")),
    )
    start = len(h.messages)
    msg_id = h.execute("%agent --mode auto make report.txt", cell_id="cell-auto")
    data = turn_end(h, msg_id)
    assert (project / "report.txt").exists() and (project / "data").is_dir()
    results = {r["tool_use_id"]: r for r in tool_results(server)}
    assert "Removing data/ was not part of the request." in result_text(results["rm"])
    assert h.widgets("ButtonModel", after=start, description="Approve") == []  # nobody had to click
    html = data["text/html"]
    assert "Approved by auto mode" in html and "Denied by auto mode" in html
