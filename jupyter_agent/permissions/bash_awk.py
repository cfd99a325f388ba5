"""What an awk program runs, writes and reads besides its input: ``system("rm x")``,
``print | "sh"``, ``"date" | getline``, ``print > "out.txt"``, ``getline line < ".env"``.

Under a rule that allows awk (``Bash(awk:*)``) these walked past ``Bash(rm:*)`` in deny, an
Edit deny rule and the protected paths (``print > ".git/hooks/pre-commit"``), and Read deny
rules.  ``awk_program`` reads the program text with a small awk lexer (strings, regular
expressions, comments, parentheses) and finds:

- commands: the string given to ``system(...)``, to ``|`` after ``print``/``printf`` and before
  ``| getline``; ``None`` where the command is built at run time (``system(cmd)``) or the
  program pipes to a coprocess (``|&``);
- files written by ``print``/``printf`` ``>``/``>>`` (a ``>`` outside parentheses in a print
  statement redirects, as POSIX reads it) and files read by ``getline < FILE``; ``None`` where
  the name is built at run time.

A program it cannot read (``-f FILE``, gawk's ``@include``/``@load``/``-l``/``-i``, a program
known only at run time) gives None: the caller treats it as running an unknown command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .bash_words import Word

AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_VALUED = frozenset({"-F", "-v", "--field-separator", "--assign"})
_OPAQUE = frozenset({"-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"})
_OPERAND_END = frozenset({")", "]", "$", "++", "--"})  # after these, `/` divides (else it starts a regex)
_STATEMENT_END = frozenset({";", "}", "\n", "{"})


@dataclass
class AwkProgram:
    runs: list[str | None] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    reads: list[str | None] = field(default_factory=list)


def awk_program(args: Sequence[Word]) -> AwkProgram | None:
    """What the program among ``args`` (awk's arguments) runs, writes and reads; None if unread."""
    sources: list[str] = []
    i = 0
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None:
            return None
        if text == "--":
            break
        if text[:1] != "-" or text == "-":
            i -= 1
            break
        key = text.partition("=")[0] if text.startswith("--") else text[:2]
        if key in _OPAQUE:
            return None
        if key in ("-e", "--source"):  # gawk: program text (--source PROG, --source=PROG, -ePROG)
            value = text.partition("=")[2] if text.startswith("--") else text[2:]
            if not value:
                value = (args[i].literal if i < len(args) else None) or ""
                i += 1
            sources.append(value)
        elif key in _VALUED and not (text[2:] if not text.startswith("--") else "=" in text):
            i += 1  # -F : / -v x=1
    if not sources:
        if i >= len(args) or args[i].literal is None:
            return None
        sources.append(args[i].literal)  # type: ignore[arg-type]
    found = AwkProgram()
    for source in sources:
        if not _scan(source, found):
            return None
    return found


def _tokens(source: str) -> list[tuple[str, str]] | None:
    """``(kind, text)`` tokens: "str", "re", "name", "num", "op"; None at an unterminated string."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in " \t\r" or (c == "\\" and source[i + 1:i + 2] == "\n"):
            i += 1 if c != "\\" else 2
            continue
        if c == "#":
            while i < n and source[i] != "\n":
                i += 1
            continue
        if c == '"':
            j, value = i + 1, []
            while j < n and source[j] != '"':
                if source[j] == "\\" and j + 1 < n:
                    value.append(_escape(source[j + 1]))
                    j += 2
                    continue
                value.append(source[j])
                j += 1
            if j >= n:
                return None
            out.append(("str", "".join(value)))
            i = j + 1
            continue
        if c == "/" and not (out and (out[-1][0] in ("name", "num", "str") or out[-1][1] in _OPERAND_END)):
            j, klass = i + 1, False
            while j < n and (source[j] != "/" or klass):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    klass = True
                elif source[j] == "]":
                    klass = False
                j += 1
            if j >= n:
                return None
            out.append(("re", source[i + 1:j]))
            i = j + 1
            continue
        name = c.isalpha() or c in "_@"
        if name or c.isdigit() or (c == "." and source[i + 1:i + 2].isdigit()):
            also = "_" if name else "."  # a name: letters, digits, _; a number: digits, letters (1e3, 0x1f), .
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] == also):
                j += 1
            out.append(("name" if name else "num", source[i:j]))
            i = j
            continue
        two = source[i:i + 2]
        if two in ("||", "|&", ">>", "&&", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^="):
            out.append(("op", two))
            i += 2
            continue
        out.append(("op", c))
        i += 1
    return out


def _escape(c: str) -> str:
    return {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}.get(c, "\\" + c)


def _scan(source: str, found: AwkProgram) -> bool:
    tokens = _tokens(source)
    if tokens is None:
        return False
    depth = 0
    printing = False  # inside a print/printf statement, outside its parentheses
    for k, (kind, text) in enumerate(tokens):
        after = tokens[k + 1] if k + 1 < len(tokens) else ("op", "\n")
        before = tokens[k - 1] if k > 0 else ("op", "\n")
        if kind == "name":
            if text.startswith("@"):  # gawk @include, @load, @namespace: more program elsewhere
                return False
            if text in ("print", "printf"):
                printing, depth = True, 0
            elif text == "system" and after == ("op", "("):
                found.runs.append(_single_string(tokens, k + 2))
            elif text == "getline":
                if before == ("op", "|"):
                    continue  # counted at the |
                target = _getline_source(tokens, k + 1)
                if target is not False:
                    found.reads.append(target)  # type: ignore[arg-type]
            continue
        if kind != "op":
            continue
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth = max(0, depth - 1)
        elif text in _STATEMENT_END:
            printing, depth = False, 0
        elif text == "|&":
            found.runs.append(None)  # a gawk coprocess
        elif text == "|":
            if after == ("name", "getline"):
                found.runs.append(before[1] if before[0] == "str" and _starts_expression(tokens, k - 1) else None)
            else:
                found.runs.append(_single_string(tokens, k + 1, closing=None))
        elif text in (">", ">>") and printing and depth == 0:
            found.writes.append(_single_string(tokens, k + 1, closing=None))
    return True


def _single_string(tokens: list[tuple[str, str]], k: int, closing: str | None = ")") -> str | None:
    """The string literal at ``k`` when it is the whole expression there (followed by ``closing``,
    or by the end of the statement); else None (built at run time)."""
    if k >= len(tokens) or tokens[k][0] != "str":
        return None
    nxt = tokens[k + 1] if k + 1 < len(tokens) else ("op", "\n")
    if closing is not None:
        return tokens[k][1] if nxt == ("op", closing) else None
    return tokens[k][1] if nxt[0] == "op" and (nxt[1] in _STATEMENT_END or nxt[1] == ")") else None


def _starts_expression(tokens: list[tuple[str, str]], k: int) -> bool:
    """The string at ``k`` is not the tail of a concatenation (``"ls " dir | getline``)."""
    if k == 0:
        return True
    kind, text = tokens[k - 1]
    return kind == "op" and text in ("(", ";", "{", "}", "\n", "=", ",", "&&", "||", "!")


def _getline_source(tokens: list[tuple[str, str]], k: int) -> str | None | bool:
    """The file ``getline [var] < FILE`` reads (None: built at run time); False: no ``<``."""
    if k < len(tokens) and tokens[k][0] == "name":
        k += 1  # getline var < file
    if k < len(tokens) and tokens[k] == ("op", "<"):
        return _single_string(tokens, k + 1, closing=None)
    return False


__all__ = ["AWKS", "AwkProgram", "awk_program"]
