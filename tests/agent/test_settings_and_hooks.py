"""The session reads .claude settings (rules, mode) and runs session hooks around turns."""

from __future__ import annotations

import json
import sys

import pytest
from pydantic import BaseModel

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import Tool
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


class _WaitForHooksInput(BaseModel):
    pass


class _WaitForHooks(Tool[_WaitForHooksInput, str]):
    """Returns once the async hooks started so far have finished (a deterministic mid-turn gap)."""

    name = "WaitForHooks"
    input_schema = _WaitForHooksInput

    def is_read_only(self, input) -> bool:
        return True

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        await context.extra["hooks"].wait_background(20)
        return ToolResult("waited")


def _async_hook(tmp_path, output: str) -> dict:
    script = tmp_path / "async_hook.py"
    script.write_text(f"import sys\nsys.stdin.read()\nprint({output!r})\n")
    return {"type": "command", "command": f"{sys.executable} {script}", "async": True}


async def test_an_async_hooks_answer_reaches_the_model_with_the_next_tool_results(server, make_session, tmp_path):
    """Claude Code delivers what a finished async hook says (additionalContext, systemMessage)
    with the next conversation step; its decision fields count for nothing."""
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny",
                                                "additionalContext": "lint: 2 warnings in a.py"},
                         "systemMessage": "the linter ran"})
    write_settings(tmp_path, {"hooks": {"PostToolUse": [{"matcher": "WriteStep",
                                                         "hooks": [_async_hook(tmp_path, output)]}]}})
    server.push(reply(tool_use("WriteStep", {"label": "w"}, id="w1")),
                reply(tool_use("WaitForHooks", {}, id="h1")), reply("done"))
    session, _ = make_session([WriteStepTool(), _WaitForHooks()], trust_project=True)
    outcome = await session.submit("edit and lint")
    assert outcome.error is None
    first, second = (server.message_requests[i].messages[-1]["content"] for i in (1, 2))
    assert [b["type"] for b in first] == ["tool_result"]  # the hook had not finished yet
    assert not first[0].get("is_error")  # its "deny" came too late to decide anything, as it must
    texts = [b["text"] for b in second if b["type"] == "text"]
    assert texts == ["An async PostToolUse hook finished: lint: 2 warnings in a.py",
                     "An async PostToolUse hook finished: the linter ran"]
    assert session.context.extra["hooks"].take_finished() == []  # each said once


async def test_an_async_hook_that_finishes_after_the_turn_is_heard_with_the_next_prompt(
    server, make_session, tmp_path
):
    write_settings(tmp_path, {"hooks": {"Stop": [{"hooks": [_async_hook(tmp_path, "tests: 12 passed")]}]}})
    server.push(reply("first"), reply("second"))
    session, _ = make_session(trust_project=True)
    await session.submit("one")
    await session.context.extra["hooks"].wait_background(20)
    await session.submit("two")
    texts = [b["text"] for b in blocks(server.message_requests[1].messages[-1])]
    assert texts == ["two", "An async Stop hook finished: tests: 12 passed"]


async def test_the_user_hears_tool_hooks_failures_and_messages_once_each(server, make_session, tmp_path):
    """A tool hook that fails (exit 1) and one that prints a ``systemMessage`` reach the user as
    hook warnings, as session hooks' failures do; the call goes on."""
    failing = {"type": "command", "command": "echo 'lint server down' >&2; exit 1"}
    saying = {"type": "command", "command": "echo '{\"systemMessage\": \"Formatted the file.\"}'"}
    prompt_failing = {"type": "command", "command": "exit 3"}
    write_settings(tmp_path, {"hooks": {"PreToolUse": [{"matcher": "WriteStep", "hooks": [failing]}],
                                        "PostToolUse": [{"matcher": "WriteStep", "hooks": [saying]}],
                                        "UserPromptSubmit": [{"hooks": [prompt_failing]}]}})
    server.push(reply(tool_use("WriteStep", {"label": "w"}, id="w1")), reply("done"))
    session, events = make_session([WriteStepTool()], trust_project=True)
    outcome = await session.submit("write")
    assert outcome.error is None
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert not result.get("is_error")
    warnings = [e.message for e in events.of(AgentErrorEvent) if e.kind == "hook"]
    assert len(warnings) == 3, warnings
    assert warnings[0].startswith("UserPromptSubmit hook: hook 'exit 3' exited with 3")
    assert warnings[1].startswith("PreToolUse hook: hook ") and warnings[1].endswith("exited with 1: lint server down")
    assert warnings[2] == "PostToolUse hook: Formatted the file."
