"""The live backend over a REAL kernel's comm, with a test client playing the labextension."""

from __future__ import annotations

import json

import nbformat
import pytest

from tests.kernels import start_kernel

from .fake_frontend import FakeFrontend, sha
from .kernel_driver import SETUP, KernelDriver

pytestmark = pytest.mark.e2e


def _live_notebook() -> dict:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Analysis", id="m1"),
        nbformat.v4.new_code_cell("df = load()  # unsaved edit", id="c1"),
        nbformat.v4.new_code_cell("df.plot()", id="c2"),
    ]
    return json.loads(json.dumps(nb))


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(tmp_path / ".agent-home"))
    km, kc = start_kernel(str(tmp_path))
    try:
        yield km, KernelDriver(kc)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.fixture
def nb_file(tmp_path):
    """The notebook as last saved on disk (without the user's unsaved edit)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Analysis", id="m1"),
                nbformat.v4.new_code_cell("df = load()", id="c1"),
                nbformat.v4.new_code_cell("df.plot()", id="c2")]
    path = tmp_path / "work" / "nb.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, str(path))
    return path


def _frontend(km, tmp_path, **kw) -> FakeFrontend:
    fe = FakeFrontend(km, _live_notebook(), path="work/nb.ipynb", server_root=str(tmp_path), **kw)
    fe.start()
    assert fe.ready.wait(60)
    return fe


@pytest.mark.parametrize("subshell", [False, True], ids=["shell", "subshell"])
async def test_read_and_edit_the_live_notebook(kernel, tmp_path, nb_file, subshell):
    km, k = kernel
    fe = _frontend(km, tmp_path, subshell=subshell)
    try:
        k.execute(SETUP.format(root=str(tmp_path)))
        on_disk = nb_file.read_bytes()
        assert k.run(f"backend({str(nb_file)!r})") == "live"
        read = k.run(f"call_tool('Read', file_path={str(nb_file)!r})")
        assert not read["is_error"] and "# unsaved edit" in read["text"]  # the live cells, not the file

        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c1', "
                    "new_source='print(1)', cell_type='code', edit_mode='insert')")
        assert not out["is_error"], out["text"]
        new_id = out["text"].split()[2]
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c2', "
                    "new_source='df.plot(kind=\"bar\")')")
        assert out["text"] == 'Updated cell c2 with df.plot(kind="bar")'
        cells = fe.cells()
        assert [c["id"] for c in cells] == ["m1", "c1", new_id, "c2"]
        assert cells[2]["source"] == "print(1)" and cells[3]["source"] == 'df.plot(kind="bar")'
        assert nb_file.read_bytes() == on_disk  # the file is never written while it is open
        # the edit carried the hash of what the agent read
        replace = [r for r in fe.requests if r["op"] == "replace_cell"][0]
        assert replace["args"]["expected_hash"] == sha("df.plot()")
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id={new_id!r}, "
                    "new_source='', edit_mode='delete')")
        assert out["text"] == f"Deleted cell {new_id}"
        assert [c["id"] for c in fe.cells()] == ["m1", "c1", "c2"]
        delete = [r for r in fe.requests if r["op"] == "delete_cells"][0]
        assert delete["args"]["expected_hashes"] == {new_id: sha("print(1)")}
    finally:
        fe.stop()


async def test_a_cell_the_user_changed_after_the_read_is_rejected(kernel, tmp_path, nb_file):
    km, k = kernel
    fe = _frontend(km, tmp_path)
    try:
        k.execute(SETUP.format(root=str(tmp_path)))
        k.run(f"call_tool('Read', file_path={str(nb_file)!r})")
        fe.user_types("c1", "df = load(fresh=True)")
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c1', new_source='x')")
        assert out["is_error"] and "modified since read" in out["text"] and "Read the notebook again" in out["text"]
        assert fe.cells()[1]["source"] == "df = load(fresh=True)"
        # other cells are still editable: the check is per cell
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c2', new_source='y')")
        assert not out["is_error"], out["text"]
        # after reading again, the user's cell can be edited
        k.run(f"call_tool('Read', file_path={str(nb_file)!r})")
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c1', new_source='x')")
        assert not out["is_error"], out["text"]
        assert [c["source"] for c in fe.cells()][1:] == ["x", "y"]
    finally:
        fe.stop()


async def test_frontend_without_the_extension_means_disk(kernel, tmp_path, nb_file):
    km, k = kernel
    fe = _frontend(km, tmp_path, mode="no_extension")
    try:
        k.execute(SETUP.format(root=str(tmp_path)))
        # a long hello timeout: only the frontend's comm_close can make this return in time
        assert k.run(f"backend({str(nb_file)!r}, hello_timeout=300)", timeout=60) == "disk"
        assert fe.comm_opens == 1
        k.run(f"call_tool('Read', file_path={str(nb_file)!r})")
        out = k.run(f"call_tool('NotebookEdit', notebook_path={str(nb_file)!r}, cell_id='c2', new_source='z')")
        assert not out["is_error"], out["text"]
        assert nbformat.read(str(nb_file), as_version=4).cells[2].source == "z"
    finally:
        fe.stop()


async def test_no_frontend_at_all_means_disk(kernel, tmp_path, nb_file):
    _, k = kernel
    k.execute(SETUP.format(root=str(tmp_path)))
    assert k.run(f"backend({str(nb_file)!r}, hello_timeout=0.3)") == "disk"


async def test_another_notebook_of_the_same_kernel_is_read_from_disk(kernel, tmp_path, nb_file):
    km, k = kernel
    other = tmp_path / "work" / "other.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), str(other))
    fe = _frontend(km, tmp_path)
    try:
        k.execute(SETUP.format(root=str(tmp_path)))
        assert k.run(f"backend({str(nb_file)!r})") == "live"
        assert k.run(f"backend({str(other)!r})") == "disk"
    finally:
        fe.stop()


async def test_a_late_hello_still_switches_to_live(kernel, tmp_path, nb_file):
    km, k = kernel
    fe = _frontend(km, tmp_path, hello_delay=1.0)
    try:
        k.execute(SETUP.format(root=str(tmp_path)))
        assert k.run(f"backend({str(nb_file)!r}, hello_timeout=0.05)") == "disk"
        # the comm stays open: once the hello arrives, the same kernel uses the live notebook
        for _ in range(200):
            if k.run(f"backend({str(nb_file)!r})") == "live":
                break
        assert k.run(f"backend({str(nb_file)!r})") == "live"
        assert fe.comm_opens == 1
    finally:
        fe.stop()
