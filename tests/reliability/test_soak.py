"""Soak: 1,000 tool calls over 100 turns (parallel Reads, Bash, Grep, Glob, Edits) in one session.

Open file descriptors, threads, child processes and memory are measured after a warm-up and
again at the end; they must stay flat.  The figures are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

import gc
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from tests.support.sessions import scripted_config

TURNS = 100
CALLS_PER_TURN = 10
WARMUP_TURNS = 10
READ_FILES = 5


@dataclass(frozen=True)
class Figures:
    fds: int
    threads: int
    children: int
    rss_mb: float

    @classmethod
    def now(cls) -> Figures:
        gc.collect()
        me = psutil.Process()
        return cls(
            fds=len(os.listdir("/proc/self/fd")),
            threads=threading.active_count(),
            children=len(me.children(recursive=True)),
            rss_mb=me.memory_info().rss / 2**20,
        )


def _turn(server: ScriptedServer, project: Path, turn: int) -> None:
    """One turn: ten calls (5 Reads, 2 Bash, Grep, Glob in parallel; then Read + Edit)."""
    calls = [tool_use("Read", {"file_path": str(project / f"f{i}.txt")}) for i in range(READ_FILES)]
    calls += [
        tool_use("Bash", {"command": f"echo turn {turn}"}),
        tool_use("Bash", {"command": "ls -1 | wc -l"}),
        tool_use("Grep", {"pattern": "line 7", "path": str(project), "output_mode": "count"}),
        tool_use("Glob", {"pattern": "*.txt", "path": str(project)}),
    ]
    counter = str(project / "counter.txt")
    server.push(reply(text("Working."), *calls))
    server.push(reply(tool_use("Read", {"file_path": counter})))
    server.push(reply(tool_use("Edit", {"file_path": counter, "old_string": f"count {turn}",
                                        "new_string": f"count {turn + 1}"})))
    server.push(reply(f"turn {turn} done"))


def _calls_of(turn: int) -> int:
    return CALLS_PER_TURN + 1  # the Read before the Edit counts too


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


async def _no_sleep(_s: float) -> None:
    return None


async def test_thousand_calls_stay_flat(server, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for i in range(READ_FILES):
        (project / f"f{i}.txt").write_text("".join(f"line {n}\n" for n in range(20)))
    (project / "counter.txt").write_text("count 0\n")
    config = scripted_config(
        server, tmp_path, cwd=project, mode="bypassPermissions",
        retry=RetryPolicy(max_retries=2, base_delay=0.01, sleep=_no_sleep),
    )
    session = AgentSession(config)
    calls = 0
    before: Figures | None = None
    for turn in range(WARMUP_TURNS + TURNS):
        if turn == WARMUP_TURNS:
            before, calls = Figures.now(), 0
        _turn(server, project, turn)
        outcome = await session.submit(f"turn {turn}")
        assert outcome.text == f"turn {turn} done", outcome.error
        calls += _calls_of(turn)
        _forget_requests(server)
    after = Figures.now()
    await session.aclose()
    assert before is not None
    print(f"\nsoak: {calls} tool calls over {TURNS} turns (after {WARMUP_TURNS} warm-up turns)")
    print(f"  before: {before}\n  after:  {after}")
    assert calls >= 1000
    assert (project / "counter.txt").read_text() == f"count {WARMUP_TURNS + TURNS}\n"
    assert _every_result_ok(session.messages) == calls + WARMUP_TURNS * _calls_of(0)
    assert after.fds <= before.fds + 5
    assert after.threads <= before.threads + 2
    assert after.children <= before.children
    assert after.rss_mb <= before.rss_mb + 64  # the transcript grows; leaks of 1,000 calls would not fit


def _forget_requests(server: ScriptedServer) -> None:
    """The in-process server records every request body (the whole history each time): drop
    them, so that the figures measure the session, not the test's recorder."""
    with server._lock:
        server._state.requests.clear()


def _every_result_ok(messages: list[dict]) -> int:
    """The number of tool results; fails on any error result."""
    count = 0
    for message in messages:
        if message["role"] != "user" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                assert not block.get("is_error"), block
                count += 1
    return count
