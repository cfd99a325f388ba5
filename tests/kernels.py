"""Start a real kernel for a test over the ``ipc`` transport.

Over TCP, ``jupyter_client`` picks free ports by binding and releasing them, and another process
(a parallel test worker, a JupyterLab under test) can take one before the kernel binds it: the
kernel then dies with ``ZMQError: Address already in use``.  Unix sockets in a folder of the
test's own cannot collide, so kernel tests do not race each other for ports.
"""

from __future__ import annotations

import shutil
import tempfile
from typing import Any

from jupyter_client.manager import KernelManager


class _IpcKernelManager(KernelManager):
    """Removes its socket folder when the kernel is shut down."""

    def shutdown_kernel(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().shutdown_kernel(*args, **kwargs)
        finally:
            shutil.rmtree(self._socket_dir, ignore_errors=True)


def kernel_manager(**kwargs: Any) -> KernelManager:
    """A ``KernelManager`` for ``python3`` whose channels are Unix sockets in a fresh short
    folder (a socket path must stay under about 100 bytes, so not below ``tmp_path``)."""
    socket_dir = tempfile.mkdtemp(prefix="jak-")
    km = _IpcKernelManager(kernel_name="python3", transport="ipc", ip=f"{socket_dir}/k", **kwargs)
    km._socket_dir = socket_dir
    return km


def start_kernel(cwd: str, timeout: float = 60, **start_kwargs: Any) -> tuple[KernelManager, Any]:
    """Start the kernel in ``cwd`` and return ``(manager, ready blocking client)``."""
    km = kernel_manager()
    km.start_kernel(cwd=cwd, **start_kwargs)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=timeout)
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return km, kc
