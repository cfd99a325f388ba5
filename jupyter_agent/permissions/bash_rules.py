"""Bash rule specifiers: ``git log:*`` / ``ls *`` (prefix, word boundary), ``*`` anywhere, exact.

Rules are matched against one simple command at a time, rendered with its words quoted so
that ``git 'log --x'`` (one argument) is not mistaken for ``git log --x``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .bash_words import Word


@dataclass(frozen=True)
class BashPattern:
    """A compiled specifier; ``head`` is the literal text before any wildcard."""

    head: str
    prefix: bool = False
    regex: re.Pattern[str] | None = None

    def matches(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.fullmatch(text) is not None
        if self.prefix:
            return text == self.head or text.startswith(self.head + " ")
        return text == self.head

    def may_match(self, known: str) -> bool:
        """Could a command whose text starts with ``known`` + unknown words match?"""
        known = known.rstrip()
        if not known:
            return True
        head = self.head.rstrip()
        return head.startswith(known) or (known + " ").startswith(head + " ") or (
            (self.regex is not None or self.prefix) and known.startswith(head)
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


def command_text(words: Sequence[Word]) -> str:
    """The words joined for matching: literals quoted when needed, dynamic ones as written."""
    return " ".join([w.rendered for w in words])


def known_text(words: Sequence[Word]) -> tuple[str, bool]:
    """The text of the leading fixed words, and whether every word is fixed."""
    fixed: list[str] = []
    for word in words:
        if word.literal is None:
            return " ".join(fixed), False
        fixed.append(word.rendered)
    return " ".join(fixed), True
