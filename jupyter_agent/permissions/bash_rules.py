"""Bash rule specifiers: ``git log:*`` / ``ls *`` (prefix, word boundary), ``*`` anywhere, exact.

Rules are matched against one simple command at a time, rendered with its words quoted so
that ``git 'log --x'`` (one argument) is not mistaken for ``git log --x``.  A pattern is
compiled once per rule set into the cheapest test: equality, ``str.startswith``, or a regex
only when a ``*`` sits in the middle.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .bash_words import Word

_NEEDS_QUOTING = re.compile(r"[\s'\"\\]")  # the same test as ``Word.rendered``


@dataclass(frozen=True)
class BashPattern:
    """A compiled specifier; ``head`` is the literal text before any wildcard."""

    head: str
    prefix: bool = False
    regex: re.Pattern[str] | None = None
    # derived once in __post_init__ (rules are compiled once per settings)
    _head_space: str = field(init=False, repr=False, compare=False, default="")
    _stripped: str = field(init=False, repr=False, compare=False, default="")
    _stripped_space: str = field(init=False, repr=False, compare=False, default="")
    _open: bool = field(init=False, repr=False, compare=False, default=False)

    def __post_init__(self) -> None:
        stripped = self.head.rstrip()
        object.__setattr__(self, "_head_space", self.head + " ")
        object.__setattr__(self, "_stripped", stripped)
        object.__setattr__(self, "_stripped_space", stripped + " ")
        object.__setattr__(self, "_open", self.regex is not None or self.prefix)

    def matches(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.fullmatch(text) is not None
        if self.prefix:
            return text == self.head or text.startswith(self._head_space)
        return text == self.head

    def may_match(self, known: str) -> bool:
        """Could a command whose text starts with ``known`` + unknown words match?"""
        known = known.rstrip()
        if not known:
            return True
        head = self._stripped
        # (known + " ").startswith(head + " "): known == head (covered first) or starts with head + " "
        return (
            head.startswith(known)
            or known.startswith(self._stripped_space)
            or (self._open and known.startswith(head))
        )


@lru_cache(maxsize=2048)
def compile_bash_pattern(content: str) -> BashPattern:
    content = content.strip()
    if content.endswith(":*"):
        return BashPattern(content[:-2].rstrip(), prefix=True)
    if content.endswith(" *") and "*" not in content[:-2]:
        return BashPattern(content[:-2].rstrip(), prefix=True)
    if "*" in content:
        trailing = content.endswith(" *")
        body = content[:-2] if trailing else content
        regex = ".*".join(re.escape(part) for part in body.split("*"))
        if trailing:
            regex += "(?: .*)?"
        return BashPattern(body.split("*", 1)[0], regex=re.compile(regex, re.DOTALL))
    return BashPattern(content)


def render(word: Word) -> str:
    """A word for matching: a fixed one quoted only when needed, a dynamic one as written."""
    text = word.text
    if not word.static or word.glob:
        return text
    if text and _NEEDS_QUOTING.search(text) is None:
        return text
    return shlex.quote(text)


def command_text(words: Sequence[Word]) -> str:
    """The words joined for matching: literals quoted when needed, dynamic ones as written."""
    return form_text(words)[0]


def known_text(words: Sequence[Word]) -> tuple[str, bool]:
    """The text of the leading fixed words, and whether every word is fixed."""
    _text, known, complete = form_text(words)
    return known, complete


def form_text(words: Sequence[Word]) -> tuple[str, str, bool]:
    """In one pass: the command's text, the text of its leading fixed words, whether all are fixed."""
    parts: list[str] = []
    first_dynamic = -1
    for word in words:
        if first_dynamic < 0 and (not word.static or word.glob):
            first_dynamic = len(parts)
        parts.append(word.text)
    joined = " ".join(parts)
    # Quick test that no word needs quoting: every blank but " " is unprintable, a word with a
    # space adds one, and an empty word ('') is the last case.
    if (
        not joined.isprintable() or "'" in joined or '"' in joined or "\\" in joined
        or joined.count(" ") != len(parts) - 1 or "" in parts
    ):
        parts = [render(word) for word in words]
        joined = " ".join(parts)
    if first_dynamic < 0:
        return joined, joined, True
    return joined, " ".join(parts[:first_dynamic]), False
