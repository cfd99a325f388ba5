"""Unix domain sockets from inside the sandbox, for real: a read-only mount does not stop a
``connect()``, and a socket can be root on the host (``/var/run/docker.sock``) or start programs
outside the sandbox (the systemd user bus).  The sandbox has its own empty ``/run`` and a seccomp
filter makes ``socket(AF_UNIX)`` fail, unless ``network.allowAllUnixSockets`` says otherwise."""

from __future__ import annotations

import json
import socket
import struct
import threading

import pytest

from jupyter_agent.sandbox import policy, seccomp
from jupyter_agent.sandbox.settings import load_sandbox_settings
from tests.tasks.shell_support import bash

from .conftest import sandboxed_context

PROBE = """import os, socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b"hello from the sandbox")
    print("connected")
except OSError as exc:
    print("refused:", exc)
a, b = socket.socketpair()
socket.socket(socket.AF_INET).close()
print("socketpair and inet sockets work; /run holds", len(os.listdir("/run")), "entries")
"""


@pytest.fixture
def listener(outside):
    path = str(outside / "service.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    server.settimeout(10)
    got: list[bytes] = []

    def serve():
        try:
            conn, _ = server.accept()
            got.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path, got
    server.close()
    thread.join(1)


async def test_a_sandboxed_command_cannot_reach_a_unix_socket(tmp_path, approve, bwrap_ok, listener):
    path, got = listener
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "probe.py").write_text(PROBE)
    out = await bash(ctx, approve, f"python3 probe.py {path}")
    assert "refused: [Errno 1] Operation not permitted" in out.text and got == [], out.text
    assert "socketpair and inet sockets work; /run holds 0 entries" in out.text
    assert approve.asks == []


async def test_allow_all_unix_sockets_lets_it_through(tmp_path, approve, bwrap_ok, listener):
    path, got = listener
    ctx = sandboxed_context(tmp_path, allow_unix_sockets=True)
    (tmp_path / "work" / "probe.py").write_text(PROBE)
    out = await bash(ctx, approve, f"python3 probe.py {path}")
    assert "connected" in out.text and got == [b"hello from the sandbox"], out.text


async def test_without_a_filter_for_this_machine_commands_ask(tmp_path, approve, bwrap_ok, monkeypatch):
    monkeypatch.setattr(policy, "filter_file", lambda: None)
    ctx = sandboxed_context(tmp_path)
    await bash(ctx, approve, "python3 -c pass")
    assert len(approve.asks) == 1 and "Unix sockets cannot be blocked" in approve.asks[0][1].message


def test_the_filter_program_for_each_known_machine():
    for machine, count in (("x86_64", 9), ("aarch64", 8)):  # aarch64 has no x32 check
        data = seccomp.program(machine)
        assert data is not None and len(data) == 8 * count
        ops = [struct.unpack("=HBBI", data[i:i + 8]) for i in range(0, len(data), 8)]
        assert ops[-2] == (0x06, 0, 0, 0x7FFF0000) and ops[-1] == (0x06, 0, 0, 0x00050001)  # allow, EPERM
    assert seccomp.program("riscv64") is None


def test_settings_key_and_an_untrusted_project_cannot_set_it(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"network": {"allowAllUnixSockets": True}}}))
    assert load_sandbox_settings(project, home, trusted=True).allow_unix_sockets
    assert not load_sandbox_settings(project, home, trusted=False).allow_unix_sockets
