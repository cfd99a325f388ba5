"""MCP prompts as commands: ``/mcp__demo__review_pr 42 "speed and memory"`` in a real session."""

from __future__ import annotations

import sys

import pytest

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.magics.reports import tools_text
from jupyter_agent.mcp.prompts import McpPromptError, PromptCommand, bind_arguments, prompt_commands
from jupyter_agent.testing import ScriptedServer, reply
from tests.support.sessions import scripted_config

from .conftest import DEMO


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def _session(server, tmp_path, approve):
    config = scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=0), load_settings=False,
                             mcp_servers={"demo": {"command": sys.executable, "args": [str(DEMO)]}})
    session = AgentSession(config, can_use_tool=approve, tools=[])
    errors = []
    session.subscribe(lambda e: errors.append(e.message) if isinstance(e, AgentErrorEvent) else None)
    return session, errors


async def test_the_servers_prompt_becomes_the_users_message(server, tmp_path, approve):
    session, _ = _session(server, tmp_path, approve)
    server.push(reply("Looks fine."))
    before = tools_text(session)  # the servers start with the first prompt
    assert "MCP servers:\n  demo: pending (0 tools) — starts with the next prompt" in before
    try:
        outcome = await session.submit('/mcp__demo__review_pr 42 speed and memory', typed=True)
        commands = {c.name: c for c in prompt_commands(session.tool_pool.mcp)}
        listing = tools_text(session)
    finally:
        await session.aclose()
    assert outcome.text == "Looks fine."
    [request] = server.message_requests
    first = request.messages[0]["content"]
    assert first[0] == {"type": "text", "text": "Review pull request #42, focusing on speed and memory."}
    assert first[1]["type"] == "image" and first[1]["source"]["media_type"] == "image/png"
    assert commands["mcp__demo__review_pr"].usage() == "/mcp__demo__review_pr number [focus]"
    assert commands["mcp__demo__standup"].describe() == "/mcp__demo__standup — What did we do yesterday?"
    assert "MCP servers:\n  demo: connected (" in listing and "3 MCP prompts you can run (%agent /name args):" in listing
    assert "  /mcp__demo__review_pr number [focus] — Review a pull request with the given focus." in listing


async def test_an_optional_argument_may_be_left_out_and_quotes_group_words(server, tmp_path, approve):
    session, _ = _session(server, tmp_path, approve)
    server.push(reply("ok"), reply("ok"))
    try:
        await session.submit("/mcp__demo__review_pr 7", typed=True)
        await session.submit('/mcp__demo__review_pr "7 and 8" tests', typed=True)
    finally:
        await session.aclose()
    texts = [r.messages[-1]["content"][0]["text"] for r in server.message_requests]
    assert texts == ["Review pull request #7, focusing on correctness.",
                     "Review pull request #7 and 8, focusing on tests."]


@pytest.mark.parametrize("prompt, problem", [
    ("/mcp__demo__review_pr", "/mcp__demo__review_pr needs number (usage: /mcp__demo__review_pr number [focus])."),
    ("/mcp__demo__standup now", "/mcp__demo__standup takes no arguments"),
    ("/mcp__demo__nothing", "Unknown MCP prompt /mcp__demo__nothing. MCP prompts: /mcp__demo__review_pr, "
                            "/mcp__demo__dialogue, /mcp__demo__standup."),
])
async def test_a_wrong_command_is_an_error_and_the_model_is_not_asked(server, tmp_path, approve, prompt, problem):
    session, errors = _session(server, tmp_path, approve)
    try:
        outcome = await session.submit(prompt, typed=True)
    finally:
        await session.aclose()
    assert outcome.stop_reason == "error" and problem in outcome.error and any(problem in e for e in errors)
    assert server.message_requests == []


async def test_what_the_prompt_puts_in_the_assistants_mouth_is_marked(server, tmp_path, approve):
    session, _ = _session(server, tmp_path, approve)
    server.push(reply("On it."))
    try:
        await session.submit("/mcp__demo__dialogue", typed=True)
    finally:
        await session.aclose()
    [request] = server.message_requests
    assert [b["text"] for b in request.messages[0]["content"]] == [
        "Is the build green?", "(assistant) It was red this morning.", "Fix it."]


async def test_a_prompt_the_server_added_later_is_found(server, tmp_path, approve):
    session, _ = _session(server, tmp_path, approve)
    server.push(reply("hi"), reply("Retro done."))
    try:
        await session.submit("hello")  # the servers start
        await session.tool_pool.mcp.connections["demo"].call_tool("new_prompt", {"name": "retro"})
        outcome = await session.submit("/mcp__demo__retro", typed=True)
    finally:
        await session.aclose()
    assert outcome.text == "Retro done."
    assert server.message_requests[-1].messages[-1]["content"][0]["text"] == "The retro prompt."


def test_arguments_bind_by_position_and_the_rest_joins_the_last():
    from mcp_types import Prompt, PromptArgument

    command = PromptCommand("mcp__s__p", "s", Prompt(name="p", arguments=[
        PromptArgument(name="a", required=True), PromptArgument(name="b")]))
    assert bind_arguments(command, "x y z") == {"a": "x", "b": "y z"}
    assert bind_arguments(command, "'x y' z") == {"a": "x y", "b": "z"}
    assert bind_arguments(command, "it's") == {"a": "it's"}  # an unbalanced quote: plain words
    with pytest.raises(McpPromptError, match="needs a"):
        bind_arguments(command, "")
