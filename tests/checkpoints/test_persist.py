"""Checkpoints on disk: --rewind after a kernel restart (a resumed session), pruning, bad files."""

from __future__ import annotations

import json
import os
import stat

from jupyter_agent.agent.session import AgentSession
from jupyter_agent.checkpoints import rewind_session
from jupyter_agent.checkpoints.model import CellChange, FileChange
from jupyter_agent.checkpoints.persist import CheckpointDisk
from jupyter_agent.checkpoints.store import CheckpointStore, get_store
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.read import ReadTool
from tests.checkpoints.support import approve, session_config


async def test_rewind_works_in_a_resumed_session(tmp_path):
    app = tmp_path / "app.py"
    app.write_text("SECRET = 'a'\n")
    with ScriptedServer() as server:
        server.push(
            reply(text("Hi.")),
            reply(tool_use("Read", {"file_path": str(app)})),
            reply(tool_use("Edit", {"file_path": str(app), "old_string": "'a'", "new_string": "'b'"})),
            reply(text("Changed.")),
        )
        config = session_config(server, tmp_path)
        first = AgentSession(config, can_use_tool=approve, tools=[ReadTool(), EditTool()])
        await first.submit("hello")
        history_before = [dict(m) for m in first.messages]
        await first.submit("change it")
        await first.aclose()
        assert app.read_text() == "SECRET = 'b'\n"
        blobs = list((first.context.session_dir / "checkpoints" / "blobs").iterdir())
        assert len(blobs) == 1 and stat.S_IMODE(blobs[0].stat().st_mode) == 0o600

        resumed = AgentSession.resume(first.id, config, can_use_tool=approve, tools=[ReadTool(), EditTool()])
        try:
            store = get_store(resumed.context.get_app_state())
            assert [len(t.files) for t in store.turns] == [0, 1]
            report = await rewind_session(resumed, 1)
            assert app.read_text() == "SECRET = 'a'\n"
            assert resumed.messages == history_before and "back to before" in report.conversation
        finally:
            await resumed.aclose()
    folder = first.context.session_dir / "checkpoints"
    assert len(list(folder.glob("turn-*.json"))) == 1  # the rewound turn is gone from disk…
    assert list((folder / "blobs").iterdir()) == []  # …and the snapshot only it needed


def test_disk_round_trip_dedupes_prunes_and_skips_bad_files(tmp_path):
    disk = CheckpointDisk(tmp_path / "cp")
    store = CheckpointStore(disk=disk)
    one = store.begin_turn("t1", "first")
    one.message_count = 2
    one.files["/x"] = FileChange("/x", b"old x", "h1")
    one.files["/y"] = FileChange("/y", None, "h2")  # created by the agent
    one.cells[("/nb.ipynb", "c1")] = CellChange("/nb.ipynb", "c1", "print(1)", "code", None, "h3", True)
    store.save(one)
    two = store.begin_turn("t2")
    two.files["/z"] = FileChange("/z", b"old x", "h4")  # same content: one blob
    store.save(two)
    assert len(list((tmp_path / "cp" / "blobs").iterdir())) == 1

    loaded = CheckpointStore(disk=CheckpointDisk(tmp_path / "cp")).turns
    assert [t.turn_id for t in loaded] == ["t1", "t2"]
    assert loaded[0].message_count == 2 and loaded[0].files["/x"].before == b"old x"
    assert loaded[0].files["/y"].before is None and loaded[0].cells[("/nb.ipynb", "c1")].done

    (tmp_path / "cp" / "turn-000099-broken.json").write_text("{not json")
    blob = next((tmp_path / "cp" / "blobs").iterdir())
    os.chmod(blob, 0o600)
    blob.write_bytes(b"tampered")  # no longer matches its name: the turns needing it are skipped
    assert CheckpointStore(disk=CheckpointDisk(tmp_path / "cp")).turns == []

    store.turns = [two]
    store.forget_dropped()
    names = sorted(p.name for p in (tmp_path / "cp").glob("turn-*.json"))
    assert names == ["turn-000002-t2.json", "turn-000099-broken.json"]
    assert json.loads((tmp_path / "cp" / names[0]).read_text())["files"][0]["path"] == "/z"


def test_only_the_last_max_turns_are_kept_on_disk(tmp_path):
    store = CheckpointStore(max_turns=3, disk=CheckpointDisk(tmp_path / "cp"))
    for i in range(5):
        turn = store.begin_turn(f"t{i}")
        turn.files[f"/f{i}"] = FileChange(f"/f{i}", f"v{i}".encode(), "h")
        store.save(turn)
    assert [t.turn_id for t in store.turns] == ["t2", "t3", "t4"]
    store.begin_turn("t5")
    assert sorted(p.name.split("-", 2)[2] for p in (tmp_path / "cp").glob("turn-*.json")) == [
        "t3.json", "t4.json", "t5.json"]
    assert len(list((tmp_path / "cp" / "blobs").iterdir())) == 2  # v3, v4
    assert [t.turn_id for t in CheckpointStore(disk=CheckpointDisk(tmp_path / "cp")).turns] == ["t3", "t4", "t5"]
