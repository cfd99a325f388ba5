"""The Grep tool: ripgrep over files, respecting .gitignore, with three output modes and paging."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import check_read_permission
from ._deny_filter import denied_filter, drop_denied_paths, drop_denied_records
from ._grep_args import OutputMode, build_rg_args, page
from ._newest import NewestFiles
from ._read_only import ReadOnlyTool
from ._rg import run_rg
from ._search_root import require_existing, search_root

DEFAULT_HEAD_LIMIT = 250
TIMEOUT_S = 60.0


class GrepInput(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    pattern: str = Field(description="The regular expression to search for (ripgrep syntax)")
    path: str | None = Field(None, description="File or folder to search in (absolute). Defaults to the working directory")
    glob: str | None = Field(None, description='Only search files matching this glob, e.g. "*.py" or "*.{ts,tsx}"')
    type: str | None = Field(None, description='Only search files of this rg type, e.g. "py", "js", "rust"')
    output_mode: OutputMode = Field("files_with_matches", description='"content" shows matching lines, '
                                    '"files_with_matches" (default) shows file paths, "count" shows match counts')
    i: bool = Field(False, alias="-i", description="Case-insensitive search")
    o: bool = Field(False, alias="-o", description='Print only the matched parts (output_mode "content")')
    n: bool = Field(True, alias="-n", description='Show line numbers (output_mode "content"; default true)')
    A: int | None = Field(None, alias="-A", ge=0, description='Lines of context after each match (output_mode "content")')
    B: int | None = Field(None, alias="-B", ge=0, description='Lines of context before each match (output_mode "content")')
    C: int | None = Field(None, alias="-C", ge=0, description='Lines of context around each match (output_mode "content")')
    context: int | None = Field(None, ge=0, description="Same as -C")
    head_limit: int | None = Field(None, ge=0, description="Return only the first N lines or entries "
                                   f"(default {DEFAULT_HEAD_LIMIT}; 0 for no limit)")
    offset: int = Field(0, ge=0, description="Skip the first N lines or entries (page with head_limit)")
    multiline: bool = Field(False, description="Let the pattern span lines; . matches newlines")


@dataclass(frozen=True)
class GrepOutput:
    """One page of ripgrep's output in the requested mode."""

    mode: OutputMode
    lines: tuple[str, ...]  # file paths, "path:count" or content lines
    total: int  # entries before paging
    offset: int
    more: bool
    total_matches: int | None = None  # count mode

    def to_content(self) -> list[ContentBlock]:
        if not self.total:
            return [text_block("No matches found" if self.mode == "content" else "No files found")]
        body = "\n".join(self.lines)
        if self.mode == "files_with_matches":
            body = f"Found {self.total} file{'s' if self.total != 1 else ''}\n{body}"
        elif self.mode == "count":
            body += f"\n\nFound {self.total_matches} total occurrences across {self.total} files."
        if self.more:
            end = self.offset + len(self.lines)
            body += (f"\n\n(Showing results {self.offset + 1}-{end} of {self.total}. "
                     f"Pass offset={end} to see more, or narrow the search.)")
        return [text_block(body)]


_PROMPT = """Searches file contents with ripgrep. Use it for every content search (never `grep` or
`rg` through Bash): it is fast, respects .gitignore and keeps the output small.

- pattern is a regular expression in ripgrep syntax: "log.*Error", "def \\w+\\(". Escape
  literal braces and parentheses: "interface\\{\\}" finds "interface{}".
- Narrow with glob ("*.py", "*.{ts,tsx}") or type ("py", "js", "rust"; faster than glob).
- output_mode: "files_with_matches" (default, paths newest first), "content" (matching lines
  with line numbers; -A/-B/-C add context, -o only the matched parts), "count" (matches per file).
- -i ignores case. multiline: true lets a pattern span lines (. matches a newline).
- Results are paged: head_limit (default 250; 0 for all) and offset.
- Very long lines are cut to a preview. Hidden files are searched; .git (and other version-control folders) and .ipynb_checkpoints are skipped."""


class GrepTool(ReadOnlyTool[GrepInput, GrepOutput]):
    """Searches file contents with ripgrep."""

    name = "Grep"
    input_schema = GrepInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def get_path(self, input: GrepInput) -> str | None:
        return input.path

    def render_tool_use_message(self, input: GrepInput) -> str:
        return f'Grep "{input.pattern}"' + (f" in {input.path}" if input.path else "")

    async def validate_input(self, input: GrepInput, context: ToolUseContext) -> ValidationResult:
        if input.pattern == "":
            return ValidationError("pattern is empty; give a regular expression to search for.")
        if input.path in ("undefined", "null"):
            return ValidationError(f'Omit path to search the working directory instead of passing "{input.path}".')
        return VALID

    async def check_permissions(self, input: GrepInput, context: ToolUseContext) -> PermissionResult:
        return check_read_permission(self, str(search_root(input.path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None) -> ToolResult[GrepOutput]:
        root = search_root(input.path, context)
        require_existing(root, directory=False)
        args = build_rg_args(
            input.pattern, str(root), mode=input.output_mode, glob=input.glob, type=input.type,
            ignore_case=input.i, only_matching=input.o, line_numbers=input.n, after=input.A,
            before=input.B, context=input.C if input.C is not None else input.context,
            multiline=input.multiline,
        )
        cwd = root if root.is_dir() else root.parent
        is_denied = denied_filter(root, context)
        if is_denied is not None and input.output_mode != "files_with_matches":
            args.insert(0, "--null")  # unambiguous file names, to drop Read-denied files
        # files_with_matches: stat each file as rg reports it, to order them newest first.
        files = NewestFiles() if input.output_mode == "files_with_matches" else None
        res = await run_rg(args, cwd=cwd, timeout=TIMEOUT_S, abort=context.abort_controller,
                           consume=files.feed if files else None)
        if res.returncode == 2 and not (res.stdout or (files and files.count)):
            raise ToolError(_rg_error(res.stderr))
        if files is not None:
            if not res.truncated:
                files.finish()
            lines = list(files.newest())
        else:
            lines = res.stdout.decode("utf-8", "replace").splitlines()
            if res.truncated and lines:
                lines.pop()
        if is_denied is not None:
            if files is not None:
                lines = drop_denied_paths(lines, is_denied)
            else:
                lines = drop_denied_records(lines, is_denied)
        return ToolResult(_shape(input, lines))

    def map_result_to_content(self, data: GrepOutput, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()

    def render_tool_result_message(self, output: GrepOutput) -> str:
        noun = "line" if output.mode == "content" else "file"
        return f"{output.total} {noun}{'' if output.total == 1 else 's'}"


def _shape(input: GrepInput, lines: list[str]) -> GrepOutput:
    limit = DEFAULT_HEAD_LIMIT if input.head_limit is None else (input.head_limit or None)
    total_matches = None
    if input.output_mode == "count":
        total_matches = sum(int(line.rpartition(":")[2] or 0) for line in lines if line.rpartition(":")[2].isdigit())
    shown, more = page(lines, input.offset, limit)
    return GrepOutput(input.output_mode, tuple(shown), len(lines), input.offset, more, total_matches)


def _rg_error(stderr: str) -> str:
    text = stderr.strip() or "ripgrep failed without a message"
    if "regex" in text.lower():
        return f"Invalid regular expression (ripgrep says):\n{text}\nFix the pattern (escape special characters like ( [ {{ with a backslash)."
    return f"Grep failed (ripgrep says):\n{text}"
