"""ReadOnlyGuard: wraps a tool so that only its read-only calls may run (Explore, Plan agents)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionDeny, PermissionResult
from ..core.tool import InterruptBehavior, Tool, ValidationResult

READ_ONLY_DENIAL = (
    "The {agent} agent is read-only: this {tool} call would change something, so it was refused. "
    "Use read-only tools, and put what should change in your report instead."
)


class ReadOnlyGuard(Tool[Any, Any]):
    """The wrapped tool, but calls it cannot prove read-only are denied before anyone is asked."""

    def __init__(self, inner: Tool[Any, Any], agent_name: str) -> None:
        self.inner = inner
        self.agent_name = agent_name
        self.name = inner.name  # type: ignore[misc]
        self.aliases = inner.aliases  # type: ignore[misc]
        self.input_schema = inner.input_schema  # type: ignore[misc]
        self.max_result_size_chars = inner.max_result_size_chars  # type: ignore[misc]
        self.should_defer = inner.should_defer  # type: ignore[misc]

    def _read_only(self, input: BaseModel) -> bool:
        try:
            return bool(self.inner.is_read_only(input))
        except Exception:
            return False  # fail closed

    async def check_permissions(self, input: BaseModel, context: ToolUseContext) -> PermissionResult:
        if not self._read_only(input):
            return PermissionDeny(READ_ONLY_DENIAL.format(agent=self.agent_name, tool=self.name))
        return await self.inner.check_permissions(input, context)

    async def validate_input(self, input: BaseModel, context: ToolUseContext) -> ValidationResult:
        return await self.inner.validate_input(input, context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if not self._read_only(input):  # never reached through the pipeline; a second lock
            raise PermissionError(READ_ONLY_DENIAL.format(agent=self.agent_name, tool=self.name))
        return await self.inner.call(input, context, can_use_tool, parent_message, on_progress)

    async def description(self, input: BaseModel | None, options: ToolUseOptions) -> str:
        return await self.inner.description(input, options)

    async def prompt(self, options: ToolUseOptions) -> str:
        return await self.inner.prompt(options)

    def is_read_only(self, input: BaseModel) -> bool:
        return self._read_only(input)

    def is_concurrency_safe(self, input: BaseModel) -> bool:
        return self.inner.is_concurrency_safe(input)

    def is_enabled(self) -> bool:
        return self.inner.is_enabled()

    def interrupt_behavior(self) -> InterruptBehavior:
        return self.inner.interrupt_behavior()

    def get_path(self, input: BaseModel) -> str | None:
        return self.inner.get_path(input)

    def user_facing_name(self, input: BaseModel | None = None) -> str:
        return self.inner.user_facing_name(input)

    def render_tool_use_message(self, input: BaseModel) -> str:
        return self.inner.render_tool_use_message(input)

    def render_tool_result_message(self, output: Any) -> str:
        return self.inner.render_tool_result_message(output)

    def map_result_to_content(self, data: Any, tool_use_id: str):
        return self.inner.map_result_to_content(data, tool_use_id)

    def input_json_schema(self) -> dict[str, Any]:
        return self.inner.input_json_schema()
