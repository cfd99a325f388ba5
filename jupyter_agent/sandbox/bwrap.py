"""bubblewrap: is it usable here, and the command line that confines one shell command.

Inside the sandbox the whole filesystem is read-only (``--ro-bind / /``) except the working
directories, the folder where the shell records its final directory, and a private ``/tmp``
(a fresh tmpfs, gone when the command ends).  Protected paths at the top of writable directories
(``.git/hooks``, ``.git/config``, ``.claude``, ``.ssh``, ``.bashrc`` …) are bound read-only again,
as are the paths the permission rules cover (``masks.py``: hidden or read-only), and every
folder between a writable root and such a path is bound onto itself so it cannot be renamed
away.  All namespaces are unshared: no network, its own PID namespace (when the command ends,
everything it started is killed by the kernel), and ``--die-with-parent`` ties it to the shell
that started it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.child_process import run_child
from ..permissions.paths import PROTECTED_DIRS, PROTECTED_FILES, is_within
from .masks import Masks
from .protected import git_settings
from .proxy import FORWARDER, PROXY_ENV, PROXY_URL
from .seccomp import FD, TRAMPOLINE, filter_file

# every protected folder and file of the permission system (``.claude``, ``.ssh``, ``.bashrc`` …)
# (a repository's own settings: git_settings)
PROTECTED_NAMES = (*sorted(PROTECTED_DIRS - {".git"}), *sorted(PROTECTED_FILES))
MASKED_VALUE = "(hidden by sandbox.credentials)"
_OWN = ("/tmp", "/proc", "/dev", "/sys")  # folders the sandbox has its own of
# --cap-drop ALL: run by root (a container's Jupyter often is), bwrap would keep every capability,
# and the command could unmount the read-only binds (or mount a disk); --new-session: no terminal.
# /proc/sys read-only: even without capabilities root owns the kernel's settings there, and
# kernel.core_pattern = "|program" runs a program as root on the host at the next crash.
_BASE_ARGS = ("--die-with-parent", "--unshare-all", "--cap-drop", "ALL", "--new-session",
              "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys")


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
    try:  # the seccomp filter included
        done = await run_child([*bwrap_args(path, writable=(), cwd=Path("/")), "true"], stderr=subprocess.STDOUT,
                               timeout=30)
    except asyncio.TimeoutError:  # first: an OSError too, since Python 3.11
        return Availability(False, path, f"{path} could not be run: it did not finish within 30 s")
    except OSError as exc:
        return Availability(False, path, f"{path} could not be run: {exc}")
    if done.returncode != 0:
        text = done.stdout.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return Availability(False, path, f"{path} cannot create namespaces (or apply a seccomp filter) here: {text}")
    return Availability(True, path)


def protected_paths(directories: Iterable[Path]) -> list[Path]:
    """Existing protected paths directly inside ``directories`` (the writable ones, and those
    holding a protected path deeper down)."""
    found = []
    for directory in directories:
        for name in PROTECTED_NAMES:
            candidate = directory / name
            if os.path.lexists(candidate) and not candidate.is_symlink():
                found.append(candidate)
        git = directory / ".git"
        if git.is_file() and not git.is_symlink():  # a gitfile (worktree, submodule): where git's folder is
            found.append(git)
        found += [Path(p) for p in git_settings(str(git))]
    return found


def bwrap_args(
    bwrap: str,
    *,
    writable: Iterable[Path],
    cwd: Path,
    masks: Masks | None = None,
    env_unset: Iterable[str] = (),
    env_mask: Iterable[str] = (),
    unix_sockets: bool = False,
    nested: Iterable[str] = (),
    proxy: tuple[str, int] | None = None,
) -> list[str]:
    """The argv prefix that runs a program confined (append the program and its arguments).

    ``masks``: what the rules hide and keep read-only (``masks.py``); ``env_unset`` / ``env_mask``:
    variables removed, or replaced by a placeholder, inside.  Unless ``unix_sockets``, the host's
    ``/run`` is replaced by an empty one and ``socket(AF_UNIX)`` fails (``seccomp.py``); the
    prefix then starts with a ``sh`` that opens the filter for bwrap.  ``nested``: protected
    paths found deeper in the writable folders (``protected.py``); theirs are kept read-only too.
    ``proxy``: (a Python, the inherited link's fd): the command runs under ``proxy.FORWARDER``,
    with the proxy variables pointing at it.
    """
    real = _unique(Path(os.path.realpath(d)) for d in writable if os.path.isdir(d))
    own = _OWN if unix_sockets else (*_OWN, "/run")
    args = [bwrap, *_BASE_ARGS, "--tmpfs", "/tmp"]
    if not unix_sockets:
        args += ["--tmpfs", "/run"]
    for directory in real:
        args += ["--bind", str(directory), str(directory)]
    folders = [*real, *(Path(os.path.dirname(p)) for p in nested)]
    protected = [str(p) for p in protected_paths(dict.fromkeys(folders))]
    # a repository's folder keeps only its settings read-only (commits still work); the rest whole
    protected += [p for p in nested if os.path.basename(p).lower() != ".git" or not os.path.isdir(p)]
    args += mount_args([str(d) for d in real], protected, masks or Masks(), own)
    for name in env_unset:
        args += ["--unsetenv", name]
    for name in env_mask:
        args += ["--setenv", name, MASKED_VALUE]
    if proxy is not None:
        for name in PROXY_ENV:
            args += ["--setenv", name, PROXY_URL]
        args += ["--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy"]
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", str(cwd)]
    inside = ["--"] if proxy is None else ["--", proxy[0], "-I", "-S", "-c", FORWARDER, str(proxy[1])]
    bpf = None if unix_sockets else filter_file()
    if bpf is not None:
        return [*TRAMPOLINE, bpf, *args, "--seccomp", str(FD), *inside]
    return [*args, *inside]


def mount_args(roots: Sequence[str], protected: Iterable[str], masks: Masks, own: Sequence[str] = ()) -> list[str]:
    """Binds after the writable roots: pins, read-only paths, then hidden ones, parents first.

    A *pin* binds a folder onto itself: a mount point cannot be renamed, so no folder between a
    writable root and a bound path can be moved away and replaced by a fresh, writable copy.
    Nothing is bound inside a hidden folder (that would show it again).
    """
    own = own or _OWN
    hidden = {p: is_dir for p, is_dir in masks.hidden if _visible(p, roots, own)}
    read_only = [p for p in dict.fromkeys([*protected, *masks.read_only]) if _visible(p, roots, own)]

    def in_hidden(path: str) -> bool:
        return any(is_within(path, h) and path != h for h in hidden)

    bound = [p for p in read_only if not in_hidden(p) and p not in hidden] + list(hidden)
    pins: set[str] = set()
    for path in bound:
        root = max((r for r in roots if is_within(path, r) and path != r), key=len, default=None)
        folder = os.path.dirname(path)
        while root is not None and folder != root and is_within(folder, root):
            pins.add(folder)
            folder = os.path.dirname(folder)
    pins = {p for p in pins if p not in roots and not any(is_within(p, b) for b in bound)}
    blank_file, blank_folder = blanks()
    ops = [(p, "--bind", p) for p in pins]
    ops += [(p, "--ro-bind", p) for p in bound if p not in hidden]
    ops += [(p, "--ro-bind", blank_folder if is_dir else blank_file) for p, is_dir in hidden.items() if not in_hidden(p)]
    ops.sort(key=lambda op: (op[0].count(os.sep), op[0]))
    args: list[str] = []
    for path, how, source in ops:
        args += [how, source, path]
    return args


def _visible(path: str, roots: Sequence[str], own: Sequence[str]) -> bool:
    """Is the host's ``path`` seen in the sandbox (which has its own ``own`` folders: /tmp, /proc …)?"""
    if any(is_within(path, r) for r in roots):
        return True
    return not any(is_within(path, folder) for folder in own)


_blanks: tuple[str, str] | None = None


def blanks() -> tuple[str, str]:
    """An empty file and an empty folder, both mode 000: what a hidden path shows in the sandbox."""
    global _blanks
    if _blanks is None or not (os.path.isfile(_blanks[0]) and os.path.isdir(_blanks[1])):
        base = tempfile.mkdtemp(prefix="jupyter-agent-blank-")
        file, folder = os.path.join(base, "file"), os.path.join(base, "folder")
        with open(file, "x"):
            pass
        os.mkdir(folder)
        os.chmod(file, 0)
        os.chmod(folder, 0)
        _blanks = (file, folder)
    return _blanks


def _unique(paths: Iterable[Path]) -> list[Path]:
    """Distinct paths, parents before children (so a child's bind is not hidden by its parent's)."""
    return sorted(set(paths), key=lambda p: (len(p.parts), str(p)))
