"""``for f in *.py; do wc -l "$f"; done``: the loop's body once per value, with ``"$f"`` replaced.

Agents loop over files all the time, and ``"$f"`` alone is a file only known at run time: the
line asked even where ``wc -l *.py`` runs freely.  Here a ``for`` whose values are fixed words
(globs included: ``*.py``) is read as its body once per value, in a ``{ … }`` group where the
loop was, with each ``"$f"`` (``"${f}"``) that is a whole argument replaced by the value:

- a glob value stays a glob: ``"$f"`` is one file it matches, and the analysis checks every file
  the glob matches (and the pattern itself when none does, as bash then gives it);
- unquoted ``$f`` is replaced only by a value without blanks or glob characters (bash splits
  and globs an unquoted expansion: ``$f`` of ``a b.txt`` reads ``a`` and ``b.txt``);
- any other use of the variable (``"$f.bak"``, ``${f%.py}``) stays an expansion: a value only
  known at run time, as before;
- the loop is left as it is when the body may set the variable (``read f``, ``f=…``, a ``for f``
  inside), when the variable is one that changes what runs (``for PATH in …``: it asks), when a
  value is not a fixed word (``for f in $(ls)``), or when the unrolled text would be large.

Unrolling runs every value's body, which is what the loop may run (``break`` only runs less).
The line is then parsed again.  ``tests/permissions/test_bash_loops.py`` and the argv oracle
(``test_argv_oracle.py``) run such loops in bash and compare what the programs were given.
"""

from __future__ import annotations

import re

from .bash_words import Node
from .bash_wrappers import dangerous_env

_MAX_VALUES = 16
_MAX_TEXT = 20_000  # bytes of the unrolled line
_FIXED = re.compile(rb"[A-Za-z0-9_./*?,:=@%+-]+")  # a word: no expansion, brace, tilde or quote
_PLAIN = re.compile(rb"[A-Za-z0-9_./,:=@%+-]+")  # and no glob: unquoted $f of it is itself


MAY_LOOP = re.compile(rb"(?<![\w-])for\s")  # a line without it has no for loop


def unroll_loops(root: Node, data: bytes) -> bytes | None:
    """``data`` with the outermost ``for`` loops that can be unrolled unrolled; None when none
    can (the caller parses the result again, which unrolls the loops inside them)."""
    edits: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "for_statement":
            text = _unrolled(node, data)
            if text is not None:
                edits.append((node.start_byte, node.end_byte, text))
                continue
        stack.extend(node.children)
    if not edits:
        return None
    out = bytearray()
    copied = 0
    for start, end, text in sorted(edits):
        out += data[copied:start] + text
        copied = end
    out += data[copied:]
    return bytes(out) if len(out) <= _MAX_TEXT else None


def _unrolled(loop: Node, data: bytes) -> bytes | None:
    if loop.children[0].type != "for":
        return None  # select: the body runs on what is typed
    variable = loop.child_by_field_name("variable")
    body = loop.child_by_field_name("body")
    values = loop.children_by_field_name("value")
    if variable is None or body is None or body.type != "do_group" or not values or len(values) > _MAX_VALUES:
        return None
    name = data[variable.start_byte:variable.end_byte]
    if not re.fullmatch(rb"[A-Za-z_][A-Za-z0-9_]*", name) or dangerous_env(name.decode()):
        return None  # for PATH in …: stays a loop, whose assignment asks
    texts = [_value(v, data) for v in values]
    if any(t is None for t in texts):
        return None
    uses = _uses(body, name, data)
    if uses is None:
        return None
    whole, unquoted = uses
    inner_start = body.children[0].end_byte  # after `do`
    inner_end = body.children[-1].start_byte  # before `done`
    copies = []
    for value in texts:
        assert value is not None
        plain = _PLAIN.fullmatch(value) is not None
        spots = [(s, e, value) for s, e in whole] + [(s, e, value) for s, e in unquoted if plain]
        piece = bytearray()
        copied = inner_start
        for start, end, text in sorted(spots):
            piece += data[copied:start] + text
            copied = end
        piece += data[copied:inner_end]
        copies.append(bytes(piece).strip(b" \t\n;") or b":")
    return b"{ " + b"\n".join(copies) + b"\n}"


def _value(node: Node, data: bytes) -> bytes | None:
    """A loop value as its fixed text (a word, a glob, ``'…'``, ``"…"`` with nothing to
    expand); None for anything else."""
    text = data[node.start_byte:node.end_byte]
    if node.type in ("word", "number"):
        return text if _FIXED.fullmatch(text) else None
    if node.type == "raw_string":
        return text
    if node.type == "string" and all(c.type in ('"', "string_content") for c in node.children) and not any(
            c in text for c in (b"$", b"`", b"\\", b"!")):
        return text
    return None


def _uses(body: Node, name: bytes, data: bytes) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Where the body uses the variable as a whole quoted argument (``"$f"``) and as a whole
    unquoted one (``$f``); None when the variable's name is anywhere else in the body text, where
    it may be set (``read f``, ``f=…``, ``${f:=x}``, ``let f++``, a ``for f`` inside)."""
    whole: list[tuple[int, int]] = []
    unquoted: list[tuple[int, int]] = []
    read = re.compile(rb"\$(?:" + name + rb"|\{" + name + rb"\}|\{#" + name + rb"\}|\{" + name
                      + rb"(?:%%?|##?|//?|:?-|\^\^?|,,?)[^}]*\})")  # uses that cannot set it
    spans: list[tuple[int, int]] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in ("simple_expansion", "expansion") and read.fullmatch(_text(node, data)):
            spans.append((node.start_byte, node.end_byte))
            simple = _text(node, data) in (b"$" + name, b"${" + name + b"}")
            parent = node.parent
            if simple and parent is not None and parent.type == "string" and len(parent.named_children) == 1 and (
                    _text(parent, data) == b'"' + _text(node, data) + b'"') and _argument(parent):
                whole.append((parent.start_byte, parent.end_byte))
            elif simple and _argument(node):
                unquoted.append((node.start_byte, node.end_byte))
            continue
        stack.extend(node.children)
    rest = bytearray(data[body.start_byte:body.end_byte])
    for start, end in spans:
        rest[start - body.start_byte:end - body.start_byte] = b" " * (end - start)
    if re.search(rb"(?<![A-Za-z0-9_])" + name + rb"(?![A-Za-z0-9_])", bytes(rest)):
        return None
    return whole, unquoted


def _argument(node: Node) -> bool:
    """Is ``node`` a whole word of a command (an argument, not part of a longer word)?"""
    parent = node.parent
    return parent is not None and parent.type == "command" and node.type != "command_name"


def _text(node: Node, data: bytes) -> bytes:
    return data[node.start_byte:node.end_byte]


__all__ = ["MAY_LOOP", "unroll_loops"]
