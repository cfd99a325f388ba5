"""The disk backend through the document abstraction: real files, nbformat, atomic writes."""

from __future__ import annotations

import json
import os

import nbformat
import pytest

from jupyter_agent.core.file_state import content_hash
from jupyter_agent.notebook import DeleteCell, InsertCell, NotebookEditError, ReplaceCell, get_document


def _write_nb(path, cells, minor=5):
    nb = nbformat.v4.new_notebook()
    nb.nbformat_minor = minor
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = cells
    # json, not nbformat.writes: nbformat would "repair" the defects some tests need
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path


@pytest.fixture
def nb_path(tmp_path):
    code = nbformat.v4.new_code_cell("x = 1\nprint(x)", id="c1", execution_count=4)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    return _write_nb(tmp_path / "nb.ipynb", [nbformat.v4.new_markdown_cell("# Title", id="m1"), code])


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


async def test_outside_a_kernel_the_disk_backend_is_used(nb_path):
    doc = await get_document(nb_path)
    assert doc.backend == "disk"
    nb = await doc.read_json()
    assert [c["id"] for c in nb["cells"]] == ["m1", "c1"]


async def test_insert_after_a_cell_and_at_the_top(nb_path):
    doc = await get_document(nb_path)
    after = await doc.apply(InsertCell("m1", "code", "y = 2\nz = 3\n"))
    top = await doc.apply(InsertCell(None, "markdown", "intro"))
    cells = _load(nb_path)["cells"]
    assert [c["id"] for c in cells] == [top.cell_id, "m1", after.cell_id, "c1"]
    # list-of-lines form on disk, and a fresh code cell has no outputs
    assert cells[2]["source"] == ["y = 2\n", "z = 3\n"]
    assert cells[2]["outputs"] == [] and cells[2]["execution_count"] is None
    assert "outputs" not in cells[0] and after.language == "python"
    assert after.cell_hashes[after.cell_id] == content_hash("y = 2\nz = 3\n")
    assert (after.index, after.cell_count) == (1, 3) and (top.index, top.cell_count) == (0, 4)  # where, of how many


async def test_replace_code_clears_outputs_and_code_to_markdown_drops_them(nb_path):
    doc = await get_document(nb_path)
    await doc.apply(ReplaceCell("c1", "x = 2"))
    cell = _load(nb_path)["cells"][1]
    assert cell["source"] == ["x = 2"] and cell["outputs"] == [] and cell["execution_count"] is None
    applied = await doc.apply(ReplaceCell("c1", "now *prose*", cell_type="markdown"))
    cell = _load(nb_path)["cells"][1]
    assert applied.cell_type == "markdown" and cell["cell_type"] == "markdown"
    assert "outputs" not in cell and "execution_count" not in cell
    nbformat.validate(nbformat.read(str(nb_path), as_version=4))


async def test_delete_and_unknown_cell(nb_path):
    doc = await get_document(nb_path)
    replaced = await doc.apply(ReplaceCell("c1", "x = 3"))
    assert (replaced.index, replaced.cell_count) == (1, 2)
    applied = await doc.apply(DeleteCell("m1"))
    assert applied.cell_id == "m1" and [c["id"] for c in _load(nb_path)["cells"]] == ["c1"]
    assert (applied.index, applied.cell_count) == (0, 1)  # where it was; the cells left
    with pytest.raises(NotebookEditError, match='Cell with ID "nope" not found'):
        await doc.apply(ReplaceCell("nope", "x"))


async def test_notebook_without_ids_is_addressed_by_index(tmp_path):
    cells = [nbformat.v4.new_code_cell("a"), nbformat.v4.new_code_cell("b")]
    for c in cells:
        del c["id"]
    path = _write_nb(tmp_path / "old.ipynb", cells, minor=4)
    doc = await get_document(path)
    await doc.apply(ReplaceCell("cell-1", "B"))
    applied = await doc.apply(InsertCell("cell-0", "markdown", "between"))
    saved = _load(path)
    assert ["".join(c["source"]) for c in saved["cells"]] == ["a", "between", "B"]
    assert applied.cell_id == "cell-1" and all("id" not in c for c in saved["cells"])


async def test_invalid_json_is_left_untouched(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(b'{"cells": [ oops')
    doc = await get_document(path)
    with pytest.raises(NotebookEditError, match="not valid JSON"):
        await doc.apply(InsertCell(None, "code", "x"))
    assert path.read_bytes() == b'{"cells": [ oops'


async def test_schema_invalid_notebook_is_left_untouched(tmp_path):
    path = tmp_path / "bad.ipynb"
    bad = {"cells": [{"cell_type": "code", "source": "x"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(bad))
    before = path.read_bytes()
    with pytest.raises(NotebookEditError, match="not a valid notebook"):
        await (await get_document(path)).apply(InsertCell(None, "code", "y"))
    assert path.read_bytes() == before


async def test_duplicate_ids_are_rejected_and_nothing_is_repaired(tmp_path):
    cells = [nbformat.v4.new_code_cell("a", id="dup"), nbformat.v4.new_code_cell("b", id="dup")]
    path = _write_nb(tmp_path / "dup.ipynb", cells)
    before = path.read_bytes()
    with pytest.raises(NotebookEditError, match="duplicate cell ids \\(dup\\)"):
        await (await get_document(path)).apply(ReplaceCell("dup", "c"))
    assert path.read_bytes() == before


async def test_a_file_changed_since_base_is_not_written(nb_path):
    doc = await get_document(nb_path)
    base = nb_path.read_bytes()
    _write_nb(nb_path, [nbformat.v4.new_code_cell("user's work", id="u1")])
    changed = nb_path.read_bytes()
    with pytest.raises(NotebookEditError, match="modified since read"):
        await doc.apply(InsertCell(None, "code", "agent"), base=base)
    assert nb_path.read_bytes() == changed


async def test_write_is_atomic_and_keeps_the_mode(nb_path):
    os.chmod(nb_path, 0o640)
    doc = await get_document(nb_path)
    applied = await doc.apply(InsertCell(None, "code", "print('new')"))
    assert applied.notebook_bytes == nb_path.read_bytes()
    assert oct(nb_path.stat().st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in nb_path.parent.iterdir()) == ["nb.ipynb"]  # no temp file left


async def test_missing_notebook(tmp_path):
    doc = await get_document(tmp_path / "missing.ipynb")
    with pytest.raises(NotebookEditError, match="does not exist"):
        await doc.apply(InsertCell(None, "code", "x"))
