"""The notebook document: live (labextension comm) and on-disk (nbformat) backends.

``await get_document(path, context)`` returns the live notebook when the kernel's frontend has
``path`` open with the jupyter-agent extension, else the file on disk; its ``backend``
attribute ("live" | "disk") tells which (the UI shows it).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bridge import HELLO_TIMEOUT, KernelBridge
from .document import (
    Backend,
    CellEdit,
    DeleteCell,
    EditApplied,
    InsertCell,
    NotebookDocument,
    NotebookEditError,
    ReplaceCell,
)
from .live import LiveNotebook
from .ondisk import DiskNotebook
from .protocol import COMM_TARGET

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

__all__ = [
    "Backend",
    "CellEdit",
    "DeleteCell",
    "DiskNotebook",
    "EditApplied",
    "InsertCell",
    "LiveNotebook",
    "NotebookDocument",
    "NotebookEditError",
    "ReplaceCell",
    "active_backend",
    "get_bridge",
    "get_document",
    "live_notebook_bytes",
    "reset_bridge",
]

RETRY_AFTER = 10.0  # seconds before asking again when no frontend answered

_bridge: KernelBridge | None = None
_no_frontend_until = 0.0
_lock: asyncio.Lock | None = None


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


async def get_bridge(hello_timeout: float = HELLO_TIMEOUT) -> KernelBridge | None:
    """This kernel's bridge to its frontend, opened on first use; None without a frontend."""
    global _bridge, _no_frontend_until, _lock
    if _usable_or_waiting():
        return _bridge if _bridge is not None and _bridge.clients else None
    if not _in_kernel() or time.monotonic() < _no_frontend_until:
        return None
    _lock = _lock or asyncio.Lock()
    async with _lock:
        if _usable_or_waiting():
            return _bridge if _bridge is not None and _bridge.clients else None
        import comm

        _listen_for_frontends(comm, asyncio.get_running_loop())
        _bridge = KernelBridge(asyncio.get_running_loop())
        if await _bridge.open(comm.create_comm, hello_timeout):
            return _bridge
        if _bridge.closed:  # closed by the frontend: no extension there; ask again later
            _no_frontend_until = time.monotonic() + RETRY_AFTER
        return None


OPEN_NOTE_WAIT = 0.5  # seconds a turn waits, at most, for a page that is saying hello right now


async def open_notebooks(wait: float = 0.0) -> list[str]:
    """The absolute paths of the notebooks open in the JupyterLab pages connected to this kernel,
    as the pages last said (no round trip: they say so with their hello and on every change).
    With ``wait``, a bridge opened less than ``wait`` seconds ago that has no view yet gets the
    rest of that time for its first hello (``%load_ext`` opens it, or else the first ``%agent``
    just before its turn)."""
    bridge = _bridge
    if bridge is None or bridge.closed:
        return []
    remaining = wait - (time.monotonic() - bridge.opened_at)
    if not bridge.clients and remaining > 0:
        await bridge.first_hello(remaining)
    return sorted(bridge.open_notebooks())


_listening = False


def _listen_for_frontends(comm_module: Any, loop: asyncio.AbstractEventLoop) -> None:
    """Let a page that connects to this kernel later open its own comm (the labextension does
    when the kernel has a bridge comm open already: the page was reloaded, or the notebook
    closed and opened again).  Without it that page would never hear of the kernel's comm and
    every request would wait for the stale page until it timed out."""
    global _listening
    if _listening:
        return
    try:
        manager = comm_module.get_comm_manager()
        manager.register_target(COMM_TARGET, lambda c, msg: _frontend_opened(c, loop))
    except Exception:  # no kernel comm manager (plain IPython): nothing connects later
        return
    _listening = True


def _frontend_opened(frontend_comm: Any, loop: asyncio.AbstractEventLoop) -> None:
    """A frontend opened a comm (possibly on a subshell thread): adopted on the loop, before
    any of its messages, which follow in order."""
    frontend_comm.on_msg(lambda msg: loop.call_soon_threadsafe(_deliver, frontend_comm, msg))
    frontend_comm.on_close(lambda msg: loop.call_soon_threadsafe(_frontend_closed, frontend_comm))
    loop.call_soon_threadsafe(_adopt, frontend_comm, loop)


def _adopt(frontend_comm: Any, loop: asyncio.AbstractEventLoop) -> None:
    global _bridge, _no_frontend_until
    if _bridge is None or _bridge.closed:
        _bridge = KernelBridge(loop)
    _no_frontend_until = 0.0
    _bridge.adopt(frontend_comm)


def _deliver(frontend_comm: Any, msg: dict[str, Any]) -> None:
    if _bridge is not None and not _bridge.closed:
        _bridge._dispatch(msg.get("content", {}).get("data"), frontend_comm)


def _frontend_closed(frontend_comm: Any) -> None:
    if _bridge is not None and not _bridge.closed:
        _bridge.comm_closed(frontend_comm)


def _usable_or_waiting() -> bool:
    """True while the bridge has clients, or is still young enough for a late hello."""
    if _bridge is None or _bridge.closed:
        return False
    if _bridge.clients or time.monotonic() - _bridge.opened_at < RETRY_AFTER:
        return True
    _bridge.close()  # nobody answered for a while: probe again (a frontend may have attached)
    return False


def reset_bridge() -> None:
    """Forget the bridge and the no-frontend pause (the next call probes again)."""
    global _bridge, _no_frontend_until
    if _bridge is not None:
        _bridge.close()
    _bridge = None
    _no_frontend_until = 0.0


def _absolute(path: str | os.PathLike[str], context: ToolUseContext | None) -> str:
    p = Path(os.path.expanduser(os.fspath(path)))
    if not p.is_absolute():
        p = (context.cwd if context is not None else Path.cwd()) / p
    return os.path.normpath(p)


async def get_document(
    path: str | os.PathLike[str],
    context: ToolUseContext | None = None,
    *,
    hello_timeout: float = HELLO_TIMEOUT,
) -> NotebookDocument:
    """The live notebook when the frontend has ``path`` open — as this kernel's notebook, or as
    another tab of the same JupyterLab page — else the file on disk."""
    absolute = _absolute(path, context)
    bridge = await get_bridge(hello_timeout)
    if bridge is not None:
        client = bridge.client_for(absolute)
        if client is not None:
            return LiveNotebook(bridge, client, absolute)
        if absolute.endswith(".ipynb"):
            found = await bridge.open_elsewhere(absolute)
            if found is not None:
                return LiveNotebook(bridge, found[0], absolute, target=found[1])
    return DiskNotebook(absolute)


async def active_backend(path: str | os.PathLike[str], context: ToolUseContext | None = None) -> Backend:
    """ "live" or "disk": where reads and edits of ``path`` go now."""
    return (await get_document(path, context)).backend


async def live_notebook_bytes(
    path: str | os.PathLike[str], context: ToolUseContext | None = None
) -> bytes | None:
    """The live notebook's JSON when ``path`` is open in the frontend, else None (read the file)."""
    doc = await get_document(path, context)
    return await doc.read_bytes() if doc.backend == "live" else None


NOTIFY_TIMEOUT = 5.0  # seconds: a notice that cannot be shown at once is not worth waiting for


async def _ask_page(bridge: KernelBridge | None, notebook_path: str | None, args: Any,
                    timeout: float | None = None) -> tuple[bool, Any]:
    """Send ``args`` to the view of ``notebook_path`` (else any view of this kernel): whether it
    answered, and its result."""
    if bridge is None or bridge.closed:
        return False, None
    client = bridge.client_for(notebook_path) if notebook_path else None
    client = client or next(iter(bridge.clients.values()), None)
    if client is None:
        return False, None
    try:
        return True, await bridge.request(client, args, timeout)
    except NotebookEditError:
        return False, None


async def notify_waiting(notebook_path: str | None, cell_id: str, message: str) -> str | None:
    """Ask the page to tell the user the agent waits in ``cell_id`` (a JupyterLab notification
    with a Show button, unless that card is on screen); the notification's id, or None when none
    was shown (no page with the extension, an older extension, the card in view)."""
    from .protocol import NotifyArgs

    args = NotifyArgs(message=message, cell_id=cell_id)
    _, result = await _ask_page(await get_bridge(), notebook_path, args, NOTIFY_TIMEOUT)
    shown = result.get("id") if isinstance(result, dict) else None
    return str(shown) if shown else None


async def dismiss_waiting(notice: asyncio.Future[str | None], notebook_path: str | None) -> None:
    """The user answered: take the notification ``notice`` resolves to off the page."""
    try:
        notification = await notice
    except Exception:
        return
    if notification is not None:
        from .protocol import DismissNotificationArgs

        await _ask_page(_bridge, notebook_path, DismissNotificationArgs(id=notification), NOTIFY_TIMEOUT)


async def show_output(notebook_path: str | None, cell_id: str, display_id: str, data: dict[str, Any]) -> bool:
    """Put the display ``data`` in the outputs of ``cell_id`` of the open notebook (replacing the
    one put there before under ``display_id``); False when no page could (none open, an older
    extension, the cell gone)."""
    from .protocol import ShowOutputArgs

    args = ShowOutputArgs(cell_id=cell_id, display_id=display_id, data=data)
    return (await _ask_page(_bridge, notebook_path, args))[0]
