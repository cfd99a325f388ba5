"""jupyter-agent: a coding agent inside the Jupyter kernel.

``%load_ext jupyter_agent`` registers the ``%agent`` magics.  Heavy modules (the SDK, widgets)
are imported lazily so that loading stays fast.
"""

from __future__ import annotations

import contextlib
from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension", "wait"]

_MAGICS_KEY = "_jupyter_agent_magics"


def load_ipython_extension(ip: Any) -> None:
    """Register ``%agent`` / ``%%agent`` and make ``%config AgentMagics.*`` work."""
    from .magics.agent_magics import AgentMagics
    from .magics.question_mark import keep_questions

    if getattr(ip, _MAGICS_KEY, None) is not None:
        return
    magics = AgentMagics(shell=ip, parent=ip)
    ip.register_magics(magics)
    ip.configurables.append(magics)
    ip.events.register("pre_run_cell", magics.pre_run_cell)
    _cleanup_transforms(ip).append(keep_questions)  # `%agent what is x?` is not a help request
    from .magics.interrupt import install as stop_on_interrupt

    magics.uninstall_interrupt = stop_on_interrupt(getattr(ip, "kernel", None), magics.interrupted)
    setattr(ip, _MAGICS_KEY, magics)
    magics.watch_frontend()
    if magics.preload:
        preload()


async def wait(timeout: float | None = None) -> list[str]:
    """``await jupyter_agent.wait()``: hold this cell until the kernel's ``%agent`` turns have
    ended (for notebooks run top to bottom); their stop reasons.  Raises
    ``AgentWaitingForYou`` when the agent waits on an approval nobody can click meanwhile."""
    from .magics.waiting import wait as _wait

    return await _wait(timeout)


PRELOAD_THREAD = "jupyter-agent-preload"


def preload() -> None:
    """Import the model SDK on a daemon thread: it is most of the first ``%agent``'s wait (1.5 s
    and more), and the user is still typing.  Only the SDK, whose imports never come back into
    this package."""
    from .core.background_import import import_in_background

    import_in_background("anthropic", PRELOAD_THREAD)


def unload_ipython_extension(ip: Any) -> None:
    """Stop the session and remove the magics."""
    magics = getattr(ip, _MAGICS_KEY, None)
    if magics is None:
        return
    from .magics.question_mark import keep_questions

    magics.close()
    if magics.uninstall_interrupt is not None:
        magics.uninstall_interrupt()
    with contextlib.suppress(ValueError):
        ip.events.unregister("pre_run_cell", magics.pre_run_cell)
    if magics in ip.configurables:
        ip.configurables.remove(magics)
    for kind in ("line", "cell"):
        ip.magics_manager.magics[kind].pop("agent", None)
    transforms = _cleanup_transforms(ip)
    while keep_questions in transforms:
        transforms.remove(keep_questions)
    setattr(ip, _MAGICS_KEY, None)


def _cleanup_transforms(ip: Any) -> list[Any]:
    """The shell's cleanup input transforms (a scratch list for a shell without them)."""
    transforms = getattr(ip, "input_transformers_cleanup", None)
    return transforms if isinstance(transforms, list) else []
