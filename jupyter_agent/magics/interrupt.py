"""The kernel's interrupt button (■, or I I) stops the agent's running turn.

``%agent`` returns at once and the turn runs on the kernel's event loop while no cell runs.
ipykernel ignores SIGINT while no cell runs (``SIG_IGN``); around each message it handles it
swaps in Python's default handler, keeping the one before in ``kernel.saved_sigint_handler``
and putting that back afterwards.  So an interrupt during a turn used to be lost.

On load the extension puts :class:`InterruptStopsTurn` where the idle handler is: an interrupt
while no cell runs stops the running turn exactly as its Stop button does (a running Bash
command is killed, prompts queued behind it are dropped); with no turn running it does what the
kernel did before (nothing).  While a cell runs, the cell gets the interrupt as always
(``await jupyter_agent.wait()`` stops the turns it waits for when it is interrupted).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable
from typing import Any


class InterruptStopsTurn:
    """A SIGINT handler for the idle kernel: ``stop()`` on the event loop, then whatever
    handler was there before (unless it ignored the signal)."""

    def __init__(self, stop: Callable[[], object], loop: asyncio.AbstractEventLoop, previous: Any) -> None:
        self.stop, self.loop, self.previous = stop, loop, previous

    def __call__(self, signum: int, frame: Any) -> None:
        # a signal handler runs between two bytecodes of the main thread, possibly inside the
        # loop's own code: stopping is scheduled, not done here
        with contextlib.suppress(RuntimeError):  # the loop is closed (kernel shutting down)
            self.loop.call_soon_threadsafe(self.stop)
        if callable(self.previous) and self.previous is not signal.default_int_handler:
            self.previous(signum, frame)


def install(kernel: Any, stop: Callable[[], object]) -> Callable[[], None] | None:
    """Make an interrupt of the idle ``kernel`` call ``stop``; returns the undo (``None`` when
    there is no ipykernel, or not on the main thread, where signals cannot be handled)."""
    if kernel is None or threading.current_thread() is not threading.main_thread():
        return None
    try:
        loop = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        return None
    current = signal.getsignal(signal.SIGINT)
    in_a_handler = current is signal.default_int_handler and hasattr(kernel, "saved_sigint_handler")
    if in_a_handler:  # %load_ext in a cell: the idle handler comes back when the cell ends
        handler = InterruptStopsTurn(stop, loop, kernel.saved_sigint_handler)
        kernel.saved_sigint_handler = handler
    else:  # loaded at start-up (c.InteractiveShellApp.extensions): the idle handler is current
        handler = InterruptStopsTurn(stop, loop, current)
        signal.signal(signal.SIGINT, handler)

    previous = handler.previous

    def uninstall() -> None:
        if getattr(kernel, "saved_sigint_handler", None) is handler:
            kernel.saved_sigint_handler = previous
        if signal.getsignal(signal.SIGINT) is handler and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, previous)

    return uninstall
