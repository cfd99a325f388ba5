"""Brace expansion as bash does it, for the path checks: ``cp {.env,a.txt} /tmp`` names ``.env``.

Only plain text is expanded (a word whose braces or commas are quoted or escaped, or that holds
an expansion, gives ``None``: the caller cannot tell what it names and asks).  Comma lists nest
(``{a,{b,c}}``), ranges count (``{1..3}``, ``{01..10..3}``, ``{a..e}``), and a brace bash would
leave alone stays as it is (``{a}``, ``{}``, an unmatched ``{``); an empty result is dropped.  When braces that could
still expand remain after the expansion, the answer is ``None`` too: fail closed, never a
partial list.
"""

from __future__ import annotations

MAX_WORDS = 512  # more than this and the caller asks instead of checking each one
_UNSURE = set("\\'\"$`")


def expand_braces(text: str) -> list[str] | None:
    """The words bash's brace expansion makes of ``text``, in order; ``None`` when unsure."""
    if not _may_expand(text):
        return [text]
    if _UNSURE & set(text) or "{}" in text:  # bash reads `{}` next to other braces its own way
        return None
    words = _expand(text)
    if words is None or len(words) > MAX_WORDS:
        return None
    if any(_may_expand(w) for w in words):
        return None
    return [w for w in words if w]  # an empty word is dropped, as an unquoted null field is


def _expand(text: str) -> list[str] | None:
    start = text.find("{")
    while start >= 0:
        end, commas = _match(text, start)
        if end is None:
            return [text]  # unmatched: bash leaves the rest as it is
        body = text[start + 1:end]
        if commas:
            alternatives: list[str] = []
            bounds = [start, *commas, end]
            for left, right in zip(bounds, bounds[1:], strict=False):
                found = _expand(text[left + 1:right])
                if found is None:
                    return None
                alternatives.extend(found)
        else:
            alternatives = _sequence(body)  # type: ignore[assignment]
            if alternatives is None:
                start = text.find("{", start + 1)  # a literal brace: look further on
                continue
        rests = _expand(text[end + 1:])
        if rests is None or len(alternatives) * len(rests) > MAX_WORDS:
            return None
        head = text[:start]
        return [head + a + r for a in alternatives for r in rests]
    return [text]


def _match(text: str, start: int) -> tuple[int | None, list[int]]:
    """The index of the ``}`` closing the ``{`` at ``start``, and the top-level commas between."""
    depth = 0
    commas: list[int] = []
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif ch == "," and depth == 1:
            commas.append(i)
    return None, commas


def _sequence(body: str) -> list[str] | None:
    """``1..5``, ``5..1``, ``1..10..2``, ``01..10`` (zero-padded), ``a..e``; else None."""
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    first, last = parts[0], parts[1]
    step_text = parts[2] if len(parts) == 3 else "1"
    if not _is_int(step_text):
        return None
    step = abs(int(step_text)) or 1
    if _is_int(first) and _is_int(last):
        a, b = int(first), int(last)
        width = max(len(first), len(last)) if _padded(first) or _padded(last) else 0
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(numbers) > MAX_WORDS:
            return None
        return [str(n).zfill(width) if n >= 0 else "-" + str(-n).zfill(width - 1) for n in numbers]
    if len(first) == 1 and len(last) == 1 and first.isascii() and last.isascii() and first.isalpha() and last.isalpha():
        a, b = ord(first), ord(last)
        codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(c) for c in codes]
    return None


def _is_int(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isdigit() and digits.isascii()


def _padded(text: str) -> bool:
    digits = text.lstrip("+-")
    return len(digits) > 1 and digits[0] == "0"


def _may_expand(word: str) -> bool:
    """Could bash expand a brace in ``word``: a ``{``, then a comma or ``..``, then a ``}``?
    (Loose on purpose: a false yes only means the caller asks.)"""
    start = word.find("{")
    if start < 0:
        return False
    end = word.rfind("}")
    inner = word[start + 1:end] if end > start else ""
    return "," in inner or ".." in inner


__all__ = ["MAX_WORDS", "expand_braces"]
