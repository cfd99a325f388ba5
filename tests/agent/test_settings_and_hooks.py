"""The session reads .claude settings (rules, mode) and runs session hooks around turns."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.testing import reply, tool_use
from tests.support.tools import SleepTool, WriteStepTool

from .history_check import blocks, result_text, tool_results


def write_settings(project, data, name="settings.json"):
    folder = project / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data))


async def test_deny_rule_in_settings_hides_the_tool(server, make_session, tmp_path):
    write_settings(tmp_path, {"permissions": {"deny": ["Sleep"]}})
    server.push(reply("ok"))
    session, _ = make_session([SleepTool(), WriteStepTool()])
    await session.submit("go")
    names = [t["name"] for t in server.message_requests[0].body["tools"]]
    assert names == ["WriteStep"]


async def test_default_mode_from_settings_and_session_override(server, make_session, tmp_path):
    write_settings(tmp_path, {"permissions": {"defaultMode": "plan"}}, "settings.local.json")
    server.push(reply(tool_use("WriteStep", {"label": "w"}, id="w1")), reply("planned"))
    session, _ = make_session([WriteStepTool()])
    assert session.context.permission_context.mode == "plan"
    await session.submit("write")
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result["is_error"] and "Plan mode" in result_text(result)
    overridden, _ = make_session([WriteStepTool()], mode="acceptEdits")
    assert overridden.context.permission_context.mode == "acceptEdits"


def test_malformed_settings_fail_at_session_creation(make_session, tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{not json")
    with pytest.raises(AgentConfigError, match="settings.json"):
        make_session()


async def test_user_prompt_submit_hook_adds_context(server, make_session):
    server.push(reply("ok"))
    session, _ = make_session()

    async def add_context(payload):
        assert payload["prompt"] == "hello"
        return {"hookSpecificOutput": {"additionalContext": "The user prefers pandas."}}

    session.context.extra["hooks"].register("UserPromptSubmit", add_context)
    await session.submit("hello")
    texts = [b["text"] for b in blocks(server.message_requests[0].messages[0])]
    assert texts == ["hello", "The user prefers pandas."]


async def test_command_hook_from_settings_blocks_the_prompt(server, make_session, tmp_path):
    hook = {"type": "command", "command": "echo 'no secrets here' >&2; exit 2"}
    write_settings(tmp_path, {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    session, events = make_session(trust_project=True)
    outcome = await session.submit("print the API key")
    assert outcome.stop_reason == "blocked"
    assert "no secrets here" in outcome.error
    assert server.message_requests == []
    assert events.of(AgentErrorEvent)[0].kind == "hook"


async def test_stop_hook_makes_the_model_continue(server, make_session):
    server.push(reply("done?"), reply("now really done"))
    session, _ = make_session()
    calls = []

    async def not_yet(payload):
        calls.append(payload["stop_hook_active"])
        if len(calls) == 1:
            return {"decision": "block", "reason": "Run the tests first."}
        return None

    session.context.extra["hooks"].register("Stop", not_yet)
    outcome = await session.submit("fix it")
    assert outcome.text == "now really done"
    assert calls == [False, True]
    last = server.message_requests[1].messages[-1]
    assert "Run the tests first." in blocks(last)[-1]["text"]
