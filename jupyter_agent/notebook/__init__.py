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
from typing import TYPE_CHECKING

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

        _bridge = KernelBridge(asyncio.get_running_loop())
        if await _bridge.open(comm.create_comm, hello_timeout):
            return _bridge
        if _bridge.closed:  # closed by the frontend: no extension there; ask again later
            _no_frontend_until = time.monotonic() + RETRY_AFTER
        return None


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
    """The live notebook when the frontend has ``path`` open, else the file on disk."""
    absolute = _absolute(path, context)
    bridge = await get_bridge(hello_timeout)
    if bridge is not None:
        client = bridge.client_for(absolute)
        if client is not None:
            return LiveNotebook(bridge, client, absolute)
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
