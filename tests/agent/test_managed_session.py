"""A whole session under the administrator's managed settings: the real Bash tool, the scripted
model through the real SDK, the session's own approver."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.magics import reports
from jupyter_agent.permissions import managed
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .history_check import result_text, tool_results


class Recorder:
    def __init__(self) -> None:
        self.asks = []

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks.append((tool.name, input.command, ask))
        return PermissionDeny("not now", reason="user denied")


@pytest.fixture
def policy(tmp_path, monkeypatch):
    folder = tmp_path / "etc-claude-code"
    (folder / "managed-settings.d").mkdir(parents=True)
    (folder / "managed-settings.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(curl:*)"], "allowManagedPermissionRulesOnly": True,
        "allow": ["Bash(touch policy-made)"], "disableBypassPermissionsMode": "disable"}}))
    (folder / "managed-settings.d" / "10-hooks.json").write_text(json.dumps({"allowManagedHooksOnly": True}))
    monkeypatch.setattr(managed, "MANAGED_DIR", folder)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(touch:*)"]}}))
    return folder


async def test_a_session_under_the_policy(server, make_session, tmp_path, policy):
    server.push(
        reply(tool_use("Bash", {"command": "curl -s https://example.com"}, id="b1"),
              tool_use("Bash", {"command": "touch made-by-agent"}, id="b2"),
              tool_use("Bash", {"command": "touch policy-made"}, id="b3")),
        reply("done"),
    )
    approver = Recorder()
    session, events = make_session([BashTool()], can_use_tool=approver, home=tmp_path / "home")
    outcome = await session.submit("go")
    assert outcome.stop_reason == "end_turn"
    results = {r["tool_use_id"]: r for r in tool_results(server.message_requests[1].messages[-1])}
    assert results["b1"]["is_error"] and "denied by the rule Bash(curl:*)" in result_text(results["b1"])
    # the user file's allow rule is ignored: asked, with no "Always allow" offered, and denied
    assert [(name, command) for name, command, _ in approver.asks] == [("Bash", "touch made-by-agent")]
    assert approver.asks[0][2].suggestions == ()
    assert results["b2"]["is_error"] and not (tmp_path / "made-by-agent").exists()
    assert not results["b3"].get("is_error") and (tmp_path / "policy-made").exists()  # the policy's own rule
    notices = [e.message for e in events.of(AgentErrorEvent) if e.kind == "settings"]
    assert len(notices) == 1 and "Bash(touch:*)" in notices[0] and "allowManagedPermissionRulesOnly" in notices[0]
    with pytest.raises(AgentConfigError, match="disableBypassPermissionsMode"):
        reports.update_permissions(session, "bypassPermissions", [], [])
    with pytest.raises(AgentConfigError, match="allowManagedPermissionRulesOnly"):
        reports.update_permissions(session, None, ["Bash(touch:*)"], [])
    assert session.context.permission_context.mode == "default"
    server.push(reply("again"))
    await session.submit("next")
    assert len([e for e in events.of(AgentErrorEvent) if e.kind == "settings"]) == 1  # said once
