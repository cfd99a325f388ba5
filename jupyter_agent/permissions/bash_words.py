"""The value of one shell word from its tree-sitter node: literal text, or marked dynamic.

Bash expands a word in several ways (quotes, escapes, parameters, globs, braces, tildes).  We
compute the literal value when it is fixed and otherwise say *why* it is not; anything the
parser may have misunderstood (a backtick or ``$(`` left in plain text) is a problem, which
makes the whole command ask.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import cached_property
from typing import Any

Node = Any  # tree_sitter.Node

SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_GLOB_CHARS = frozenset("*?[")
# ${x<op>...} operators whose operands are plain words (no arithmetic, no prompt expansion).
_SAFE_EXPANSION_OPS = frozenset(
    {":-", "-", ":+", "+", ":?", "?", ":=", "=", "#", "##", "%", "%%", "/", "//", "/#", "/%",
     "^", "^^", ",", ",,", "${", "}", "$"}
)
_MAX_DEPTH = 64
_NEEDS_QUOTING = re.compile(r"[\s'\"\\]")


@dataclass(frozen=True)
class Word:
    """One word: ``text`` is the literal value when ``static``, else the source text."""

    text: str
    static: bool = True
    glob: bool = False  # unquoted glob, brace or tilde characters: expands at run time

    @property
    def literal(self) -> str | None:
        return self.text if self.static and not self.glob else None

    @cached_property
    def rendered(self) -> str:
        """For rule matching: fixed words quoted only when needed, dynamic ones as written."""
        if not self.static or self.glob:
            return self.text
        if self.text == "" or _NEEDS_QUOTING.search(self.text) is not None:
            return shlex.quote(self.text)
        return self.text


class WordReader:
    """Reads words; collects nested command substitutions and problems as it goes."""

    def __init__(self) -> None:
        self.substitutions: list[Node] = []
        self.problems: list[str] = []
        self._in_expansion = 0  # inside ${...} an operand may contain blanks

    def read(self, node: Node) -> Word:
        return self._read(node, 0)

    def _read(self, node: Node, depth: int) -> Word:
        if depth > _MAX_DEPTH:
            self.problems.append("a word nested too deeply to analyze")
            return Word(_text(node), static=False)
        kind = node.type
        if kind == "word":
            return self._plain(_text(node))
        if kind in ("number", "variable_name"):
            return Word(_text(node))
        if kind == "raw_string":
            return Word(_text(node)[1:-1])
        if kind == "string":
            return self._string(node, depth)
        if kind == "concatenation":
            return self._concat(node, depth)
        if kind in ("simple_expansion", "expansion"):
            self._check_expansion(node, depth)
            return Word(_text(node), static=False)
        if kind in SUBSTITUTIONS:
            self.substitutions.append(node)
            return Word(_text(node), static=False)
        if kind == "arithmetic_expansion":
            self._check_arithmetic(node)
            return Word(_text(node), static=False)
        if kind == "ansi_c_string":
            text = _text(node)
            return Word(text[2:-1]) if "\\" not in text else Word(text, static=False)
        if kind == "extglob_pattern" and "$" not in _text(node) and "`" not in _text(node):
            return Word(_text(node), glob=True)  # a case pattern such as a|b or *
        if kind in ("translated_string", "brace_expression"):
            self._scan(node, depth)
            return Word(_text(node), static=False, glob=kind == "brace_expression")
        if kind == "subscript":  # a[$(cmd)]=1: the index is evaluated (arithmetic)
            self.problems.append(f"array subscript (arithmetic) in {_text(node)[:40]}")
            self._scan(node, depth)
            return Word(_text(node), static=False)
        if not node.is_named and kind == "$":
            return Word("$")
        self.problems.append(f"unsupported word syntax ({kind}): {_text(node)[:40]}")
        return Word(_text(node), static=False)

    def _plain(self, text: str) -> Word:
        """An unquoted word: backslash escapes removed; globs, braces and ``~`` noted."""
        if "`" in text or "$(" in text:
            self.problems.append(f"unparsed substitution in {text[:40]!r}")
        if "\\" not in text:  # the common case, without a per-character loop
            if not self._in_expansion and (" " in text or "\t" in text or "\n" in text):
                self.problems.append(f"unexpected whitespace inside the word {text[:40]!r}")
            glob = text.startswith("~") or "*" in text or "?" in text or "[" in text
            return Word(text, static="$" not in text, glob=glob or _is_brace(text))
        out: list[str] = []
        static, glob = True, text.startswith("~")
        escaped = False
        for ch in text:
            if escaped:
                out.append(ch)
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch in " \t\n" and not self._in_expansion:  # glued words: bash splits here
                self.problems.append(f"unexpected whitespace inside the word {text[:40]!r}")
                out.append(ch)
            else:
                if ch in _GLOB_CHARS:
                    glob = True
                elif ch == "$":
                    static = False
                out.append(ch)
        value = "".join(out)
        return Word(value, static=static, glob=glob or _is_brace(value))

    def _string(self, node: Node, depth: int) -> Word:
        parts: list[str] = []
        static = True
        for child in node.children:
            kind = child.type
            if kind == '"':
                continue
            if kind == "string_content":
                parts.append(self._double_quoted(_text(child)))
                continue
            part = self._read(child, depth + 1)
            static = static and part.static
            parts.append(part.text)
        return Word("".join(parts), static=static)

    def _double_quoted(self, text: str) -> str:
        if "`" in text.replace("\\`", "") or "$(" in text.replace("\\$", ""):
            self.problems.append(f"unparsed substitution in {text[:40]!r}")
        out: list[str] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\\" and i + 1 < len(text) and text[i + 1] in '\\"$`':
                out.append(text[i + 1])
                i += 2
                continue
            out.append(ch)
            i += 1
        return "".join(out)

    def _concat(self, node: Node, depth: int) -> Word:
        parts = [self._read(c, depth + 1) for c in node.children]
        text = "".join(p.text for p in parts)
        glob = any(p.glob for p in parts) or _looks_like_brace(parts)
        return Word(text, static=all(p.static for p in parts), glob=glob)

    def _check_expansion(self, node: Node, depth: int) -> None:
        """``${...}`` is fine with plain operators; subscripts, ``@P``, ``!`` and offsets ask."""
        for child in node.children:
            kind = child.type
            if not child.is_named:
                if kind not in _SAFE_EXPANSION_OPS:
                    self.problems.append(f"unsupported parameter expansion {_text(node)[:40]}")
                continue
            if kind in ("variable_name", "special_variable_name"):
                continue
            if kind == "subscript":
                self.problems.append(f"array subscript (arithmetic) in {_text(node)[:40]}")
                continue
            self._in_expansion += 1
            try:
                self._read(child, depth + 1)
            finally:
                self._in_expansion -= 1

    def _check_arithmetic(self, node: Node) -> None:
        """Arithmetic evaluates variable values as code (``a[$(cmd)]``): only numbers pass."""
        stack = list(node.children)
        while stack:
            child = stack.pop()
            if child.type in ("variable_name", "simple_expansion", "expansion", "subscript",
                              "command_substitution", "word"):
                self.problems.append(f"arithmetic on variables: {_text(node)[:40]}")
                return
            stack.extend(child.children)

    def _scan(self, node: Node, depth: int) -> None:
        for child in node.named_children:
            self._read(child, depth + 1)


def _is_brace(value: str) -> bool:
    """Brace expansion: ``{a,b}`` or ``{1..3}``."""
    return "{" in value and "}" in value and ("," in value or ".." in value)


def _looks_like_brace(parts: list[Word]) -> bool:
    """``{rm,x}`` arrives as a concatenation of ``{``, ``rm,x`` and ``}``."""
    text = "".join(p.text for p in parts)
    has_braces = any(p.text == "{" for p in parts) and any(p.text == "}" for p in parts)
    return has_braces and ("," in text or ".." in text)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "surrogateescape")
