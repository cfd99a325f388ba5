"""Fixtures for agent tests: a real scripted server and sessions pointed at it via the real SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.testing import ScriptedServer
from tests.support.sessions import scripted_config


class RecordedSleeps:
    """A ``sleep`` for RetryPolicy that records the delays and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class EventLog(list):
    """Collects session events; ``of(Type)`` filters them."""

    def of(self, kind: type) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture
async def make_session(server, tmp_path, sleeps):
    created: list[AgentSession] = []

    def factory(tools=(), can_use_tool=None, **overrides: Any) -> tuple[AgentSession, EventLog]:
        fields: dict[str, Any] = {"retry": RetryPolicy(max_retries=4, base_delay=0.01, sleep=sleeps), **overrides}
        config = scripted_config(server, tmp_path, **fields)
        session = AgentSession(config, can_use_tool=can_use_tool, tools=list(tools))
        events = EventLog()
        session.subscribe(events.append)
        created.append(session)
        return session, events

    yield factory
    for session in created:  # sockets, transcript files, MCP servers
        await session.aclose()
