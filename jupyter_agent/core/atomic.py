"""Atomic file writes: temp file in the same folder, fsync, rename, fsync the folder.

A crash at any point leaves either the old file or the new one, never a mix.  The file's mode
is kept, and a symlink is written through (its target is replaced, the link stays a link).

Where the system allows it (Linux, macOS) every step after opening the folder is done relative
to that open folder, so the temp file, the rename and the fsync all land in one folder even if
a folder on the way is renamed or swapped for a link meanwhile.  A *pinned* write also checks
that the folder it opened is the one the caller checked (see :func:`atomic_write_bytes`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from . import own_writes

_DIR_FDS = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class WriteTargetMoved(OSError):
    """A pinned write found its folder somewhere else than where the caller checked it."""


def resolve_write_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` really changes: a symlink's final target."""
    p = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, mode: int | None = None, pinned: bool = False
) -> Path:
    """Write ``data`` to ``path`` atomically; create parent folders.  Returns the real target.

    ``pinned``: ``path`` is the real path (no links) that a permission check approved.  The
    write then lands in that folder or nowhere: if a folder on the way was swapped for a link
    since the check, :class:`WriteTargetMoved` is raised and nothing is written; if the file
    itself was swapped for a link, the link is replaced, not followed.
    """
    target = Path(os.path.abspath(os.fspath(path))) if pinned else resolve_write_target(path)
    created = _missing_folders(target.parent)
    if not _DIR_FDS:
        target.parent.mkdir(parents=True, exist_ok=True)
        if pinned and os.path.realpath(target.parent) != str(target.parent):
            raise WriteTargetMoved(_moved(target.parent, os.path.realpath(target.parent)))
        _write_by_name(target, data, mode)
        own_writes.remember(target, data, created)
        return target
    if pinned:  # every folder on the way opened (or created) by name in its parent, never via a link
        folder = _open_pinned(target.parent)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        if pinned:
            _check_opened(folder, target.parent)
        _write_in(folder, target.name, data, mode)
    finally:
        os.close(folder)
    own_writes.remember(target, data, created)
    return target


def _missing_folders(folder: Path) -> list[Path]:
    """The folders a write to a file in ``folder`` will create (none, usually: one lstat)."""
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", mode: int | None = None,
    pinned: bool = False,
) -> Path:
    return atomic_write_bytes(path, text.encode(encoding), mode=mode, pinned=pinned)


def _open_pinned(folder: Path) -> int:
    """Open ``folder`` one name at a time from the root, each relative to its open parent and
    never through a link, creating the missing ones there (a pinned ``mkdir -p``): a folder on
    the way that became a link raises :class:`WriteTargetMoved` before anything is created
    beyond it."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC
    fd = os.open(folder.anchor or os.sep, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for depth, name in enumerate(folder.parts[1:], start=2):
            try:
                try:
                    step = os.open(name, flags, dir_fd=fd)
                except FileNotFoundError:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, dir_fd=fd)
                    step = os.open(name, flags, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or not _is_link(name, fd):
                    raise
                reached = Path(*folder.parts[:depth])
                raise WriteTargetMoved(_moved(folder, os.path.realpath(reached))) from exc
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(name: str, folder: int) -> bool:
    with contextlib.suppress(OSError):
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    return False


def _write_in(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """The write itself, every name relative to the open ``folder``."""
    if mode is None:
        mode = _existing_mode(folder, name)
    tmp, fd = _create_temp(folder, name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.rename(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)  # POSIX rename replaces atomically
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise
    with contextlib.suppress(OSError):
        os.fsync(folder)


def _existing_mode(folder: int, name: str) -> int:
    """The replaced file's permission bits, or the umask's default for a new file."""
    try:
        st = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    return 0o666 & ~_umask()


def _create_temp(folder: int, name: str) -> tuple[str, int]:
    """A new, private temp file beside ``name`` (never through a link): its name and fd."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for _ in range(100):
        tmp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name beside {name}")


def _check_opened(folder: int, expected: Path) -> None:
    """Refuse when the open folder is not ``expected`` (a folder on the way became a link)."""
    opened = _fd_path(folder)
    if opened is None:  # no way to name an open folder here: compare with what the name leads to now
        real = os.path.realpath(expected)
        if real == str(expected) and os.path.samestat(os.fstat(folder), os.stat(expected)):
            return
        opened = real
    if opened != str(expected):
        raise WriteTargetMoved(_moved(expected, opened))


def _fd_path(fd: int) -> str | None:
    """The path the system gives for an open folder (Linux /proc, macOS F_GETPATH), if any."""
    with contextlib.suppress(OSError):
        return os.readlink(f"/proc/self/fd/{fd}")
    try:
        import fcntl

        raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        return None
    return os.fsdecode(raw.split(b"\0", 1)[0])


def _moved(expected: Path, opened: str) -> str:
    return (f"The folder {expected} now leads to {opened} (a folder on the way was replaced by a link "
            "after the permission check); nothing was written.")


def _write_by_name(target: Path, data: bytes, mode: int | None) -> None:
    """Fallback where folders cannot be opened (Windows): the same steps by path."""
    import tempfile

    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:200]}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    # Reading the umask with os.umask() briefly changes it for every thread; /proc does not.
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022
