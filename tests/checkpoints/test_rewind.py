from __future__ import annotations

import json
from pathlib import Path

import nbformat

from jupyter_agent.agent.events import TurnStarted
from jupyter_agent.checkpoints import CheckpointStore, rewind, with_checkpoints
from jupyter_agent.checkpoints.store import install_store
from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.orchestration import ToolUseRequest
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.notebook_edit import NotebookEditTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool
from tests.support.tools import make_context


def make_notebook(path: Path, sources: list[str]) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, str(path))
    return [c["id"] for c in nb.cells]


def cells(path: Path) -> list[tuple[str, str]]:
    data = json.loads(path.read_text())
    return [(c["id"], "".join(c["source"])) for c in data["cells"]]


async def disk_document(path: str):
    from jupyter_agent.notebook import DiskNotebook

    return DiskNotebook(path)


class Harness:
    def __init__(self, tmp_path: Path, approve) -> None:
        tools = with_checkpoints([ReadTool(), EditTool(), WriteTool(), NotebookEditTool()])
        self.ctx = make_context(tools, tmp_path)
        self.store = CheckpointStore()
        install_store(self.ctx.app_state_store, self.store)
        self.approve = approve
        self.n = 0

    async def turn(self, *calls: tuple[str, dict]) -> list[str]:
        self.n += 1
        self.store.on_event(TurnStarted(f"turn{self.n}", "prompt"))
        reqs = [ToolUseRequest(f"t{self.n}_{i}", name, inp) for i, (name, inp) in enumerate(calls)]
        run = await run_tools(reqs, self.ctx, self.approve)
        errors = [o.text for o in run.outcomes if o.is_error]
        assert not errors, errors
        return [o.text for o in run.outcomes]


async def test_rewind_two_turns_restores_files_and_cells_and_refuses_user_changes(tmp_path, approve):
    a, b, fresh = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "new.py"
    a.write_text("x = 1\n")
    b.write_text("y = 1\n")
    nb_path = tmp_path / "analysis.ipynb"
    c1, c2, c3 = make_notebook(nb_path, ["load()", "plot()", "save()"])
    h = Harness(tmp_path, approve)
    await h.turn(("Read", {"file_path": str(a)}), ("Read", {"file_path": str(b)}), ("Read", {"file_path": str(nb_path)}))
    await h.turn(
        ("Edit", {"file_path": str(a), "old_string": "x = 1", "new_string": "x = 2"}),
        ("NotebookEdit", {"notebook_path": str(nb_path), "cell_id": c1, "new_source": "load(fast=True)"}),
        ("NotebookEdit", {"notebook_path": str(nb_path), "cell_id": c3, "new_source": "", "edit_mode": "delete"}),
    )
    await h.turn(
        ("Edit", {"file_path": str(a), "old_string": "x = 2", "new_string": "x = 3"}),
        ("Edit", {"file_path": str(b), "old_string": "y = 1", "new_string": "y = 2"}),
        ("Write", {"file_path": str(fresh), "content": "print('new')\n"}),
        ("NotebookEdit", {"notebook_path": str(nb_path), "cell_id": c2, "new_source": "plot(style='dark')"}),
        ("NotebookEdit", {"notebook_path": str(nb_path), "cell_id": c1, "new_source": "summary()",
                          "cell_type": "code", "edit_mode": "insert"}),
    )
    inserted = cells(nb_path)[1][0]
    assert [s for _, s in cells(nb_path)] == ["load(fast=True)", "summary()", "plot(style='dark')"]
    # The user changes b.py and the plot cell after the agent did.
    b.write_text("y = 99  # mine\n")
    nb = json.loads(nb_path.read_text())
    nb["cells"][2]["source"] = "plot(style='mine')"
    nb_path.write_text(json.dumps(nb))

    report = await rewind(h.store, 2, disk_document)

    assert report.turns == ["turn3", "turn2"]
    assert a.read_text() == "x = 1\n"
    assert b.read_text() == "y = 99  # mine\n" and not fresh.exists()
    got = cells(nb_path)
    assert [s for _, s in got] == ["load()", "plot(style='mine')", "save()"]
    assert got[0][0] == c1 and got[1][0] == c2 and inserted not in [i for i, _ in got]
    actions = {(o.target.rsplit("/", 1)[-1], o.action) for o in report.outcomes}
    assert ("b.py", "refused") in actions and ("new.py", "deleted") in actions and ("a.py", "restored") in actions
    assert (f"analysis.ipynb#{c2}", "refused") in actions
    assert (f"analysis.ipynb#{c3}", "recreated") in actions and (f"analysis.ipynb#{inserted}", "deleted") in actions
    assert [t.turn_id for t in h.store.turns] == ["turn1"]
    summary = report.summary()
    assert summary.startswith("Rewound 2 turns.") and "refused" in summary and "changed since" in summary


async def test_failed_calls_and_empty_rewinds_change_nothing(tmp_path, approve):
    a = tmp_path / "a.py"
    a.write_text("x = 1\n")
    h = Harness(tmp_path, approve)
    h.store.on_event(TurnStarted("t1", "p"))
    run = await run_tools([ToolUseRequest("e", "Edit", {"file_path": str(a), "old_string": "x", "new_string": "y"})],
                          h.ctx, approve)
    assert run.outcomes[0].is_error  # not read first
    report = await rewind(h.store, 1, disk_document)
    assert report.outcomes == [] and a.read_text() == "x = 1\n"
    assert "changed no files" in report.summary()
    assert (await rewind(h.store, 3, disk_document)).summary() == "Nothing to rewind: no turns have been recorded."


async def test_without_a_store_the_wrapped_tools_just_work(tmp_path, approve):
    tools = with_checkpoints([WriteTool()])
    ctx = make_context(tools, tmp_path)
    run = await run_tools([ToolUseRequest("w", "Write", {"file_path": str(tmp_path / "n.txt"), "content": "hi"})], ctx, approve)
    assert not run.outcomes[0].is_error and (tmp_path / "n.txt").read_text() == "hi"
    assert tools[0].input_json_schema() == WriteTool().input_json_schema()
