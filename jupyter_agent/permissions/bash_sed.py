"""``sed`` as a read-only command: a script that only prints — addresses (``1,20``, ``/re/``,
``/a/,/b/``), ``p``/``d``/``q``/``=``, substitutions and ``y`` to standard output, blocks and
labels — with its files and the files ``r``/``R`` name as reads.

What writes or runs (``w``/``W``, ``s///w``, ``e``, ``s///e``, ``-i``, ``-f FILE``) or a script
this reader does not follow exactly (a bracket expression holding the delimiter) is not
read-only.  ``sed_script`` reads the same scripts for rules that allow sed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .bash_words import PipeWord, Word

_SED_SCRIPT_CHARS = frozenset("0123456789,$;pdq=! \n")
_SED_OPTIONS = frozenset({"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                          "--separate", "-u", "--unbuffered", "-z", "--null-data"})


def sed_files(args: Sequence[Word], appends_args: bool) -> tuple[Word, ...] | None:
    """The files ``sed -n '1,20p' file`` reads, or None when the script can do more than print lines."""
    scripts: list[str] = []
    files: list[Word] = []
    expect_script = False
    for word in args:
        value = word.literal
        if value is None:
            if type(word) is not PipeWord or expect_script or not scripts:
                return None
            files.append(word)  # sed -n 1p <(ls): a file operand, the pipe ls writes
            continue
        if expect_script:
            scripts.append(value)
            expect_script = False
        elif value in ("-e", "--expression"):
            expect_script = True
        elif value.startswith("--expression="):
            scripts.append(value.split("=", 1)[1])
        elif value.startswith("-") and value != "-":
            if value not in _SED_OPTIONS:
                return None
        elif not scripts:
            scripts.append(value)
        else:
            files.append(word)
    if expect_script or not scripts or appends_args:
        return None
    read: list[Word] = []
    for script in scripts:
        if set(script) <= _SED_SCRIPT_CHARS:
            continue  # line numbers and p/d/q/=: the common case
        found = _executed(script, SedScript())
        if found is None or found.runs or found.writes:
            return None  # e, s///e, w, W, s///w, or a script this reader does not follow
        read.extend(Word(name) for name in found.reads)  # r FILE / R FILE print FILE
    return (*files, *read)


_SED_VALUE_LETTERS = frozenset("l")  # -l N
_SED_LONG_WITH_VALUE = frozenset({"--line-length"})


@dataclass
class SedScript:
    """What a sed script does beyond printing: ``runs`` (GNU ``e``; None: the pattern space),
    the files ``r``/``R`` read and the files ``w``/``W``/``s///w`` write (``/dev/stdout``,
    ``/dev/stderr`` and ``/dev/stdin`` excepted)."""

    runs: list[str | None] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)


def sed_commands(args: Sequence[Word]) -> list[str | None] | None:
    """The shell commands GNU sed's ``e`` runs (``1e rm x`` → ``rm x``; ``s/x/y/e`` runs the
    pattern space: None in the list); None when the script cannot be read (``-f FILE``, a
    word only known at run time, a script this reader does not follow)."""
    script = sed_script(args)
    return None if script is None else script.runs


def sed_script(args: Sequence[Word]) -> SedScript | None:
    """What sed's script (its ``-e``/``--expression`` parts or first operand) runs, reads and
    writes; None when it cannot be read (see ``sed_commands``)."""
    scripts: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(args):
        value = args[i].literal
        if value is None:
            if type(args[i]) is not PipeWord:
                return None
            value = _PIPE  # sed -n 1p <(ls): a file operand, the pipe ls writes
        i += 1
        if value == "--sandbox":
            return SedScript()  # e, r and w are refused
        if value.startswith("--"):
            key, eq, rest = value.partition("=")
            if key in ("--expression", "--file") or key in _SED_LONG_WITH_VALUE:
                if key == "--file":
                    return None
                given: str | None = rest
                if not eq:
                    given = args[i].literal if i < len(args) else None
                    i += 1
                if given is None:
                    return None
                if key == "--expression":
                    scripts.append(given)
            continue
        if value.startswith("-") and value != "-":
            taken = _short_options(value[1:], args[i].literal if i < len(args) else None, scripts)
            if taken is None:
                return None
            i += taken
            continue
        positionals.append(value)
    if not scripts:  # without -e, the first word that is no option is the script
        scripts = positionals[:1]
        if scripts == [_PIPE]:  # sed <(echo CODE) a.py: a script only known at run time
            return None
    found = SedScript()
    for script in scripts:
        if _executed(script, found) is None:
            return None
    return found


_PIPE = "<(…)"


def _short_options(letters: str, following: str | None, scripts: list[str]) -> int | None:
    """Read ``-ne SCRIPT``-style bundles: how many following words they took, None if unknown."""
    for k, letter in enumerate(letters):
        rest = letters[k + 1:]
        if letter == "i":
            return 0  # -i[SUFFIX]: the rest is the suffix (-ie is suffix "e")
        if letter in "ef" or letter in _SED_VALUE_LETTERS:
            value = rest or following
            if value is None or letter == "f":
                return None
            if letter == "e":
                scripts.append(value)
            return 0 if rest else 1
    return 0


_PLAIN_COMMANDS = frozenset("=dDgGhHnNpPxzF")
_LINE_COMMANDS = frozenset("aicrRwW#")  # their argument runs to the end of the line
_LABEL_COMMANDS = frozenset("btT")


_STANDARD = frozenset({"/dev/stdout", "/dev/stderr", "/dev/stdin"})


def _executed(script: str, found: SedScript) -> SedScript | None:
    """Add what ``script``'s ``e`` commands and ``s///e`` flags run and the files it reads and
    writes to ``found``; None if not followed."""
    runs = found.runs
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        past = _address(script, i)
        if past is None:
            return None
        i = past
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return None
        command = script[i]
        i += 1
        if command in "{}" or command in _PLAIN_COMMANDS:
            continue
        if command == ":" or command in _LABEL_COMMANDS:
            i = _label_end(script, i)
        elif command in _LINE_COMMANDS or command == "e":
            end = _text_end(script, i) if command in "aic" else _line_end(script, i)
            if command == "e":
                runs.append(script[i:end].strip() or None)  # a bare e runs the pattern space
            elif command in "rRwW":
                _file(command, script[i:end], found)
            i = end
        elif command in "lLqQ":
            while i < n and (script[i].isdigit() or script[i] in " \t"):
                i += 1
        elif command in "sy":
            past = _substitution(script, i, command, found)
            if past is None:
                return None
            i = past
        else:
            return None
    return found


_LABEL_ENDS = frozenset(";\n \t}#")


def _label_end(script: str, i: int) -> int:
    """Past the label of ``:``, ``b``, ``t`` or ``T``.  GNU sed 4.9 ends a label at ``;``, a blank
    or ``}`` (``:a;w out`` writes ``out``); older seds read it to the end of the line.  Ending it
    at the first of these reads every command any of them may see (a few that one never runs)."""
    n = len(script)
    while i < n and script[i] in " \t":
        i += 1
    while i < n and script[i] not in _LABEL_ENDS:
        i += 1
    return i


def _file(command: str, text: str, found: SedScript) -> None:
    """The file of ``r``/``R``/``w``/``W`` (its argument, leading blanks skipped)."""
    name = text.lstrip(" \t")
    if name and name not in _STANDARD:
        (found.reads if command in "rR" else found.writes).append(name)


def _address(script: str, i: int) -> int | None:
    """Past an address or range (``1``, ``$``, ``/re/I``, ``\\%re%``, ``1,+3``, ``0~2``)."""
    for _part in range(2):
        n = len(script)
        if i < n and (script[i].isdigit() or script[i] in "+~"):
            i += 1
            while i < n and (script[i].isdigit() or script[i] == "~"):
                i += 1
        elif i < n and script[i] == "$":
            i += 1
        elif i < n and script[i] in "/\\":
            if script[i] == "\\":
                i += 1
                if i >= n:
                    return None
            end = _regex_end(script, i + 1, script[i])
            if end is None:
                return None
            i = end + 1
            while i < n and script[i] in "IM":
                i += 1
        if i < n and script[i] == "," and _part == 0:
            i += 1
            continue
        break
    return i


def _substitution(script: str, i: int, command: str, found: SedScript) -> int | None:
    """Past ``s/re/text/flags`` (``e`` runs the result) or ``y/abc/xyz/``."""
    if i >= len(script) or script[i] in "\\\n":
        return None
    delimiter = script[i]
    end = _regex_end(script, i + 1, delimiter)  # y's source too: a `[` there must not matter
    end = _delimited(script, end + 1, delimiter) if end is not None else None
    if end is None:
        return None
    i = end + 1
    if command == "y":
        return i
    n = len(script)
    while i < n and script[i] not in ";\n}":
        flag = script[i]
        if flag == "e":
            found.runs.append(None)
        elif flag == "w":
            end = _line_end(script, i + 1)
            _file("w", script[i + 1:end], found)
            return end
        elif not (flag.isdigit() or flag in "gpiImM \t"):
            return None
        i += 1
    return i


def _delimited(script: str, i: int, delimiter: str) -> int | None:
    """The index of the next unescaped ``delimiter`` from ``i``."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            return i
        i += 1
    return None


def _regex_end(script: str, i: int, delimiter: str) -> int | None:
    """The end of a regex from ``i``: the next unescaped ``delimiter``, where GNU sed ends it too.

    sed reads bracket expressions whole (``s/[/]/X/`` is one regex, ``[/]``): with a bracket
    before the delimiter, the end found by reading brackets must be the same one, or the script
    is not followed (``s/[/]/g;s/w x/y/p`` writes ``x/y/p`` by sed's reading, by a plain one
    it does not)."""
    plain = _delimited(script, i, delimiter)
    if plain is None or "[" not in script[i:plain]:
        return plain
    return plain if _bracketed_end(script, i, delimiter) == plain else None


def _bracketed_end(script: str, i: int, delimiter: str) -> int | None:
    """The next unescaped ``delimiter`` outside bracket expressions (``[]a]``, ``[^]a]``,
    ``[[:alpha:]/]``); None when a bracket holds a backslash or a newline (the readers may
    differ) or does not close."""
    n = len(script)
    while i < n:
        c = script[i]
        if c == "\\":
            i += 2
            continue
        if c == delimiter:
            return i
        if c == "[":
            k = i + 1
            if k < n and script[k] == "^":
                k += 1
            if k < n and script[k] == "]":
                k += 1
            while k < n and script[k] != "]":
                if script[k] == "[" and k + 1 < n and script[k + 1] in ":.=":
                    close = script.find(script[k + 1] + "]", k + 2)
                    if close < 0:
                        return None
                    k = close + 2
                    continue
                if script[k] in "\\\n":
                    return None
                k += 1
            if k >= n:
                return None
            i = k + 1
            continue
        i += 1
    return None


def _line_end(script: str, i: int) -> int:
    """The end of an argument that runs to the end of the line (``a``/``e``/``w``)."""
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _text_end(script: str, i: int) -> int:
    """The end of ``a``/``i``/``c`` text: lines ending in a backslash go on to the next."""
    while True:
        end = _line_end(script, i)
        line = script[i:end]
        if end >= len(script) or (len(line) - len(line.rstrip("\\"))) % 2 == 0:
            return end
        i = end + 1
