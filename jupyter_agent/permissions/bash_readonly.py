"""Whether one command is read-only, and the files it reads.

A command runs without asking only when its program is in the tables of ``bash_specs`` and
none of its arguments can write or execute (``-exec``, ``-delete``, ``-i``, ``--output``, …).
Dynamic arguments (``$x``, globs) are accepted only by programs for which *no* argument can
write.  The files a read-only command reads are its file arguments, files inside option words
(``--file=F``, ``-fF``), and, for a listing option (``--files0-from``), the files named inside
a file: those are only known at run time, which makes the line ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .bash_awk import AWKS, awk_files
from .bash_evaluated import DECLARES
from .bash_secrets import prints_secrets
from .bash_sed import sed_files
from .bash_set import set_is_read_only
from .bash_specs import GIT_CONFIG_GET, GIT_GLOBAL_FLAGS, GIT_SPECS, GIT_SUB_SUB, SPECS, Spec
from .bash_words import Word, make_word
from .git_words import options_may_write


@dataclass(frozen=True, slots=True)
class ReadOnlyCheck:
    """Whether a command is read-only, and the arguments it reads as files."""

    read_only: bool
    paths: tuple[Word, ...] = ()


_NOT = ReadOnlyCheck(False)
_YES = ReadOnlyCheck(True)
_new = object.__new__
_set_read_only = ReadOnlyCheck.read_only.__set__  # type: ignore[attr-defined]
_set_paths = ReadOnlyCheck.paths.__set__  # type: ignore[attr-defined]


def reads(paths: tuple[Word, ...]) -> ReadOnlyCheck:
    """``ReadOnlyCheck(True, paths)`` without the frozen dataclass ``__init__`` (a hot path)."""
    if not paths:
        return _YES
    check = _new(ReadOnlyCheck)
    _set_read_only(check, True)
    _set_paths(check, paths)
    return check


_STDIN_ARGUMENTS = Word("<arguments from stdin>", static=False)
# NAME / NAME=VALUE operands of a declare-like builtin (DECLARES): with no operand or an option
# (`export`, `declare -p`) they print every variable, secrets included, or do more (-f, -n, -i:
# bash_evaluated), so those ask
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:=|$)")


def _only_assigns(operands: Sequence[Word]) -> bool:
    """``NAME`` / ``NAME=VALUE`` operands only, at least one (a value's substitutions are
    commands of their own; a name that changes what runs asks in bash_analysis)."""
    return bool(operands) and all(_ASSIGNED.match(w.text) and w.text[:1] != "-" for w in operands)


# read / mapfile set variables from their input (a redirect, checked as any): their option letters,
# those taking a value, and those whose value is a variable name; mapfile -C runs code: not here
_INPUT_READERS = {"read": ("ersadinNptu", "dinNptu", "a"), "mapfile": ("tdnOsuc", "dnOsuc", ""),
                  "readarray": ("tdnOsuc", "dnOsuc", "")}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _reads_into_names(program: str, args: Sequence[Word]) -> bool:
    """Options this reader knows (values fixed) and plain variable names only: no subscript to
    evaluate (``read 'a[$(cmd)]'``), no callback (``mapfile -C``).  A name that changes what
    runs (``read PATH``) asks all the same (``bash_evaluated.line_change``)."""
    letters, valued, naming = _INPUT_READERS[program]
    names: list[str | None] = []
    i, options = 0, True
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None:
            return False
        if options and text == "--":
            options = False
        elif options and text[:1] == "-" and len(text) > 1:
            for k, letter in enumerate(text[1:], 1):
                if letter not in letters:
                    return False
                if letter in valued or letter in naming:
                    value = text[k + 1:] or (args[i].literal if i < len(args) else None)
                    i += 0 if text[k + 1:] else 1
                    if value is None:
                        return False
                    if letter in naming:
                        names.append(value)
                    break
        else:
            names.append(text)
    return all(name is not None and _NAME.fullmatch(name) for name in names)


# words that make jq / yq read files their program text names (Debian's yq runs jq)
_LOADERS = {"jq": ("import", "include"), "yq": ("load", "import", "include")}
_LISTED_FILES = Word("<files named inside another file>", static=False)  # sort --files0-from=LIST
# GNU binutils read more arguments from a response file: `strings @.env` reads .env (and prints
# its lines in errors); with such a word they are not read-only
_RESPONSE_FILES = frozenset({"strings", "nm", "objdump", "readelf", "size", "c++filt", "addr2line"})


def check_read_only(words: Sequence[Word], appends_args: bool = False) -> ReadOnlyCheck:
    """Read-only verdict for one unwrapped simple command (program first)."""
    if not words:
        return _NOT
    first = words[0]
    if not first.static or first.glob:
        return _NOT
    program = first.text
    if prints_secrets(program, words):
        return _NOT
    spec = SPECS.get(program)
    if spec is None:
        if program == "git":  # `… | xargs git diff`: a word from stdin may be --output=F
            if appends_args and not any(w.literal == "--" for w in words) and options_may_write(words):
                return _NOT
            return _git(words)
        if program == "set":
            return _YES if set_is_read_only(words[1:]) else _NOT
        if program in DECLARES:  # export OMP_NUM_THREADS=1: sets a variable for the rest of the line
            return _YES if _only_assigns(words[1:]) else _NOT
        if program in _INPUT_READERS:  # read -r line, mapfile -t lines: variables from the input
            return _YES if _reads_into_names(program, words[1:]) else _NOT
        if program == "sed":
            files = sed_files(words[1:], appends_args)
            return _NOT if files is None else reads(files)
        if program in AWKS:
            files = awk_files(words[1:], appends_args)
            return _NOT if files is None else reads(files)
        return _NOT
    if program in _LOADERS and any(k in w.text for w in words[1:] for k in _LOADERS[program]):
        return _NOT  # files the program text names: load_str("f"), import "secrets/creds" as $c
    if program in _RESPONSE_FILES and any(w.text[:1] == "@" for w in words[1:]):
        return _NOT  # @FILE: more arguments, read from FILE
    if appends_args:  # xargs: more file names arrive on stdin
        if not spec.dynamic_ok:
            return _NOT
        return _check(spec, (*words[1:], _STDIN_ARGUMENTS))
    if spec.plain:
        return _plain(spec, words)
    if program == "date":  # date -r FILE prints when FILE changed: a read of it
        checked = _check(spec, words[1:])
        references = option_arguments(words[1:], "r", "--reference")
        return reads(tuple(references)) if checked.read_only and references else checked
    return _check(spec, words[1:])


def _plain(spec: Spec, words: Sequence[Word]) -> ReadOnlyCheck:
    """A program for which no argument can write: only its file arguments are collected."""
    if not spec.reads_paths:
        return _YES
    positional: list[Word] = []
    attached: list[Word] | None = None
    options_done = False
    for word in words[1:]:
        value = word.text
        if options_done or value[:1] != "-" or value == "-" or not word.static or word.glob:
            positional.append(word)
        elif value == "--":
            options_done = True
        else:
            if len(value) > 2:
                attached = _attached_path(spec, value, attached)
            if spec.lists is not None and not _option_ok(spec.lists, value):
                attached = [*(attached or ()), _LISTED_FILES]
    return reads(tuple(positional) if attached is None else (*positional, *attached))


def _check(spec: Spec, args: Sequence[Word]) -> ReadOnlyCheck:
    positional: list[Word] = []
    attached: list[Word] | None = None
    seen: set[str] = set()
    options_done = False
    for word in args:
        value = word.text
        if not word.static or word.glob:  # no literal value
            if not spec.dynamic_ok:
                return _NOT
            positional.append(word)
        elif options_done or value[:1] != "-" or value == "-":
            positional.append(word)
        elif value == "--":
            options_done = True
        elif not _option_ok(spec, value):
            return _NOT
        else:
            if spec.requires_any:
                seen.add(value.split("=", 1)[0])
            if len(value) > 2:
                attached = _attached_path(spec, value, attached)
            if spec.lists is not None and not _option_ok(spec.lists, value):
                attached = [*(attached or ()), _LISTED_FILES]
    if spec.max_positional is not None and len(positional) > spec.max_positional:
        return _NOT
    if spec.requires_any and not (seen & spec.requires_any):
        return _NOT
    if not spec.reads_paths:
        return _YES
    return reads(tuple(positional) if attached is None else (*positional, *attached))


def _attached_path(spec: Spec, option: str, found: list[Word] | None) -> list[Word] | None:
    """Add the file an option word names by itself to ``found``: ``--files0-from=F``,
    ``--file=F`` (any long option's value may be a file), ``-fF`` / ``-rfF`` for the
    program's short file options."""
    values = option_values(option, spec.file_letters)
    if not values:
        return found
    if found is None:
        found = []
    found.extend([Word(value) for value in values])
    return found


def option_values(option: str, letters: frozenset[str] | None) -> list[str]:
    """Values an option word carries by itself: ``--name=VALUE``; in a short cluster, the tail
    after the first letter in ``letters`` (``-fFILE``, ``-rfFILE``), or every tail when
    ``letters`` is None (any letter may take a value)."""
    if option[1:2] == "-":
        value = option.partition("=")[2]
        return [value] if value else []
    if letters is None:
        return [option[i:] for i in range(2, len(option))]
    for i in range(1, len(option) - 1):
        if option[i] in letters:
            return [option[i + 1:]]
    return []


def option_arguments(args: Sequence[Word], letter: str, long: str = "") -> list[Word]:
    """The values given to one option that takes a value: ``-o FILE``, ``-oFILE``, inside a
    cluster (``-uoFILE``, ``-uo FILE``: the rest of the word after the letter, else the next
    word), ``--output=FILE`` and ``--output FILE`` with GNU abbreviations (``--out``).  With
    ``letter`` empty, only the long option."""
    found: list[Word] = []
    for i, word in enumerate(args):
        value = word.literal
        if value is None:
            if word.text[:1] in ('-', '"'):
                found.extend(_run_time_value(word.text, letter, long))
            continue
        if value[:1] != "-" or value == "-" or value == "--":
            continue
        following = args[i + 1] if i + 1 < len(args) else None
        if value[1] == "-":
            name, equals, rest = value.partition("=")
            if long and len(name) > 2 and long.startswith(name):
                if equals:
                    found.append(make_word(rest))
                elif following is not None:
                    found.append(following)
            continue
        at = value.find(letter, 1) if letter else -1  # no letter: a long option only
        if at > 0:
            if value[at + 1:]:
                found.append(make_word(value[at + 1:]))
            elif following is not None:
                found.append(following)
    return found


def operand_words(args: Sequence[Word], values: set[str] | frozenset[str]) -> list[Word]:
    """The words that are no option and no option's value (``values``: the options that take
    the next word, ``-f`` or ``--file``; ``--file=x`` and ``-fx`` are one word)."""
    operands: list[Word] = []
    i = 0
    done = False
    while i < len(args):
        word = args[i]
        text = word.literal
        i += 1
        if done or text is None or text[:1] != "-" or text == "-":
            operands.append(word)
        elif text == "--":
            done = True
        elif text in values:
            i += 1
    return operands


_OPTION_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def _run_time_value(text: str, letter: str, long: str) -> list[Word]:
    """A word only known at run time that may give the option its value: ``--output="$F"``,
    ``-o$F``, ``"--output=$F"``, a cluster ending in something dynamic (``-x$Y``: the letter may be
    in ``$Y``).  The value, as a word only known at run time; [] when it cannot be that option."""
    text = text[1:] if text[:1] == '"' else text
    end = 1
    while end < len(text) and text[end] in _OPTION_CHARS:
        end += 1
    head, tail = text[:end], text[end:]
    if head[:1] != "-" or not tail:
        return []
    if head[:2] == "--":
        if not long or len(head) <= 2 or not long.startswith(head):
            return []  # another option (`--lr=$LR`)
        # `--output=$F`; or a name that goes on at run time (`--out$X`), which may be this one
        return [make_word(tail[1:] if tail[:1] == "=" else tail, static=False)]
    if not letter:
        return []
    at = head.find(letter, 1)
    return [make_word(head[at + 1:] + tail if at > 0 else tail, static=False)]


def _option_ok(spec: Spec, option: str) -> bool:
    name = option.split("=", 1)[0] if "=" in option else option
    if spec.only_options is not None:
        return name in spec.only_options
    if name.startswith("--"):  # GNU abbreviations: --out means --output
        return not any(u.startswith(name) for u in spec.unsafe_long)
    if spec.single_dash_long:
        return name not in spec.unsafe
    letters = name[1:]
    return letters.isdigit() or spec.unsafe_letters.isdisjoint(letters)


def _git(words: Sequence[Word]) -> ReadOnlyCheck:
    """``git [global flags] <read-only subcommand> [safe arguments]`` (``words[0]`` is git)."""
    n = len(words)
    i = 1
    paths: list[Word] = []
    while i < n:
        word = words[i]
        flag = word.text
        if not word.static or word.glob or flag[:1] != "-":
            break
        if flag == "-C" and i + 1 < n and words[i + 1].literal is not None:
            paths.append(words[i + 1])
            i += 2
            continue
        if flag in ("--version", "--help") and i == n - 1:
            return _YES
        if flag not in GIT_GLOBAL_FLAGS:
            return _NOT  # -c key=val, --git-dir, --exec-path, … can run arbitrary programs
        i += 1
    if i >= n:
        return _NOT
    word = words[i]
    if not word.static or word.glob:
        return _NOT
    sub, rest = word.text, words[i + 1:]
    spec = GIT_SPECS.get(sub)
    if sub == "config" and rest and rest[0].literal in GIT_SUB_SUB["config"]:
        spec = None  # git config get NAME, git config list
    if spec is None:
        sub_subs = GIT_SUB_SUB.get(sub)
        spec = sub_subs.get(rest[0].literal or "") if sub_subs is not None and rest else None
        if spec is None:
            return _NOT
        rest = rest[1:]
    result = _check(spec, rest)
    if sub == "config" and not result.read_only and spec is GIT_SPECS["config"]:
        result = _check(GIT_CONFIG_GET, rest)  # git config user.name: one name alone is a get
    if not result.read_only or not paths:
        return result
    # revisions look like paths too (HEAD~1): harmless, they resolve inside the project
    return reads((*paths, *result.paths))
