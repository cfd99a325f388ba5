"""Read of a text file: a window of numbered lines, streamed so a huge file is never loaded whole.

Lines are split in C (``bytes.find``/``count``) on the raw bytes for every encoding where a
newline is the single byte 0x0A (UTF-8, legacy code pages); UTF-16/32 files are decoded in
chunks first.  Long lines are cut while streaming, so even a gigabyte without a newline costs
only a chunk of memory.  The whole file's hash is computed in the same pass when it is small
enough, so the FileStateCache entry matches exactly the bytes that were read.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from ..core.result import ContentBlock, text_block
from ..errors import ToolError
from ._encoding import SNIFF_BYTES, TextFormat, detect_format
from ._paths import FdGuard, refuse_non_regular

CHUNK = 1024 * 1024
HASH_MAX_BYTES = 64 * 1024 * 1024  # hash the whole file for staleness checks up to this size


@dataclass(frozen=True)
class TextWindow:
    """The lines of a file from ``first_line`` on, as read in one pass."""

    first_line: int
    lines: tuple[str, ...]
    cut_lines: int  # how many shown lines were cut at the length limit
    more: bool  # lines exist after the window
    stopped_by_budget: bool
    fmt: TextFormat
    file_hash: str | None  # sha256 of the whole file (None when too large to hash)
    mtime_ns: int
    size: int


def read_window(
    path: Path, offset: int, limit: int, max_line_chars: int, budget_chars: int, guard: FdGuard | None = None
) -> TextWindow:
    """Lines ``offset .. offset+limit-1`` (1-based) of ``path``, at most ``budget_chars`` in total.

    ``guard(fd)`` runs on the open file before anything is read (it raises to refuse it).
    """
    fd = _open_regular(path, guard)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        hasher = hashlib.sha256() if st.st_size <= HASH_MAX_BYTES else None
        raw = _raw_chunks(fh, hasher)
        first = next(raw, b"")
        sample = first[:SNIFF_BYTES]
        fmt = detect_format(sample, whole=len(sample) == st.st_size)
        first = first[len(fmt.bom):]
        chunks, nl, keep = _line_source(chain([first], raw), fmt, max_line_chars)
        chunks = _skip_lines(chunks, nl, offset - 1)
        lines, cut, more, by_budget = _collect(chunks, nl, fmt, limit, keep, max_line_chars, budget_chars)
        if hasher is not None:
            for _ in raw:  # finish the hash over the rest of the file
                pass
    return TextWindow(offset, tuple(lines), cut, more, by_budget, fmt,
                      hasher.hexdigest() if hasher else None, st.st_mtime_ns, st.st_size)


def _open_regular(path: Path, guard: FdGuard | None = None) -> int:
    """A read-only fd of a regular file; O_NONBLOCK so that a FIFO can never block the open."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ToolError(f"File does not exist: {path}") from None
    except PermissionError:
        raise ToolError(f"Permission denied reading {path}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot open {path}: {exc.strerror or exc}") from None
    try:
        refuse_non_regular(path, os.fstat(fd))
        if guard is not None:
            guard(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _raw_chunks(fh, hasher) -> Iterator[bytes]:
    while chunk := fh.read(CHUNK):
        if hasher is not None:
            hasher.update(chunk)
        yield chunk


def _line_source(raw: Iterator[bytes], fmt: TextFormat, max_chars: int):
    """(chunks, newline token, units to keep per line): bytes for ASCII-newline encodings, else str."""
    if fmt.ascii_newlines:
        return raw, b"\n", max_chars * 4 + 4
    decoder = codecs.getincrementaldecoder(fmt.encoding)("strict")

    def decoded() -> Iterator[str]:
        try:
            for chunk in raw:
                yield decoder.decode(chunk)
            yield decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise ToolError(f"The file is not valid {fmt.encoding} past its start; it was not decoded.") from None

    return decoded(), "\n", max_chars + 1


def _skip_lines(chunks, nl, n: int):
    """The chunk stream positioned after ``n`` newlines, counted in C."""
    if n <= 0:
        return chunks
    for chunk in chunks:
        found = chunk.count(nl)
        if found < n:
            n -= found
            continue
        pos = -1
        for _ in range(n):
            pos = chunk.find(nl, pos + 1)
        return chain([chunk[pos + len(nl):]], chunks)
    return iter(())


def _collect(chunks, nl, fmt, limit, keep, max_chars, budget):
    lines: list[str] = []
    cut = 0
    used = 0
    reader = _LineReader(chunks, nl, keep)
    for head, total in reader.lines(limit):
        text, was_cut = _finish_line(head, total, fmt, max_chars)
        if lines and used + len(text) > budget:
            return lines, cut, True, True
        lines.append(text)
        cut += was_cut
        used += len(text) + 8
    return lines, cut, reader.more, False


class _LineReader:
    """Splits a chunk stream into lines, keeping only the first ``keep`` units of each."""

    def __init__(self, chunks, nl, keep: int) -> None:
        self.chunks, self.nl, self.keep = chunks, nl, keep
        self.more = False

    def lines(self, limit: int):
        """Yield up to ``limit`` (head, full length) pairs; then set ``more`` if anything follows."""
        nl, keep, empty = self.nl, self.keep, self.nl[:0]
        parts: list = []
        kept = total = count = 0
        for chunk in self.chunks:
            pos = 0
            while True:
                if count >= limit:
                    self.more = pos < len(chunk) or any(len(c) for c in self.chunks)
                    return
                i = chunk.find(nl, pos)
                end = i if i >= 0 else len(chunk)
                if kept < keep and end > pos:
                    piece = chunk[pos:min(end, pos + keep - kept)]
                    parts.append(piece)
                    kept += len(piece)
                total += end - pos
                if i < 0:
                    break
                yield empty.join(parts), total
                count += 1
                parts, kept, total = [], 0, 0
                pos = i + len(nl)
        if total and count < limit:
            yield empty.join(parts), total


def _finish_line(head, total: int, fmt: TextFormat, max_chars: int) -> tuple[str, bool]:
    """Decode (bytes) and cut one line; returns (text, was cut)."""
    if isinstance(head, bytes):
        complete = len(head) == total
        try:
            text = codecs.getincrementaldecoder(fmt.encoding)("strict").decode(head, final=complete)
        except UnicodeDecodeError:
            raise ToolError(
                f"The file is not valid {fmt.encoding} further in; it was not decoded "
                "(no replacement characters). Inspect it with Bash tools."
            ) from None
    else:
        text, complete = head, len(head) == total
    if complete and text.endswith("\r"):
        text = text[:-1]
    if complete and len(text) <= max_chars:
        return text, False
    return text[:max_chars] + f" … [line cut: longer than {max_chars} characters]", True


@dataclass(frozen=True)
class TextReadOutput:
    """A text window as the model sees it: ``cat -n`` lines plus notes on what is not shown."""

    file_path: str
    window: TextWindow
    requested_offset: int

    @property
    def last_line(self) -> int:
        return self.window.first_line + len(self.window.lines) - 1

    def to_content(self) -> list[ContentBlock]:
        w = self.window
        body = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(w.lines, start=w.first_line))
        return [text_block(body + self._notes() if body else self._empty_note())]

    def _empty_note(self) -> str:
        if self.window.size == 0:
            return "(The file exists but is empty.)"
        return (f"(No lines at offset {self.requested_offset}: the file is shorter than that. "
                "Read without offset to see its beginning.)")

    def _notes(self) -> str:
        w = self.window
        notes = []
        if w.more:
            why = "the output size budget was reached" if w.stopped_by_budget else "the line limit was reached"
            notes.append(f"Partial view: lines {w.first_line}-{self.last_line} shown ({why}); the file "
                         f"continues. Read with offset={self.last_line + 1} to see more.")
        if w.cut_lines:
            notes.append(f"{w.cut_lines} long line(s) were cut; use Grep or Bash to see them in full.")
        if w.fmt.encoding != "utf-8":
            notes.append(f"The file is encoded as {w.fmt.label}; it is shown decoded and edits keep that encoding.")
        return "\n\n(" + " ".join(notes) + ")" if notes else ""


UNCHANGED_MESSAGE = (
    "File unchanged since last read. The content from the earlier Read result in this "
    "conversation is still current; refer to it instead of reading the file again."
)
