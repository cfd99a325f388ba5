"""A long scripted session under model faults: 429, 529, 500, dropped and malformed streams,
SSE error events and tool_use blocks with invalid JSON.  The session always ends each turn in a
valid state, no tool call runs twice, and the transcript resumes to the same history.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import Tool
from jupyter_agent.testing import (
    ScriptedServer,
    drop_mid_stream,
    fault_status,
    malformed_stream,
    reply,
    text,
    tool_use,
    tool_use_raw,
)
from tests.agent.history_check import assert_valid_history
from tests.support.sessions import scripted_config

TURNS = 40


class AppendInput(BaseModel):
    label: str


class AppendTool(Tool[AppendInput, str]):
    """Appends its label to a log file: a second run of the same call would show up there."""

    name = "Append"
    input_schema = AppendInput

    def __init__(self, log: Path) -> None:
        self.log = log

    async def check_permissions(self, input, context):
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(input.label + "\n")
        return ToolResult(f"appended {input.label}")


async def _no_sleep(_seconds: float) -> None:
    return None


def _config(server: ScriptedServer, tmp_path: Path) -> SessionConfig:
    return scripted_config(server, tmp_path, retry=RetryPolicy(max_retries=4, base_delay=0.01, sleep=_no_sleep))


def _script_turn(server: ScriptedServer, rng: random.Random, turn: int) -> list[str]:
    """Queue one turn's responses (with its faults); the labels its tool calls must log once."""
    label = f"t{turn}"
    call = tool_use("Append", {"label": label}, id=f"toolu_t{turn}")
    kind = rng.choice(["clean", "429", "529", "500", "drop_in_tool_use", "drop_at_end", "malformed",
                       "error_event", "invalid_json", "mixed"])
    if kind in ("429", "529", "500"):
        server.push(fault_status(int(kind), retry_after=0 if kind == "429" else None))
    elif kind == "drop_in_tool_use":
        server.push(drop_mid_stream(7, text("Working."), call))
    elif kind == "drop_at_end":
        server.push(reply(text("Working."), call, drop_after_events=5))
    elif kind == "malformed":
        server.push(malformed_stream(2))
    elif kind == "error_event":
        server.push(reply(text("Working."), call, error_event_after=4))
    elif kind == "invalid_json":
        server.push(reply(text("Trying."), tool_use_raw("Append", '{"label": "never', id=f"toolu_bad{turn}")))
    elif kind == "mixed":
        server.push(fault_status(529), malformed_stream(1), fault_status(429, retry_after=0))
    server.push(reply(text("Working."), call))
    if kind == "mixed":  # a fault on the follow-up request too (after the tool ran)
        server.push(fault_status(500))
    server.push(reply(f"turn {turn} done"))
    return [label]


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


async def test_long_session_under_faults_resumes(server, tmp_path):
    log = tmp_path / "calls.log"
    rng = random.Random(11)
    session = AgentSession(_config(server, tmp_path), tools=[AppendTool(log)])
    expected: list[str] = []
    for turn in range(TURNS):
        expected += _script_turn(server, rng, turn)
        outcome = await session.submit(f"turn {turn}")
        assert outcome.stop_reason == "end_turn", (turn, outcome.error)
        assert outcome.text == f"turn {turn} done"
        assert_valid_history(session.messages)
        if turn == TURNS // 2:  # out of retries once: the turn fails, the session stays usable
            for _ in range(5):
                server.push(fault_status(529))
            failed = await session.submit("this one fails")
            assert failed.stop_reason == "error" and "overloaded" in failed.error
            assert_valid_history(session.messages)
    assert server.pending() == 0
    ran = log.read_text().splitlines()
    assert ran == expected  # every call ran exactly once, in order
    history = list(session.messages)
    await session.aclose()

    resumed = AgentSession.resume(None, config=_config(server, tmp_path), tools=[AppendTool(log)])
    assert _texts(resumed.messages) == _texts(history)
    server.push(reply("resumed fine"))
    outcome = await resumed.submit("still there?")
    assert outcome.text == "resumed fine"
    sent = server.message_requests[-1].messages
    assert len(sent) == len(history) + 1
    assert_valid_history(resumed.messages)
    await resumed.aclose()


def _texts(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Role and a normalised rendering of each message (ids included, order matters)."""
    out = []
    for m in messages:
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out.append((m["role"], repr([{k: v for k, v in b.items() if k != "cache_control"} for b in blocks])))
    return out
