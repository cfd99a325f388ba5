"""%agent in a real kernel under the administrator's managed settings: the card offers no
"Always allow", the policy's deny rule refuses without a card, and Approve still runs the call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.ui.approval import FEEDBACK_PLACEHOLDER
from tests.e2e.test_kernel_agent import result_text, tool_results, turn_end
from tests.ui.kernel_harness import agent_kernel

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture
def kernel(server: ScriptedServer, tmp_path: Path):
    """A kernel whose managed settings deny ``rm`` and allow only their own allow rules, for a
    user whose own settings allow ``touch``."""
    policy, home = tmp_path / "policy", tmp_path / "home"
    policy.mkdir()
    (policy / "managed-settings.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(rm:*)"], "allowManagedPermissionRulesOnly": True}}))
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(touch:*)"]}}))
    yield from agent_kernel(server.url, tmp_path, managed_dir=policy)


def test_a_turn_under_the_policy(server: ScriptedServer, kernel):
    h, project = kernel
    h.run("%config AgentMagics.stream_interval = 0.02")
    (project / "build").mkdir()
    server.push(
        reply(tool_use("Bash", {"command": "rm -rf build"}, id="rm"),
              tool_use("Bash", {"command": "touch made.txt"}, id="touch")),
        reply(text("Done.")),
    )
    start = len(h.messages)
    msg_id = h.execute("%agent clean up and make made.txt", cell_id="cell-policy")
    approve = h.wait_widget("ButtonModel", after=start, description="Approve")
    h.wait_widget("TextareaModel", after=start, placeholder=FEEDBACK_PLACEHOLDER)  # made after the buttons
    buttons = [m["content"]["data"]["state"].get("description", "") for m in h.widgets("ButtonModel", after=start)]
    assert "Deny" in buttons and not any(b.startswith("Always allow") for b in buttons)
    h.click(approve)
    data = turn_end(h, msg_id)
    results = {r["tool_use_id"]: r for r in tool_results(server)}
    assert results["rm"].get("is_error") and "denied by the rule Bash(rm:*)" in result_text(results["rm"])
    assert (project / "build").is_dir()
    assert not results["touch"].get("is_error") and (project / "made.txt").exists()
    assert "allowManagedPermissionRulesOnly" in data["text/html"]  # the notice about Bash(touch:*)
