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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .bash_words import Word

AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_VALUED = frozenset({"-F", "-v", "--field-separator", "--assign"})
_OPAQUE = frozenset({"-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"})
_OPERAND_END = frozenset({")", "]", "$", "++", "--"})  # after these, `/` divides (else it starts a regex)
_STATEMENT_END = frozenset({";", "}", "\n", "{"})
_CONTINUES = frozenset({",", "{", "&&", "||", "?", ":", "do", "else"})  # a newline after these goes on


@dataclass
class AwkProgram:
    runs: list[str | None] = field(default_factory=list)
    writes: list[str | None] = field(default_factory=list)
    reads: list[str | None] = field(default_factory=list)
    ambiguous: bool = False  # awks may read the text otherwise (``_tokens``): None in each list


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


def _tokens(source: str) -> tuple[list[tuple[str, str]], bool] | None:
    """``(kind, text)`` tokens: "str", "re", "name", "num", "op"; None at an unterminated string.

    The second value says the reading is ambiguous: awk decides between a regular expression
    and a division by its grammar (``$/"/`` and ``if (x) /"/`` start one, ``a /"/`` divides),
    and awks differ on some bracket expressions.  Where the other reading could put a quote or
    a ``#`` on the other side of a boundary (and so hide code in what is read here as a string
    or a comment), the text is read as here but flagged.  A newline after ``,``, ``{``, ``&&``,
    ``||``, ``?``, ``:``, ``do`` or ``else`` continues the statement (``print 1,⏎ 2 > "f"``
    writes f), so no newline token is made there.
    """
    out: list[tuple[str, str]] = []
    ambiguous = False
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
        if c == "\n" and out and out[-1][1] in _CONTINUES:
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
        if c == "/" and not (out and (out[-1][0] in ("name", "num", "str", "re") or out[-1][1] in _OPERAND_END)):
            end = _regex_end(source, i + 1)
            if end is None:
                return None
            j = end
            if j < 0:  # a bracket expression awks may read differently
                ambiguous, j = True, -j
            out.append(("re", source[i + 1:j]))
            i = j + 1
            continue
        if c == "/" and not _divides_either_way(source, i):
            ambiguous = True
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
    return out, ambiguous


_CLASS_NAMES = frozenset({"alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print",
                          "graph", "cntrl", "xdigit"})


def _regex_end(source: str, j: int) -> int | None:
    """Where the regular expression starting at ``j`` ends (its closing ``/``); negative when a
    bracket expression in it is one awks read differently (``[]/]``, ``[\\]]``, ``[a[b]``, a
    ``/`` inside brackets: gawk and mawk read it whole, other awks end the expression there);
    None when it does not end (a newline or the end first: awk rejects the program)."""
    n, unsure = len(source), False
    while j < n:
        c = source[j]
        if c == "\n":
            return None
        if c == "/":
            return -j if unsure else j
        if c == "\\":
            j += 2
            continue
        if c != "[":
            j += 1
            continue
        j += 1
        if source[j:j + 1] == "^":
            j += 1
        if source[j:j + 1] == "]":
            unsure, j = True, j + 1  # a literal ] first (POSIX)
        while j < n and source[j] != "]":
            c = source[j]
            if c == "\n":
                return None
            if c == "[" and source[j + 1:j + 2] == ":":
                end = source.find(":]", j + 2)
                if end < 0 or source[j + 2:end] not in _CLASS_NAMES:
                    unsure = True
                    end = j
                j = end + 2
                continue
            if c == "[" or c == "/" or (c == "\\" and source[j + 1:j + 2] in ("]", "\n")):
                unsure = True  # gawk reads \] as ], POSIX as \ then the end
            j += 2 if c == "\\" else 1
        j += 1
    return None


def _divides_either_way(source: str, i: int) -> bool:
    """The ``/`` at ``i``, read here as a division, is harmless if awk reads a regular
    expression there instead: that reading ends at the next ``/`` (or is rejected at a newline
    or the end), and the text between holds no quote, ``#`` or bracket that would leave the two
    readings on different sides of a string or comment."""
    j, n = i + 1, len(source)
    while j < n:
        c = source[j]
        if c == "\n":
            return True
        if c == "/":
            return not any(ch in source[i + 1:j] for ch in '"#[')
        j += 2 if c == "\\" else 1
    return True


def _escape(c: str) -> str:
    return {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}.get(c, "\\" + c)


def _scan(source: str, found: AwkProgram) -> bool:
    lexed = _tokens(source)
    if lexed is None:
        return False
    return _walk(*lexed, found)


def _walk(tokens: list[tuple[str, str]], ambiguous: bool, found: AwkProgram) -> bool:
    """Adds what ``tokens`` run, write and read to ``found``; False for text it cannot follow."""
    if ambiguous:  # another reading may run, write or read what this one does not see
        found.ambiguous = True
        found.runs.append(None)
        found.writes.append(None)
        found.reads.append(None)
    depth = 0
    printing = False  # inside a print/printf statement, outside its parentheses
    for k, (kind, text) in enumerate(tokens):
        after = tokens[k + 1] if k + 1 < len(tokens) else ("op", "\n")
        before = tokens[k - 1] if k > 0 else ("op", "\n")
        if kind == "name":
            if text.startswith("@"):  # gawk @include, @load, @namespace, @f(): elsewhere or indirect
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


# A print-only program may not name these: running (system), reading other files or commands
# (getline, ARGV/ARGC), the kernel's credentials (ENVIRON, PROCINFO), or either indirectly
# (gawk's SYMTAB, FUNCTAB).
_NOT_PRINT_ONLY = frozenset({"system", "getline", "ENVIRON", "PROCINFO", "ARGV", "ARGC", "SYMTAB", "FUNCTAB"})
_READ_ONLY_VALUED = ("-F", "-v", "--field-separator", "--assign")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def awk_files(args: Sequence[Word], appends_args: bool) -> tuple[Word, ...] | None:
    """The files a print-only awk program reads (``awk -F, '{ s += $2 } END { print s }' x.csv``:
    x.csv), or None when it may do more: options other than ``-F``/``-v``, a program that runs,
    pipes, redirects its output, uses getline, the environment or ``ARGV``, gawk's ``@``
    forms, or one whose reading is ambiguous (``_tokens``).  Operands ``name=value`` are
    assignments, not files; with ``xargs`` more files arrive at run time (None)."""
    if appends_args:
        return None
    i, n = 0, len(args)
    while i < n:
        text = args[i].literal
        if text is None:
            return None
        if text == "--":
            i += 1
            break
        if text[:1] != "-" or text == "-":
            break
        i += 1
        if text in _READ_ONLY_VALUED:
            value = args[i].literal if i < n else None
            i += 1
        elif text.startswith(("--field-separator=", "--assign=")):
            value = text.partition("=")[2]
        elif text[:2] in ("-F", "-v") and len(text) > 2:
            value = text[2:]
        else:
            return None  # -f FILE, gawk's -e/-i/-l/--dump-variables/--profile/-o, mawk's -W ...
        if value is None or (text[:2] == "-v" or text.startswith("--a")) and not _plain_assignment(value):
            return None
    program = args[i].literal if i < n else None
    if program is None or not _prints_only(program):
        return None
    files: list[Word] = []
    for word in args[i + 1:]:
        text = word.literal
        if text is not None and _ASSIGNMENT.match(text):
            if not _plain_assignment(text):
                return None
            continue  # awk assigns it when it gets there
        files.append(word)
    return tuple(files)


def _plain_assignment(text: str) -> bool:
    match = _ASSIGNMENT.match(text)
    return match is not None and match.group(1) not in _NOT_PRINT_ONLY


def _prints_only(program: str) -> bool:
    lexed = _tokens(program)
    if lexed is None or lexed[1]:
        return False
    tokens = lexed[0]
    for kind, text in tokens:
        if kind == "name" and (text in _NOT_PRINT_ONLY or text[:1] == "@"):
            return False
        if kind == "op" and (text == "|" or text == "|&"):
            return False
    found = AwkProgram()
    return _walk(tokens, False, found) and not (found.runs or found.writes or found.reads)


__all__ = ["AWKS", "AwkProgram", "awk_files", "awk_program"]
