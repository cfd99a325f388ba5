"""jupyter-agent: a coding agent inside the Jupyter kernel.

``%load_ext jupyter_agent`` registers the ``%agent`` magics.  Heavy modules (the SDK, widgets)
are imported lazily so that loading stays fast.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
