"""Tables of program subcommands that need a question whatever rule or mode allows the program
(``implicit_writes``: ``pre-commit install``; ``bash_credentials``: ``gh auth token``).

An entry is ``(program, subcommand words, conditions, what)``.  A command matches when its
words that are not options start with the subcommand words and, if conditions are given, one of
them holds: one of the options is present (``--install``), or ``BARE`` (no word after the
subcommand: ``aws configure``), ``TWO_MORE`` (two or more: ``poetry config KEY VALUE``),
``SECRET_OPERAND`` (a word after it names a secret: ``aws configure get aws_secret_access_key``).
A word known only at run time may be any option, so it meets the conditions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .bash_words import Word, long_option_named

BARE = "<nothing after the subcommand>"
TWO_MORE = "<two more words>"
SECRET_OPERAND = "<a word that names a secret>"
_SECRETISH = re.compile(r"secret|token|key|passw|auth|credential", re.IGNORECASE)

Entry = tuple[str, tuple[str, ...], frozenset[str], str]


class SubcommandTable:
    def __init__(self, entries: Iterable[Entry]) -> None:
        self._by_program: dict[str, list[tuple[tuple[str, ...], frozenset[str], str]]] = {}
        for program, subs, conditions, what in entries:
            self._by_program.setdefault(program, []).append((subs, conditions, what))
        self.programs = frozenset(self._by_program)

    def match(self, program: str, words: Sequence[Word]) -> tuple[tuple[str, ...], str] | None:
        """``(program and subcommand words, what)`` of the first entry ``words`` (the arguments
        after the program) matches, or None."""
        entries = self._by_program.get(program)
        if not entries:
            return None
        texts = [w.literal for w in words]
        plain = [t for t in texts if t is not None and t[:1] != "-"]
        options = {(t or "").partition("=")[0] for t in texts if t is None or t[:1] == "-"}
        for subs, conditions, what in entries:
            if tuple(plain[:len(subs)]) != subs:
                continue
            if conditions and None not in texts and not self._met(conditions, options, plain[len(subs):]):
                continue
            return (program, *subs), what
        return None

    @staticmethod
    def _met(conditions: frozenset[str], options: set[str], after: list[str]) -> bool:
        return bool(
            # an option given, or a long option's beginning (nbstripout --inst is --install)
            any(long_option_named(o, conditions, 4) is not None for o in options)
            or (BARE in conditions and not after)
            or (TWO_MORE in conditions and len(after) >= 2)
            or (SECRET_OPERAND in conditions and any(_SECRETISH.search(t) for t in after))
        )


__all__ = ["BARE", "SECRET_OPERAND", "TWO_MORE", "SubcommandTable"]
