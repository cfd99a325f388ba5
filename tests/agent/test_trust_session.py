"""A session in a folder whose committed settings widen permissions asks before trusting them."""

from __future__ import annotations

import json

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.core.events import PermissionRequested, ToolCallFinished
from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny
from jupyter_agent.permissions.trust import trust_file
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .history_check import result_text, tool_results


class Approver:
    """Answers the trust card with ``trust`` and tool asks with ``tools``; records what it saw."""

    def __init__(self, server, marker, trust: bool, tools: bool = False) -> None:
        self.server, self.marker, self.trust, self.tools = server, marker, trust, tools
        self.asks: list[tuple[str, str]] = []
        self.seen_at_trust_ask: tuple[int, bool] | None = None

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks.append((tool.name, ask.message))
        if tool.name == "TrustFolder":
            self.seen_at_trust_ask = (len(self.server.message_requests), self.marker.exists())
            return PermissionAllow() if self.trust else PermissionDeny("not this folder", reason="user denied")
        return PermissionAllow() if self.tools else PermissionDeny("no", reason="user denied")


def _committed_settings(project):
    """A cloned repository's settings: an allow rule, a deny rule and a SessionStart hook that
    touches the returned marker file."""
    marker = project / "started"
    folder = project / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": f"touch {marker}"}
    (folder / "settings.json").write_text(json.dumps({
        "permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"]},
        "hooks": {"SessionStart": [{"hooks": [hook]}]},
    }))
    return marker


def _push_touch(server):
    server.push(reply(tool_use("Bash", {"command": "touch x"}, id="b1")), reply("done"))


async def test_denied_trust_card_keeps_the_hook_and_the_rule_off(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    _push_touch(server)
    approver = Approver(server, marker, trust=False)
    session, events = make_session([BashTool()], can_use_tool=approver)
    assert session.trust.held_back == (".claude/settings.json: allow rules Bash; hooks SessionStart",)
    await session.submit("make x")
    assert [name for name, _ in approver.asks] == ["TrustFolder", "Bash"]  # touch x asked
    message = approver.asks[0][1]
    assert str(tmp_path) in message and f"run on SessionStart: touch {marker}" in message
    assert "allow without asking: Bash" in message
    assert approver.seen_at_trust_ask == (0, False)  # before the model and before the hook
    assert not marker.exists() and not (tmp_path / "x").exists()
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result["is_error"]
    notices = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert len(notices) == 1 and "not trusted" in notices[0] and "allow rules Bash" in notices[0]
    assert not trust_file(tmp_path / "home").exists()
    assert ("projectSettings", "Read(./.env)") in session.context.permission_context.rules("deny")
    # asked once per session: the next turn does not ask again
    server.push(reply("ok"))
    await session.submit("again")
    assert [name for name, _ in approver.asks].count("TrustFolder") == 1


async def test_approved_trust_card_applies_everything_and_is_remembered(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    _push_touch(server)
    approver = Approver(server, marker, trust=True)
    session, events = make_session([BashTool()], can_use_tool=approver)
    await session.submit("make x")
    assert [name for name, _ in approver.asks] == ["TrustFolder"]  # the allow rule applied: no Bash ask
    assert approver.seen_at_trust_ask == (0, False)
    assert marker.exists() and (tmp_path / "x").exists()
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert not result.get("is_error"), result_text(result)
    assert json.loads(trust_file(tmp_path / "home").read_text()) == {"folders": [str(tmp_path.resolve())]}
    finished = [e.outcome for e in events.of(ToolCallFinished) if e.outcome.tool_name == "TrustFolder"]
    assert len(finished) == 1 and not finished[0].is_error
    # a second session in the same folder does not ask, and its hook runs from the start
    marker.unlink()
    server.push(reply("hello again"))
    again = Approver(server, marker, trust=False)
    second, second_events = make_session([BashTool()], can_use_tool=again)
    assert second.trust.held_back == ()
    await second.submit("hi")
    assert again.asks == [] and marker.exists()
    assert not [e for e in second_events.of(PermissionRequested) if e.tool_name == "TrustFolder"]


async def test_no_approver_ignores_the_settings_and_says_so(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    _push_touch(server)
    session, events = make_session([BashTool()])
    await session.submit("make x")
    assert not marker.exists() and not (tmp_path / "x").exists()
    notices = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert len(notices) == 1 and "no approver" in notices[0]


async def test_trust_project_option_trusts_without_asking_and_records_it(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    _push_touch(server)
    approver = Approver(server, marker, trust=False)
    session, _ = make_session([BashTool()], can_use_tool=approver, trust_project=True)
    assert session.trust.held_back == ()
    await session.submit("make x")
    assert approver.asks == [] and marker.exists() and (tmp_path / "x").exists()
    assert json.loads(trust_file(tmp_path / "home").read_text())["folders"] == [str(tmp_path.resolve())]


async def test_trust_later_in_the_session_applies_from_the_next_turn(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    server.push(reply("first"))
    approver = Approver(server, marker, trust=False)
    session, _ = make_session([BashTool()], can_use_tool=approver)
    await session.submit("hi")
    assert ("projectSettings", "Bash") not in session.context.permission_context.rules("allow")
    session.config.trust_project = True  # what %agent --trust does on a running session
    _push_touch(server)
    await session.submit("make x")
    assert ("projectSettings", "Bash") in session.context.permission_context.rules("allow")
    assert (tmp_path / "x").exists() and [n for n, _ in approver.asks] == ["TrustFolder"]
    assert trust_file(tmp_path / "home").exists()


async def test_a_folder_without_claude_settings_is_never_asked(server, make_session, tmp_path):
    server.push(reply("ok"))
    approver = Approver(server, tmp_path / "started", trust=False)
    session, events = make_session([BashTool()], can_use_tool=approver)
    await session.submit("hi")
    assert approver.asks == [] and session.trust.held_back == ()
    assert not [e for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert not (tmp_path / "home" / ".jupyter-agent").exists()


async def test_a_malformed_trust_file_is_reported_and_trusts_nothing(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    path = trust_file(tmp_path / "home")
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    server.push(reply("ok"))
    approver = Approver(server, marker, trust=True)
    session, events = make_session([BashTool()], can_use_tool=approver)
    await session.submit("hi")
    messages = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert any("not valid JSON" in m for m in messages)
    assert any("trusted for this session only" in m for m in messages)  # approved, not recorded
    assert path.read_text() == "{broken" and marker.exists()


async def test_trusted_settings_that_cannot_apply_are_reported_not_fatal(server, make_session, tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}}))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    server.push(reply("ok"))
    approver = Approver(server, tmp_path / "started", trust=True)
    session, events = make_session([BashTool()], can_use_tool=approver)
    outcome = await session.submit("hi")
    assert outcome.stop_reason == "end_turn"
    assert session.context.permission_context.mode == "default"
    messages = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert len(messages) == 1 and "disableBypassPermissionsMode" in messages[0]


async def test_settings_broken_after_start_are_reported_not_fatal(server, make_session, tmp_path):
    marker = _committed_settings(tmp_path)
    server.push(reply("ok"))
    approver = Approver(server, marker, trust=True)
    session, events = make_session([BashTool()], can_use_tool=approver)
    (tmp_path / ".claude" / "settings.json").write_text("{broken")
    outcome = await session.submit("hi")
    assert outcome.stop_reason == "end_turn" and not marker.exists()
    messages = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert len(messages) == 1 and "not valid JSON" in messages[0]


async def test_mcp_lists_in_the_settings_files_decide_which_servers_start(server, make_session, tmp_path, managed_policy):
    """The managed list allows one server; the user's own file blocks another; the project's
    list (which widens the managed one) waits for the trust card, then its server starts and
    its tools are sent with that same turn's first request."""
    import sys

    from tests.mcp.conftest import DEMO

    demo = {"command": sys.executable, "args": [str(DEMO)]}
    (managed_policy / "managed-settings.json").write_text(json.dumps({"allowedMcpServers": [{"serverName": "corp"}]}))
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "settings.json").write_text(json.dumps(
        {"deniedMcpServers": [{"serverName": "blocked"}], "allowedMcpServers": [{"serverName": "blocked"}]}))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"allowedMcpServers": [{"serverName": "team"}]}))
    approver = Approver(server, tmp_path / "none", trust=True)
    session, events = make_session([], can_use_tool=approver, mcp_servers={"corp": demo, "team": demo, "blocked": demo})
    assert session.trust.held_back == (".claude/settings.json: allowedMcpServers team",)
    assert set(session.tool_pool.mcp.connections) == {"corp"}
    server.push(reply("hello"))
    await session.submit("hi")
    assert [name for name, _ in approver.asks] == ["TrustFolder"]
    assert "would allow the MCP servers: team." in approver.asks[0][1]
    sent = {t["name"] for t in server.message_requests[0].body["tools"]}
    assert {"mcp__corp__add", "mcp__team__add"} <= sent and not any("blocked" in n for n in sent)
    shown = [e.message for e in events.of(AgentErrorEvent) if e.kind == "mcp"]
    assert any("'blocked' was not started: it matches deniedMcpServers" in m for m in shown)
    assert not any("'team' was not started" in m for m in shown)
    from jupyter_agent.magics.reports import permissions_text

    report = permissions_text(session)
    assert "MCP servers:\n  allowedMcpServers: " in report and '{"serverName": "team"}' in report
    assert 'deniedMcpServers: {"serverName": "blocked"}' in report


def test_the_trust_card_names_every_widening_part(tmp_path):
    """A file that only sets variables, reviewer rules, HTTP-hook limits or MCP servers still says
    what trusting it would do (the card once read "would ." for such a file)."""
    from jupyter_agent.agent.folder_trust import trust_message
    from jupyter_agent.permissions.settings import load_settings

    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.local.json").write_text(json.dumps({
        "env": {"PATH": "./bin", "API_URL": "x"},
        "autoMode": {"allow": ["anything"]},
        "allowedHttpHookUrls": ["https://hooks.example/*"],
        "httpHookAllowedEnvVars": ["TOKEN"],
        "allowedMcpServers": [{"serverUrl": "https://mcp.example/*"}],
    }))
    settings = load_settings(tmp_path, home=tmp_path / "home", trusted=False, managed_dir=tmp_path / "none")
    text = trust_message(tmp_path, settings.withheld)
    assert (".claude/settings.local.json would set for every command, hook and server: PATH, API_URL; "
            "add auto mode reviewer rules: allow; let HTTP hooks reach: https://hooks.example/*; "
            "let HTTP hooks send the variables: TOKEN; allow the MCP servers: https://mcp.example/*.") in text


async def test_a_project_mcp_server_allowed_by_trust_given_later_starts_on_the_next_turn(
    server, make_session, tmp_path, managed_policy
):
    import sys

    from tests.mcp.conftest import DEMO

    demo = {"command": sys.executable, "args": [str(DEMO)]}
    (managed_policy / "managed-settings.json").write_text(json.dumps({"allowedMcpServers": [{"serverName": "corp"}]}))
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"allowedMcpServers": [{"serverName": "team"}]}))
    approver = Approver(server, tmp_path / "none", trust=False)
    session, _ = make_session([], can_use_tool=approver, mcp_servers={"corp": demo, "team": demo})
    server.push(reply("first"))
    await session.submit("hi")
    first = {t["name"] for t in server.message_requests[0].body["tools"]}
    assert "mcp__corp__add" in first and not any(n.startswith("mcp__team__") for n in first)
    session.config.trust_project = True  # %agent --trust on the running session
    server.push(reply("second"))
    await session.submit("again")
    assert "mcp__team__add" in {t["name"] for t in server.message_requests[1].body["tools"]}
