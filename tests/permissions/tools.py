"""Tiny stand-ins for Bash and the file tools, calling the permission entry points exactly as
the real tools do, plus a context builder for table rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from jupyter_agent.core.context import AppState, ToolUseContext, ToolUseOptions
from jupyter_agent.core.permission_types import (
    PermissionDecision,
    PermissionPassthrough,
    ToolPermissionContext,
)
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import Tool
from jupyter_agent.permissions.bash import check_bash_permission_async, is_read_only_command
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.filesystem import check_read_permission, check_write_permission


class BashInput(BaseModel):
    command: str
    timeout: int | None = None


class BashLike(Tool[BashInput, str]):
    name = "Bash"
    input_schema = BashInput

    def __init__(self) -> None:
        self.context: ToolUseContext | None = None
        self.calls: list[str] = []

    async def check_permissions(self, input, context):
        self.context = context
        return await check_bash_permission_async(input.command, context)

    def is_read_only(self, input: BashInput) -> bool:
        return is_read_only_command(input.command, self.context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        self.calls.append(input.command)
        return ToolResult(f"ran {input.command}")


class PathInput(BaseModel):
    file_path: str
    content: str = ""


class ReadLike(Tool[PathInput, str]):
    name = "Read"
    input_schema = PathInput

    async def check_permissions(self, input, context):
        return check_read_permission(self, input.file_path, context)

    def is_read_only(self, input) -> bool:
        return True

    def get_path(self, input) -> str:
        return input.file_path

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult(Path(input.file_path).read_text())


class EditLike(Tool[PathInput, str]):
    name = "Edit"
    input_schema = PathInput

    def __init__(self, name: str = "Edit") -> None:
        self.name = name  # type: ignore[misc]

    async def check_permissions(self, input, context):
        return check_write_permission(self, input.file_path, context)

    def get_path(self, input) -> str:
        return input.file_path

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        Path(input.file_path).write_text(input.content)
        return ToolResult(f"wrote {input.file_path}")


class GlobInput(BaseModel):
    pattern: str
    path: str | None = None


class GlobLike(Tool[GlobInput, str]):
    name = "Glob"
    input_schema = GlobInput

    async def check_permissions(self, input, context):
        return check_read_permission(self, input.path or str(context.cwd), context)

    def is_read_only(self, input) -> bool:
        return True


class FetchInput(BaseModel):
    url: str
    prompt: str = "summarize"


class WebFetchLike(Tool[FetchInput, str]):
    name = "WebFetch"
    input_schema = FetchInput

    async def check_permissions(self, input, context):
        return PermissionPassthrough(message=f"Fetch {input.url}?")


class AgentInput(BaseModel):
    description: str = "d"
    prompt: str = "p"
    subagent_type: str | None = None


class AgentLike(Tool[AgentInput, str]):
    name = "Agent"
    input_schema = AgentInput
    aliases = ("Task",)


def make_ctx(
    project: Path,
    *,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    mode: str = "default",
    additional: tuple[Path, ...] = (),
    cwd: Path | None = None,
    tools: tuple[Tool[Any, Any], ...] = (),
) -> ToolUseContext:
    pc = ToolPermissionContext(
        mode=mode,  # type: ignore[arg-type]
        allow_rules={"localSettings": allow},
        deny_rules={"localSettings": deny},
        ask_rules={"localSettings": ask},
        additional_directories=additional,
        project_dir=project,
    )
    ctx = ToolUseContext(
        options=ToolUseOptions(tools=tools), cwd=cwd or project, session_dir=project.parent / "session"
    )
    ctx.set_app_state(lambda s: AppState(tool_permission_context=pc))
    return ctx


async def decide_bash(ctx: ToolUseContext, command: str) -> PermissionDecision:
    """The whole pipeline's decision on one Bash command line (as ``run_tool_use`` asks it)."""
    tool = BashLike()
    return await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)


def with_permissions(ctx: ToolUseContext, **changes: Any) -> ToolUseContext:
    """``ctx`` with its permission context's fields changed (e.g. ``block_outside_reads=True``)."""
    from dataclasses import replace

    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, **changes)))
    return ctx


def project_and_outside(tmp_path: Path) -> tuple[Path, Path]:
    """Two folders beside each other, ``proj`` and ``elsewhere``, each with a notes.txt."""
    project, outside = tmp_path / "proj", tmp_path / "elsewhere"
    for folder in (project, outside):
        folder.mkdir()
        (folder / "notes.txt").write_text(f"notes in {folder.name}\n")
    return project, outside


def write_files(root: Path, files: dict[str, str]) -> None:
    """Each ``{relative path: text}`` written below ``root`` (folders made as needed)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
