"""The network of a sandboxed command: only the domains ``sandbox.network.allowedDomains`` names.

The sandbox has a network namespace of its own with nothing but loopback, and no Unix sockets
(``seccomp.py``).  To let ``pip install`` reach ``pypi.org`` and nothing else:

* before bwrap starts, the kernel makes a socket pair; one end stays with the kernel (a
  ``ProxyLink``), the other is inherited into the sandbox (a socket that already exists is not
  what the filter refuses);
* inside, ``FORWARDER`` listens on ``127.0.0.1:3128``, starts the command as its child (so the
  port is open before the command runs, and its exit status is the command's), and hands every
  connection it accepts to the kernel as a file descriptor over the pair (``SCM_RIGHTS``);
* the kernel reads the request on that connection: ``CONNECT host:port`` (HTTPS) or a plain
  ``GET http://host/…``, and asks the command's ``NetworkGate`` (``network.py``: the settings,
  the rules, or the user).  An allowed host is connected and the bytes relayed both ways; a
  refused one gets ``403`` with the reason.

``HTTP_PROXY`` / ``HTTPS_PROXY`` (and the lower-case forms) point programs at the forwarder;
one that ignores them finds no network, as before.  The link closes itself when the sandbox's
end is gone (every process inside has exited).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Protocol
from urllib.parse import urlsplit

from ..permissions.rules import ascii_host
from .network import StaticGate, is_local


class Gate(Protocol):
    """Which hosts a command may reach (``network.NetworkGate``)."""

    async def check(self, host: str, port: int) -> str | None: ...  # None: connect; else why not

    def named(self, host: str, port: int) -> bool: ...  # may it lead to a local address?


PORT = 3128
PROXY_URL = f"http://127.0.0.1:{PORT}"
PROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")
_HEAD_LIMIT = 64 * 1024
_CONNECT_TIMEOUT = 30.0

# run inside the sandbox: argv = [python, -I, -S, -c, FORWARDER, link fd, command...].  Only
# built-in modules (_socket, select, os): starting it costs about half of what importing socket
# and threading did.  It ends when the command does (waited on through a pidfd, or polled).
FORWARDER = f"PORT = {PORT}\n" + r"""
import _socket, os, select, sys
link = _socket.socket(fileno=int(sys.argv[1]))
server = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
server.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", PORT))
server.listen(64)
pid = os.fork()
if pid == 0:
    server.close(); link.close()
    os.execvp(sys.argv[2], sys.argv[2:])
try:
    child, tick = [os.pidfd_open(pid)], None
except (AttributeError, OSError):  # before Linux 5.3: look every 0.2 s
    child, tick = [], 0.2
status = None
while status is None:
    ready = select.select([server.fileno(), *child], [], [], tick)[0]
    if child and child[0] in ready:
        status = os.waitpid(pid, 0)[1]
    elif not child:
        done, polled = os.waitpid(pid, os.WNOHANG)
        status = polled if done else None
    if server.fileno() in ready and status is None:
        try:
            conn = server._accept()[0]
        except OSError:
            continue
        try:
            link.sendmsg([b"c"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, conn.to_bytes(4, sys.byteorder))])
        except OSError:
            pass
        os.close(conn)
code = os.waitstatus_to_exitcode(status)
os._exit(128 - code if code < 0 else code)  # killed by a signal: 128 + its number, as bash says
"""


def kernel_python_folders() -> tuple[str, ...]:
    """The kernel's Python: its environment and the installation under it (real paths).  Kept
    readable when ``denyRead`` hides the folder they are in (``~/.pyenv``, ``~/venvs/ds``): the
    network forwarder runs on it, and a sandboxed ``python`` finds the kernel's packages."""
    return tuple(dict.fromkeys(os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)))


def forwarder_python() -> str | None:
    """A Python the sandbox can run (the kernel's own interpreter, not a path under /tmp)."""
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        if os.path.isfile(candidate) and not candidate.startswith("/tmp/"):
            return candidate
    return None


class ProxyLink:
    """The kernel's end of one sandboxed command's network: hands accepted connections to ``serve``."""

    def __init__(self, gate: Gate | Sequence[str], on_close: Callable[[], None] | None = None) -> None:
        self.gate: Gate = StaticGate(gate) if isinstance(gate, Sequence) else gate
        self._on_close = on_close
        self._mine, self.theirs = socket.socketpair()
        self.theirs.set_inheritable(True)
        self._mine.setblocking(False)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def started(self) -> None:
        """Call once the sandbox holds its end: the kernel's copy closes and reading begins."""
        self.theirs.close()
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._mine.fileno(), self._readable)

    def close(self) -> None:
        """Stop serving; a connection still waiting for the user's answer is withdrawn."""
        for task in list(self._tasks):
            task.cancel()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()
        if self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._mine.fileno())
        self.theirs.close()
        self._mine.close()

    def _readable(self) -> None:
        try:
            data, fds, _flags, _addr = socket.recv_fds(self._mine, 64, 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data, fds = b"", []
        for fd in fds:
            task = asyncio.ensure_future(serve(fd, self.gate))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if not data and not fds:  # every process inside has exited
            self.close()


async def serve(fd: int, gate: Gate) -> None:
    """One connection from inside: relay it to an allowed host, or refuse it."""
    try:
        client = socket.socket(fileno=fd)  # anything but a stream socket is refused here
        if client.type != socket.SOCK_STREAM:
            client.close()
            return
    except OSError:
        os.close(fd)
        return
    client.setblocking(False)
    reader, writer = await asyncio.open_connection(sock=client, limit=_HEAD_LIMIT)
    try:
        await _serve(reader, writer, gate)
    except (asyncio.LimitOverrunError, ValueError):  # not a request line, a bad port, a huge head
        with contextlib.suppress(OSError):
            await _refuse(writer, 400, "not a proxy request (CONNECT host:port, or an http:// URL)")
    except (OSError, asyncio.IncompleteReadError):  # the program went away
        pass
    finally:
        writer.close()


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gate: Gate) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    line, _, rest = head.partition(b"\r\n")
    method, target, version = line.decode("latin-1").split(" ", 2)
    if method.upper() == "CONNECT":
        host, port = _host_port(target, 443)
        forward = b""
    else:
        url = urlsplit(target)
        if url.scheme != "http" or not url.hostname:
            return await _refuse(writer, 400, f"send requests through the proxy as CONNECT or http:// URLs, not {target!r}")
        host, port = url.hostname, url.port or 80
        path = url.path or "/"
        skip = (b"proxy-", b"connection:", b"host:")  # the Host header is the one checked, not the program's
        headers = [h for h in rest.split(b"\r\n") if h and not h.lower().startswith(skip)]
        name = ascii_host(host)
        name = f"[{name}]" if ":" in name else name  # an IPv6 address
        authority = name if port == 80 else f"{name}:{port}"
        forward = b"\r\n".join([f"{method} {path}{'?' + url.query if url.query else ''} {version}".encode("latin-1"),
                                f"Host: {authority}".encode("latin-1", "replace"), *headers, b"Connection: close",
                                b"", b""])
    refused = await gate.check(host, port)  # before any DNS query: a refused name is not looked up
    if refused is not None:
        return await _refuse(writer, 403, refused)
    try:
        addresses = await _resolve(host, port)
    except OSError as exc:
        return await _refuse(writer, 502, f"could not resolve {host}: {exc}")
    local = next((a for a in addresses if is_local(a)), None)
    if local is not None and not is_local(host) and not gate.named(host, port):
        return await _refuse(writer, 403, f"{host} leads to {local}, an address of this machine or its network; "
                             "name it in sandbox.network.allowedDomains to reach it")
    try:
        up_reader, up_writer = await asyncio.wait_for(_connect(addresses, port), _CONNECT_TIMEOUT)
    except (OSError, asyncio.TimeoutError) as exc:
        return await _refuse(writer, 502, f"could not reach {host}:{port}: {exc}")
    if forward:
        up_writer.write(forward)
    else:
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    try:
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
    finally:
        up_writer.close()


async def _resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` has (looked up once: the connection goes to what was checked)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def _connect(addresses: list[str], port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The first of ``addresses`` that answers."""
    error: OSError = OSError(f"no address for port {port}")
    for address in addresses:
        try:
            return await asyncio.open_connection(address, port)
        except OSError as exc:
            error = exc
    raise error


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass


async def _refuse(writer: asyncio.StreamWriter, status: int, why: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = f"jupyter-agent sandbox: {why}\n".encode()
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                 "Connection: close\r\n\r\n".encode() + body)
    with contextlib.suppress(OSError):
        await writer.drain()


def _host_port(target: str, default: int) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` of a CONNECT line."""
    if target.startswith("["):
        host, _, port = target[1:].partition("]")
        return host, int(port.lstrip(":") or default)
    host, sep, port = target.rpartition(":")
    return (host, int(port)) if sep else (target, default)
