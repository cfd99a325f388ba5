"""The common line in one tight loop: plain commands joined by ``;``, ``&&``, ``||`` and ``|``,
with file redirections such as ``> out.log 2>&1``.

Most lines an agent runs are a few commands whose words are bare words or single-quoted
strings (``git diff HEAD~1 -- src/app.py``, ``grep -rn 'TODO' src/ | head -20``).  For those,
``fast_parse`` builds exactly what the general walker (``bash_parse._Walker``) builds, with
no per-node method dispatch.  On anything else it returns ``None`` *before* deciding anything,
and the caller runs the general walker; ``tests/permissions/test_parse_speedups.py`` checks
that both give equal results on a corpus.  It adds no shortcut of its own: a word is taken
only when the general path would read it as a fixed literal without a problem, and the line
only when ``skipped_text`` would find nothing skipped in it.
"""

from __future__ import annotations

from typing import Any

import tree_sitter_bash
from tree_sitter import Language

from .bash_commands import (
    CMD_SLOT_SETTERS,
    DEV_SINKS,
    READ_OPS,
    WRITE_OPS,
    ParsedCommand,
    Redirect,
    SimpleCommand,
)
from .bash_lexcheck import covered_through
from .bash_words import Node, Word, WordReader
from .bash_wordshape import tilde_expands

LANGUAGE = Language(tree_sitter_bash.language())  # the one Language; bash_parse's parsers use it too


def _ids(*names: str) -> frozenset[int]:
    """Every node kind id whose ``type`` is one of ``names`` (a name can have several ids)."""
    return frozenset(
        i for i in range(LANGUAGE.node_kind_count) if LANGUAGE.node_kind_for_id(i) in names
    )


_COMMAND = _ids("command")
_COMMAND_NAME = _ids("command_name")
_JOINS = _ids("program", "list", "pipeline")
_REDIRECTED = _ids("redirected_statement")
_FILE_REDIRECT = _ids("file_redirect")
_COMMENT = _ids("comment")
_BARE_WORD = _ids("word")
_NUMBER = _ids("number")
_RAW_STRING = _ids("raw_string")
_BLANKS = " \t\n"  # what bash_lexcheck.skipped_text counts as blank
_new = object.__new__
_set_text = Word.text.__set__  # type: ignore[attr-defined]
_set_static = Word.static.__set__  # type: ignore[attr-defined]
_set_glob = Word.glob.__set__  # type: ignore[attr-defined]
_set_words, _set_assignments, _set_nested, _set_kind, _set_operators = CMD_SLOT_SETTERS


def fast_parse(root: Node, source: str, printable: bool, general: type) -> ParsedCommand | None:
    """The parse of an ASCII line ``source``; ``None`` when the general path must read it all.

    Plain commands are read here; any other statement of the line (a loop, an assignment, a
    command with a quoted or dynamic word ...) is handed to one ``general`` walker
    (``bash_parse._Walker``) on the spot, so commands, redirections and problems come out in
    the order of the general path.  ``printable``: ``source.isprintable()``.  When no
    character of a printable line makes a bare word dynamic, a glob or a problem
    (``bash_words.plain_line`` but for ``~``, inline here), a word is only checked for blanks
    and a leading ``~``; otherwise every bare word is checked in full (``_literal_word``).
    The tokens are visited in order, as ``bash_lexcheck.skipped_text`` visits them (handed
    statements through ``covered_through``); text between them that is not blank (tree-sitter
    dropped it) means ``None``: the general path then reports it.
    """
    plain_line = printable and not (
        "$" in source or "`" in source or "\\" in source or "*" in source or "?" in source
        or "[" in source or "{" in source
    )
    tilde = "~" in source  # a word starting with ~ is a glob (HEAD~1 is not)
    commands: list[SimpleCommand] = []
    redirects: list[Redirect] = []
    problems: list[str] = []
    walker = None  # the general walker, made for the first statement it reads
    covered = 0  # end of the last token seen
    if root.kind_id not in _JOINS:
        return None
    stack = root.children[::-1]  # (py-tree-sitter caches the list: never reverse() it)
    while stack:
        node = stack.pop()
        if node.__class__ is tuple:  # the redirections after a list's tokens: check the gaps
            for child, end in zip(*node, strict=True):
                start = child.start_byte
                if start > covered and (
                    source[covered:start].strip(_BLANKS) or "\n" in source[covered:start]
                ):
                    return None
                covered = end
            continue
        kind = node.kind_id
        statement = None  # a redirected statement whose body ``body`` is
        body = node
        if kind not in _COMMAND:
            if kind in _JOINS:
                stack.extend(node.children[::-1])
                continue
            if kind in _COMMENT or not node.is_named:  # a comment or an operator token
                start = node.start_byte
                if start > covered and source[covered:start].strip(_BLANKS):
                    return None
                covered = max(covered, node.end_byte)
                continue
            if kind in _REDIRECTED:
                statement = node.children
                body = statement[0]
                if body.kind_id in _JOINS and node.field_name_for_child(0) == "body":
                    ends = _redirects_ahead(statement, source, plain_line, redirects)
                    if ends is not None:  # `a && b > log` (as tree-sitter reads it)
                        stack.append((statement[1:], ends))
                        stack.append(body)
                        continue
            if statement is None or body.kind_id not in _COMMAND or (
                node.field_name_for_child(0) != "body"
            ):
                if walker is None:
                    walker = general(ParsedCommand(commands, redirects, problems), WordReader(source))
                covered = _hand_over(node, source, covered, walker)
                if covered < 0:
                    return None
                continue
        first_redirect = len(redirects)
        before = covered
        words = []
        word_end = -1
        for child in body.children:
            kind = child.kind_id
            if kind not in _BARE_WORD:
                if kind in _COMMAND_NAME:
                    inner = child.children
                    if len(inner) != 1:
                        break
                    child = inner[0]
                    kind = child.kind_id
                elif kind in _FILE_REDIRECT:
                    covered = _file_redirect(child, source, plain_line, covered, redirects, before)
                    if covered < 0:
                        break
                    continue
            start = child.start_byte
            if start == word_end:
                break  # two nodes, one bash word (`.[\\e]nv`): the general walker reports it
            if start > covered:
                gap = source[covered:start]
                if gap != " ":
                    if gap.strip(_BLANKS):
                        return None
                    if "\n" in gap and covered != before:
                        break  # the next line glued on: the general walker reports it
            covered = word_end = child.end_byte
            text = source[start:covered]
            if kind in _BARE_WORD:
                if plain_line:  # (then the line, so the word too, is printable)
                    if " " in text or tilde and "~" in text and tilde_expands(text):
                        break  # glued words, ~: the general walker reads them
                elif not _literal_word(text) or " " in text or not text.isprintable():
                    break
            elif kind in _RAW_STRING:
                text = text[1:-1]
            elif kind not in _NUMBER or not plain_line and ("$" in text or "`" in text):
                break  # (10#$(cmd) is a number node: the general walker reads it)
            elif source[covered:covered + 1] in ("<", ">") and text.isdigit():
                break  # `sh 0< f`: the descriptor of a redirection (the general walker drops it)
            word = _new(Word)
            _set_text(word, text)
            _set_static(word, True)
            _set_glob(word, False)
            words.append(word)
        else:
            if len(words) != 1 or words[0].text != "!":  # `! !`: the general walker reports it
                command = _new(SimpleCommand)
                _set_words(command, tuple(words))
                _set_assignments(command, ())
                _set_nested(command, False)
                _set_kind(command, "command")
                _set_operators(command, ())
                if statement is None:
                    commands.append(command)
                    continue
                covered = _statement_redirects(
                    statement, source, plain_line, covered, redirects, first_redirect, before
                )
                if covered >= 0:
                    commands.append(command)
                    continue
        # Not plain after all: the general walker reads the whole statement instead.
        del redirects[first_redirect:]
        if walker is None:
            walker = general(ParsedCommand(commands, redirects, problems), WordReader(source))
        covered = _hand_over(node, source, before, walker)
        if covered < 0:
            return None
    if not commands or covered < len(source) and source[covered:].strip(_BLANKS):
        return None
    if walker is not None:
        walker.finish()
    return ParsedCommand(commands, redirects, problems)


def _hand_over(node: Node, source: str, covered: int, walker: Any) -> int:
    """The general walker reads ``node``'s statement, after the same check for skipped text."""
    covered = covered_through(node, source, covered)
    if covered >= 0:
        walker.walk(node)
    return covered


def _redirects_ahead(
    statement: list[Node], source: str, plain_line: bool, redirects: list[Redirect]
) -> list[int] | None:
    """The redirections of a statement whose body is a list, recorded before the list's own
    (where the general walker records them); the end of each, whose gap from the token before
    it is checked after the list.  ``None`` when one is not plain."""
    found: list[Redirect] = []
    ends = []
    for child in statement[1:]:
        if child.kind_id not in _FILE_REDIRECT:
            return None
        end = _file_redirect(child, source, plain_line, child.start_byte, found, -1)
        if end < 0:
            return None
        ends.append(end)
    redirects.extend(found)
    return ends


def _statement_redirects(
    statement: list[Node], source: str, plain_line: bool, covered: int,
    redirects: list[Redirect], first: int, before: int,
) -> int:
    """The redirections of a redirected statement, listed before its body's own (as the
    general walker lists them); the end of the last token, or -1."""
    for child in statement[1:]:
        if child.kind_id not in _FILE_REDIRECT:
            return -1
        added = len(redirects)
        covered = _file_redirect(child, source, plain_line, covered, redirects, before)
        if covered < 0:
            return -1
        if len(redirects) > added:
            redirects.insert(first, redirects.pop())
            first += 1
    return covered


def _word(kind: int, text: str, plain_line: bool) -> Word | None:
    """The value of a bare word, number or single-quoted string when it is a fixed literal."""
    if kind in _BARE_WORD:
        if " " in text or not text.isprintable() or not _literal_word(text):
            return None  # glued words, dynamic, globs: the general path reads them
    elif kind in _RAW_STRING:
        text = text[1:-1]
    elif kind not in _NUMBER or not plain_line and ("$" in text or "`" in text):
        return None
    word = _new(Word)
    _set_text(word, text)
    _set_static(word, True)
    _set_glob(word, False)
    return word


def _file_redirect(
    node: Node, source: str, plain_line: bool, covered: int, redirects: list[Redirect],
    before: int,
) -> int:
    """``>``, ``>>``, ``2>&1``, ``<`` … with one fixed target, as ``_Walker._redirect`` reads
    them; returns the end of its last token, or -1 when the general walker must read it
    (``before``: where its statement starts; a newline after that splits it in bash)."""
    op = None
    target = None
    for child in node.children:
        start = child.start_byte
        if start > covered and (
            source[covered:start].strip(_BLANKS) or covered != before and "\n" in source[covered:start]
        ):
            return -1
        covered = end = child.end_byte
        if not child.is_named:
            if op is not None:
                return -1
            op = child.type
        elif child.type != "file_descriptor":
            if target is not None:
                return -1
            target = _word(child.kind_id, source[start:end], plain_line)
            if target is None:
                return -1
    if target is None or op is None:
        return -1
    text = target.text
    if op in (">&", "<&") and (text.isdigit() or text == "-"):
        return covered  # fd duplication (2>&1), not a file
    if op in WRITE_OPS:
        if text not in DEV_SINKS:
            redirects.append(Redirect(target, True))
    elif op in READ_OPS:
        redirects.append(Redirect(target, False))
    elif op != "<&":
        return -1
    return covered


def _literal_word(text: str) -> bool:
    """A bare word that ``WordReader._plain`` reads as itself: static, no glob, no problem."""
    return not (
        "$" in text or "`" in text or "\\" in text or "*" in text or "?" in text or "[" in text
        or "{" in text or "~" in text and tilde_expands(text)
    )
