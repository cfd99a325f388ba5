"""Fixtures for the file-tool tests: a context rooted in tmp_path and a runner through the real pipeline."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow


@pytest.fixture
def ctx(tmp_path) -> ToolUseContext:
    from jupyter_agent.tools.edit import EditTool
    from jupyter_agent.tools.glob import GlobTool
    from jupyter_agent.tools.grep import GrepTool
    from jupyter_agent.tools.read import ReadTool
    from jupyter_agent.tools.write import WriteTool

    tools = (ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool())
    return ToolUseContext(options=ToolUseOptions(tools=tools), cwd=tmp_path, session_dir=tmp_path / ".session")


async def _allow(*_args: Any) -> PermissionAllow:
    return PermissionAllow()


class Runner:
    """Runs one tool call through ``run_tool_use`` (schema, validation, permissions, call)."""

    def __init__(self, context: ToolUseContext) -> None:
        self.context = context
        self._n = 0

    async def __call__(self, name: str, **input: Any):
        self._n += 1
        return await run_tool_use(ToolUseRequest(f"t{self._n}", name, input), self.context, _allow)

    async def text(self, name: str, **input: Any) -> str:
        outcome = await self(name, **input)
        return "\n".join(b["text"] for b in outcome.content if b.get("type") == "text")

    async def ok(self, name: str, **input: Any) -> str:
        outcome = await self(name, **input)
        text = "\n".join(b["text"] for b in outcome.content if b.get("type") == "text")
        assert not outcome.is_error, text
        return text

    async def error(self, name: str, **input: Any) -> str:
        outcome = await self(name, **input)
        text = "\n".join(b["text"] for b in outcome.content if b.get("type") == "text")
        assert outcome.is_error, text
        return text


@pytest.fixture
def run(ctx) -> Runner:
    return Runner(ctx)
