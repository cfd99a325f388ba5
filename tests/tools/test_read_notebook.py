from __future__ import annotations

import base64
import io
import json
import subprocess
import sys

import nbformat
import pytest
from PIL import Image

from jupyter_agent.core.context import ToolUseContext
from jupyter_agent.core.file_state import content_hash
from jupyter_agent.errors import ToolError
from jupyter_agent.tools.read_notebook import read_notebook


def _png(w: int = 8, h: int = 8) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (255, 0, 0)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print('hi')\nx = 1", id="code-1", execution_count=3)
    code.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="hi\n" + "y" * 5000),
        nbformat.v4.new_output("display_data", data={"image/png": _png(), "text/plain": "<Figure>"}),
        nbformat.v4.new_output("error", ename="ValueError", evalue="bad",
                               traceback=["\x1b[31mValueError\x1b[0m: bad"]),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title", id="md-1"), code]
    nbformat.write(nb, str(path))


async def test_every_cell_with_id_type_source_and_outputs(tmp_path):
    path = tmp_path / "a.ipynb"
    _notebook(path)
    ctx = ToolUseContext(cwd=tmp_path)
    blocks = await read_notebook(path, ctx)
    text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
    assert '<cell id="md-1" type="markdown">\n# Title\n</cell>' in text
    assert '<cell id="code-1" type="code" execution_count=3>' in text and "x = 1" in text
    assert "output trimmed" in text and "y" * 5000 not in text
    assert "ValueError: bad" in text and "\x1b[" not in text
    images = [b for b in blocks if b["type"] == "image"]
    assert len(images) == 1 and images[0]["source"]["media_type"] == "image/png"
    # text after an image stays in order: the error comes after the image block
    assert blocks.index(images[0]) < max(i for i, b in enumerate(blocks) if b["type"] == "text")


async def test_one_print_sent_in_pieces_reads_as_one_output(tmp_path):
    """A kernel may send one ``print`` as several stream messages (when it flushes decides where
    they are cut); they are one output, trimmed once, as JupyterLab shows them."""
    path = tmp_path / "pieces.ipynb"
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print('y' * 5000)", id="c")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 4000),
                    nbformat.v4.new_output("stream", name="stdout", text="y" * 1000),
                    nbformat.v4.new_output("stream", name="stdout", text="\n"),
                    nbformat.v4.new_output("stream", name="stderr", text="warning\n")]
    nb.cells = [code]
    nbformat.write(nb, str(path))
    text = "\n".join(b["text"] for b in await read_notebook(path, ToolUseContext(cwd=tmp_path)) if b["type"] == "text")
    assert text.count('<output cell="c">') == 2  # stdout once, stderr once
    assert "[output trimmed: 3,001 more characters]" in text and "warning" in text


async def test_read_is_recorded_with_bytes_and_cell_hashes(tmp_path):
    path = tmp_path / "a.ipynb"
    _notebook(path)
    ctx = ToolUseContext(cwd=tmp_path)
    await read_notebook(path, ctx)
    state = ctx.read_file_state.get(path)
    assert state is not None and not state.partial
    assert state.content_hash == content_hash(path.read_bytes())
    assert state.cell_hashes == {"md-1": content_hash("# Title"), "code-1": content_hash("print('hi')\nx = 1")}
    assert ctx.read_file_state.check_writable(path, path.read_bytes()) is None


async def test_old_notebook_without_ids_gets_positional_ids(tmp_path):
    path = tmp_path / "old.ipynb"
    path.write_text('{"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": ['
                    '{"cell_type": "code", "metadata": {}, "source": ["a = 1\\n", "b = 2"],'
                    ' "outputs": [], "execution_count": null}]}')
    ctx = ToolUseContext(cwd=tmp_path)
    text = (await read_notebook(path, ctx))[0]["text"]
    assert "a = 1\nb = 2" in text
    state = ctx.read_file_state.get(path)
    assert list(state.cell_hashes) == [text.split('id="')[1].split('"')[0]]


async def test_malformed_notebook_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.ipynb"
    path.write_text("{not json")
    with pytest.raises(ToolError, match="not a valid Jupyter notebook"):
        await read_notebook(path, ToolUseContext(cwd=tmp_path))


def test_reading_a_notebook_does_not_import_nbformat():
    """nbformat's validator takes seconds to import where JupyterLab's format checkers are
    installed; the first Read of a notebook in a kernel waited for it.  Reading needs none."""
    code = (
        "import sys\n"
        "from jupyter_agent.tools.read_notebook import parse_cells\n"
        "cells = parse_cells(b'{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": ["
        "{\"id\": \"a\", \"cell_type\": \"code\", \"metadata\": {}, \"source\": [\"x = 1\"], "
        "\"outputs\": [], \"execution_count\": null}]}', 'n.ipynb')\n"
        "assert [c.cell_id for c in cells] == ['a'], cells\n"
        "print('nbformat' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


async def test_a_version_3_notebook_is_converted(tmp_path):
    path = tmp_path / "v3.ipynb"
    path.write_text(json.dumps({
        "nbformat": 3, "nbformat_minor": 0, "metadata": {"name": "old"},
        "worksheets": [{"metadata": {}, "cells": [
            {"cell_type": "code", "input": "x = 41 + 1", "language": "python", "metadata": {},
             "outputs": [{"output_type": "stream", "stream": "stdout", "text": "42\n"}], "prompt_number": 1},
        ]}],
    }))
    text = (await read_notebook(path, ToolUseContext(cwd=tmp_path)))[0]["text"]
    assert "x = 41 + 1" in text and "42" in text


@pytest.mark.parametrize(
    ("content", "message"),
    [("[1, 2]", "not an object"), ("\ufffe", "not a valid Jupyter notebook"), ('{"nbformat": 2}', "not a valid")],
)
async def test_json_that_is_no_notebook_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "odd.ipynb"
    path.write_text(content)
    with pytest.raises(ToolError, match=message):
        await read_notebook(path, ToolUseContext(cwd=tmp_path))


async def test_stray_values_among_cells_and_outputs_are_skipped(tmp_path):
    path = tmp_path / "stray.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        "not a cell",
        {"cell_type": "code", "metadata": {}, "source": "y = 2", "execution_count": 1,
         "outputs": [7, {"output_type": "stream", "name": "stdout", "text": "two\n"}]},
    ]}))
    text = (await read_notebook(path, ToolUseContext(cwd=tmp_path)))[0]["text"]
    assert 'id="cell-1"' in text and "y = 2" in text and "two" in text


async def test_the_cards_line_counts_the_cells(tmp_path):
    from jupyter_agent.tools.read import NotebookOutput, ReadTool

    path = tmp_path / "a: b.ipynb"  # a colon in the name does not confuse the count
    _notebook(path)
    blocks = tuple(await read_notebook(path, ToolUseContext(cwd=tmp_path)))
    assert ReadTool().render_tool_result_message(NotebookOutput(str(path), blocks)) == "Read 2 cells"
    assert ReadTool().render_tool_result_message(NotebookOutput(str(path), ())) == "Read notebook"


def test_a_read_from_disk_warms_nbformat_up_for_the_edit_that_follows(tmp_path):
    """Editing the file goes through nbformat (validation, serialization): a disk Read starts
    its slow import on a daemon thread, so the first edit does not wait 2-3 s for it."""
    path = tmp_path / "nb.ipynb"
    _notebook(path)
    code = (
        "import asyncio, sys, threading\n"
        "importers = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'nbformat': importers.append(threading.current_thread().name)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from jupyter_agent.core.context import ToolUseContext\n"
        "from jupyter_agent.tools.read_notebook import read_notebook\n"
        f"asyncio.run(read_notebook({str(path)!r}, ToolUseContext(cwd={str(tmp_path)!r})))\n"
        "for t in [t for t in threading.enumerate() if t.name == 'jupyter-agent-nbformat']: t.join(120)\n"
        "print(importers, 'nbformat' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True)
    assert out.stdout.strip().splitlines()[-1] == "['jupyter-agent-nbformat'] True"
