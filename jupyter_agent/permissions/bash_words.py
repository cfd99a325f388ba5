"""The value of one shell word from its tree-sitter node: literal text, or marked dynamic.

Bash expands a word in several ways (quotes, escapes, parameters, globs, braces, tildes).  We
compute the literal value when it is fixed and otherwise say *why* it is not; anything the
parser may have misunderstood (a backtick or ``$(`` left in plain text) is a problem, which
makes the whole command ask.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from .bash_wordshape import dir_stack_tilde, is_brace, plain_line, tilde_expands

Node = Any  # tree_sitter.Node

SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_GLOB_CHARS = frozenset("*?[")
# ${x<op>...} operators whose operands are plain words (no arithmetic, no prompt expansion).
_SAFE_EXPANSION_OPS = frozenset(
    {":-", "-", ":+", "+", ":?", "?", ":=", "=", "#", "##", "%", "%%", "/", "//", "/#", "/%",
     "^", "^^", ",", ",,", "${", "}", "$"}
)
_MAX_DEPTH = 64
# the variables the script readers put where a task file's value is only known at run time
# (``"${JUST_VALUE}"``): no environment sets them, so they are never a value of the user's
RUN_TIME_NAMES: set[str] = set()
# those standing for files git lists (lefthook's {staged_files}: tracked files, never .git/'s)
LISTED_NAMES: set[str] = set()


def has_run_time_name(text: str) -> bool:
    """Does the word ``text`` hold one of ``RUN_TIME_NAMES`` (``${JUST_VALUE}/x``)?"""
    return "${" in text and any(name in RUN_TIME_NAMES for name in _BRACED.findall(text))


def only_listed_files(text: str) -> bool:
    """Is the word ``text`` one of ``LISTED_NAMES`` alone (``"${LEFTHOOK_FILES}"``)?"""
    return any(text.strip('"') == f"${{{name}}}" for name in LISTED_NAMES)


_BRACED = re.compile(r"\$\{(\w+)\}")


def run_time_word(name: str, quoted: bool = True, listed: bool = False) -> str:
    """The shell word a script reader writes for a value only known at run time; ``name``
    joins ``RUN_TIME_NAMES`` (``bash_arguments`` asks about a writer naming it, as for any path
    only known at run time, instead of taking it for the user's environment) — or, ``listed``,
    ``LISTED_NAMES``: files git lists, which a writer may name."""
    (LISTED_NAMES if listed else RUN_TIME_NAMES).add(name)
    return f'"${{{name}}}"' if quoted else f"${{{name}}}"


# $((…)) that is only numbers and operators: node kinds, number spellings, and characters.
_ARITHMETIC_NODES = frozenset(
    {"binary_expression", "unary_expression", "ternary_expression", "parenthesized_expression"}
)
_ARITHMETIC_TOKENS = frozenset(
    {"$((", "))", "$[", "]", "(", ")", "+", "-", "*", "/", "%", "**", "<<", ">>", "&", "|", "^",
     "&&", "||", "!", "~", "==", "!=", "<", ">", "<=", ">=", "?", ":", ",", "++", "--"}
)
_ARITHMETIC_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+(#[0-9A-Za-z@_]+)?")
_ARITHMETIC_CHARS = "0123456789abcdefABCDEFxX#+-*/%<>=!&|^~?:,() \t\n\\"
_NEEDS_QUOTING = re.compile(r"[\s'\"\\]")


class _WordCache:
    """Holds ``Word.rendered`` once computed, and whether the word's braces are exactly bash's
    (slots outside the dataclass fields)."""

    __slots__ = ("_rendered", "_exact_braces")


@dataclass(frozen=True, slots=True)
class Word(_WordCache):
    """One word: ``text`` is the literal value when ``static``, else the source text."""

    text: str
    static: bool = True
    glob: bool = False  # unquoted glob, brace or tilde characters: expands at run time

    @property
    def literal(self) -> str | None:
        return self.text if self.static and not self.glob else None

    @property
    def rendered(self) -> str:
        """For rule matching: fixed words quoted only when needed, dynamic ones as written."""
        try:
            return self._rendered
        except AttributeError:
            pass
        value = self.text
        if self.static and not self.glob and (value == "" or _NEEDS_QUOTING.search(value)):
            value = shlex.quote(value)
        _set_rendered(self, value)
        return value


class PipeWord(Word):
    """A word that is one process substitution alone (``<(sort a)``, ``>(gzip > a.gz)``): at run
    time the name of a pipe (``/dev/fd/63``) the commands inside write or read, which are
    analysed as commands of the line.  Reading or writing it as data touches no file; what its
    content is (code, a config, a list of files) is still only known at run time."""

    __slots__ = ()


_new = object.__new__
_set_rendered = _WordCache._rendered.__set__  # type: ignore[attr-defined]
_set_exact_braces = _WordCache._exact_braces.__set__  # type: ignore[attr-defined]
_set_text = Word.text.__set__  # type: ignore[attr-defined]
_set_static = Word.static.__set__  # type: ignore[attr-defined]
_set_glob = Word.glob.__set__  # type: ignore[attr-defined]


def exact_braces(word: Word) -> bool:
    """Is ``word`` one unquoted, unescaped word whose ``text`` holds its braces exactly as bash
    expands them?  (After quote removal ``{'a,b',c}`` and ``{a\\,b,c}`` read ``{a,b,c}``, which
    bash does not expand into ``a``, ``b``, ``c``.)"""
    try:
        return word._exact_braces  # type: ignore[attr-defined, no-any-return]
    except AttributeError:
        return False


def make_word(text: str, static: bool = True, glob: bool = False) -> Word:
    """``Word(text, static, glob)`` without the frozen dataclass ``__init__`` (a hot path)."""
    word = _new(Word)
    _set_text(word, text)
    _set_static(word, static)
    _set_glob(word, glob)
    return word


def long_option_named(key: str, options: Collection[str], shortest: int = 3) -> str | None:
    """The long option ``key`` names among ``options``: itself, or the first one it begins, as
    getopt_long, argp, argparse and git take any unambiguous beginning (``--to-comm`` is
    ``--to-command``; a beginning shared with another option makes the program refuse it, so
    taking it as the one that matters never allows too much).  None when it names none of them;
    a beginning shorter than ``shortest`` characters is not taken."""
    if key in options:
        return key
    if len(key) < shortest or not key.startswith("--"):
        return None
    return next((option for option in options if option.startswith(key)), None)


# the pattern of ${f%PATTERN}, ${f#PATTERN}, ${f/PATTERN/…} when it holds nothing bash expands
# (tree-sitter keeps it as one `regex` token: ${f%$(cmd)} would hide cmd)
_PLAIN_PATTERN = re.compile(r"[A-Za-z0-9_.*?/,:@%+=^\[\]-]+")


class WordReader:
    """Reads words; collects nested command substitutions and problems as it goes.

    ``source`` is the command line when it is ASCII (then byte offsets are string offsets and a
    node's text is a slice of it); otherwise texts are decoded from the node.
    """

    def __init__(self, source: str | None = None) -> None:
        self.substitutions: list[Node] = []
        self.problems: list[str] = []
        self._in_expansion = 0  # inside ${...} an operand may contain blanks
        self.source = source if source is not None and source.isascii() else None
        # No character that makes a bare word dynamic, a glob, a brace or a problem: a word
        # without blanks is then its own literal value (checked once for the whole line).
        self.plain_line = self.source is not None and plain_line(self.source)

    def text(self, node: Node) -> str:
        if self.source is not None:
            return self.source[node.start_byte : node.end_byte]
        return _text(node)

    def read(self, node: Node) -> Word:
        if self.plain_line and node.type == "word":
            return self.plain(self.source[node.start_byte : node.end_byte])  # type: ignore[index]
        if node.type == "process_substitution":  # the whole word: a pipe (/dev/fd/63) at run time
            self.substitutions.append(node)
            word = _new(PipeWord)
            _set_text(word, self.text(node))
            _set_static(word, False)
            _set_glob(word, False)
            return word
        return self._read(node, 0)

    def plain(self, text: str) -> Word:
        """A ``word`` node's value (the common case first)."""
        if self.plain_line and " " not in text and text.isprintable():
            word = _new(Word)
            _set_text(word, text)
            _set_static(word, True)
            _set_glob(word, False)
            return word
        return self._plain(text)

    def _read(self, node: Node, depth: int) -> Word:
        text = self.text
        if depth > _MAX_DEPTH:
            self.problems.append("a word nested too deeply to analyze")
            return make_word(text(node), False)
        kind = node.type
        if kind == "word":
            return self.plain(text(node))
        if kind == "number" and node.child_count:  # 10#$(cmd): bash runs the substitution
            self.problems.append(f"a number with an expansion: {text(node)[:40]}")
            self._scan(node, depth)
            return make_word(text(node), False)
        if kind in ("number", "variable_name"):
            return make_word(text(node))
        if kind == "raw_string" or kind == "ansi_c_string":
            value = text(node)
            if self._in_expansion and ("$" in value or "`" in value):
                # "${x:-'$(cmd)'}": inside double quotes or a heredoc bash runs it anyway
                self.problems.append(f"quotes inside a parameter expansion: {value[:40]}")
                return make_word(value, False)
            if kind == "raw_string":
                return make_word(value[1:-1])
            return make_word(value[2:-1]) if "\\" not in value else make_word(value, False)
        if kind == "string":
            return self._string(node, depth)
        if kind == "concatenation":
            return self._concat(node, depth)
        if kind in ("simple_expansion", "expansion"):
            self._check_expansion(node, depth)
            return make_word(text(node), False)
        if kind in SUBSTITUTIONS:
            self.substitutions.append(node)
            return make_word(text(node), False)
        if kind == "arithmetic_expansion":
            self._check_arithmetic(node)
            return make_word(text(node), False)
        if kind == "extglob_pattern" and "$" not in text(node) and "`" not in text(node):
            return make_word(text(node), True, True)  # a case pattern such as a|b or *
        if kind in ("translated_string", "brace_expression"):
            self._scan(node, depth)
            return make_word(text(node), False, kind == "brace_expression")
        if kind == "subscript":  # a[$(cmd)]=1: the index is evaluated (arithmetic)
            self.problems.append(f"array subscript (arithmetic) in {text(node)[:40]}")
            self._scan(node, depth)
            return make_word(text(node), False)
        if not node.is_named and kind == "$":
            # tree-sitter's `$` token may be `$$` (the PID) or hold the blanks before it: `" $'"`
            value = text(node)
            return make_word(value, value.lstrip(" \t") == "$")
        if not node.is_named and kind in ("==", "=~"):  # `qa == x`: an argument to bash
            return make_word(text(node))
        if kind == "regex" and self._in_expansion and _PLAIN_PATTERN.fullmatch(text(node)):
            return make_word(text(node), False)  # ${f%.py}, ${f#*/}: a pattern with nothing to expand
        self.problems.append(f"unsupported word syntax ({kind}): {text(node)[:40]}")
        return make_word(text(node), False)

    def _plain(self, text: str) -> Word:
        """An unquoted word: backslash escapes removed; globs, braces and ``~`` noted."""
        if "`" in text or "$(" in text:
            self.problems.append(f"unparsed substitution in {text[:40]!r}")
        if "\\" not in text:  # the common case, without a per-character loop
            if not self._in_expansion and (" " in text or "\t" in text or "\n" in text):
                self.problems.append(f"unexpected whitespace inside the word {text[:40]!r}")
            glob = "*" in text or "?" in text or "[" in text or "~" in text and tilde_expands(text)
            static = "$" not in text and not (glob and dir_stack_tilde(text))
            if not is_brace(text):
                return make_word(text, static, glob)
            word = make_word(text, static, True)
            _set_exact_braces(word, True)  # nothing quoted or escaped: the braces are bash's
            return word
        out: list[str] = []
        static, glob = True, "~" in text and tilde_expands(text)
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
        static = static and not (text.startswith("~") and dir_stack_tilde(value))
        return make_word(value, static, glob or is_brace(value))

    def _string(self, node: Node, depth: int) -> Word:
        """``"…"``: tree-sitter leaves newlines between its tokens, and its closing quote token
        may hold text (``"\\<TAB>"``): every byte between the quotes is read, token or not."""
        parts: list[str] = []
        static = True
        children = node.children
        last = len(children) - 1
        pos = node.start_byte + 1
        for index, child in enumerate(children):
            kind = child.type
            if index == 0 and kind == '"':
                continue
            start = child.start_byte
            if index == last and kind == '"':
                start = child.end_byte - 1
            if start > pos:
                gap = self._between(node, pos, start)
                static = static and "$" not in gap and "`" not in gap  # (tree-sitter reads those)
                parts.append(self._double_quoted(gap))
            pos = child.end_byte
            if index == last and kind == '"':
                break
            if kind == "string_content":
                parts.append(self._double_quoted(self.text(child)))
                continue
            part = self._read(child, depth + 1)
            static = static and part.static
            parts.append(part.text)
        return make_word("".join(parts), static)

    def _between(self, node: Node, start: int, end: int) -> str:
        """The source text from byte ``start`` to ``end``, both inside ``node``."""
        if self.source is not None:
            return self.source[start:end]
        base = node.start_byte
        return node.text[start - base : end - base].decode("utf-8", "surrogateescape")

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
        children = node.children
        parts = [self._read(c, depth + 1) for c in children]
        text = "".join(p.text for p in parts)
        brace = _looks_like_brace(parts)
        glob = brace or any(p.glob for p in parts)
        # a `$` token before more of the word: `$""` is a translated string (push$"" is push)
        static = all(p.static for p in parts) and not any(c.type == "$" for c in children[:-1])
        word = make_word(text, static, glob)
        if brace and all(c.type == "word" for c in children) and "\\" not in self.text(node):
            _set_exact_braces(word, True)  # bare words only: no brace character was quoted
        return word

    def _check_expansion(self, node: Node, depth: int) -> None:
        """``${...}`` is fine with plain operators; subscripts, ``@P``, ``!`` and offsets ask."""
        for child in node.children:
            kind = child.type
            if not child.is_named:
                if kind not in _SAFE_EXPANSION_OPS:
                    self.problems.append(f"unsupported parameter expansion {self.text(node)[:40]}")
                elif kind == ":=" or kind == "=":  # ${PATH:=…}, ${GLOBIGNORE=…} change what runs
                    self.problems.append(f"a variable assigned inside {self.text(node)[:40]}")
                continue
            if kind in ("variable_name", "special_variable_name"):
                continue
            if kind == "subscript":
                self.problems.append(f"array subscript (arithmetic) in {self.text(node)[:40]}")
                continue
            self._in_expansion += 1
            try:
                self._read(child, depth + 1)
            finally:
                self._in_expansion -= 1

    def _check_arithmetic(self, node: Node) -> None:
        """Arithmetic passes only when it is numbers and operators, by tree *and* by text.

        Bash expands ``$((…))`` like a double-quoted string before evaluating it: quotes do not
        quote there (``$(( 'a[$(cmd)]' ))`` runs cmd), and a variable's value is evaluated as code
        (``a[$(cmd)]``).  So anything beyond the allowed node kinds and characters is a problem.
        """
        text = self.text(node)
        body = text[3:-2] if text.startswith("$((") else text[2:-1]
        stack = list(node.children)
        while stack:
            child = stack.pop()
            kind = child.type
            if child.is_named:
                if kind == "number":
                    if not _ARITHMETIC_NUMBER.fullmatch(self.text(child)):
                        break
                elif kind not in _ARITHMETIC_NODES:
                    break
            elif kind not in _ARITHMETIC_TOKENS:
                break
            stack.extend(child.children)
        else:
            if not body.strip(_ARITHMETIC_CHARS) and not node.has_error:
                return
        self.problems.append(f"arithmetic beyond plain numbers: {text[:40]}")

    def _scan(self, node: Node, depth: int) -> None:
        for child in node.named_children:
            self._read(child, depth + 1)


def _looks_like_brace(parts: list[Word]) -> bool:
    """``{rm,x}`` arrives as a concatenation of ``{``, ``rm,x`` and ``}``."""
    text = "".join(p.text for p in parts)
    has_braces = any(p.text == "{" for p in parts) and any(p.text == "}" for p in parts)
    return has_braces and ("," in text or ".." in text)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "surrogateescape")
