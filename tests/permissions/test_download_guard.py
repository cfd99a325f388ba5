"""Downloads write files their URLs name: ``wget http://h/.mcp.json`` creates ``.mcp.json``.

The real-run test serves ``.mcp.json`` from a local HTTP server and shows real wget and
``curl -O`` create it; the rows show such lines now ask in bypassPermissions and under an allow
rule, while ordinary downloads still run.
"""

from __future__ import annotations

import http.server
import shutil
import subprocess
import threading

import pytest

from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.download_guard import downloaded_paths
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

_ARIA_PLAIN = "--follow-torrent=false --follow-metalink=false"
ROWS = [
    ("wget https://example.com/.mcp.json", "ask"),
    ("wget -q -P sub https://example.com/a/.mcp.json", "ask"),  # sub/.mcp.json
    ("wget https://example.com/%2Emcp.json", "ask"),  # percent-encoded
    ("curl -O https://example.com/.mcp.json", "ask"),
    ("curl -sSLO https://example.com/x/.mcp.json", "ask"),
    ("curl --remote-name-all https://example.com/a https://example.com/.mcp.json", "ask"),
    ("curl --output-dir .git/hooks -O https://example.com/pre-commit", "ask"),
    ("wget https://example.com/../../outside/x", "allow"),  # the URL path's last segment is x
    ("curl -OJ https://example.com/a", "ask"),  # the server names the file
    ("wget --content-disposition https://example.com/a", "ask"),
    ("wget -r https://example.com/", "ask"),
    ("wget -i urls.txt", "ask"),
    ("curl -O 'https://example.com/f[1-3].txt'", "ask"),  # a URL glob
    ("curl -K cfg https://example.com/a", "ask"),
    ("wget https://example.com/locked/f.txt -P locked", "deny"),
    ("wget https://example.com/data.csv", "allow"),
    ("wget -O data.csv https://example.com/.mcp.json", "allow"),  # -O names the file
    ("curl -O https://example.com/data.csv", "allow"),
    ("curl https://example.com/.mcp.json", "allow"),  # to standard output
    ("wget $URL", "ask"),
    ("wget 'a[$(ls)]'", "ask"),  # urlsplit raised on this (found by test_guard_fuzz)
    # aria2c: the server's Content-Disposition, torrents and metalinks name what it writes
    ("aria2c https://example.com/data.csv", "ask"),
    ("aria2c -o data.csv https://example.com/data.csv", "ask"),  # it would follow a torrent
    ("aria2c -i urls.txt", "ask"),
    ("aria2c --conf-path=a.conf -o a --follow-torrent=false --follow-metalink=false https://example.com/a", "ask"),
    (f"aria2c -d sub -o .mcp.json {_ARIA_PLAIN} https://example.com/a", "ask"),
    (f"aria2c --dir=locked --out=f.txt {_ARIA_PLAIN} https://example.com/a", "deny"),
    (f"aria2c -o data.csv {_ARIA_PLAIN} https://example.com/.mcp.json", "allow"),
    (f"aria2c -x4 -s4 -o data.csv {_ARIA_PLAIN} https://example.com/a", "allow"),
    (f"aria2c -o $NAME {_ARIA_PLAIN} https://example.com/a", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_download_names_are_checked(world, command, expected):
    deny = ("Edit(./locked/**)",) if "locked" in command else ()
    for mode, allow in (("default", ("Bash(wget:*)", "Bash(curl:*)", "Bash(aria2c:*)")), ("bypassPermissions", ())):
        ctx = make_ctx(world.project, allow=allow, deny=deny, mode=mode)
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == expected, (mode, verdict)


def test_downloaded_paths():
    def paths(line):
        return downloaded_paths([Word(w) for w in line.split()])

    assert paths("wget https://h/a/b.csv?x=1") == (None, ["b.csv?x=1"])
    assert paths("wget https://h/") == (None, ["index.html"])
    assert paths("wget -Pout https://h/%2Ex") == (None, ["out/%2Ex", "out/.x"])
    assert paths("curl -o f https://h/a") == (None, [])
    assert paths("curl -LO --output-dir d https://h/z.txt") == (None, ["d/z.txt"])


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / ".mcp.json").write_text('{"mcpServers": {}}')

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("program", ["wget", "curl"])
async def test_real_downloads_create_the_file_the_url_names(world, tmp_path, served, program):
    """Ground truth: the real program creates .mcp.json from the URL alone; then: it asks."""
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    command = f"wget -q {served}/.mcp.json" if program == "wget" else f"curl -sO {served}/.mcp.json"
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(command, shell=True, cwd=work, check=True, capture_output=True, timeout=60)
    assert (work / ".mcp.json").read_text() == '{"mcpServers": {}}'
    ctx = make_ctx(world.project, allow=(f"Bash({program}:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == "ask"
