"""The pure string replacement behind Edit: literal, exactly-once unless replace_all, newline-aware."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ToolError


@dataclass(frozen=True)
class Replacement:
    """The result of an edit: the new text and where (in the old text) replacements happened."""

    text: str
    starts: tuple[int, ...]
    old_len: int
    new_len: int


def apply_edit(text: str, old: str, new: str, *, replace_all: bool) -> Replacement:
    """Replace ``old`` by ``new`` in ``text`` literally (no regex, ``$1``/``\\1`` stay as typed).

    ``text`` uses the file's line endings.  When the model's strings use other line endings
    than the file (LF strings in a CRLF file, or the reverse), the strings are converted.
    """
    if old == new:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    if old == "":
        raise ToolError("old_string is empty. To fill an empty or new file, use old_string \"\" only on "
                        "a file that is empty or does not exist; otherwise quote the text to replace.")
    for o, n in _variants(text, old, new):
        starts = _find_all(text, o, limit=None if replace_all else 2)
        if not starts:
            continue
        if len(starts) > 1 and not replace_all:
            count = len(_find_all(text, o, limit=None))
            raise ToolError(
                f"Found {count} matches of the string to replace, but replace_all is false. To replace "
                "all occurrences, set replace_all to true. To replace only one occurrence, include "
                "more surrounding context in old_string so that it matches exactly once."
            )
        return Replacement(_splice(text, starts, len(o), n), tuple(starts), len(o), len(n))
    raise ToolError(
        "String to replace not found in file. old_string must match the file exactly, including "
        f"whitespace and indentation. Read the file again and copy the text to replace.\nString: {old}"
    )


def _variants(text: str, old: str, new: str) -> list[tuple[str, str]]:
    """The strings to try, in order, adapted to the file's line endings."""
    if "\r" not in text:  # a pure LF file stays LF (a one-char search runs at memchr speed)
        return [(old.replace("\r\n", "\n"), new.replace("\r\n", "\n"))]
    if text.count("\r\n") == text.count("\n"):  # a pure CRLF file stays pure CRLF
        return [(_crlf(old), _crlf(new))]
    return [(old, new), (_crlf(old), _crlf(new))]  # mixed: as typed first


def _crlf(s: str) -> str:
    return s.replace("\r\n", "\n").replace("\n", "\r\n")


def _find_all(text: str, sub: str, *, limit: int | None) -> list[int]:
    starts: list[int] = []
    i = text.find(sub)
    while i >= 0 and (limit is None or len(starts) < limit):
        starts.append(i)
        i = text.find(sub, i + len(sub))
    return starts


def _splice(text: str, starts: list[int], old_len: int, new: str) -> str:
    parts: list[str] = []
    prev = 0
    for s in starts:
        parts.append(text[prev:s])
        parts.append(new)
        prev = s + old_len
    parts.append(text[prev:])
    return "".join(parts)
