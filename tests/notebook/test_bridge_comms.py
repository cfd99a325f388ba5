"""The kernel bridge with several comms: the one the kernel opened and those pages opened later
(a reloaded page, a notebook opened again).  Plain comm objects stand in for ipykernel's; the
whole path through a real kernel and JupyterLab is ``tests/e2e/test_browser_live_ops.py``."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_agent.notebook import NotebookEditError
from jupyter_agent.notebook.bridge import KernelBridge
from jupyter_agent.notebook.protocol import GetNotebookArgs, ReplaceCellArgs


class Comm:
    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.closed = False
        self.on_msg_cb = self.on_close_cb = None

    def send(self, data: dict) -> None:
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True

    def on_msg(self, cb) -> None:
        self.on_msg_cb = cb

    def on_close(self, cb) -> None:
        self.on_close_cb = cb


def hello(client_id: str, path: str = "nb.ipynb") -> dict:
    return {"type": "hello", "version": 1, "client_id": client_id, "path": path, "server_root": "/srv"}


async def two_views(bridge: KernelBridge) -> tuple[Comm, Comm]:
    """a.ipynb's view on the comm the kernel opened, b.ipynb's on one its page opened."""
    kernel_comm, page_comm = Comm(), Comm()
    await bridge.open(lambda **kw: kernel_comm, hello_timeout=0.01)
    bridge._dispatch(hello("a", "a.ipynb"), kernel_comm)
    bridge.adopt(page_comm)
    bridge._dispatch(hello("b", "b.ipynb"), page_comm)
    return kernel_comm, page_comm


async def test_a_rejoining_page_replaces_the_gone_one_and_gets_the_requests():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    kernel_comm = Comm()
    assert not await bridge.open(lambda **kw: kernel_comm, hello_timeout=0.01)
    bridge._dispatch(hello("old"), kernel_comm)  # the page there when the kernel opened its comm
    first_rejoin, second_rejoin = Comm(), Comm()
    bridge.adopt(first_rejoin)  # the page reloaded: it opened its own comm
    bridge._dispatch(hello("new"), first_rejoin)
    assert list(bridge.clients) == ["new"] and not kernel_comm.closed  # the kernel's comm stays open
    request = asyncio.ensure_future(bridge.request(bridge.client_for("/srv/nb.ipynb"), GetNotebookArgs()))
    await asyncio.sleep(0)
    assert first_rejoin.sent and not kernel_comm.sent  # addressed on the comm the page answers on
    bridge._dispatch({"type": "response", "id": first_rejoin.sent[0]["id"], "ok": True,
                      "result": {"path": "nb.ipynb", "notebook": {}}}, first_rejoin)
    assert (await request)["path"] == "nb.ipynb"

    bridge.adopt(second_rejoin)  # reloaded again: the page's earlier comm has nobody on it any more
    bridge._dispatch(hello("newer"), second_rejoin)
    assert list(bridge.clients) == ["newer"] and first_rejoin.closed and not kernel_comm.closed
    bridge._dispatch(hello("other", path="other.ipynb"), kernel_comm)  # another notebook: both kept
    assert set(bridge.clients) == {"newer", "other"}


async def test_a_closed_comm_fails_only_its_own_requests():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    kernel_comm, page_comm = await two_views(bridge)
    on_page = asyncio.ensure_future(bridge.request(bridge.clients["b"], GetNotebookArgs()))
    on_kernel = asyncio.ensure_future(bridge.request(bridge.clients["a"], GetNotebookArgs()))
    await asyncio.sleep(0)
    bridge.comm_closed(page_comm)
    with pytest.raises(NotebookEditError, match="closed the connection"):
        await on_page
    assert not on_kernel.done() and list(bridge.clients) == ["a"] and not bridge.closed
    bridge.comm_closed(kernel_comm)  # the last one: the bridge is closed
    with pytest.raises(NotebookEditError):
        await on_kernel
    assert bridge.closed


async def test_a_read_in_flight_when_the_page_reloads_is_answered_by_the_rejoined_page():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    kernel_comm, page_comm = Comm(), Comm()
    await bridge.open(lambda **kw: kernel_comm, hello_timeout=0.01)
    bridge._dispatch(hello("old"), kernel_comm)
    read = asyncio.ensure_future(bridge.request(bridge.clients["old"], GetNotebookArgs()))
    edit = asyncio.ensure_future(bridge.request(bridge.clients["old"], ReplaceCellArgs(cell_id="c1", source="x")))
    await asyncio.sleep(0)
    assert [m["op"] for m in kernel_comm.sent] == ["get_notebook", "replace_cell"]
    bridge.adopt(page_comm)  # the page reloads before answering: its new view says hello
    bridge._dispatch(hello("new"), page_comm)
    with pytest.raises(NotebookEditError, match="reloaded while this change") as failed:
        await asyncio.wait_for(edit, 1)  # at once, not after the 5 s timeout
    assert failed.value.name == "reloaded"
    assert [(m["op"], m["client_id"]) for m in page_comm.sent] == [("get_notebook", "new")]
    assert page_comm.sent[0]["id"] == kernel_comm.sent[0]["id"]  # the same request, sent again
    bridge._dispatch({"type": "response", "id": page_comm.sent[0]["id"], "ok": True,
                      "result": {"path": "nb.ipynb", "notebook": {"cells": []}}}, page_comm)
    assert (await asyncio.wait_for(read, 1))["notebook"] == {"cells": []}
    assert not bridge.closed and list(bridge.clients) == ["new"]


async def test_a_view_that_goes_silent_is_dropped_and_the_others_stay():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=0.05)
    kernel_comm, page_comm = await two_views(bridge)
    with pytest.raises(NotebookEditError, match="did not answer") as failed:
        await bridge.request(bridge.clients["b"], GetNotebookArgs())
    assert failed.value.name == "timeout"
    assert list(bridge.clients) == ["a"] and not bridge.closed  # a.ipynb's view still answers
    with pytest.raises(NotebookEditError, match="did not answer"):
        await bridge.request(bridge.clients["a"], GetNotebookArgs())
    assert bridge.closed and not bridge.clients  # nobody left: the next use probes again


async def test_a_request_to_a_view_replaced_since_goes_to_the_view_that_replaced_it():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    kernel_comm, page_comm = Comm(), Comm()
    await bridge.open(lambda **kw: kernel_comm, hello_timeout=0.01)
    bridge._dispatch(hello("old"), kernel_comm)
    held = bridge.clients["old"]  # as a LiveNotebook holds it between its read and its edit
    bridge.adopt(page_comm)
    bridge._dispatch(hello("new"), page_comm)  # reloaded in between
    edit = asyncio.ensure_future(bridge.request(held, ReplaceCellArgs(cell_id="c1", source="x", expected_hash="h")))
    await asyncio.sleep(0)
    assert not kernel_comm.sent and [(m["op"], m["client_id"]) for m in page_comm.sent] == [("replace_cell", "new")]
    bridge._dispatch({"type": "response", "id": page_comm.sent[0]["id"], "ok": False,
                      "error": {"name": "stale_cell", "message": "Cell c1 has been modified"}}, page_comm)
    with pytest.raises(NotebookEditError, match="modified"):  # the page checks the hash as ever
        await asyncio.wait_for(edit, 1)

    bridge._dispatch(hello("other", "other.ipynb"), kernel_comm)
    other = bridge.clients["other"]
    bridge._went_silent("other")  # that page was closed
    with pytest.raises(NotebookEditError, match="no longer open in the browser"):
        await asyncio.wait_for(bridge.request(other, GetNotebookArgs()), 1)


async def test_cleared_outputs_reach_the_listeners_with_the_view_that_saw_it(monkeypatch):
    from jupyter_agent.notebook import bridge as bridge_module

    heard: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(bridge_module, "OUTPUTS_CLEARED_LISTENERS", [lambda c, ids: heard.append((c.path, ids))])
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    page = Comm()
    await bridge.open(lambda **kw: page, hello_timeout=0.01)
    bridge._dispatch(hello("view", "nb.ipynb"), page)
    bridge._dispatch({"type": "outputs_cleared", "client_id": "view", "cell_ids": ["c1", "c2"]}, page)
    bridge._dispatch({"type": "outputs_cleared", "client_id": "a-gone-view", "cell_ids": ["c3"]}, page)
    bridge._dispatch({"type": "outputs_cleared", "client_id": "view", "cell_ids": "c4"}, page)  # malformed
    assert heard == [("/srv/nb.ipynb", ["c1", "c2"])]


def hello_with_paths(client_id: str, path: str = "nb.ipynb") -> dict:
    return {**hello(client_id, path), "features": ["paths"]}


async def test_another_notebook_open_in_the_page_is_reached_through_a_view_that_can(tmp_path):
    """The agent of one notebook edited another notebook open in the same JupyterLab on disk,
    under the page (JupyterLab then offers "Overwrite / Revert", and unsaved edits are lost).
    A view that can (hello feature "paths") lists the page's open notebooks, and requests
    naming one (``path``) act on it there.  A view without the feature is never asked."""
    root = tmp_path / "srv"
    (root / "sub").mkdir(parents=True)
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    old_page, page = Comm(), Comm()
    await bridge.open(lambda **kw: old_page, hello_timeout=0.01)
    bridge._dispatch({**hello("old", "a.ipynb"), "server_root": str(root)}, old_page)  # an older extension
    bridge.adopt(page)
    bridge._dispatch({**hello_with_paths("new", "c.ipynb"), "server_root": str(root)}, page)

    def answer_lists() -> None:
        for request in page.sent:
            if request["op"] == "list_open" and not request.get("answered"):
                request["answered"] = True
                bridge._dispatch({"type": "response", "id": request["id"], "ok": True,
                                  "result": {"paths": ["c.ipynb", "sub/b.ipynb"]}}, page)

    finding = asyncio.ensure_future(bridge.open_elsewhere(str(root / "sub" / ".." / "sub" / "b.ipynb")))
    await asyncio.sleep(0)
    answer_lists()
    client, rel = await asyncio.wait_for(finding, 1)
    assert client.client_id == "new" and rel == "sub/b.ipynb"
    assert not old_page.sent  # the older view would have answered with its own notebook

    missing = asyncio.ensure_future(bridge.open_elsewhere(str(root / "elsewhere.ipynb")))
    await asyncio.sleep(0)
    answer_lists()
    assert await asyncio.wait_for(missing, 1) is None

    read = asyncio.ensure_future(bridge.request(client, GetNotebookArgs(), path=rel))
    own = asyncio.ensure_future(bridge.request(client, GetNotebookArgs()))
    await asyncio.sleep(0)
    targeted, plain = page.sent[-2:]
    assert targeted["path"] == "sub/b.ipynb" and "path" not in plain
    for request in (targeted, plain):
        bridge._dispatch({"type": "response", "id": request["id"], "ok": True,
                          "result": {"path": request.get("path", "c.ipynb"), "notebook": {}}}, page)
    assert (await read)["path"] == "sub/b.ipynb" and (await own)["path"] == "c.ipynb"

    with pytest.raises(NotebookEditError, match="cannot reach other open notebooks"):
        await bridge.request(bridge.clients["old"], GetNotebookArgs(), path="sub/b.ipynb")
    assert not old_page.sent


async def test_a_read_of_another_open_notebook_in_flight_over_a_reload_keeps_its_path():
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    page, reloaded = Comm(), Comm()
    await bridge.open(lambda **kw: page, hello_timeout=0.01)
    bridge._dispatch(hello_with_paths("view"), page)
    read = asyncio.ensure_future(bridge.request(bridge.clients["view"], GetNotebookArgs(), path="other.ipynb"))
    await asyncio.sleep(0)
    bridge.adopt(reloaded)
    bridge._dispatch(hello_with_paths("again"), reloaded)
    [again] = reloaded.sent
    assert again["path"] == "other.ipynb" and again["client_id"] == "again"
    bridge._dispatch({"type": "response", "id": again["id"], "ok": True,
                      "result": {"path": "other.ipynb", "notebook": {}}}, reloaded)
    assert (await asyncio.wait_for(read, 1))["path"] == "other.ipynb"


async def test_the_notebooks_a_page_says_are_open_are_found_without_asking(tmp_path):
    """Each Read of a notebook not this kernel's own cost a ``list_open`` round trip to every page.
    Now the page says which notebooks it has open — with its hello, then on every change — and
    ``open_elsewhere`` finds them in what was said: no request goes out."""
    root = tmp_path / "srv"
    (root / "sub").mkdir(parents=True)
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    page = Comm()
    await bridge.open(lambda **kw: page, hello_timeout=0.01)
    bridge._dispatch({**hello_with_paths("view", "a.ipynb"), "server_root": str(root),
                      "open": ["a.ipynb", "sub/b.ipynb"]}, page)
    client, rel = await bridge.open_elsewhere(str(root / "sub" / "b.ipynb"))
    assert client.client_id == "view" and rel == "sub/b.ipynb"
    assert await bridge.open_elsewhere(str(root / "c.ipynb")) is None
    assert page.sent == []  # nothing asked
    assert sorted(bridge.open_notebooks()) == [str(root / "a.ipynb"), str(root / "sub" / "b.ipynb")]

    # the user opens c.ipynb and closes sub/b.ipynb: the page says so
    bridge._dispatch({"type": "open_notebooks", "client_id": "view", "paths": ["a.ipynb", "c.ipynb"]}, page)
    assert (await bridge.open_elsewhere(str(root / "c.ipynb")))[1] == "c.ipynb"
    assert await bridge.open_elsewhere(str(root / "sub" / "b.ipynb")) is None
    # a view that is gone is not heard (its page is not this one any more)
    bridge._dispatch({"type": "open_notebooks", "client_id": "gone", "paths": ["z.ipynb"]}, page)
    assert str(root / "z.ipynb") not in bridge.open_notebooks()
    assert page.sent == []

    # the page reloads: the new view's hello replaces the old one and what it said
    reloaded = Comm()
    bridge.adopt(reloaded)
    bridge._dispatch({**hello_with_paths("again", "a.ipynb"), "server_root": str(root), "open": ["a.ipynb"]}, reloaded)
    assert sorted(bridge.open_notebooks()) == [str(root / "a.ipynb")]
    assert set(bridge._open) == {"again"}


async def test_a_view_that_never_said_what_is_open_is_still_asked(tmp_path):
    """A page whose hello says nothing of its open notebooks (an extension built before that)
    is asked with ``list_open``, as before; a view that said is not."""
    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    quiet, said = Comm(), Comm()
    await bridge.open(lambda **kw: quiet, hello_timeout=0.01)
    bridge._dispatch({**hello_with_paths("quiet", "a.ipynb"), "server_root": str(tmp_path)}, quiet)
    bridge.adopt(said)
    bridge._dispatch({**hello_with_paths("said", "b.ipynb"), "server_root": str(tmp_path), "open": ["b.ipynb"]}, said)
    finding = asyncio.ensure_future(bridge.open_elsewhere(str(tmp_path / "x.ipynb")))
    await asyncio.sleep(0)
    [asked] = quiet.sent
    assert asked["op"] == "list_open" and said.sent == []
    bridge._dispatch({"type": "response", "id": asked["id"], "ok": True, "result": {"paths": ["x.ipynb"]}}, quiet)
    client, rel = await asyncio.wait_for(finding, 1)
    assert client.client_id == "quiet" and rel == "x.ipynb"


async def test_open_notebooks_waits_briefly_for_a_page_saying_hello(monkeypatch, tmp_path):
    """``%load_ext`` (or the first ``%agent``) opens the bridge just before the turn: the turn's
    note of the open notebooks waits a moment for the page's hello, and no longer."""
    import jupyter_agent.notebook as N

    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    page = Comm()
    await bridge.open(lambda **kw: page, hello_timeout=0.001)
    monkeypatch.setattr(N, "_bridge", bridge)
    said = {**hello_with_paths("view", "a.ipynb"), "server_root": str(tmp_path), "open": ["a.ipynb", "b.ipynb"]}
    asyncio.get_running_loop().call_later(0.05, bridge._dispatch, said, page)
    assert await N.open_notebooks() == []  # no wait asked for: what is known now
    assert await N.open_notebooks(wait=5.0) == [str(tmp_path / "a.ipynb"), str(tmp_path / "b.ipynb")]

    silent = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    await silent.open(lambda **kw: Comm(), hello_timeout=0.001)
    monkeypatch.setattr(N, "_bridge", silent)
    waited: list[float] = []
    real_wait = silent.first_hello

    async def first_hello(timeout: float) -> bool:
        waited.append(timeout)
        return await real_wait(timeout)

    monkeypatch.setattr(silent, "first_hello", first_hello)
    assert await N.open_notebooks(wait=0.2) == []  # nobody answers: given up after the wait
    assert len(waited) == 1 and 0 < waited[0] <= 0.2
    silent.opened_at -= 10
    assert await N.open_notebooks(wait=0.2) == []  # opened long ago: no waiting at all
    assert len(waited) == 1
