"""When the process holding the session dies without closing it (a killed kernel), stdio servers exit."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from .conftest import DEMO

HOLDER = textwrap.dedent("""
    import asyncio, os, sys
    sys.path.insert(0, {root!r})
    from jupyter_agent.mcp import McpManager
    async def main():
        m = McpManager()
        m.add_servers({{"demo": {{"command": sys.executable, "args": [{demo!r}],
                                  "env": {{"DEMO_PID_FILE": {pid!r}}}}}}})
        await m.ensure_started()
        assert m.connections["demo"].status == "connected", m.connections["demo"].error
        print("ready", flush=True)
        os._exit(0)  # no aclose: the way a killed kernel goes
    asyncio.run(main())
""")


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] == "Z"
    except FileNotFoundError:
        return True


async def test_stdio_server_exits_with_its_parent(tmp_path):
    pid_file = tmp_path / "pid"
    root = str(Path(__file__).resolve().parents[2])
    script = HOLDER.format(root=root, demo=str(DEMO), pid=str(pid_file))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "ready" in done.stdout, done.stderr
    pid = int(pid_file.read_text())
    for _ in range(300):  # bounded wait for the EOF on stdin to reach the server
        if _gone(pid):
            break
        await asyncio.sleep(0.05)
    else:
        os.kill(pid, 9)
        raise AssertionError("the stdio MCP server outlived its parent")
