"""Reading a command's output file: following it as it grows, and summing it up at the end.

The summary is what the model sees: the whole text when it fits in ``limit`` characters,
otherwise head and tail with the path of the full (cleaned) text on disk.  Binary output is
described, never decoded.  ``summarize_output`` does blocking file work: run it in a thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from .text import StreamCleaner, looks_binary, split_lines

MAX_INLINE_CHARS = 30_000
HEAD_CHARS = 14_000
TAIL_CHARS = 14_000
_CHUNK = 1 << 20
_FULL_CLEAN_LIMIT = 64 << 20  # beyond this, head and tail come from the ends of the raw file
_ENDS_BYTES = 256 << 10


@dataclass(frozen=True)
class OutputSummary:
    """The model's view of a finished command's output."""

    text: str
    total_bytes: int
    total_chars: int | None = None
    saved_path: Path | None = None
    binary: bool = False
    truncated: bool = False


def _read_sample(path: Path, size: int = 8192) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(size)


_INLINE_SUMMARY_BYTES = 16 << 10  # smaller outputs are summarized on the loop (no thread hop)


async def summarize_soon(raw: Path) -> OutputSummary:
    """``summarize_output`` of ``raw`` next to it (``.txt``); big outputs in a thread (read whole)."""
    try:
        small = raw.stat().st_size <= _INLINE_SUMMARY_BYTES
    except OSError:
        small = True
    full_text = raw.with_suffix(".txt")
    if small:
        return summarize_output(raw, full_text)
    return await asyncio.to_thread(summarize_output, raw, full_text)


def summarize_output(raw: Path, full_text: Path, limit: int = MAX_INLINE_CHARS) -> OutputSummary:
    """Sum up ``raw`` for the model; when it is too long, write its clean text to ``full_text``."""
    size = raw.stat().st_size if raw.exists() else 0
    if size == 0:
        return OutputSummary("", 0, 0)
    if looks_binary(_read_sample(raw)):
        return OutputSummary(
            f"(binary output: {size:,} bytes, not shown. Raw bytes saved to: {raw}\n"
            f"Inspect it with e.g. `xxd {raw} | head` or `file {raw}`.)",
            size, saved_path=raw, binary=True,
        )
    if size > _FULL_CLEAN_LIMIT:
        return _summarize_ends(raw, size)
    head, tail, total = _clean_to_file(raw, full_text)
    if total <= limit + 1:  # a final newline does not count
        text = full_text.read_text(encoding="utf-8").rstrip("\n")
        if len(text) <= limit:
            full_text.unlink()
            return OutputSummary(text, size, len(text))
    return OutputSummary(_cut(head, tail, total, full_text), size, total, full_text, truncated=True)


def _cut(
    head: str, tail: str, total: int, saved: Path, unit: str = "characters", raw_note: str = ""
) -> str:
    shown = len(head) + len(tail)
    return (
        f"{head}\n\n... [about {total - shown:,} {unit} omitted: output is {total:,} {unit}; "
        f"the full output{raw_note} is saved to: {saved} — Read it with offset/limit or search "
        f"it with Grep] ...\n\n{tail}"
    )


def _clean_to_file(raw: Path, full_text: Path) -> tuple[str, str, int]:
    """Write the clean text of ``raw`` to ``full_text``; return head, tail and total length."""
    cleaner = StreamCleaner()
    head = tail = ""
    total = 0
    # Written in place: nobody knows this path until the summary naming it is returned.
    with open(raw, "rb") as src, open(full_text, "w", encoding="utf-8", newline="\n") as dst:
        while True:
            chunk = src.read(_CHUNK)
            text = cleaner.feed(chunk) if chunk else cleaner.flush()
            dst.write(text)
            total += len(text)
            if len(head) < HEAD_CHARS:
                head += text[: HEAD_CHARS - len(head)]
            tail = (tail + text)[-(TAIL_CHARS + 1) :]
            if not chunk:
                break
    return head, tail.rstrip("\n")[-TAIL_CHARS:], total


def _summarize_ends(raw: Path, size: int) -> OutputSummary:
    """Head and tail of a huge output straight from the raw file's two ends."""
    with open(raw, "rb") as fh:
        start = fh.read(_ENDS_BYTES)
        fh.seek(max(0, size - _ENDS_BYTES))
        end = fh.read()
    head = StreamCleaner().feed(start)[:HEAD_CHARS]
    tail_cleaner = StreamCleaner()
    tail_text = tail_cleaner.feed(end) + tail_cleaner.flush()
    tail_text = tail_text.split("\n", 1)[-1]  # the first line starts mid-way
    tail = tail_text.rstrip("\n")[-TAIL_CHARS:]
    note = " (raw bytes; may contain terminal escape codes)"
    text = _cut(head, tail, size, raw, unit="bytes", raw_note=note)
    return OutputSummary(text, size, None, raw, truncated=True)


class FileFollower:
    """Reads what was appended to a growing output file since the last read, as clean lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._cleaner = StreamCleaner()

    def read_new(self, *, final: bool = False, max_bytes: int = _ENDS_BYTES) -> tuple[list[str], int]:
        """New complete lines (all remaining text when ``final``) and how many bytes were skipped.

        When more than ``max_bytes`` arrived, only the last ``max_bytes`` are read: a live view
        wants the latest output, and the full text stays in the file.
        """
        try:
            size = self.path.stat().st_size
        except OSError:
            return [], 0
        skipped = 0
        if size - self.offset > max_bytes:
            skipped = size - max_bytes - self.offset
            self.offset = size - max_bytes
            self._cleaner = StreamCleaner()
        data = b""
        if size > self.offset:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read(size - self.offset)
            self.offset += len(data)
        lines = split_lines(self._cleaner.feed(data))
        if skipped and lines:
            lines[0] = "…" + lines[0]  # the first line starts mid-way
        if final:
            lines += split_lines(self._cleaner.flush())
        return lines, skipped
