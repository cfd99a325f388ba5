"""Import a slow module on a daemon thread, ahead of the moment it is needed."""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading


def import_in_background(module: str, thread_name: str) -> None:
    """Start importing ``module`` on a daemon thread named ``thread_name``, unless it is imported
    already or that thread runs.  Only for modules whose imports never come back into this
    package: code that imports the module meanwhile just waits on the import lock for the rest.
    A failing import is left for the code that needs the module to report."""
    if module in sys.modules or any(t.name == thread_name for t in threading.enumerate()):
        return

    def run() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=run, name=thread_name, daemon=True).start()
