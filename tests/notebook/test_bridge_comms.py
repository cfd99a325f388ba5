"""The kernel bridge with several comms: the one the kernel opened and those pages opened later
(a reloaded page, a notebook opened again).  Plain comm objects stand in for ipykernel's; the
whole path through a real kernel and JupyterLab is ``tests/e2e/test_browser_live_ops.py``."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_agent.notebook import NotebookEditError
from jupyter_agent.notebook.bridge import KernelBridge
from jupyter_agent.notebook.protocol import GetNotebookArgs


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
    kernel_comm, page_comm = Comm(), Comm()
    await bridge.open(lambda **kw: kernel_comm, hello_timeout=0.01)
    bridge._dispatch(hello("a", "a.ipynb"), kernel_comm)
    bridge.adopt(page_comm)
    bridge._dispatch(hello("b", "b.ipynb"), page_comm)
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
