"""Pure text helpers of the Bash tool: escape stripping, line cleaning, binary detection."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_agent.tools.shell.text import (
    StreamCleaner,
    clean_line,
    clean_text,
    looks_binary,
    split_lines,
    strip_ansi,
)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[38;5;196mx\x1b[39m", "x"),
        ("\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b]0;title\x07after", "after"),
        ("\x1b(Bcharset", "charset"),
        ("\x1b=keypad\x1b>", "keypad"),
        ("\x9b1mc1 csi", "c1 csi"),
        ("no escapes here", "no escapes here"),
    ],
)
def test_strip_ansi(raw, clean):
    assert strip_ansi(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("10%\r50%\r100%", "100%"),
        ("windows line\r", "windows line"),
        ("tab\tkept", "tab\tkept"),
        ("bell\x07 and backspace\x08 dropped", "bell and backspace dropped"),
        ("nul\x00shown", "nul\\0shown"),
    ],
)
def test_clean_line(raw, clean):
    assert clean_line(raw) == clean


@pytest.mark.parametrize(
    ("sample", "binary"),
    [
        (b"", False),
        (b"plain text\n" * 100, False),
        ("héllo wörld ünïcode\n".encode() * 100, False),
        (b"\x1b[31mcoloured\x1b[0m\n" * 100, False),
        (b"a/long/enough/path/name.txt\x00" * 50, False),
        (b"\x00\x01\x02\x03" * 100, True),
        (bytes(range(256)) * 4, True),
        (b"\x89PNG\r\n\x1a\n" + bytes(200), True),
        ("é".encode() * 4096 + b"\xc3", False),  # a character cut at the sample's end
    ],
)
def test_looks_binary(sample, binary):
    assert looks_binary(sample) is binary


def test_stream_cleaner_keeps_escapes_and_characters_split_across_chunks():
    data = "\x1b[31mrød\x1b[0m line\nsecond\n".encode()
    cleaner = StreamCleaner()
    pieces = []
    for i in range(len(data)):  # one byte at a time: every split point is exercised
        pieces.append(cleaner.feed(data[i : i + 1]))
    pieces.append(cleaner.flush())
    assert "".join(pieces) == "rød line\nsecond\n"
    assert [p for p in pieces if p] == ["rød line\n", "second\n"]  # whole lines only


def test_stream_cleaner_flushes_the_unterminated_last_line():
    cleaner = StreamCleaner()
    assert cleaner.feed(b"a\nb") == "a\n"
    assert cleaner.flush() == "b"
    assert cleaner.flush() == ""


def test_block_cleaning_equals_line_by_line_cleaning():
    lines = ["\x1b[1mbold\x1b[0m", "10%\r20%\r", "x\ry\r\n", "\x1b]0;t\x07z", "plain", "a\x00b"]
    block = "\n".join(lines)
    assert clean_text(block) == "\n".join(clean_line(line) for line in lines)


def test_unterminated_osc_does_not_swallow_following_lines():
    assert clean_text("\x1b]0;never closed\nnext line\n") == "\nnext line\n"


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", []), ("a\n", ["a"]), ("a\nb", ["a", "b"]), ("\n", [""]), ("a\n\nb\n", ["a", "", "b"])],
)
def test_split_lines(text, lines):
    assert split_lines(text) == lines


_PIECES = [b"a", b"Z", b" ", b"\n", b"\r", b"\r\n", b"\t", b"\x00", b"\x07", b"\x1b[31m",
           b"\x1b[0m", b"\x1b]0;t\x07", b"\x1b", b"[", b"\xc3\xa9", b"\xe2\x82\xac", b"\xff"]


@given(
    parts=st.lists(st.sampled_from(_PIECES), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_chunked_cleaning_equals_cleaning_the_whole(parts, cuts):
    data = b"".join(parts)
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    cleaner = StreamCleaner()
    pieces = [cleaner.feed(data[a:b]) for a, b in zip(points, points[1:], strict=False)]
    pieces.append(cleaner.flush())
    assert "".join(pieces) == clean_text(data.decode("utf-8", errors="replace"))
