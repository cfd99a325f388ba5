"""What the agent is told about the notebook it runs in: path, this cell's id, the last error.

Gathered when ``%agent`` runs and sent as a ``<system-reminder>`` in front of the user's prompt,
so "fix the error above" works: the failing cell's id, source and traceback come along.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass
from typing import Any

MAX_TRACEBACK_CHARS = 8_000
MAX_SOURCE_CHARS = 4_000


@dataclass(frozen=True)
class FailedCell:
    cell_id: str | None
    source: str
    traceback: str
    # the cell the user asked the agent to fix (its error output), not necessarily the last run
    chosen: bool = False


@dataclass(frozen=True)
class CellContext:
    notebook_path: str | None
    cell_id: str | None
    execution_count: int | None
    failed: FailedCell | None = None

    def reminder(self) -> str:
        """The text put in front of the prompt (empty when there is nothing to say)."""
        lines: list[str] = []
        if self.notebook_path:
            lines.append(f"The user is working in the Jupyter notebook {self.notebook_path}.")
        if self.cell_id:
            count = f" (execution count {self.execution_count})" if self.execution_count else ""
            lines.append(f"This request was typed in the %agent cell with id {self.cell_id}{count}.")
        if self.failed is not None:
            where = f" (cell id {self.failed.cell_id})" if self.failed.cell_id else ""
            which = "The cell the user asks to fix" if self.failed.chosen else "The previously executed cell"
            lines.append(f"{which}{where} failed. Its source:")
            lines.append("```python\n" + self.failed.source + "\n```")
            lines.append("Its traceback:\n```\n" + self.failed.traceback + "\n```")
        if not lines:
            return ""
        return "<system-reminder>\n" + "\n".join(lines) + "\n</system-reminder>\n\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else "… (earlier lines cut)\n" + text[-limit:]


def format_exception(exc: BaseException) -> str:
    """A plain-text traceback (no ANSI colours), cut to its last ``MAX_TRACEBACK_CHARS``."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return _clip(text, MAX_TRACEBACK_CHARS)


_KEPT = "_jupyter_agent_kept_failure"
# In the code of the labextension's quiet helper (labextension/src/commands.ts, LOAD).
HELPER_MARK = "_jupyter_agent_load"


def keep_failure(shell: Any, chosen: Any = None) -> None:
    """Called by the quiet helper the labextension runs before a "Fix This Cell with the Agent"
    ``%agent`` cell (it loads the extension): any execution replaces IPython's record of the last
    one, so the failure the helper would hide is kept for that cell.  ``chosen`` — the failed
    cell the user clicked, as the page has it (``{"cell_id", "source", "traceback"}``) — is kept
    instead: it need not be the cell that ran last."""
    failed = _chosen_cell(chosen) if chosen is not None else None
    setattr(shell, _KEPT, failed or failed_previous_cell(shell))


def _chosen_cell(chosen: Any) -> FailedCell | None:
    if not isinstance(chosen, dict) or not isinstance(chosen.get("traceback"), str):
        return None
    from ..tools.shell.text import strip_ansi  # the page's traceback is coloured

    cell_id = chosen.get("cell_id")
    return FailedCell(
        str(cell_id) if cell_id else None,
        _clip(str(chosen.get("source") or ""), MAX_SOURCE_CHARS),
        _clip(strip_ansi(chosen["traceback"]), MAX_TRACEBACK_CHARS),
        chosen=True,
    )


def _last_was_helper(shell: Any) -> bool:
    info = getattr(getattr(shell, "last_execution_result", None), "info", None)
    return HELPER_MARK in str(getattr(info, "raw_cell", "") or "")


def failed_previous_cell(shell: Any) -> FailedCell | None:
    """The previous cell's failure, if the last execution raised (or the last execution was the
    quiet helper, and the one before it raised)."""
    if getattr(shell, "last_execution_succeeded", True):
        kept = getattr(shell, _KEPT, None) if _last_was_helper(shell) else None
        return kept if isinstance(kept, FailedCell) else None
    result = getattr(shell, "last_execution_result", None)
    if result is None or _last_was_helper(shell):  # the helper's own failure is not the user's
        return None
    exc = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
    if exc is None:
        return None
    info = getattr(result, "info", None)
    source = _clip(str(getattr(info, "raw_cell", "") or ""), MAX_SOURCE_CHARS)
    return FailedCell(getattr(info, "cell_id", None), source, format_exception(exc))


def notebook_path(shell: Any) -> str | None:
    """The notebook's path as the kernel knows it (``__session__`` / ``JPY_SESSION_NAME``)."""
    ns = getattr(shell, "user_ns", {}) or {}
    path = ns.get("__session__") or os.environ.get("JPY_SESSION_NAME")
    if isinstance(path, str) and path.endswith(".ipynb"):
        return path
    return None


MAX_OPEN_LISTED = 20


def open_notebooks_note(paths: list[str], own: str | None, cwd: str | os.PathLike[str]) -> str:
    """The ``<system-reminder>`` naming the notebooks open in JupyterLab besides the user's own
    (relative to ``cwd`` when inside it); empty when there are none."""
    mine = os.path.realpath(os.path.join(cwd, own)) if own else None
    others = [p for p in paths if os.path.realpath(p) != mine]
    if not others:
        return ""
    root = os.path.realpath(cwd)

    def shown(path: str) -> str:
        real = os.path.realpath(path)
        inside = os.path.commonpath([root, real]) == root
        return os.path.relpath(real, root) if inside else path

    listed = ", ".join(shown(p) for p in others[:MAX_OPEN_LISTED])
    more = f" (and {len(others) - MAX_OPEN_LISTED} more)" if len(others) > MAX_OPEN_LISTED else ""
    return ("<system-reminder>\nAlso open in JupyterLab: " + listed + more + ". Read, NotebookEdit "
            "and NotebookExecute act on these live (unsaved edits included; NotebookExecute runs "
            "their cells in their own kernels).\n</system-reminder>")


def gather(shell: Any, cell_id: str | None) -> CellContext:
    return CellContext(
        notebook_path=notebook_path(shell),
        cell_id=cell_id,
        execution_count=getattr(shell, "execution_count", None),
        failed=failed_previous_cell(shell),
    )
