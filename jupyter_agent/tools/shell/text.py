"""Turning raw command output into text for the model: decode, strip ANSI, detect binary."""

from __future__ import annotations

import codecs
import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL | ESC \), DCS/SOS/PM/APC strings, two-byte ESC
# sequences (charset selection, keypad modes...) and the 8-bit CSI introducer.
_ANSI = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]
  | \x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?
  | \x1b[PX^_][^\x1b\n]*(?:\x1b\\)?
  | \x1b[()*+][0-9A-Za-z]
  | \x1b[ -/]*[0-~]
  | \x9b[0-?]*[ -/]*[@-~]
    """,
    re.VERBOSE,
)
# C0 controls except TAB, LF and CR (handled apart), plus DEL.  Removed one by one with
# ``in``/``replace`` (fast C searches) because a regex or translate over megabytes is slow.
_CONTROLS = tuple(chr(c) for c in (*range(1, 9), 11, 12, *range(14, 32), 127))
_TRAILING_CR = re.compile(r"\r+(?=\n|\Z)")
_OVERWRITTEN = re.compile(r"[^\n]*\r")  # greedy: a line up to its last CR
_NOT_CONTROL_BYTES = bytes(
    b for b in range(256) if not ((b < 32 and b not in (9, 10, 12, 13, 27)) or b == 127)
)
_SAMPLE_BYTES = 8192
_MAX_PARTIAL_LINE = 1 << 20


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, cursor moves, titles, hyperlinks)."""
    return _ANSI.sub("", text)


def clean_text(text: str) -> str:
    """Text as a terminal would leave it: escapes gone, each line only after its last CR.

    Works on whole blocks of lines at once (regexes run in C), so big outputs stay cheap.
    """
    if "\x1b" in text or "\x9b" in text:
        text = strip_ansi(text)
    if "\r" in text:
        text = _OVERWRITTEN.sub("", _TRAILING_CR.sub("", text))
    if "\x00" in text:
        text = text.replace("\x00", "\\0")
    for control in _CONTROLS:
        if control in text:
            text = text.replace(control, "")
    return text


def clean_line(line: str) -> str:
    """``clean_text`` for one line."""
    return clean_text(line)


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
    controls = len(sample.translate(None, _NOT_CONTROL_BYTES))  # what is left are controls
    return (controls + max(bad, 0)) * 10 > len(sample)


class StreamCleaner:
    """Feed raw bytes in chunks, get clean text out; escapes split across chunks stay intact.

    Text is released whole lines at a time, so an escape sequence cut by a chunk boundary is
    always seen complete.  A line longer than 1 MiB is released early rather than held forever.
    The pieces returned by ``feed`` and ``flush``, concatenated, are the whole clean text.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""

    def feed(self, data: bytes) -> str:
        """Clean text of the complete lines ``data`` finishes, each ending in a newline."""
        text = self._partial + self._decoder.decode(data)
        cut = text.rfind("\n") + 1
        if cut == 0 and len(text) > _MAX_PARTIAL_LINE:
            cut = len(text)
        self._partial = text[cut:]
        return clean_text(text[:cut]) if cut else ""

    def flush(self) -> str:
        """Clean text of the last, unterminated line (empty when there is none)."""
        text = self._partial + self._decoder.decode(b"", final=True)
        self._partial = ""
        return clean_text(text)


def split_lines(text: str) -> list[str]:
    """The lines of a piece returned by ``StreamCleaner`` (a final newline adds no line)."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
