"""ReadOnlyGuard: wraps a tool so that only its read-only calls may run (Explore, Plan agents)."""

from __future__ import annotations

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionDeny, PermissionResult
from .delegating import DelegatingTool

READ_ONLY_DENIAL = (
    "The {agent} agent is read-only: this {tool} call would change something, so it was refused. "
    "Use read-only tools, and put what should change in your report instead."
)


class ReadOnlyGuard(DelegatingTool):
    """The wrapped tool, but calls it cannot prove read-only are denied before anyone is asked."""

    def __init__(self, inner, agent_name: str) -> None:
        super().__init__(inner)
        self.agent_name = agent_name

    def _read_only(self, input: BaseModel) -> bool:
        try:
            return bool(self.inner.is_read_only(input))
        except Exception:
            return False  # fail closed

    async def check_permissions(self, input: BaseModel, context: ToolUseContext) -> PermissionResult:
        if not self._read_only(input):
            return PermissionDeny(READ_ONLY_DENIAL.format(agent=self.agent_name, tool=self.name))
        return await self.inner.check_permissions(input, context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if not self._read_only(input):  # never reached through the pipeline; a second lock
            raise PermissionError(READ_ONLY_DENIAL.format(agent=self.agent_name, tool=self.name))
        return await self.inner.call(input, context, can_use_tool, parent_message, on_progress)

    def is_read_only(self, input: BaseModel) -> bool:
        return self._read_only(input)
