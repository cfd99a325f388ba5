"""Deny and ask rules past options: ``Bash(docker rm:*)`` also matches ``docker --context x rm c``.

A rule's words are matched against the command's text from its start, so an option before a
subcommand (``npm --loglevel silent publish``, ``kubectl -n prod delete pod x``,
``aws --profile p s3 rm s3://b``, ``qa -- push``) would slip past a deny rule naming the
subcommand.  For deny and ask rules whose specifier is plain words (a prefix rule such as
``docker rm:*``, or an exact one), the command's words are matched again with options skipped
between them: each option a flag, or an option with one value (its width is not known, so
both readings are tried).  Any reading that matches counts, so this can only deny or ask
more, never allow more; allow rules never skip anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_rules import BashPattern
from .bash_words import Word

_SPECIAL = frozenset("'\"\\*$`")
Skips = dict[str, tuple[tuple[str, tuple[str, ...], bool], ...]]  # program → (rule, words, prefix)
MAYBE = "maybe"


def skip_rules(patterns: Sequence[tuple[str, BashPattern]]) -> Skips:
    """The rules of ``patterns`` worth matching past options, by their program word."""
    found: dict[str, list[tuple[str, tuple[str, ...], bool]]] = {}
    for rule, pattern in patterns:
        if pattern.regex is not None:
            continue
        words = tuple(pattern.head.split(" "))
        if len(words) < 2 or any(not w or _SPECIAL.intersection(w) for w in words):
            continue
        found.setdefault(words[0], []).append((rule, words, pattern.prefix))
    return {program: tuple(rules) for program, rules in found.items()}


def skipping_match(form: tuple[Word, ...], skips: Skips) -> tuple[str, bool] | None:
    """The first rule of ``skips`` that ``form`` matches with options skipped: ``(rule, True)``;
    ``(rule, False)`` when it may match (a word known only at run time); else None."""
    rules = skips.get(form[0].literal or "") if form else None
    if not rules or not _has_option(form):
        return None
    maybe = None
    for rule, words, prefix in rules:
        verdict = _match(form, words, prefix)
        if verdict is True:
            return rule, True
        if verdict == MAYBE and maybe is None:
            maybe = rule
    return (maybe, False) if maybe is not None else None


def _has_option(form: tuple[Word, ...]) -> bool:
    for word in form[1:]:
        text = word.literal
        if text is None or text[:1] == "-":
            return True
    return False


def _match(form: tuple[Word, ...], words: tuple[str, ...], prefix: bool) -> bool | str:
    """Do ``form``'s words from index 1 read ``words[1:]`` with only options between them?"""
    end = len(form)
    need = len(words)
    maybe = False
    seen: set[tuple[int, int]] = set()
    todo = [(1, 1)]  # (index in form, index in words)
    while todo:
        j, i = todo.pop()
        if i == need:
            if prefix or j == end:
                return True
            continue
        if j >= end or (j, i) in seen:
            continue
        seen.add((j, i))
        text = form[j].literal
        if text is None:  # only known at run time: it may be the word, or an option
            maybe = True
            continue
        if text == words[i]:
            todo.append((j + 1, i + 1))
        if text[:1] == "-" and text != "-":
            todo.append((j + 1, i))
            if "=" not in text and text != "--":
                todo.append((j + 2, i))
    return MAYBE if maybe else False
