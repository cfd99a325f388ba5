"""NotebookEdit through the real pipeline (schema → validation → permissions → call), disk backend."""

from __future__ import annotations

import json
from typing import Any

import nbformat
import pytest

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk
from jupyter_agent.core.registry import get_all_base_tools
from jupyter_agent.tools.notebook_edit import NotebookEditTool
from jupyter_agent.tools.read import ReadTool


class _Run:
    def __init__(self, context: ToolUseContext) -> None:
        self.context = context
        self.asks: list[PermissionAsk] = []
        self._n = 0

    async def _approve(self, tool, input, context, ask, tool_use_id):
        self.asks.append(ask)
        return PermissionAllow()

    async def __call__(self, name: str, **input: Any) -> tuple[bool, str]:
        self._n += 1
        out = await run_tool_use(ToolUseRequest(f"t{self._n}", name, input), self.context, self._approve)
        return out.is_error, "\n".join(b["text"] for b in out.content if b.get("type") == "text")

    async def ok(self, name: str, **input: Any) -> str:
        is_error, text = await self(name, **input)
        assert not is_error, text
        return text

    async def error(self, name: str, **input: Any) -> str:
        is_error, text = await self(name, **input)
        assert is_error, text
        return text


@pytest.fixture
def run(tmp_path) -> _Run:
    tools = (ReadTool(), NotebookEditTool())
    return _Run(ToolUseContext(options=ToolUseOptions(tools=tools), cwd=tmp_path, session_dir=tmp_path / ".s"))


@pytest.fixture
def nb_path(tmp_path):
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x = 1", id="c1", execution_count=2)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title", id="m1"), code]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    return path


def _cells(path):
    return json.loads(path.read_text())["cells"]


def test_registered_in_the_registry():
    assert any(isinstance(t, NotebookEditTool) for t in get_all_base_tools())


async def test_must_read_before_editing(run, nb_path):
    before = nb_path.read_bytes()
    text = await run.error("NotebookEdit", notebook_path=str(nb_path), cell_id="c1", new_source="x = 2")
    assert text == "File has not been read yet. Read it first before writing to it."
    assert nb_path.read_bytes() == before and run.asks == []  # refused before asking the user


async def test_replace_insert_delete_after_read(run, nb_path):
    await run.ok("Read", file_path=str(nb_path))
    text = await run.ok("NotebookEdit", notebook_path=str(nb_path), cell_id="c1", new_source="x = 2")
    assert text == "Updated cell c1 with x = 2"
    assert len(run.asks) == 1 and "NotebookEdit" in run.asks[0].message
    # the agent's own edit does not make the next one stale
    text = await run.ok("NotebookEdit", notebook_path=str(nb_path), cell_id="m1",
                        new_source="print('hi')", cell_type="code", edit_mode="insert")
    new_id = text.split()[2]
    assert text == f"Inserted cell {new_id} with print('hi')"
    await run.ok("NotebookEdit", notebook_path=str(nb_path), cell_id="m1", new_source="", edit_mode="delete")
    cells = _cells(nb_path)
    assert [c["id"] for c in cells] == [new_id, "c1"]
    assert cells[1]["source"] == ["x = 2"] and cells[1]["outputs"] == []


async def test_insert_at_top_without_cell_id(run, nb_path):
    await run.ok("Read", file_path=str(nb_path))
    await run.ok("NotebookEdit", notebook_path=str(nb_path), new_source="top",
                 cell_type="markdown", edit_mode="insert")
    assert "".join(_cells(nb_path)[0]["source"]) == "top"


async def test_file_changed_after_read_is_rejected(run, nb_path):
    await run.ok("Read", file_path=str(nb_path))
    nb = nbformat.read(str(nb_path), as_version=4)
    nb.cells[0].source = "# The user's new title"
    nbformat.write(nb, str(nb_path))
    changed = nb_path.read_bytes()
    text = await run.error("NotebookEdit", notebook_path=str(nb_path), cell_id="c1", new_source="x = 9")
    assert "modified since read" in text and "Read it again" in text
    assert nb_path.read_bytes() == changed


@pytest.mark.parametrize(
    ("input", "message"),
    [
        ({"edit_mode": "insert", "new_source": "x"}, "Cell type is required when using edit_mode=insert."),
        ({"new_source": "x"}, "Cell ID must be specified when not inserting a new cell."),
        ({"cell_id": "nope", "new_source": "x"}, 'Cell with ID "nope" not found in notebook.'),
        ({"cell_id": "c1", "new_source": "x", "edit_mode": "move"}, "edit_mode"),
        ({"cell_id": "c1", "new_source": "x", "cell_type": "raw"}, "cell_type"),
    ],
)
async def test_bad_input_becomes_a_clear_error(run, nb_path, input, message):
    await run.ok("Read", file_path=str(nb_path))
    before = nb_path.read_bytes()
    text = await run.error("NotebookEdit", notebook_path=str(nb_path), **input)
    assert message in text
    assert nb_path.read_bytes() == before


async def test_not_a_notebook(run, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    text = await run.error("NotebookEdit", notebook_path=str(tmp_path / "a.py"), cell_id="c", new_source="x")
    assert "must be a Jupyter notebook (.ipynb file)" in text


async def test_relative_path_and_code_to_markdown(run, nb_path):
    await run.ok("Read", file_path="nb.ipynb")
    await run.ok("NotebookEdit", notebook_path="nb.ipynb", cell_id="c1", new_source="*words*", cell_type="markdown")
    cell = _cells(nb_path)[1]
    assert cell["cell_type"] == "markdown" and "outputs" not in cell and "execution_count" not in cell
