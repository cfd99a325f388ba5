"""``await jupyter_agent.wait()``: hold a cell until this kernel's agent turns have ended.

``%agent`` returns at once, so in a notebook run top to bottom (Run All, nbclient, papermill)
the next cells run while the agent works.  A cell with ``await jupyter_agent.wait()`` holds the
run there.  From ipykernel 7.4 a click on an approval card reaches the kernel while a cell
awaits, so the card can be answered during the wait.  Before that the kernel reads no other
message from the notebook until the cell ends, so when the agent asks and no approval timeout
will answer, ``wait`` stops with :class:`AgentWaitingForYou` instead of hanging: answer the
card, then run the cell again.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any

POLL_S = 0.05


class AgentWaitingForYou(RuntimeError):
    """An approval or a question is waiting for an answer that cannot arrive while a cell waits."""


async def wait(timeout: float | None = None) -> list[str]:
    """Wait until the turns running or queued in this kernel have ended; their stop reasons
    (``end_turn``, ``interrupted``, ``error``, …), oldest first.  ``timeout`` in seconds raises
    ``TimeoutError`` (the turns go on); interrupting the kernel during the wait stops them."""
    from IPython import get_ipython

    from .. import _MAGICS_KEY

    magics = getattr(get_ipython(), _MAGICS_KEY, None)
    router = getattr(magics, "router", None)
    if router is None:
        return []
    deadline = None if timeout is None else time.monotonic() + timeout
    seen: list[Any] = []
    while True:
        pending = [t for t in [router.active, *router.queue] if t is not None and t.running]
        seen.extend(t for t in pending if t not in seen)
        if not pending:
            return [t.transcript.stop_reason or "end_turn" for t in seen]
        session = getattr(magics, "session", None)
        timeout_answers = getattr(getattr(session, "config", None), "approval_timeout", None) is not None
        if any(t.transcript.asking for t in pending) and not timeout_answers and not clicks_reach_awaiting_cells():
            raise AgentWaitingForYou(
                "The agent is waiting for your answer in the %agent output above (an approval or a "
                "question). A click cannot reach the kernel while this cell waits: answer it, then run "
                "this cell again. (For runs with nobody at the screen, give --approval-timeout or rules.)"
            )
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError(f"The agent's turns did not end within {timeout:g} s; they go on.")
        try:
            await asyncio.sleep(POLL_S)
        except asyncio.CancelledError:  # the kernel was interrupted during the wait: stop them too
            for turn in pending:
                turn.transcript.stop()
            raise


def clicks_reach_awaiting_cells(kernel: Any = None) -> bool:
    """Does this kernel read widget messages while a cell awaits?  ipykernel 7.4 does (its
    ``dispatch_shell`` takes ``concurrent=`` for them); older kernels, or none, do not."""
    if kernel is None:
        from IPython import get_ipython

        kernel = getattr(get_ipython(), "kernel", None)
    dispatch = getattr(type(kernel), "dispatch_shell", None) if kernel is not None else None
    if dispatch is None:
        return False
    try:
        return "concurrent" in inspect.signature(dispatch).parameters
    except (TypeError, ValueError):
        return False
