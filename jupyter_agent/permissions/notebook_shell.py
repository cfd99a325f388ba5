"""The shell code in notebook cells NotebookExecute runs: IPython's ``!cmd``, ``!!cmd``, ``x =
!cmd``, ``%sx``/``%system`` lines and ``%%bash``/``%%sh``/``%%script SHELL``/``%%sx``/``%%system``
cells.

Running the cells is approved as a whole (the ask shows their sources), but their shell commands
meet the Bash deny and ask rules and the Bash safety checks as a Bash call would: in
bypassPermissions, ``!rm -rf build`` in a cell ran under ``Bash(rm:*)``.  IPython fills in
``{expr}`` and ``$name`` from Python before the shell sees the line: those are words only known at
run time.  Python code in the cells (``os.system``, ``subprocess``) is a program, as a ``.py``
file's is.
"""

from __future__ import annotations

import re

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionDeny, PermissionResult
from .bash import check_bash_permission
from .script_files import POSIX_SHELLS
from .verdicts import is_sticky, new_ask

_SHELL_CELL_MAGICS = frozenset({"bash", "sh", "sx", "system"})
_LINE = re.compile(r"^\s*(?:[\w.]+\s*=\s*)?(?:!!?|%sx\s|%system\s|%%!)(.*)$")
_PYTHON_VALUE = re.compile(r"(?<!\{)\{(?!\{)[^{}]*\}(?!\})")


def cell_shell_code(source: str) -> str:
    """The shell code a cell's source runs, as one script (empty when none)."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        words = first[2:].split()
        magic = words[0] if words else ""
        if magic == "script":
            program = next((w for w in words[1:] if not w.startswith("-")), "")
            magic = "bash" if program.rsplit("/", 1)[-1] in POSIX_SHELLS else ""
        return _ipython_values("\n".join(lines[1:])) if magic in _SHELL_CELL_MAGICS else ""
    found = []
    for line in lines:
        match = _LINE.match(line)
        if match is not None and match.group(1).strip():
            found.append(_ipython_values(match.group(1)))
    return "\n".join(found)


def _ipython_values(code: str) -> str:
    """``{expr}`` (not ``{{``) is a Python value IPython puts in: a word only known at run time."""
    return _PYTHON_VALUE.sub('"${PYTHON_VALUE}"', code)


def cells_shell_check(cells: list[tuple[str, str]], context: ToolUseContext) -> PermissionResult | None:
    """A deny or an ask no mode may skip for the shell code of these ``(cell id, source)`` code
    cells, as the Bash permission check gives it; None when it has neither."""
    for cell_id, source in cells:
        code = cell_shell_code(source)
        if not code.strip():
            continue
        verdict = check_bash_permission(code, context)
        if isinstance(verdict, PermissionDeny):
            return PermissionDeny(f"{verdict.message.rstrip('.')} (shell code in cell {cell_id}).")
        if isinstance(verdict, PermissionAsk) and is_sticky(verdict):  # the same reason: still sticky
            return new_ask(f"Cell {cell_id} runs shell code: {verdict.message}", (), verdict.reason)
    return None


__all__ = ["cell_shell_code", "cells_shell_check"]
