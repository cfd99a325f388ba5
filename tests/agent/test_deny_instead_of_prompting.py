"""``permissions.denyInsteadOfPrompting`` (Claude Code 2.1.319): a call that would wait for a
person is denied at once, the model is told why and the turn carries on.  Rules, modes,
PermissionRequest hooks and a permission prompt tool still answer first.  A real session: the
settings files, the real Bash tool, the real SDK against the scripted model server."""

from __future__ import annotations

import json

from jupyter_agent.core.events import PermissionRequested
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.magics.reports import permissions_text
from jupyter_agent.sandbox.network import NetworkGate
from jupyter_agent.sandbox.settings import SandboxSettings
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.ask_user_question import AskUserQuestionTool
from jupyter_agent.tools.bash import BashTool
from tests.conftest import RecordingApprover
from tests.permissions.tools import make_ctx, with_permissions

from .history_check import result_text, tool_results

KEY = "permissions.denyInsteadOfPrompting"


def _user_settings(tmp_path, **settings) -> str:
    folder = tmp_path / "home" / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps(settings))
    return str(path)


async def test_what_would_ask_is_denied_and_the_turn_goes_on(server, make_session, tmp_path):
    path = _user_settings(tmp_path, permissions={"denyInsteadOfPrompting": True, "allow": ["Bash(echo:*)"]})
    question = {"questions": [{"question": "Which file?", "header": "File", "multiSelect": False,
                               "options": [{"label": "a", "description": "a"}, {"label": "b", "description": "b"}]}]}
    server.push(
        reply(tool_use("Bash", {"command": "touch made.txt"}, id="t1"),
              tool_use("Bash", {"command": "echo allowed"}, id="t2")),
        reply(tool_use("AskUserQuestion", question, id="q1")),
        reply("I could not create the file; the settings deny what would need approval."),
    )
    person = RecordingApprover(PermissionAllow())  # would say yes, if it were asked
    session, events = make_session([BashTool(), AskUserQuestionTool()], can_use_tool=person)
    outcome = await session.submit("make a file")
    assert outcome.stop_reason == "end_turn" and outcome.text.startswith("I could not create the file")
    results = {r["tool_use_id"]: r for r in tool_results(server.message_requests[1].messages[-1])}
    assert results["t1"]["is_error"] and KEY in result_text(results["t1"]) and path in result_text(results["t1"])
    assert not (tmp_path / "made.txt").exists()
    assert not results["t2"].get("is_error") and "allowed" in result_text(results["t2"])  # a rule still allows
    [asked] = tool_results(server.message_requests[2].messages[-1])
    assert asked["is_error"] and KEY in result_text(asked)  # no question waits for a person either
    assert person.asks == []
    assert [e.tool_name for e in events.of(PermissionRequested)] == ["Bash"]  # the card says what was refused
    text = permissions_text(session)
    assert f"Nothing is asked: a call that needs approval is denied (denyInsteadOfPrompting, {path})" in text


async def test_a_permission_request_hook_still_answers(server, make_session, tmp_path):
    hook = tmp_path / "approve.py"
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}
    hook.write_text(f"import json, sys\njson.load(sys.stdin)\nprint(json.dumps({answer!r}))\n")
    _user_settings(tmp_path, permissions={"denyInsteadOfPrompting": True}, hooks={"PermissionRequest": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"python3 {hook}"}]}]})
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"}, id="t1")), reply("done"))
    person = RecordingApprover(PermissionAllow())
    session, _events = make_session([BashTool()], can_use_tool=person)
    await session.submit("make a file")
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert not result.get("is_error") and (tmp_path / "made.txt").exists()
    assert person.asks == []


async def test_without_the_setting_the_person_is_asked(server, make_session, tmp_path):
    _user_settings(tmp_path, permissions={"denyInsteadOfPrompting": False})
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"}, id="t1")), reply("done"))
    person = RecordingApprover(PermissionAllow())
    session, _events = make_session([BashTool()], can_use_tool=person)
    await session.submit("make a file")
    assert [name for name, _ask in person.asks] == ["Bash"] and (tmp_path / "made.txt").exists()
    assert "denyInsteadOfPrompting" not in permissions_text(session)


async def test_the_sandbox_refuses_new_hosts_instead_of_asking(tmp_path):
    asked = []

    async def person(question):
        asked.append(question)
        return PermissionAllow()

    ctx = with_permissions(make_ctx(tmp_path), prompts_off_by="/home/me/.claude/settings.json")
    gate = NetworkGate(ctx, SandboxSettings(enabled=True, allowed_domains=("pypi.org",)), person)
    refused = await gate.check("new.example", 443)
    assert "denyInsteadOfPrompting" in refused and "/home/me/.claude/settings.json" in refused
    assert await gate.check("pypi.org", 443) is None and asked == []  # the settings still allow
    closed = NetworkGate(ctx, SandboxSettings(enabled=True), person)
    assert not closed.reaches_anything()  # nothing could connect: the command gets no proxy at all
    plain = NetworkGate(make_ctx(tmp_path), SandboxSettings(enabled=True), person)
    assert plain.reaches_anything()  # without the setting the user could be asked


async def test_a_subagent_is_not_waited_for_either(server, make_session, tmp_path):
    from jupyter_agent.subagents.runtime import attach_subagents
    from jupyter_agent.tools.agent_tool import AgentTool

    _user_settings(tmp_path, permissions={"denyInsteadOfPrompting": True})
    server.route(lambda body: "You are an agent working for a coding assistant" in str(body.get("system")),
                 reply(tool_use("Bash", {"command": "touch made.txt"}, id="s1")),
                 reply("The file could not be made: nobody is asked here."), name="sub")
    server.push(reply(tool_use("Agent", {"description": "make it", "prompt": "make made.txt",
                                         "subagent_type": "general-purpose"}, id="a1")),
                reply("The helper could not make the file."))
    person = RecordingApprover(PermissionAllow())
    session, _events = make_session([AgentTool(), BashTool()], can_use_tool=person)
    attach_subagents(session)
    await session.submit("make a file with a helper")
    [inner] = tool_results([r for r in server.message_requests if r.route == "sub"][1].messages[-1])
    assert inner["is_error"] and KEY in result_text(inner)
    assert person.asks == [] and not (tmp_path / "made.txt").exists()


async def test_permissions_report_names_the_write_block(server, make_session, tmp_path):
    _user_settings(tmp_path, permissions={"blockWritesOutsideWorkingDirectories": True})
    session, _events = make_session([BashTool()])
    assert session.context.permission_context.block_outside_writes
    assert "Writes outside the working directories are refused (blockWritesOutsideWorkingDirectories" in \
        permissions_text(session)
