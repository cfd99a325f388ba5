"""The NotebookExecute tool: run cells of the notebook open in JupyterLab and return their outputs.

Cells run through the frontend (the labextension's ``execute_cells``), exactly as if the user
pressed Shift+Enter: the outputs appear in the open notebook and come back to the model (text
trimmed, errors with their traceback, images as image blocks).  Running code asks permission
like Bash does.  The disk backend has no frontend and therefore no execution: the tool says so
instead of running notebook code behind the user's back in the current kernel.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionAsk, PermissionDeny, PermissionResult, PermissionUpdate
from ..core.result import ContentBlock, ToolResult
from ..errors import ToolError
from ..notebook import LiveNotebook, NotebookEditError, get_document
from ..notebook.cells import find_cell, source_text
from ..notebook.protocol import ExecuteCellsResult
from ..permissions.bash import check_timed_out
from ..permissions.filesystem import check_read_permission, check_write_permission
from ..permissions.notebook_shell import IPythonReader, cells_shell_check, cells_strings_check
from ..permissions.permission_thread import decide_off_loop
from ._notebook_tool import NotebookTool, notebook_path
from .read_notebook import OutputBlocks

DEFAULT_TIMEOUT_MS = 300_000
MAX_TIMEOUT_MS = 600_000
MAX_CELLS = 50
PREVIEW_SOURCE_CHARS = 1_500  # per cell, in the permission prompt

NOT_LIVE_MESSAGE = (
    "NotebookExecute needs the notebook open in JupyterLab (with the jupyter-agent extension): "
    "{path} is not open in this kernel's frontend, so there is nothing to run its cells. "
    "Ask the user to open the notebook in JupyterLab, or run the code with the Bash tool."
)


TIMEOUT_MESSAGE = (
    "The cells did not finish within {seconds:g} s. They may still be running in the notebook: "
    "Read the notebook later to see their outputs, or ask the user to interrupt the kernel."
)


class NotebookExecuteInput(BaseModel):
    notebook_path: str = Field(description="The absolute path to the Jupyter notebook (.ipynb) open in JupyterLab")
    cell_ids: list[str] = Field(
        min_length=1,
        max_length=MAX_CELLS,
        description="The IDs of the cells to run, in the order to run them (the ids are shown when you Read the notebook)",
    )
    timeout: int | None = Field(
        None, ge=1, le=MAX_TIMEOUT_MS,
        description=f"Optional timeout in milliseconds for all the cells (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS})",
    )


@dataclass(frozen=True)
class ExecutedCellOutput:
    cell_id: str
    cell_type: str
    execution_count: int | None
    outputs: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class NotebookExecuteOutput:
    notebook_path: str
    cells: tuple[ExecutedCellOutput, ...]

    @property
    def errors(self) -> int:
        return sum(1 for c in self.cells for o in c.outputs if o.get("output_type") == "error")

    def to_content(self) -> list[ContentBlock]:
        out = OutputBlocks(f"Ran {len(self.cells)} cell(s) of {self.notebook_path}")
        for cell in self.cells:
            out.text(_cell_header(cell))
            out.outputs(cell.cell_id, cell.outputs)
        return out.done()


def _cell_header(cell: ExecutedCellOutput) -> str:
    if cell.cell_type != "code":
        return f'<cell id="{cell.cell_id}" type="{cell.cell_type}">(not a code cell: nothing to run)</cell>'
    count = f" execution_count={cell.execution_count}" if cell.execution_count is not None else ""
    empty = " (no output)" if not cell.outputs else ""
    return f'<cell id="{cell.cell_id}"{count}>{empty}</cell>'


@dataclass(frozen=True)
class _Plan:
    path: Path
    doc: LiveNotebook
    cells: tuple[tuple[str, str, str], ...]  # (real id, cell type, source), in the order asked


_PROMPT = """Runs cells of the Jupyter notebook that is open in JupyterLab, through the notebook itself (as if the user pressed Shift+Enter), and returns their outputs: text (long outputs trimmed), errors with their traceback, and images.

- notebook_path must be a notebook open in JupyterLab (this kernel's notebook, or another open tab: its cells run in that notebook's own kernel); cell_ids are the ids shown when you Read it. Cells run one after another in the order given: variables they define are visible to the user and to later cells.
- The outputs also appear in the open notebook. Markdown and raw cells are not run.
- Running code requires the user's permission. A notebook that is not open in JupyterLab cannot be executed with this tool.
- Use KernelInspect to look at variables afterwards (shape, dtype, columns, head) without running code."""


class NotebookExecuteTool(NotebookTool[NotebookExecuteInput, NotebookExecuteOutput]):
    """Run cells of the open notebook through the frontend and return their outputs."""

    name = "NotebookExecute"
    input_schema = NotebookExecuteInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    async def plan(self, input: NotebookExecuteInput, context: ToolUseContext) -> _Plan:
        return await _plan(input, context)

    async def check_permissions(self, input: NotebookExecuteInput, context: ToolUseContext) -> PermissionResult:
        # Running cells shows their outputs to the model and writes them into the notebook:
        # a Read or Edit deny rule on the notebook denies, before its cells are even read.
        for check in (check_read_permission, check_write_permission):
            verdict = check(self, input.notebook_path, context)
            if isinstance(verdict, PermissionDeny):
                return verdict
        try:
            plan = await self.plan(input, context)
            message = _ask_message(plan)
        except ToolError as exc:  # fail closed: still ask, and say what could not be shown
            message = f"Run cells {', '.join(input.cell_ids)} of {input.notebook_path}? ({exc})"
        else:  # !rm -rf build, %%bash cells: the Bash deny and ask rules and safety checks apply
            # this kernel's aliases and folder as they are now (the user may have %cd'd since the
            # session started); another notebook's kernel cannot be looked at
            other = plan.doc.target is not None
            reader = IPythonReader(None if other else _ipython(), other_kernel=other)  # read here, on the loop
            kernel_cwd = None if other else _kernel_cwd()
            code_cells = [(cid, src) for cid, kind, src in plan.cells if kind == "code"]
            # open('.env'), Path('.git/config').write_text(…): a string of the code names it
            folders = [context.cwd, plan.path.parent] if other else [kernel_cwd or context.cwd]

            def cells_check() -> PermissionResult | None:  # in the permission thread: it reads files
                shell = cells_shell_check(code_cells, context, kernel_cwd=kernel_cwd, reader=reader)
                return shell if shell is not None else cells_strings_check(code_cells, context, folders)

            found = await decide_off_loop(cells_check, check_timed_out)
            if found is not None:
                return found
        always = PermissionUpdate(rules=("NotebookExecute",), destination="session")
        return PermissionAsk(message, suggestions=(always,))

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        plan = await self.plan(input, context)
        timeout = (input.timeout or DEFAULT_TIMEOUT_MS) / 1000
        ids = [cid for cid, _, _ in plan.cells]
        try:  # through the document: another open notebook's cells run in that notebook
            result: ExecuteCellsResult = await plan.doc.execute(ids, timeout)
        except NotebookEditError as exc:
            if exc.name != "timeout":
                raise
            raise ToolError(TIMEOUT_MESSAGE.format(seconds=timeout)) from None
        types = {cid: kind for cid, kind, _ in plan.cells}
        cells = tuple(
            ExecutedCellOutput(c.cell_id, types.get(c.cell_id, "code"), c.execution_count, tuple(c.outputs))
            for c in result.cells
        )
        return ToolResult(NotebookExecuteOutput(str(plan.path), cells))

    def render_tool_use_message(self, input: NotebookExecuteInput) -> str:
        cells = "cell" if len(input.cell_ids) == 1 else "cells"
        return f"Run {Path(input.notebook_path).name} {cells} {', '.join(input.cell_ids)}"

    def render_tool_result_message(self, output: NotebookExecuteOutput) -> str:
        n, e = len(output.cells), output.errors
        errors = f", {e} error{'s' if e != 1 else ''}" if e else ""
        return f"Ran {n} cell{'s' if n != 1 else ''}{errors}"


async def _plan(input: NotebookExecuteInput, context: ToolUseContext) -> _Plan:
    """The live notebook and the cells to run; every check that can fail before running."""
    path = notebook_path(input.notebook_path, context)
    doc = await get_document(path, context)
    if not isinstance(doc, LiveNotebook):
        raise ToolError(NOT_LIVE_MESSAGE.format(path=path))
    nb_cells = (await doc.read_json()).get("cells") or []
    found: list[tuple[str, str, str]] = []
    missing: list[str] = []
    for cell_id in input.cell_ids:
        index = find_cell(nb_cells, cell_id)
        if index is None:
            missing.append(cell_id)
            continue
        cell = nb_cells[index]
        found.append((str(cell.get("id") or cell_id), str(cell.get("cell_type", "code")), source_text(cell)))
    if missing:
        names = ", ".join(f'"{m}"' for m in missing)
        raise ToolError(f"Cell(s) not found in notebook {path}: {names}. Read the notebook to see its cell ids.")
    return _Plan(path, doc, tuple(found))


def _ipython() -> Any:
    """The IPython shell of this kernel, if any."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _kernel_cwd() -> str | None:
    """The folder this kernel's cells run in (``!ls`` runs there); None when it is gone."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _ask_message(plan: _Plan) -> str:
    where = "in its own kernel (another notebook open in JupyterLab)" if plan.doc.target else "in the kernel"
    parts = [f"Run {len(plan.cells)} cell(s) of {plan.path} {where}?"]
    for cell_id, kind, source in plan.cells:
        if kind != "code":
            parts.append(f"[{cell_id}] ({kind} cell, not run)")
            continue
        shown = source if len(source) <= PREVIEW_SOURCE_CHARS else source[:PREVIEW_SOURCE_CHARS] + "\n…"
        parts.append(f"[{cell_id}]\n{shown}")
    return "\n\n".join(parts)
