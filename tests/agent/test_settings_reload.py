"""Settings files edited while a session lives are read again before the next turn and before
the next batch of tool calls (scripted model, real settings files, real Bash and hooks)."""

from __future__ import annotations

import json

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .history_check import result_text, tool_results


def write(folder, data, name="settings.json"):
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    path = folder / ".claude" / name
    path.write_text(json.dumps(data))
    return path


class Approver:
    """Approves every question and counts them."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, tool, input, context, assistant_message, tool_use_id=None):
        self.asked.append(getattr(input, "command", tool.name))
        return PermissionAllow()


def results(server, request: int) -> list[str]:
    return [result_text(r).strip() for r in tool_results(server.message_requests[request].messages[-1])]


def notices(events) -> list[str]:
    return [e.message for e in events.of(AgentErrorEvent) if e.kind == "settings"]


async def test_a_deny_rule_added_between_prompts_holds_at_the_next_one(server, make_session, tmp_path):
    write(tmp_path, {"permissions": {"allow": ["Bash(echo:*)"]}})
    approver = Approver()
    session, events = make_session([BashTool()], can_use_tool=approver, trust_project=True)
    server.push(reply(tool_use("Bash", {"command": "echo first"}, id="b1")), reply("ok"))
    await session.submit("one")
    assert results(server, 1) == ["first"] and approver.asked == []
    write(tmp_path, {"permissions": {"deny": ["Bash(echo:*)"]}})  # the allow rule is gone, a deny came
    server.push(reply(tool_use("Bash", {"command": "echo second"}, id="b2")), reply("ok"))
    await session.submit("two")
    assert results(server, 3) == ["Permission to run 'echo second' has been denied by the rule Bash(echo:*)."]
    assert approver.asked == []
    assert notices(events) == ["Settings reloaded: .claude/settings.json changed."]


async def test_an_edit_made_during_a_turn_holds_for_the_next_tool_calls(server, make_session, tmp_path):
    """The first command itself edits the local settings (approved); the next batch of calls
    of the same turn is decided by the new file."""
    local = tmp_path / ".claude" / "settings.local.json"
    write(tmp_path, {"permissions": {"allow": ["Bash(touch:*)"]}}, "settings.local.json")
    edit = f"echo '{json.dumps({'permissions': {'deny': ['Bash(touch:*)']}})}' > {local}"
    server.push(reply(tool_use("Bash", {"command": edit}, id="b1")),
                reply(tool_use("Bash", {"command": "touch made.txt"}, id="b2")), reply("done"))
    approver = Approver()
    session, _events = make_session([BashTool()], can_use_tool=approver, trust_project=True)
    await session.submit("go")
    assert approver.asked == [edit]  # .claude/ is protected: the edit itself was asked about
    [denied] = results(server, 2)
    assert "Bash(touch:*)" in denied and not (tmp_path / "made.txt").exists()


async def test_env_hooks_and_folders_follow_the_files(server, make_session, tmp_path, monkeypatch):
    monkeypatch.delenv("JA_STAGE", raising=False)
    extra = tmp_path.parent / f"{tmp_path.name}-extra"  # outside the project
    extra.mkdir()
    (extra / "data.txt").write_text("outside data\n")
    write(tmp_path, {"env": {"JA_STAGE": "one"}})
    probe = {"command": f'echo "[$JA_STAGE]"; cat {extra / "data.txt"}'}
    approver = Approver()
    session, _events = make_session([BashTool()], can_use_tool=approver, trust_project=True)
    server.push(reply(tool_use("Bash", probe, id="b1")), reply("ok"))
    await session.submit("one")
    assert results(server, 1) == ["[one]\noutside data"] and len(approver.asked) == 1  # cat outside asks
    seen = tmp_path / "hook.log"
    write(tmp_path, {"env": {"JA_STAGE": "two"}, "permissions": {"additionalDirectories": [str(extra)]},
                     "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": f'echo "$JA_STAGE" >> {seen}'}]}]}})
    server.push(reply(tool_use("Bash", probe, id="b2")), reply("ok"))
    await session.submit("two")
    assert results(server, 3) == ["[two]\noutside data"] and len(approver.asked) == 1  # a working folder now
    assert seen.read_text() == "two\n"
    write(tmp_path, {})  # all gone again
    server.push(reply(tool_use("Bash", probe, id="b3")), reply("ok"))
    await session.submit("three")
    assert results(server, 5) == ["[]\noutside data"] and len(approver.asked) == 2
    assert seen.read_text() == "two\n"
    assert extra not in session.context.permission_context.additional_directories


async def test_a_half_saved_file_is_reported_once_and_the_rules_in_force_stay(server, make_session, tmp_path):
    write(tmp_path, {"permissions": {"deny": ["Read(./secret.txt)"]}})
    session, events = make_session([], can_use_tool=Approver(), trust_project=True)
    server.push(reply("ok"))
    await session.submit("one")
    (tmp_path / ".claude" / "settings.json").write_text('{"permissions": {"deny": [')
    for i in range(2):
        server.push(reply("ok"))
        await session.submit(f"again {i}")
        assert session.context.permission_context.deny_rules["projectSettings"] == ("Read(./secret.txt)",)
    [notice] = notices(events)
    assert notice.startswith("Settings changed on disk but were not applied (") and "settings.json" in notice
    write(tmp_path, {"permissions": {"deny": ["Read(./other.txt)"]}})  # saved whole at last
    server.push(reply("ok"))
    await session.submit("three")
    assert session.context.permission_context.deny_rules["projectSettings"] == ("Read(./other.txt)",)


async def test_a_config_change_hook_can_block_a_change(server, make_session, tmp_path):
    home = tmp_path / "home"
    log = tmp_path / "config-change.log"
    guard = (f"python3 -c \"import sys, json; e = json.load(sys.stdin); open({str(log)!r}, 'a').write(e['source'] + ' ' "
             f"+ e['file_path'] + chr(10)); print('no edits to the local settings', file=sys.stderr); sys.exit(2)\"")
    write(home, {"hooks": {"ConfigChange": [{"matcher": "local_settings", "hooks": [{"type": "command", "command": guard}]}]}})
    session, events = make_session([BashTool()], can_use_tool=Approver(), trust_project=True)
    server.push(reply("ok"))
    await session.submit("one")
    local = write(tmp_path, {"permissions": {"allow": ["Bash(rm:*)"]}}, "settings.local.json")
    server.push(reply(tool_use("Bash", {"command": "echo hi"}, id="b1")), reply("ok"))
    await session.submit("two")
    assert log.read_text() == f"local_settings {local}\n"
    assert "localSettings" not in session.context.permission_context.allow_rules
    assert notices(events)[-1] == ("Settings changed on disk but were not applied: "
                                   ".claude/settings.local.json: no edits to the local settings")
    write(tmp_path, {"permissions": {"deny": ["Bash(curl:*)"]}})  # matched by no ConfigChange hook
    server.push(reply("ok"))
    await session.submit("three")
    assert session.context.permission_context.deny_rules.get("projectSettings") == ("Bash(curl:*)",)
    assert not session.context.permission_context.allow_rules.get("localSettings")  # the blocked edit stays out
    assert notices(events)[-1] == "Settings reloaded: .claude/settings.json changed."


async def test_a_mode_the_managed_settings_now_disable_falls_back_to_default(server, make_session, tmp_path,
                                                                             monkeypatch):
    from jupyter_agent.permissions import managed

    folder = tmp_path / "managed"
    folder.mkdir()
    monkeypatch.setattr(managed, "MANAGED_DIR", folder)
    session, events = make_session([], can_use_tool=Approver(), trust_project=True, mode="bypassPermissions")
    server.push(reply("ok"))
    await session.submit("one")
    (folder / "managed-settings.json").write_text(json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}}))
    server.push(reply("ok"))
    await session.submit("two")
    assert session.context.permission_context.mode == "default"
    assert any("bypassPermissions mode is now disabled by" in n for n in notices(events))


async def test_always_allow_writes_are_the_sessions_own_no_hook_no_notice(server, make_session, tmp_path):
    """"Always allow" rewrites settings.local.json: that change is in force already — no reload
    notice, no ConfigChange hook (which here would refuse it), and the rule keeps working."""
    from jupyter_agent.core.permission_types import PermissionUpdate
    from jupyter_agent.permissions.settings import apply_permission_update

    home = tmp_path / "home"
    log = tmp_path / "config-change.log"
    write(home, {"hooks": {"ConfigChange": [{"hooks": [{"type": "command", "command": f"cat >> {log}; exit 2"}]}]}})
    asked: list[str] = []

    async def always_allow(tool, input, context, assistant_message, tool_use_id=None):
        asked.append(input.command)
        apply_permission_update(PermissionUpdate(rules=("Bash(touch:*)",)), context, tmp_path)
        return PermissionAllow()

    server.push(reply(tool_use("Bash", {"command": "touch one && echo one"}, id="b1")),
                reply(tool_use("Bash", {"command": "touch two && echo two"}, id="b2")), reply("ok"))
    session, events = make_session([BashTool()], can_use_tool=always_allow, trust_project=True)
    await session.submit("go")
    server.push(reply(tool_use("Bash", {"command": "touch three && echo three"}, id="b3")), reply("ok"))
    await session.submit("again")
    assert asked == ["touch one && echo one"]
    assert results(server, 2) == ["two"] and results(server, 4) == ["three"]
    assert notices(events) == [] and not log.exists()
    assert json.loads((tmp_path / ".claude" / "settings.local.json").read_text())["permissions"]["allow"] == ["Bash(touch:*)"]


async def test_a_subagent_follows_an_edit_made_while_it_works(server, make_session, tmp_path):
    from jupyter_agent.subagents.runtime import attach_subagents
    from jupyter_agent.tools.agent_tool import AgentTool

    local = tmp_path / ".claude" / "settings.local.json"
    write(tmp_path, {"permissions": {"allow": ["Bash(touch:*)"]}}, "settings.local.json")
    edit = f"echo '{json.dumps({'permissions': {'deny': ['Bash(touch:*)']}})}' > {local}"
    server.route(lambda body: "You are an agent working for a coding assistant" in str(body.get("system")),
                 reply(tool_use("Bash", {"command": edit}, id="s1")),
                 reply(tool_use("Bash", {"command": "touch made.txt"}, id="s2")),
                 reply("done"), name="sub")
    server.push(reply(tool_use("Agent", {"description": "edit", "prompt": "edit the settings, then touch",
                                         "subagent_type": "general-purpose"}, id="a1")), reply("ok"))
    session, events = make_session([AgentTool(), BashTool()], can_use_tool=Approver(), trust_project=True)
    attach_subagents(session)
    await session.submit("go")
    [inner] = tool_results([r for r in server.message_requests if r.route == "sub"][2].messages[-1])
    assert inner["is_error"] and "Bash(touch:*)" in result_text(inner)
    assert not (tmp_path / "made.txt").exists()
    assert "Settings reloaded: .claude/settings.local.json changed." in notices(events)
