"""A sandboxed download through the kernel's proxy, next to the same download unsandboxed.

A local HTTP server serves 50 MB; the command fetches it with ``urllib`` (which honours
``HTTP_PROXY``).  Sandboxed with ``network.allowedDomains = ["127.0.0.1"]`` every byte crosses
the proxy in the kernel (the forwarder inside hands the connection over; the kernel relays it).
Each round runs both through the Bash tool's call; the figure is the ratio of medians,
sandboxed / unsandboxed.  Goal: at most 2x.  Printed beside it, for reference: what the network
adds to every sandboxed command (the forwarder's start), ``true`` sandboxed with and without it.
Needs bubblewrap; prints why when it is missing.
"""

from __future__ import annotations

import asyncio
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _sandbox_common import sandbox_available, sandbox_context, timed_call  # noqa: E402

from jupyter_agent.sandbox.settings import SandboxSettings  # noqa: E402
from jupyter_agent.tools.bash import BashTool  # noqa: E402

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


def _command(url: str) -> str:
    return f"python3 -c \"import urllib.request; assert len(urllib.request.urlopen('{url}').read()) == {SIZE}\""


async def main() -> None:
    if not await sandbox_available((("sandbox_network", GOAL),)):
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/blob"
    root = Path(tempfile.mkdtemp(prefix="sandbox-net-"))
    (root / "work").mkdir()
    try:
        tool = BashTool()
        direct = sandbox_context(root / "work", SandboxSettings(enabled=False))
        proxied = sandbox_context(root / "work", SandboxSettings(enabled=True, allowed_domains=("127.0.0.1",)))
        command = _command(url)
        await timed_call(tool, direct, command)
        await timed_call(tool, proxied, command)
        offline = sandbox_context(root / "work", SandboxSettings(enabled=True))  # nobody to ask: no proxy
        plain, through, bare, started = [], [], [], []
        for _ in range(ROUNDS):
            plain.append(await timed_call(tool, direct, command))
            through.append(await timed_call(tool, proxied, command))
            for _ in range(3):
                bare.append(await timed_call(tool, offline, "true"))
                started.append(await timed_call(tool, proxied, "true"))
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    a, b = statistics.median(plain), statistics.median(through)
    ratio = b / a
    print(f"50 MB download: {a * 1e3:.0f} ms unsandboxed, {b * 1e3:.0f} ms sandboxed through the proxy "
          f"({SIZE / b / 1e6:.0f} MB/s, {ratio:.2f}x)")
    c, d = statistics.median(bare), statistics.median(started)
    print(f"reference: `true` sandboxed {c * 1e3:.1f} ms without the network, {d * 1e3:.1f} ms with it "
          f"(the forwarder's start: {(d - c) * 1e3:.1f} ms)")
    print(f"RESULT sandbox_network ratio={ratio:.2f} goal=<={GOAL} {'pass' if ratio <= GOAL else 'fall short'}")


if __name__ == "__main__":
    asyncio.run(main())
