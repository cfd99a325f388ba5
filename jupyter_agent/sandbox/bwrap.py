"""bubblewrap: is it usable here, and the command line that confines one shell command.

Inside the sandbox the whole filesystem is read-only (``--ro-bind / /``) except the working
directories, the folder where the shell records its final directory, and a private ``/tmp``
(a fresh tmpfs, gone when the command ends).  Protected paths at the top of writable directories
(``.git/hooks``, ``.git/config``, ``.claude``, ``.ssh``, ``.bashrc`` …) are bound read-only again.  All namespaces are
unshared: no network, its own PID namespace (when the command ends, everything it started is
killed by the kernel), and ``--die-with-parent`` ties it to the shell that started it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..permissions.paths import PROTECTED_DIRS, PROTECTED_FILES

# git's programs and settings (the rest of .git stays writable: commits work), and every other
# protected folder and file of the permission system (``.claude``, ``.ssh``, ``.bashrc`` …)
PROTECTED_NAMES = (".git/hooks", ".git/config", *sorted(PROTECTED_DIRS - {".git"}), *sorted(PROTECTED_FILES))
_BASE_ARGS = ("--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")


@dataclass(frozen=True)
class Availability:
    """Whether bwrap can build a sandbox on this machine, and why not."""

    ok: bool
    path: str | None
    reason: str = ""


_cache: dict[str | None, Availability] = {}


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


async def probe(bwrap: str | None = None) -> Availability:
    """Run a trivial sandboxed ``true`` once per bwrap path (cached); say why it failed."""
    path = bwrap if bwrap is not None else find_bwrap()
    if path in _cache:
        return _cache[path]
    if path is None:
        result = Availability(False, None, "bubblewrap (bwrap) is not installed; install the 'bubblewrap' package")
    else:
        result = await _try(path)
    _cache[path] = result
    return result


async def _try(path: str) -> Availability:
    try:
        proc = await asyncio.create_subprocess_exec(
            path, *_BASE_ARGS, "--", "true",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
    except (OSError, asyncio.TimeoutError) as exc:
        return Availability(False, path, f"{path} could not be run: {exc}")
    if proc.returncode != 0:
        text = out.decode(errors="replace").strip() or f"exit code {proc.returncode}"
        return Availability(False, path, f"{path} cannot create namespaces here: {text}")
    return Availability(True, path)


def protected_paths(directories: Iterable[Path]) -> list[Path]:
    """Existing protected paths inside the writable ``directories``."""
    found = []
    for directory in directories:
        for name in PROTECTED_NAMES:
            candidate = directory / name
            if os.path.lexists(candidate) and not candidate.is_symlink():
                found.append(candidate)
    return found


def bwrap_args(bwrap: str, *, writable: Iterable[Path], cwd: Path) -> list[str]:
    """The argv prefix that runs a program confined (append the program and its arguments)."""
    real = _unique(Path(os.path.realpath(d)) for d in writable if os.path.isdir(d))
    args = [bwrap, *_BASE_ARGS, "--tmpfs", "/tmp"]
    for directory in real:
        args += ["--bind", str(directory), str(directory)]
    for path in protected_paths(real):
        args += ["--ro-bind", str(path), str(path)]
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", str(cwd), "--"]
    return args


def _unique(paths: Iterable[Path]) -> list[Path]:
    """Distinct paths, parents before children (so a child's bind is not hidden by its parent's)."""
    return sorted(set(paths), key=lambda p: (len(p.parts), str(p)))
