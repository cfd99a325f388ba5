"""A skill and a custom command end to end: files on disk → AgentSession → scripted model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.skills import expand_command, load_commands
from jupyter_agent.testing import ScriptedServer, reply, tool_use
from jupyter_agent.tools.skill import SkillTool
from tests.support.sessions import scripted_config


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def _project(tmp_path):
    skill = tmp_path / ".claude/skills/data-report/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: data-report\ndescription: Build a data report\n---\n"
                     "Load $ARGUMENTS with pandas and report the row count first.")
    command = tmp_path / ".claude/commands/review.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\ndescription: Review a PR\n---\nReview pull request #$ARGUMENTS; list risks.")
    return load_commands(tmp_path, home=tmp_path / "home")


def _session(server, tmp_path, commands, approver):
    config = scripted_config(
        server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False, allow=["Skill(data-report)"]
    )
    session = AgentSession(config, can_use_tool=approver, tools=[SkillTool()])
    session.context.options = replace(session.context.options, commands=commands)
    return session


def _texts(message):
    content = message["content"]
    if isinstance(content, str):
        return [content]
    out = []
    for block in content:
        if block.get("type") == "text":
            out.append(block["text"])
        elif block.get("type") == "tool_result":
            out.extend(b.get("text", "") for b in block.get("content") or [] if isinstance(b, dict))
    return out


async def test_skill_instructions_reach_the_model(server, tmp_path, approve):
    session = _session(server, tmp_path, _project(tmp_path), approve)
    server.push(reply(tool_use("Skill", {"skill": "data-report", "args": "sales.csv"})))
    server.push(reply("Rows: 10."))
    try:
        outcome = await session.submit("make a report of sales.csv")
    finally:
        await session.aclose()
    assert outcome.text == "Rows: 10." and approve.asks == []  # the allow rule covered it
    second = server.message_requests[1]
    all_text = "\n".join(t for m in second.messages for t in _texts(m))
    assert "Launching skill: data-report" in all_text
    assert "Load sales.csv with pandas and report the row count first." in all_text


async def test_custom_command_expands_into_the_prompt(server, tmp_path, approve):
    commands = _project(tmp_path)
    session = _session(server, tmp_path, commands, approve)
    prompt = expand_command("/review 481", commands)
    server.push(reply("Two risks."))
    try:
        await session.submit(prompt)
    finally:
        await session.aclose()
    first = server.message_requests[0]
    assert _texts(first.messages[0]) == ["Review pull request #481; list risks."]
