"""The Glob tool: file paths matching a glob pattern, newest first, found by ripgrep's walker."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import check_read_permission
from ._deny_filter import denied_filter
from ._newest import newest_of_sorted
from ._read_only import ReadOnlyTool
from ._rg import run_rg_many
from ._search_root import require_existing, search_root, split_glob
from ._walk_plan import walk_plan

MAX_RESULTS = 100
TIMEOUT_S = 60.0


class GlobInput(BaseModel):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py" or "src/**/*.ts"')
    path: str | None = Field(None, description="The folder to search in (absolute). Omit it to search "
                             "the working directory; do not pass \"undefined\" or \"null\"")


@dataclass(frozen=True)
class GlobOutput:
    """Matching files, newest first, at most ``MAX_RESULTS``."""

    filenames: tuple[str, ...]
    num_files: int
    truncated: bool
    duration_ms: int

    def to_content(self) -> list[ContentBlock]:
        if not self.filenames:
            return [text_block("No files found")]
        text = "\n".join(self.filenames)
        if self.truncated:
            text += (f"\n(Results are truncated: showing the {len(self.filenames)} most recently modified "
                     f"of {self.num_files} files. Use a more specific path or pattern.)")
        return [text_block(text)]


_PROMPT = """Finds files by name pattern, fast, in folders of any size.

- Patterns use glob syntax: "**/*.py", "src/**/*.{ts,tsx}", "tests/test_*.py". A pattern
  without a slash (e.g. "*.csv") matches file names at any depth.
- Results are absolute paths sorted by modification time, newest first, at most 100.
- Hidden files are included; .git (and other version-control folders) and .ipynb_checkpoints are skipped. Files ignored by .gitignore are found too.
- Use Grep to search inside files. For open-ended searches that need several rounds of
  globbing and grepping, do them in parallel in one turn."""


class GlobTool(ReadOnlyTool[GlobInput, GlobOutput]):
    """Finds files by glob pattern."""

    name = "Glob"
    input_schema = GlobInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def get_path(self, input: GlobInput) -> str | None:
        return input.path

    def render_tool_use_message(self, input: GlobInput) -> str:
        return f"Glob {input.pattern}" + (f" in {input.path}" if input.path else "")

    async def validate_input(self, input: GlobInput, context: ToolUseContext) -> ValidationResult:
        if not input.pattern.strip():
            return ValidationError("pattern is empty; give a glob such as \"**/*.py\".")
        if input.path in ("undefined", "null"):
            return ValidationError(f"Omit path to search the working directory instead of passing \"{input.path}\".")
        return VALID

    async def check_permissions(self, input: GlobInput, context: ToolUseContext) -> PermissionResult:
        root, _ = split_glob(input.pattern, search_root(input.path, context))
        return check_read_permission(self, str(root), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None) -> ToolResult[GlobOutput]:
        t0 = time.perf_counter()
        given = search_root(input.path, context)
        if input.path:
            require_existing(given, directory=True)
        root, pattern = split_glob(input.pattern, given)
        if not os.path.isdir(root):  # "src/**/*.py" without a src folder: nothing matches
            if root == given:
                require_existing(given, directory=True)
            return ToolResult(GlobOutput((), 0, False, int((time.perf_counter() - t0) * 1000)))
        plan = walk_plan(root, pattern)  # each process prints its matches newest first
        chunks: list[list[bytes]] = [[] for _ in plan]
        results = await run_rg_many(plan, cwd=root, timeout=TIMEOUT_S, abort=context.abort_controller,
                                    consumers=[part.append for part in chunks])
        outputs = [b"".join(part) for part in chunks]
        failed = next((r for r in results if r.returncode not in (0, 1)), None)
        if failed is not None and not any(outputs):
            raise ToolError(f"Glob failed: {failed.stderr.strip() or f'rg exit code {failed.returncode}'}")
        if results[0].truncated:  # cut mid-line: drop each list's last, partial line
            outputs = [out[:out.rfind(b"\n") + 1] for out in outputs]
        skip = denied_filter(root, context, hard_links=False)  # names only: no content to leak
        names, total = newest_of_sorted(outputs, MAX_RESULTS, root, skip)
        ms = int((time.perf_counter() - t0) * 1000)
        return ToolResult(GlobOutput(names, total, total > MAX_RESULTS, ms))

    def map_result_to_content(self, data: GlobOutput, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()

    def render_tool_result_message(self, output: GlobOutput) -> str:
        return f"Found {output.num_files} file{'' if output.num_files == 1 else 's'}"
