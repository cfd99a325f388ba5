"""Structured diffs for the UI card: hunks computed around known edit positions.

Edit knows where it replaced text, so only the regions around those places are diffed; a
replacement in a 50 MB file costs a few lines of ``difflib``, not a diff of the whole file.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

CONTEXT = 3
MAX_HUNKS = 50
_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class DiffHunk:
    """One hunk of a unified diff; ``lines`` start with ' ', '-' or '+' and have no newline."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: tuple[str, ...]

    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_lines} +{self.new_start},{self.new_lines} @@"


def unified_diff_text(path: str, hunks: Sequence[DiffHunk]) -> str:
    """The hunks as a unified diff string (``--- path`` / ``+++ path``)."""
    out = [f"--- {path}", f"+++ {path}"]
    for h in hunks:
        out.append(h.header())
        out.extend(h.lines)
    return "\n".join(out)


def diff_texts(old: str, new: str, *, line_offset_old: int = 0, line_offset_new: int = 0) -> list[DiffHunk]:
    """Hunks between two (small) texts; line numbers shifted by the offsets."""
    raw = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=CONTEXT)
    hunks: list[DiffHunk] = []
    current: list[str] = []
    nums: tuple[int, int, int, int] | None = None
    for line in raw:
        m = _HEADER.match(line)
        if m:
            if nums is not None:
                hunks.append(DiffHunk(*nums, lines=tuple(current)))
            a, b, c, d = (int(g) if g is not None else 1 for g in m.groups())
            nums = (a + line_offset_old, b, c + line_offset_new, d)
            current = []
        elif nums is not None:
            current.append(line)
    if nums is not None:
        hunks.append(DiffHunk(*nums, lines=tuple(current)))
    return hunks


def edit_hunks(old: str, new: str, starts: Sequence[int], old_len: int, new_len: int) -> list[DiffHunk]:
    """Hunks for replacements of ``old_len`` chars at ``starts`` (in ``old``) by ``new_len`` chars.

    Line numbers are counted incrementally (one pass over the text before the last hunk).
    """
    hunks: list[DiffHunk] = []
    if not starts:
        return hunks
    delta = new_len - old_len
    s0 = starts[0]
    line_delta = new.count("\n", s0, s0 + new_len) - old.count("\n", s0, s0 + old_len)
    lines_before = 0
    counted_to = 0
    for first, last in _clusters(old, starts, old_len):
        o_lo, o_hi = _expand(old, starts[first], starts[last] + old_len)
        n_lo, n_hi = _expand(new, starts[first] + first * delta, starts[last] + last * delta + new_len)
        lines_before += old.count("\n", counted_to, o_lo)
        counted_to = o_lo
        hunks.extend(diff_texts(old[o_lo:o_hi], new[n_lo:n_hi], line_offset_old=lines_before,
                                line_offset_new=lines_before + first * line_delta))
        if len(hunks) >= MAX_HUNKS:
            break
    return hunks[:MAX_HUNKS]


def _clusters(text: str, starts: Sequence[int], length: int) -> list[tuple[int, int]]:
    """Index ranges of matches close enough (≤ 2×CONTEXT lines apart) to share one diff region."""
    groups: list[tuple[int, int]] = []
    for i in range(len(starts)):
        if groups and text.count("\n", starts[i - 1] + length, starts[i]) <= 2 * CONTEXT:
            groups[-1] = (groups[-1][0], i)
        else:
            groups.append((i, i))
            if len(groups) > MAX_HUNKS:
                break
    return groups


def _expand(text: str, lo: int, hi: int) -> tuple[int, int]:
    """Widen [lo, hi) to whole lines plus CONTEXT lines on each side."""
    for _ in range(CONTEXT + 1):
        lo = text.rfind("\n", 0, max(lo - 1, 0)) + 1 if lo > 0 else 0
    for _ in range(CONTEXT + 1):
        nxt = text.find("\n", hi)
        if nxt < 0:
            return lo, len(text)
        hi = nxt + 1
    return lo, hi
