"""McpConnection and McpManager against the real demo server (stdio and HTTP) and a crash."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from jupyter_agent.mcp.config import HttpServerConfig, McpServerEntry, StdioServerConfig
from jupyter_agent.mcp.connection import McpCallError
from jupyter_agent.mcp.manager import McpManager

from .conftest import DEMO, demo_stdio_entry


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def test_stdio_server_lists_tools_and_calls(tmp_path):
    pid_file = tmp_path / "pid"
    manager = McpManager([demo_stdio_entry(pid_file=pid_file)], log_dir=tmp_path / "logs")
    try:
        await manager.ensure_started()
        conn = manager.connections["demo"]
        assert conn.status == "connected", conn.error
        names = {t.name for t in conn.tools}
        assert {"add", "write_note", "pixel", "crash"} <= names
        result = await conn.call_tool("add", {"a": 2, "b": 40})
        assert result.content[0].text == "42"
        assert manager.instructions() == {"demo": "Demo server: use add for sums."}
        pid = int(pid_file.read_text())
        assert _alive(pid)
    finally:
        await manager.aclose()
    assert not _alive(pid), "the stdio server must be stopped when the manager closes"
    assert manager.connections["demo"].status == "closed"


async def test_http_server(demo_http_url, tmp_path):
    entry = McpServerEntry("web", HttpServerConfig(url=demo_http_url))
    manager = McpManager([entry])
    try:
        await manager.ensure_started()
        conn = manager.connections["web"]
        assert conn.status == "connected", conn.error
        result = await conn.call_tool("add", {"a": 1, "b": 1})
        assert result.content[0].text == "2"
        resources = await conn.list_resources()
        assert {str(r.uri) for r in resources} >= {"note://hello"}
    finally:
        await manager.aclose()


async def test_sse_server(demo_sse_url):
    manager = McpManager([McpServerEntry("old", HttpServerConfig(url=demo_sse_url, type="sse"))])
    try:
        await manager.ensure_started()
        conn = manager.connections["old"]
        assert conn.status == "connected", conn.error
        assert (await conn.call_tool("add", {"a": 5, "b": 6})).content[0].text == "11"
    finally:
        await manager.aclose()


async def test_failures_stay_per_server(tmp_path):
    bad_cmd = McpServerEntry("broken", StdioServerConfig(command=str(tmp_path / "no-such-binary")))
    exits = McpServerEntry("quits", StdioServerConfig(command=sys.executable, args=("-c", "pass")))
    manager = McpManager([bad_cmd, exits, demo_stdio_entry()], connect_timeout=20)
    try:
        await manager.ensure_started()
        status = {s.name: s for s in manager.status()}
        assert status["demo"].status == "connected"
        assert status["broken"].status == "failed" and status["broken"].error
        assert status["quits"].status == "failed"
        assert [t.name for t in manager.tools() if t.server_name != "demo"] == []
        with pytest.raises(McpCallError, match='"broken" is not connected'):
            await manager.connections["broken"].call_tool("x", {})
    finally:
        await manager.aclose()


async def test_server_crashing_mid_call(tmp_path):
    pid_file = tmp_path / "pid"
    manager = McpManager([demo_stdio_entry(pid_file=pid_file)])
    try:
        await manager.ensure_started()
        conn = manager.connections["demo"]
        with pytest.raises(McpCallError, match="demo"):
            await conn.call_tool("crash", {}, timeout=20)
        assert conn.status == "failed"
        with pytest.raises(McpCallError, match="not connected"):
            await conn.call_tool("add", {"a": 1, "b": 2})
    finally:
        await manager.aclose()
    assert not _alive(int(pid_file.read_text()))


async def test_servers_start_in_parallel(tmp_path):
    """Each server waits for the other to have started: only a parallel start connects both."""
    script = Path(__file__).parent / "servers" / "rendezvous.py"
    a, b = tmp_path / "a", tmp_path / "b"
    manager = McpManager(connect_timeout=60)
    manager.add_servers({
        "one": {"command": sys.executable, "args": [str(script), str(a), str(b)]},
        "two": {"command": sys.executable, "args": [str(script), str(b), str(a)]},
    })
    try:
        await manager.ensure_started()
        assert [s.status for s in manager.status()] == ["connected", "connected"]
    finally:
        await manager.aclose()


async def test_ensure_started_is_lazy_and_idempotent(tmp_path):
    pid_file = tmp_path / "pid"
    manager = McpManager([demo_stdio_entry(pid_file=pid_file)])
    try:
        assert manager.connections["demo"].status == "pending"
        assert not pid_file.exists(), "nothing starts before ensure_started"
        await manager.ensure_started()
        first = pid_file.read_text()
        await manager.ensure_started()
        assert pid_file.read_text() == first
    finally:
        await manager.aclose()


async def test_a_stdio_server_starts_with_the_sessions_settings_env(tmp_path, monkeypatch):
    """The settings files' ``env`` reaches the servers the session starts (read when each one
    starts), and ``${VAR}`` in a server's configuration sees it too."""
    from jupyter_agent.agent.config import SessionConfig
    from jupyter_agent.agent.toolpool import make_mcp_manager

    monkeypatch.delenv("DEMO_PID_FILE", raising=False)
    pid_file = tmp_path / "pid"
    settings_env = {"JA_DEMO_ARG": str(DEMO)}
    config = SessionConfig(
        cwd=tmp_path, home=tmp_path / "home", load_mcp=False,
        mcp_servers={"demo": {"command": sys.executable, "args": ["${JA_DEMO_ARG}"]}},
    )
    manager = make_mcp_manager(config, tmp_path / "session", lambda: settings_env)
    assert manager.connections["demo"].entry.config.args == (str(DEMO),)
    settings_env["DEMO_PID_FILE"] = str(pid_file)  # set after the manager was made: read at start
    try:
        await manager.ensure_started()
        assert manager.connections["demo"].status == "connected", manager.connections["demo"].error
        assert _alive(int(pid_file.read_text()))
    finally:
        await manager.aclose()
