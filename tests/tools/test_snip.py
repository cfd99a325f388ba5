from __future__ import annotations

import json

import nbformat

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.snip import SnipTool
from tests.support.tools import make_context


async def snip(ctx, approver, **payload):
    return await run_tool_use(ToolUseRequest("s", "Snip", payload), ctx, approver)


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("import math\nprint(math.pi)")]
    nb.cells[1].id = "code-1"
    nbformat.write(nb, str(path))


async def test_capture_range_and_cell_then_list_get_delete(tmp_path, approve):
    src = tmp_path / "mod.py"
    src.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    _notebook(tmp_path / "nb.ipynb")
    ctx = make_context([SnipTool()], tmp_path)
    out = await snip(ctx, approve, action="capture", name="mid", file_path=str(src), start_line=3, end_line=5)
    assert not out.is_error
    assert out.text == f"Captured Snippet 'mid' from {src}:3-5:\n```python\nline 3\nline 4\nline 5\n```"
    out = await snip(ctx, approve, action="capture", name="cell", file_path="nb.ipynb", cell_id="code-1")
    assert f"from {tmp_path / 'nb.ipynb'}#cell=code-1" in out.text and "print(math.pi)" in out.text
    out = await snip(ctx, approve, action="capture", name="first", file_path="nb.ipynb", cell_id="0")
    assert "# Title" in out.text
    listing = await snip(ctx, approve, action="list")
    assert listing.text.splitlines()[0] == f"- mid: {src}:3-5 (20 chars)"
    assert len(listing.text.splitlines()) == 3
    # the store is on disk: a fresh context of the same session sees it
    again = make_context([SnipTool()], tmp_path)
    got = await snip(again, approve, action="get", name="cell")
    assert "import math" in got.text
    saved = json.loads((tmp_path / "session" / "snippets.json").read_text())
    assert [s["name"] for s in saved] == ["mid", "cell", "first"]
    out = await snip(again, approve, action="delete", name="mid")
    assert out.text == "Deleted snippet 'mid'."
    out = await snip(again, approve, action="get", name="mid")
    assert out.is_error and "No snippet named 'mid'. Snippets: cell, first." in out.text


async def test_errors_are_clear(tmp_path, approve):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    _notebook(tmp_path / "nb.ipynb")
    ctx = make_context([SnipTool()], tmp_path)
    cases = [
        ({"action": "capture", "file_path": "a.txt"}, "needs a name"),
        ({"action": "capture", "name": "x"}, "needs file_path"),
        ({"action": "capture", "name": "x", "file_path": "a.txt", "start_line": 5}, "has only 2 lines"),
        ({"action": "capture", "name": "x", "file_path": "a.txt", "start_line": 2, "end_line": 1}, "end_line is before"),
        ({"action": "capture", "name": "x", "file_path": "missing.txt"}, "does not exist"),
        ({"action": "capture", "name": "x", "file_path": "nb.ipynb", "cell_id": "nope"}, "Cells: "),
        ({"action": "frob"}, "action"),
    ]
    for payload, message in cases:
        out = await snip(ctx, approve, **payload)
        assert out.is_error and message in out.text, (payload, out.text)
    assert not (tmp_path / "session" / "snippets.json").exists()


async def test_capture_outside_the_project_asks(tmp_path, reject):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    work = tmp_path / "work"
    work.mkdir()
    ctx = make_context([SnipTool()], work)
    out = await snip(ctx, reject, action="capture", name="x", file_path=str(outside / "secret.txt"))
    assert out.is_error and len(reject.asks) == 1
    assert (await snip(ctx, reject, action="list")).text == "No snippets yet."
