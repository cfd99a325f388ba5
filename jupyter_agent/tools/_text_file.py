"""Load a text file for a write tool and write it back atomically in the same format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.atomic import WriteTargetMoved, atomic_write_bytes
from ..core.context import ToolUseContext
from ..errors import StaleFileError, ToolError
from ._encoding import SNIFF_BYTES, TextFormat, detect_format
from ._paths import deny_guard, existing_target_stat, read_bytes_nofollow_fifo, recheck_write


@dataclass(frozen=True)
class CurrentFile:
    """A file as it is on disk right before a write (``data`` None: it does not exist)."""

    path: Path
    data: bytes | None

    @property
    def exists(self) -> bool:
        return self.data is not None

    def decode(self) -> tuple[TextFormat, str]:
        """The file's format and text (new files: UTF-8, LF, empty); binary files are refused.

        The format is sniffed from the first bytes; if the rest does not decode that way, the
        whole file decides (a UTF-8-looking start with legacy bytes further in).
        """
        if not self.data:
            return TextFormat(), ""
        fmt = detect_format(self.data[:SNIFF_BYTES], whole=len(self.data) <= SNIFF_BYTES)
        try:
            return fmt, fmt.decode(self.data)
        except ToolError:
            if len(self.data) <= SNIFF_BYTES:
                raise
        fmt = detect_format(self.data, whole=True)
        return fmt, fmt.decode(self.data)


def load_current(path: Path, context: ToolUseContext) -> CurrentFile:
    """Read the file a write would replace; refuse directories, FIFOs and devices (blocking I/O).

    The deny rules are checked again on the file really opened (a link changed since the
    permission check, or a hard link to a denied file, is refused before a byte is read).
    """
    recheck_write(path, context)
    if existing_target_stat(path) is None:
        return CurrentFile(path, None)
    return CurrentFile(path, read_bytes_nofollow_fifo(path, deny_guard(path, context)))


def ensure_writable(current: CurrentFile, context: ToolUseContext, *, require_full: bool) -> None:
    """Raise the FileStateCache's message when the file was not read or changed since."""
    message = context.read_file_state.check_writable(current.path, current.data, require_full=require_full)
    if message is not None:
        raise StaleFileError(message)


def write_and_record(path: Path, data: bytes, context: ToolUseContext) -> None:
    """Atomic write (mode and symlinks kept), then record that the agent knows the new content."""
    try:
        atomic_write_bytes(recheck_write(path, context), data, pinned=True)
    except WriteTargetMoved as exc:
        raise ToolError(f"{exc} Try again to have the new target checked.") from None
    context.read_file_state.record_write(path, data)


def to_newlines(text: str, newline: str) -> str:
    """``text`` with every line ending turned into ``newline``."""
    if newline == "\n":
        return text
    return text.replace("\r\n", "\n").replace("\n", newline)


def has_lone_lf(text: str) -> bool:
    return text.count("\n") != text.count("\r\n")
