from __future__ import annotations

import asyncio
import os

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasks.registry import get_task_registry
from jupyter_agent.tasks.shell import start_shell_task
from jupyter_agent.tools.monitor import MonitorTool
from tests.support.tools import make_context


async def _start(ctx, tmp_path, command):
    return await start_shell_task(
        get_task_registry(ctx), command, description="test task", cwd=tmp_path,
        env=dict(os.environ), directory=tmp_path / "tasks",
    )


async def _monitor(ctx, reject, **payload):
    return await run_tool_use(ToolUseRequest("m", "Monitor", payload), ctx, reject)


async def test_status_shows_kernel_tasks_and_live_processes(tmp_path, reject):
    ctx = make_context([MonitorTool()], tmp_path)
    (tmp_path / "tasks").mkdir()
    task = await _start(ctx, tmp_path, "sleep 30")
    try:
        for _ in range(200):  # the task's shell starts `sleep` a moment after the task starts
            out = await _monitor(ctx, reject)
            if "(sleep)" in out.text:
                break
            await asyncio.sleep(0.05)
        assert not out.is_error and reject.asks == []
        assert f"kernel pid {os.getpid()}" in out.text and "MB RSS" in out.text
        assert "Background tasks: 1" in out.text and f"{task.id} [local_bash] running" in out.text
        assert "(sleep)" in out.text  # the task's own process, found through psutil
        assert "MCP servers: 0" in out.text
    finally:
        await task.stop()
    out = await _monitor(ctx, reject)
    assert f"{task.id} [local_bash] killed" in out.text and "(sleep)" not in out.text


async def test_watch_returns_the_matching_line_once_it_appears(tmp_path, reject):
    ctx = make_context([MonitorTool()], tmp_path)
    (tmp_path / "tasks").mkdir()
    go = tmp_path / "go"
    task = await _start(ctx, tmp_path, f"echo booting; while [ ! -e {go} ]; do sleep 0.05; done; echo 'Listening on port 8123'; sleep 30")
    try:
        watcher = asyncio.ensure_future(_monitor(ctx, reject, action="watch", task_id=task.id, pattern=r"port \d+", timeout=120))
        await asyncio.sleep(0.3)
        assert not watcher.done()  # nothing matched yet: still waiting, the loop is free
        go.touch()
        out = await asyncio.wait_for(watcher, 60)
        assert not out.is_error
        assert out.text.endswith("Listening on port 8123") and "after 2 line(s)" in out.text
    finally:
        await task.stop()


async def test_watch_reports_end_and_timeout(tmp_path, reject):
    ctx = make_context([MonitorTool()], tmp_path)
    (tmp_path / "tasks").mkdir()
    ended = await _start(ctx, tmp_path, "echo a; echo b; exit 4")
    await ended.wait(30)
    out = await _monitor(ctx, reject, action="watch", task_id=ended.id, pattern="never", timeout=5)
    assert "ended (failed) without a line matching 'never' (2 lines)" in out.text
    slow = await _start(ctx, tmp_path, "echo x; sleep 30")
    try:
        out = await _monitor(ctx, reject, action="watch", task_id=slow.id, pattern="never", timeout=0.5)
        assert out.text.startswith("Timed out after 0.5s")
    finally:
        await slow.stop()


async def test_watch_input_errors(tmp_path, reject):
    ctx = make_context([MonitorTool()], tmp_path)
    out = await _monitor(ctx, reject, action="watch", task_id="bash_00", pattern="(")
    assert out.is_error and "Invalid regular expression" in out.text
    out = await _monitor(ctx, reject, action="watch", pattern="x")
    assert out.is_error and "needs task_id and pattern" in out.text
    out = await _monitor(ctx, reject, action="watch", task_id="bash_00", pattern="x")
    assert out.is_error and "No task found with ID: bash_00" in out.text


async def test_status_lists_a_real_mcp_server(tmp_path, reject):
    import shutil
    import sys
    from pathlib import Path

    import pytest

    from jupyter_agent.mcp import McpManager

    server = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")
    if not Path(server).exists():
        pytest.skip("mcp-server-time is not installed (test extra)")
    manager = McpManager()
    manager.add_servers({"time": {"command": server, "args": ["--local-timezone", "UTC"]}})
    try:
        await manager.ensure_started()
        ctx = make_context([MonitorTool()], tmp_path, mcp_clients=tuple(manager.connections.values()))
        out = await _monitor(ctx, reject)
        assert "MCP servers: 1" in out.text and "  time: connected (2 tools)" in out.text
    finally:
        await manager.aclose()
