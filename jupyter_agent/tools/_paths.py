"""Path handling shared by the file tools: resolve the model's path, check what kind of file it is."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from ..core.context import ToolUseContext
from ..errors import ToolError
from ..permissions.filesystem import checked_write_target, opened_denial, path_denial
from ..permissions.paths import BadPath, local_path

FdGuard = Callable[[int], None]


def deny_guard(path: Path, context: ToolUseContext) -> FdGuard:
    """A guard refusing the open file when the Read deny rules forbid what was really opened."""

    def guard(fd: int) -> None:
        message = opened_denial(fd, str(path), context)
        if message is not None:
            raise ToolError(message)

    return guard


def recheck_write(path: Path, context: ToolUseContext) -> Path:
    """Right before a write: the real target, refused if a deny rule covers it now.

    The permission check ran before the call; a symlink changed since must not redirect the
    write: not into a denied file, and not anywhere else than where it led when its permission
    was checked (a protected or outside file).  The returned real path is what the atomic
    writer replaces.
    """
    real = os.path.realpath(path)
    message = path_denial(str(path), real, context)
    if message is not None:
        raise ToolError(message)
    checked = checked_write_target(os.path.normpath(path), context)
    if checked is not None and checked != real:
        raise ToolError(f"{path} now leads to {real}, not to {checked} as when its permission was checked "
                        "(a link changed in between); nothing was written. Try again to have the new target "
                        "checked.")
    return Path(real)


def resolve_path(raw: str, context: ToolUseContext) -> Path:
    """Absolute path for ``raw``: ``~`` expanded, relative paths taken from the session's cwd,
    a ``file:`` URL its path (as the permission checks read it: ``file:///p/x`` is ``/p/x``, not
    a folder ``file:`` here); another URL is an error.

    Symlinks are *not* followed here (the permission system and the atomic writer do that).
    """
    if not raw or "\x00" in raw:
        raise ToolError("Invalid file path: it is empty or contains a NUL character.")
    try:
        raw = local_path(raw)
    except BadPath as exc:
        raise ToolError(str(exc)) from None
    p = Path(os.path.expanduser(raw))
    if not p.is_absolute():
        p = Path(context.cwd) / p
    return Path(os.path.normpath(p))


def regular_file_stat(path: Path) -> os.stat_result:
    """``stat`` of an existing regular file; any other kind of path is refused with a clear message."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ToolError(f"File does not exist: {path}") from None
    except NotADirectoryError:
        raise ToolError(f"File does not exist: {path} (a parent is not a directory)") from None
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot access {path}: {exc.strerror or exc}") from None
    refuse_non_regular(path, st)
    return st


def refuse_non_regular(path: Path, st: os.stat_result) -> None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise ToolError(
            f"{path} is a directory, not a file. Use Glob to list files or Bash `ls` to look inside it."
        )
    kind = (
        "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
        else "a socket" if stat.S_ISSOCK(mode)
        else "a character device" if stat.S_ISCHR(mode)
        else "a block device" if stat.S_ISBLK(mode)
        else "not a regular file"
    )
    raise ToolError(f"{path} is {kind}; only regular files can be read or written.")


def existing_target_stat(path: Path) -> os.stat_result | None:
    """``stat`` of the file a write would change (None if it does not exist); refuse non-regular files."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None  # new file (or a dangling symlink: the write creates its target)
    except NotADirectoryError:
        raise ToolError(f"Cannot write {path}: a parent is not a directory.") from None
    except OSError as exc:
        raise ToolError(f"Cannot access {path}: {exc.strerror or exc}") from None
    refuse_non_regular(path, st)
    return st


def read_bytes_nofollow_fifo(path: Path, guard: FdGuard | None = None) -> bytes:
    """The whole file's bytes, opened so that a FIFO swapped in after ``stat`` cannot block.

    ``guard(fd)`` runs on the open file before anything is read (it raises to refuse it).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ToolError(f"Cannot open {path}: {exc.strerror or exc}") from None
    try:
        refuse_non_regular(path, os.fstat(fd))
        if guard is not None:
            guard(fd)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)
