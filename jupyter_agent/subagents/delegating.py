"""DelegatingTool: a tool that forwards every member to an inner tool (base of tool wrappers)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.tool import ChangePreview, InterruptBehavior, PermissionMatcher, Tool, ValidationResult


class DelegatingTool(Tool[Any, Any]):
    """Behaves exactly like ``inner``; subclasses override what they change."""

    def __init__(self, inner: Tool[Any, Any]) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[misc]
        self.aliases = inner.aliases  # type: ignore[misc]
        self.input_schema = inner.input_schema  # type: ignore[misc]
        self.max_result_size_chars = inner.max_result_size_chars  # type: ignore[misc]
        self.should_defer = inner.should_defer  # type: ignore[misc]
        self.search_hint = inner.search_hint  # type: ignore[misc]

    async def validate_input(self, input: BaseModel, context: ToolUseContext) -> ValidationResult:
        return await self.inner.validate_input(input, context)

    async def check_permissions(self, input: BaseModel, context: ToolUseContext) -> PermissionResult:
        return await self.inner.check_permissions(input, context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return await self.inner.call(input, context, can_use_tool, parent_message, on_progress)

    async def description(self, input: BaseModel | None, options: ToolUseOptions) -> str:
        return await self.inner.description(input, options)

    async def prompt(self, options: ToolUseOptions) -> str:
        return await self.inner.prompt(options)

    def is_read_only(self, input: BaseModel) -> bool:
        return self.inner.is_read_only(input)

    def is_read_only_in(self, input: BaseModel, context: ToolUseContext) -> bool:
        return self.inner.is_read_only_in(input, context)  # Bash's knows `cd sub && ls` stays inside

    def is_concurrency_safe(self, input: BaseModel) -> bool:
        return self.inner.is_concurrency_safe(input)

    def is_enabled(self) -> bool:
        return self.inner.is_enabled()

    def is_destructive(self, input: BaseModel) -> bool:
        return self.inner.is_destructive(input)

    def interrupt_behavior(self) -> InterruptBehavior:
        return self.inner.interrupt_behavior()

    def prepare_permission_matcher(self, input: BaseModel) -> PermissionMatcher:
        return self.inner.prepare_permission_matcher(input)

    def get_path(self, input: BaseModel) -> str | None:
        return self.inner.get_path(input)

    def user_facing_name(self, input: BaseModel | None = None) -> str:
        return self.inner.user_facing_name(input)

    def render_tool_use_message(self, input: BaseModel) -> str:
        return self.inner.render_tool_use_message(input)

    def render_tool_result_message(self, output: Any) -> str:
        return self.inner.render_tool_result_message(output)

    def backfill_observable_input(self, input: dict[str, Any]) -> dict[str, Any]:
        return self.inner.backfill_observable_input(input)

    async def change_preview(self, input: BaseModel, context: ToolUseContext) -> ChangePreview | None:
        return await self.inner.change_preview(input, context)

    @property
    def summary(self) -> str:  # type: ignore[override]
        return self.inner.summary

    def map_result_to_content(self, data: Any, tool_use_id: str):
        return self.inner.map_result_to_content(data, tool_use_id)

    def input_json_schema(self) -> dict[str, Any]:
        return self.inner.input_json_schema()

    def __getattr__(self, name: str) -> Any:
        # Tool-specific extras (helpers other code looks up on the tool) come from the inner tool.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
