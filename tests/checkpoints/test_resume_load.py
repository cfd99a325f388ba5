"""A resumed session reads its saved checkpoints in a worker thread, not on the kernel's loop:
the loop keeps running meanwhile, and a rewind or a turn started before the load finished waits
for every saved turn (never a partial list)."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from jupyter_agent.agent.session import AgentSession
from jupyter_agent.checkpoints import rewind_session
from jupyter_agent.checkpoints.persist import CheckpointDisk
from jupyter_agent.checkpoints.store import CheckpointStore, get_store
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool
from tests.checkpoints.support import approve, session_config

CREATED = 24  # turns that each create a file, after the one that edits big.py
ORIGINAL = "".join(f"row_{i} = 'é{i}'  # ünïcode\n" for i in range(600)) + "last = 1"


class GatedLoad:
    """CheckpointDisk.load, recording the thread it runs on and held until ``gate`` opens."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.threads: list[int] = []
        self.started = threading.Event()
        self.gate = threading.Event()
        real = CheckpointDisk.load

        def load(disk: CheckpointDisk):
            self.threads.append(threading.get_ident())
            self.started.set()
            self.gate.wait(30)  # bounded: a broken test fails instead of hanging
            return real(disk)

        monkeypatch.setattr(CheckpointDisk, "load", load)


def tools():
    return [ReadTool(), EditTool(), WriteTool()]


async def _first_session(server: ScriptedServer, tmp_path) -> AgentSession:
    """One turn editing big.py, then CREATED turns each writing a new file: all saved to disk."""
    big = tmp_path / "big.py"
    server.push(
        reply(tool_use("Read", {"file_path": str(big)})),
        reply(tool_use("Edit", {"file_path": str(big), "old_string": "last = 1", "new_string": "last = 2"})),
        reply(text("Edited.")),
    )
    for i in range(CREATED):
        server.push(
            reply(tool_use("Write", {"file_path": str(tmp_path / f"new{i}.txt"), "content": f"file {i}\n"})),
            reply(text(f"Wrote {i}.")),
        )
    session = AgentSession(session_config(server, tmp_path), can_use_tool=approve, tools=tools())
    try:
        for prompt in ["edit big.py", *(f"write {i}" for i in range(CREATED))]:
            assert (await session.submit(prompt)).stop_reason == "end_turn"
    finally:
        await session.aclose()
    return session


async def test_resume_loads_checkpoints_off_the_loop_and_rewind_waits(tmp_path, monkeypatch):
    big = tmp_path / "big.py"
    big.write_bytes(ORIGINAL.encode())
    with ScriptedServer() as server:
        first = await _first_session(server, tmp_path)
        assert big.read_bytes() == ORIGINAL.replace("last = 1", "last = 2").encode()
        folder = first.context.session_dir / "checkpoints"
        assert len(list(folder.glob("turn-*.json"))) == CREATED + 1

        gated = GatedLoad(monkeypatch)
        config = session_config(server, tmp_path)
        resumed = AgentSession.resume(first.id, config, can_use_tool=approve, tools=tools())
        try:
            store = get_store(resumed.context.get_app_state())
            assert await asyncio.to_thread(gated.started.wait, 30)
            assert gated.threads != [] and threading.get_ident() not in gated.threads
            assert not store.loaded  # the constructor returned while the load is still held

            rewinding = asyncio.create_task(rewind_session(resumed, 3))
            ticks = 0
            for _ in range(20):  # the loop runs other work while the load is held
                await asyncio.sleep(0)
                ticks += 1
            assert ticks == 20 and not rewinding.done() and not store.loaded

            gated.gate.set()
            report = await rewinding
            assert len(report.turns) == 3 and [o.action for o in report.outcomes] == ["deleted"] * 3
            assert [len(t.files) for t in store.turns] == [1] * (CREATED - 2)
            for i in range(CREATED):
                assert (tmp_path / f"new{i}.txt").exists() == (i < CREATED - 3)

            report = await rewind_session(resumed, CREATED - 2)
            assert report.refused == [] and store.turns == []
        finally:
            await resumed.aclose()
    assert big.read_bytes() == ORIGINAL.encode()  # the snapshot came back byte for byte
    assert not any((tmp_path / f"new{i}.txt").exists() for i in range(CREATED))
    assert list(folder.glob("turn-*.json")) == [] and list((folder / "blobs").iterdir()) == []


async def test_a_turn_started_during_the_load_comes_after_every_saved_turn(tmp_path, monkeypatch):
    (tmp_path / "big.py").write_bytes(ORIGINAL.encode())
    with ScriptedServer() as server:
        first = await _first_session(server, tmp_path)
        gated = GatedLoad(monkeypatch)
        config = session_config(server, tmp_path)
        resumed = AgentSession.resume(first.id, config, can_use_tool=approve, tools=tools())
        try:
            server.push(
                reply(tool_use("Write", {"file_path": str(tmp_path / "late.txt"), "content": "late\n"})),
                reply(text("Late.")),
            )
            turn = resumed.submit("one more")
            for _ in range(20):
                await asyncio.sleep(0)
            assert not turn.done() and not (tmp_path / "late.txt").exists()  # waits for the load
            gated.gate.set()
            assert (await turn).stop_reason == "end_turn"
            store = get_store(resumed.context.get_app_state())
            assert len(store.turns) == CREATED + 2 and list(store.turns[-1].files) == [str(tmp_path / "late.txt")]
            names = sorted(p.name for p in (first.context.session_dir / "checkpoints").glob("turn-*.json"))
            assert len(names) == CREATED + 2 and names[-1].startswith(f"turn-{CREATED + 2:06d}-")

            report = await rewind_session(resumed, 2)
            assert [o.action for o in report.outcomes] == ["deleted", "deleted"]
            assert not (tmp_path / "late.txt").exists() and not (tmp_path / f"new{CREATED - 1}.txt").exists()
        finally:
            await resumed.aclose()


async def test_a_load_that_fails_starts_empty_and_sync_access_waits(tmp_path, monkeypatch, caplog):
    disk = CheckpointDisk(tmp_path / "cp")
    store = CheckpointStore(disk=disk)
    store.begin_turn("t1", "saved")
    gated = GatedLoad(monkeypatch)
    reopened = CheckpointStore(disk=CheckpointDisk(tmp_path / "cp"))
    threading.Timer(0, gated.gate.set).start()  # opened from another thread: sync access blocks until then
    assert [t.turn_id for t in reopened.turns] == ["t1"] and reopened.loaded

    def broken(disk):
        raise PermissionError("no access")

    monkeypatch.setattr(CheckpointDisk, "load", broken)
    failing = CheckpointStore(disk=CheckpointDisk(tmp_path / "cp"))
    with caplog.at_level(logging.WARNING, logger="jupyter_agent.checkpoints.store"):
        await failing.ready()
    assert failing.turns == [] and "no access" in caplog.text
