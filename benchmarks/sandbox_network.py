"""A sandboxed download through the kernel's proxy, next to the same download unsandboxed.

A local HTTP server serves 50 MB; the command fetches it with ``urllib`` (which honours
``HTTP_PROXY``).  Sandboxed with ``network.allowedDomains = ["127.0.0.1"]`` every byte crosses
the proxy in the kernel (the forwarder inside hands the connection over; the kernel relays it).
Each round runs both through the Bash tool's call; the figure is the ratio of medians,
sandboxed / unsandboxed.  Goal: at most 2x.  Needs bubblewrap; prints why when it is missing.
"""

from __future__ import annotations

import asyncio
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.sandbox.bwrap import probe  # noqa: E402
from jupyter_agent.sandbox.settings import APP_STATE_KEY, SandboxSettings  # noqa: E402
from jupyter_agent.tools.bash import BashInput, BashTool  # noqa: E402

ROUNDS = 7
GOAL = 2.0
SIZE = 50 * 1024 * 1024
_BODY = b"x" * SIZE


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        self.wfile.write(_BODY)

    def log_message(self, *args: object) -> None:
        pass


def _context(work: Path, sandbox: SandboxSettings) -> ToolUseContext:
    ctx = ToolUseContext(options=ToolUseOptions(tools=(BashTool(),)), cwd=work, session_dir=work.parent / "session")
    ctx.set_app_state(lambda s: replace(s, extra={**s.extra, APP_STATE_KEY: sandbox}))
    return ctx


async def _fetch(tool: BashTool, ctx: ToolUseContext, url: str) -> float:
    command = f"python3 -c \"import urllib.request; assert len(urllib.request.urlopen('{url}').read()) == {SIZE}\""
    t0 = time.perf_counter()
    result = await tool.call(BashInput(command=command), ctx, None, None)
    assert result.data.exit_code == 0, result.data
    return time.perf_counter() - t0


async def main() -> None:
    available = await probe()
    if not available.ok:
        print(f"bubblewrap cannot sandbox here ({available.reason}): nothing measured")
        print(f"RESULT sandbox_network ratio=unmeasured goal=<={GOAL} fall short")
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/blob"
    root = Path(tempfile.mkdtemp(prefix="sandbox-net-"))
    (root / "work").mkdir()
    try:
        tool = BashTool()
        direct = _context(root / "work", SandboxSettings(enabled=False))
        proxied = _context(root / "work", SandboxSettings(enabled=True, allowed_domains=("127.0.0.1",)))
        await _fetch(tool, direct, url)
        await _fetch(tool, proxied, url)
        plain, through = [], []
        for _ in range(ROUNDS):
            plain.append(await _fetch(tool, direct, url))
            through.append(await _fetch(tool, proxied, url))
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    a, b = statistics.median(plain), statistics.median(through)
    ratio = b / a
    print(f"50 MB download: {a * 1e3:.0f} ms unsandboxed, {b * 1e3:.0f} ms sandboxed through the proxy "
          f"({SIZE / b / 1e6:.0f} MB/s, {ratio:.2f}x)")
    print(f"RESULT sandbox_network ratio={ratio:.2f} goal=<={GOAL} {'pass' if ratio <= GOAL else 'fall short'}")


if __name__ == "__main__":
    asyncio.run(main())
