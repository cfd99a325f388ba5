"""A published MCP server someone else wrote: mcp-server-time from PyPI (test extra), over stdio."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.mcp import McpManager, assemble_tool_pool
from jupyter_agent.mcp.pool import DeferPolicy
from tests.support.tools import make_context

TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")


async def test_mcp_server_time(tmp_path, approve):
    if not Path(TIME_SERVER).exists():
        pytest.fail("mcp-server-time is not installed: pip install -e '.[test]'")
    manager = McpManager()
    manager.add_servers({"time": {"command": TIME_SERVER, "args": ["--local-timezone", "UTC"]}})
    try:
        pool = await assemble_tool_pool([], manager, ToolPermissionContext(), DeferPolicy("never"))
        names = {t.name for t in pool}
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= names
        tool = next(t for t in pool if t.name == "mcp__time__get_current_time")
        assert tool.is_read_only(None) and not tool.is_destructive(None)
        ctx = make_context(pool, tmp_path)
        out = await run_tool_use(
            ToolUseRequest("t", "mcp__time__convert_time",
                           {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
            ctx, approve,
        )
        assert not out.is_error, out.text
        assert "21:00" in out.text and "Asia/Tokyo" in out.text
        assert approve.asks == []  # the server marks its tools read-only
    finally:
        await manager.aclose()
