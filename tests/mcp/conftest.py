"""Real MCP servers for the tests: the demo server over stdio and over streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from jupyter_agent.mcp import McpManager
from jupyter_agent.mcp.config import McpServerEntry, StdioServerConfig

DEMO = Path(__file__).parent / "servers" / "demo_server.py"
ELICIT_SERVER = Path(__file__).parent / "servers" / "elicit_server.py"


def demo_stdio_entry(name: str = "demo", pid_file: Path | None = None) -> McpServerEntry:
    env = {"DEMO_PID_FILE": str(pid_file)} if pid_file else {}
    return McpServerEntry(name, StdioServerConfig(command=sys.executable, args=(str(DEMO),), env=env))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def demo_http_url():
    """The demo server over streamable HTTP in a subprocess; yields its /mcp URL."""
    yield from _serve("http", "/mcp")


@pytest.fixture
def demo_sse_url():
    """The demo server over the older SSE transport; yields its /sse URL."""
    yield from _serve("sse", "/sse")


def _serve(transport: str, path: str):
    """A port found free can be taken before the server binds it; the server then exits, and it
    is started again on another port."""
    for _attempt in range(5):
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, str(DEMO), transport, str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if _wait_for(proc, port):
                yield f"http://127.0.0.1:{port}{path}"
                return
        finally:
            proc.terminate()
            proc.wait(10)
    pytest.fail("demo HTTP server did not start")


def _wait_for(proc: subprocess.Popen, port: int) -> bool:
    """True once the server answers; False when it exited first (its port was taken)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return True
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail("demo HTTP server did not start")


@pytest.fixture(params=["2026-07-28", "2025-11-25"])
async def asker(request, tmp_path, monkeypatch):
    """The server, reached the current way (the tool's answer is an InputRequiredResult the
    client fulfils and retries) and the 2025-11-25 way (the real SDK client made to connect
    with the initialize handshake: the server sends elicitation/create mid-call)."""
    if request.param == "2025-11-25":
        import functools

        from mcp import Client

        from jupyter_agent.mcp import connection

        monkeypatch.setattr(connection, "Client", functools.partial(Client, mode="legacy"))
    entry = McpServerEntry("asker", StdioServerConfig(command=sys.executable, args=(str(ELICIT_SERVER),)))
    manager = McpManager([entry], log_dir=tmp_path / "logs")
    await manager.ensure_started()
    manager.protocol = request.param
    yield manager
    await manager.aclose()
