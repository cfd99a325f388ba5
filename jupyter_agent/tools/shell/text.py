"""Turning raw command output into text for the model: decode, strip ANSI, detect binary."""

from __future__ import annotations

import codecs
import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL | ESC \), DCS/SOS/PM/APC strings, two-byte ESC
# sequences (charset selection, keypad modes...) and the 8-bit CSI introducer.
_ANSI = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?
  | \x1b[()*+][0-9A-Za-z]
  | \x1b[ -/]*[0-~]
  | \x9b[0-?]*[ -/]*[@-~]
    """,
    re.VERBOSE,
)
# C0 controls except TAB and LF (CR is handled per line), plus DEL and stray ESC.
_CONTROL = re.compile(r"[\x01-\x08\x0b-\x1f\x7f]")
_SAMPLE_BYTES = 8192
_MAX_PARTIAL_LINE = 1 << 20


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, cursor moves, titles, hyperlinks)."""
    return _ANSI.sub("", text)


def clean_line(line: str) -> str:
    """One line as a terminal would leave it: escapes gone, only the text after the last CR."""
    line = strip_ansi(line)
    if "\r" in line:
        line = line.rstrip("\r")
        line = line.rsplit("\r", 1)[-1]
    line = line.replace("\x00", "\\0")
    return _CONTROL.sub("", line)


def clean_text(text: str) -> str:
    """``clean_line`` applied to every line of ``text``."""
    return "\n".join(clean_line(line) for line in text.split("\n"))


def looks_binary(sample: bytes) -> bool:
    """True when ``sample`` (the start of the output) is not meant to be read as text.

    Text may hold a few NULs (``find -print0``) or a few bytes that are not UTF-8 (a Latin-1
    file); binary data has many of both.  Over 10% of either makes it binary.
    """
    sample = sample[:_SAMPLE_BYTES]
    if not sample:
        return False
    text = sample.decode("utf-8", errors="replace")
    # A multi-byte character cut at the end of the sample is not evidence of binary data.
    bad = text.count("\ufffd") - (1 if len(sample) == _SAMPLE_BYTES else 0)
    controls = sum(1 for b in sample if (b < 32 and b not in (9, 10, 12, 13, 27)) or b == 127)
    return (controls + max(bad, 0)) * 10 > len(sample)


class StreamCleaner:
    """Feed raw bytes in chunks, get clean text out; escapes split across chunks stay intact.

    Text is released a whole line at a time, so an escape sequence cut by a chunk boundary is
    always seen complete.  A line longer than 1 MiB is released early rather than held forever.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""

    def feed(self, data: bytes) -> list[str]:
        """The complete lines (without their newline) that ``data`` finishes."""
        text = self._partial + self._decoder.decode(data)
        *lines, self._partial = text.split("\n")
        if len(self._partial) > _MAX_PARTIAL_LINE:
            lines.append(self._partial)
            self._partial = ""
        return [clean_line(line) for line in lines]

    def flush(self) -> list[str]:
        """The last, unterminated line (if any)."""
        text = self._partial + self._decoder.decode(b"", final=True)
        self._partial = ""
        return [clean_line(text)] if text else []
