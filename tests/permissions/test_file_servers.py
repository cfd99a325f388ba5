"""A static file server hands every file below its folder to whatever reaches its port
(``file_servers.py``): with ``Read(./.env)`` denied, ``python3 -m http.server`` then ``curl
localhost:8000/.env`` printed the secret in bypassPermissions.  Now serving a folder a Read deny
rule covers files in asks in every mode, as ``tar cf - .`` does; before, each "ask" row ran
unasked.  The ground truth: a real ``python3 -m http.server`` hands out ``/.env`` when it serves
the project, and not when it serves ``docs``."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

SERVE_ROWS = [
    "python3 -m http.server 8000", "python3 -u -m http.server", "python3 -X dev -m http.server",
    "python3 -mhttp.server -d ./", "python -m SimpleHTTPServer", "timeout 600 python3 -m http.server 8000 &",
    "nohup python3 -m http.server > /dev/null 2>&1 &", "uv run python -m http.server",
    "python3 -m http.server --directory secrets", "cd secrets && python3 -m http.server",
    'python3 -m http.server -d "$DIR"', "php -S localhost:8000", "php -S 0.0.0.0:8000 -t .",
    "ruby -run -e httpd . -p 8000", "ruby -run -ehttpd -p 8000", "busybox httpd -f -p 8080",
    "caddy file-server --listen :8080", "twistd -n web --path .", "npx http-server -p 8080",
    "npx --yes live-server --port=8080", "pnpm dlx serve .", "npx serve -s", "http-server secrets",
    # session 49: the other folder servers, and Jupyter's (/files/PATH to whoever holds the token)
    "miniserve .", "miniserve -p 8080 secrets", "dufs", "dufs --serve-path .", "darkhttpd . --port 8081",
    "simple-http-server -p 8080 .", "static-web-server -d .", "webfsd -r .", "updog", "python3 -m uploadserver 8000",
    "jupyter lab --ip 0.0.0.0 --no-browser &", "jupyter server", "jupyter notebook nb.ipynb", "jupyter-lab",
    "jupyter lab --ServerApp.root_dir=secrets",
]
CALM_ROWS = [
    "python3 -m http.server --directory docs 8000", "npx serve docs",
    "php -S localhost:8000 -t docs", "python3 -m pytest", "python3 tool.py -m http.server", "php artisan serve",
    "ruby -e 'puts 1'", "caddy run",
    "miniserve docs", "dufs docs", "darkhttpd docs", "updog -d docs", "jupyter lab docs", "jupyter lab --notebook-dir=docs",
    "jupyter lab list", "jupyter nbconvert --to html nb.ipynb", "jupyter --version",
]
_RULES = {"allow": ("Bash(*)",), "deny": ("Read(./.env)", "Read(./secrets/**)")}


def _project(world):
    (world.project / "docs").mkdir()
    (world.project / "docs" / "index.html").write_text("<h1>docs</h1>\n")
    (world.project / "secrets").mkdir()
    (world.project / "secrets" / "key.txt").write_text("KEY=1\n")
    (world.project / "tool.py").write_text("print(1)\n")


@pytest.mark.parametrize("command", SERVE_ROWS)
async def test_a_server_of_a_folder_holding_a_denied_file_asks_in_every_mode(world, command):
    _project(world)
    for mode in ("bypassPermissions", "acceptEdits"):
        verdict = await decide_bash(make_ctx(world.project, mode=mode, **_RULES), command)
        assert verdict_name(verdict) == "ask", (mode, command, getattr(verdict, "message", ""))
        assert "to whatever reaches its port" in verdict.message, verdict.message


@pytest.mark.parametrize("command", CALM_ROWS)
async def test_a_server_of_a_folder_without_denied_files_runs(world, command):
    _project(world)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == "allow", (command, getattr(verdict, "message", ""))


async def test_no_read_deny_rule_no_question(world):
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", allow=("Bash(*)",)),
                                "python3 -m http.server 8000")
    assert verdict_name(verdict) == "allow"


async def test_a_rule_allowing_the_server_does_not_skip_the_question(world):
    verdict = await decide_bash(make_ctx(world.project, allow=("Bash(python3 -m http.server:*)",),
                                         deny=("Read(./.env)",)), "python3 -m http.server 8000")
    assert verdict_name(verdict) == "ask" and "Read(./.env)" in verdict.message


def _served(folder, *args) -> dict[str, int | bytes]:
    """Start a real ``http.server`` in ``folder``; what GET /.env and GET /index.html return."""
    server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", *args],
                              cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        port = int(re.search(r"port (\d+)", line).group(1))  # "Serving HTTP on 127.0.0.1 port 41234 …"
        found: dict[str, int | bytes] = {}
        for name in (".env", "index.html"):
            for _ in range(50):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/{name}", timeout=5) as reply:
                        found[name] = reply.read()
                    break
                except urllib.error.HTTPError as exc:
                    found[name] = exc.code
                    break
                except urllib.error.URLError:
                    time.sleep(0.1)
        return found
    finally:
        server.terminate()
        server.wait(10)


def test_the_real_server_hands_out_what_is_below_its_folder(world):
    _project(world)
    assert _served(world.project)[".env"] == b"SECRET=1\n"  # the leak the question is for
    from_docs = _served(world.project, "--directory", "docs")
    assert from_docs[".env"] == 404 and from_docs["index.html"] == b"<h1>docs</h1>\n"


def test_a_real_jupyter_server_hands_out_a_denied_file(world, tmp_path):
    """Ground truth for the Jupyter rows: ``/files/secrets/key.txt`` with the token the server
    prints (hidden files such as ``.env`` it refuses by default; a folder rule still leaks)."""
    pytest.importorskip("jupyter_server")
    import socket

    _project(world)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
         "--ServerApp.token=tok", f"--ServerApp.root_dir={world.project}", "--ServerApp.port_retries=0"],
        cwd=world.project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**__import__("os").environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
             "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_DATA_DIR": str(tmp_path / "data")})
    try:
        body = None
        for _ in range(600):  # up to 60 s for the server to start on a slow machine
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/files/secrets/key.txt?token=tok",
                                            timeout=5) as reply:
                    body = reply.read()
                break
            except urllib.error.HTTPError as exc:
                body = exc.code
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        assert body == b"KEY=1\n", body
    finally:
        server.terminate()
        server.wait(20)
