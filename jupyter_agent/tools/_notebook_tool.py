"""What NotebookEdit and NotebookExecute share: one notebook (``input.notebook_path``), and one
``plan`` holding every check that can fail before the tool runs — validation reports its error,
``call`` uses its result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..core.result import ContentBlock
from ..core.tool import VALID, InputT, OutputT, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ._paths import resolve_path

NOT_A_NOTEBOOK = "File must be a Jupyter notebook (.ipynb file)."


def notebook_path(raw: str, context: ToolUseContext, hint: str = "") -> Path:
    """``raw`` resolved against the cwd; a ToolError (``hint`` appended) unless it is an .ipynb."""
    path = resolve_path(raw, context)
    if path.suffix.lower() != ".ipynb":
        raise ToolError(f"{NOT_A_NOTEBOOK} {hint}".rstrip())
    return path


class NotebookTool(Tool[InputT, OutputT]):
    """A tool on one notebook; subclasses implement ``plan`` (raising ToolError when it cannot run)."""

    async def plan(self, input: InputT, context: ToolUseContext) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.plan")

    def get_path(self, input: InputT) -> str | None:
        return input.notebook_path  # type: ignore[attr-defined]

    async def validate_input(self, input: InputT, context: ToolUseContext) -> ValidationResult:
        try:
            await self.plan(input, context)
        except ToolError as exc:
            return ValidationError(str(exc))
        return VALID

    def map_result_to_content(self, data: OutputT, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()  # type: ignore[attr-defined]
