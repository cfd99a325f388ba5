"""A seccomp filter that stops sandboxed commands from opening Unix domain sockets.

The sandbox's filesystem is read-only, but connecting to a socket file is not a write: a
command could reach ``/var/run/docker.sock`` (root on the host), the systemd user bus
(``systemd-run --user`` starts any program outside the sandbox), an ssh or gpg agent.  The
sandbox mounts a fresh ``/run`` over the host's, and this filter makes ``socket(AF_UNIX, …)``
fail with EPERM wherever the socket file lives (``socketpair`` still works: it reaches
nothing).  Processes of a foreign architecture (32-bit programs on x86-64, the x32 ABI) get
EPERM for every system call, since their socket calls take other numbers.

The filter is classic BPF (``struct sock_filter``), written once per process to a private
file; bwrap reads it from a file descriptor (``--seccomp 3``), which a ``sh`` trampoline opens.
"""

from __future__ import annotations

import os
import platform
import struct
import tempfile

AF_UNIX = 1
_EPERM = 1
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_X32_SYSCALL_BIT = 0x40000000
# machine → (AUDIT_ARCH_*, __NR_socket, has the x32 ABI)
_ARCHES = {
    "x86_64": (0xC000003E, 41, True),
    "amd64": (0xC000003E, 41, True),
    "aarch64": (0xC00000B7, 198, False),
    "arm64": (0xC00000B7, 198, False),
}
FD = 3
TRAMPOLINE = ("/bin/sh", "-c", 'exec 3<"$1" || exit 126; shift; exec "$@"', "sh")

_written: str | None = None


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (this one by default), or None for an architecture not known here."""
    arch = _ARCHES.get((machine or platform.machine()).lower())
    if arch is None:
        return None
    audit_arch, nr_socket, x32 = arch
    code: list[tuple[int, str, str, int]] = []  # (op, label if true, label if false, k)
    labels: dict[str, int] = {}

    def emit(op: int, k: int, true: str = "", false: str = "") -> None:
        code.append((op, true, false, k))

    def mark(label: str) -> None:
        labels[label] = len(code)

    emit(_LD_W_ABS, 4)  # seccomp_data.arch
    emit(_JEQ_K, audit_arch, "native", "deny")
    mark("native")
    emit(_LD_W_ABS, 0)  # seccomp_data.nr
    if x32:
        emit(_JGE_K, _X32_SYSCALL_BIT, "deny", "not_x32")
        mark("not_x32")
    emit(_JEQ_K, nr_socket, "socket", "allow")
    mark("socket")
    emit(_LD_W_ABS, 16)  # the low 32 bits of seccomp_data.args[0]: the address family
    emit(_JEQ_K, AF_UNIX, "deny", "allow")
    mark("allow")
    emit(_RET_K, _RET_ALLOW)
    mark("deny")
    emit(_RET_K, _RET_ERRNO | _EPERM)
    out = b""
    for index, (op, true, false, k) in enumerate(code):  # jumps count the instructions skipped
        jt = labels[true] - index - 1 if true else 0
        jf = labels[false] - index - 1 if false else 0
        out += struct.pack("=HBBI", op, jt, jf, k)
    return out


def filter_file() -> str | None:
    """The filter written to a private file (once per process), or None when there is none here."""
    global _written
    if _written is not None and os.path.isfile(_written):
        return _written
    data = program()
    if data is None:
        return None
    folder = tempfile.mkdtemp(prefix="jupyter-agent-seccomp-")
    path = os.path.join(folder, "unix-sockets.bpf")
    with open(path, "wb") as out:
        out.write(data)
    os.chmod(path, 0o400)
    _written = path
    return path
