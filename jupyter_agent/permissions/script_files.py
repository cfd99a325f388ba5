"""Shell scripts a line runs from a file, read so that their commands meet the rules too.

``bash clean.sh``, ``sh -e x.sh``, ``source env.sh``, ``. ./x.sh`` and ``./run.sh`` (a file whose
``#!`` names a shell, or one with no ``#!``, which the calling shell runs itself) run the file's
text as shell code, as ``bash -c "$(cat clean.sh)"`` would; ``bash.py`` holds those commands to
the deny and ask rules and to the safety checks (protected paths, Read and Edit deny rules), as it
does the line's own.  What they would need approval for is not asked about again: the rule or the
approval that lets the line run the script covers it, as for any program.

The text is only known when the file is there to read (a regular file of text, at most
``MAX_BYTES``) and nothing else in the line may change it first; otherwise, as for ``bash -c
"$X"``, it is code only known at run time, which a deny or ask rule may match.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from .bash_analysis import Analysis, CommandInfo
from .bash_arguments import tilde_path
from .bash_words import Word, run_time_word
from .git_words import git_global_options
from .paths import NOT_REGULAR, BadPath, nearest_holding, open_regular, resolve_below
from .shell_invocation import shell_call

# shells whose scripts tree-sitter-bash reads (a fish, csh, pwsh or python script is a program like any
# other: its text is not read, as no other language's is)
POSIX_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "hush", "rbash", "yash", "posh",
                          "bosh", "lksh", "oksh", "loksh", "pdksh", "ksh93"})
SOURCE = frozenset({"source", "."})
_PASSED_ON = run_time_word("PASSED_ON")  # a handed-on word only known at run time
# git subcommands that change no file of the work tree
_GIT_KEEPING_FILES = frozenset({"add", "commit", "status", "log", "diff", "show", "push", "fetch", "tag", "remote",
                                "notes", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep", "reflog",
                                "fsck", "count-objects", "gc", "config"})
MAX_BYTES = 128 * 1024
_PER_PROCESS = ("/dev/", "/proc/")  # /dev/stdin, /dev/fd/3, /proc/self/fd/0: the running command's
MAX_DEPTH = 4  # a script running a script …, this deep
# programs that change no file's text (chmod +x run.sh && ./run.sh), or only the files they name
_CHANGE_NO_TEXT = frozenset({"chmod", "chown", "chgrp", "touch", "mkdir", "rmdir", "cd", "pushd", "popd",
                             "export", "set", "shopt", "umask", "ulimit", "sleep", "true", "false", ":"})
_CHANGE_NAMED = frozenset({"rm", "cp", "mv", "ln", "install", "tee", "sed", "gsed", "perl", "truncate", "dd",
                           "curl", "wget", "echo", "printf", "cat", "sort", "uniq", "patch", "rsync", "unlink",
                           "shred", "split", "iconv", "gzip", "gunzip", "xz", "unxz", "bzip2", "zstd"})


@dataclass(frozen=True, slots=True)
class Script:
    """A script file a command runs: ``path`` (real), or None when it is only known at run time
    (``why`` says why); ``shown``: the word as written."""

    shown: str
    path: str | None
    why: str = ""
    missing: bool = False  # no such file: the shell fails before running anything (unless the line makes it)
    code: str | None = None  # the code itself, when it is not the whole file (package.json's scripts)
    cwd: str | None = None  # where it runs, when not where the command does (a package's folder)
    certain: bool = True  # False: these commands may run (make's pattern rules): a deny rule asks
    # a git configuration file any edit may change (git_hooks): checked only when it is in the working
    # directories, and then it asks in every mode: ``ask`` as it is, ``ask_if_changed`` when the line
    # may change it first
    ask: str = ""
    ask_if_changed: str = ""
    remote: bool = False  # the code runs on another machine (sky launch task.yaml): deny and ask rules only
    rules_only: bool = False  # a command only the deny and ask rules judge (a kernel spec's argv)
    prelude: str = ""  # code the shell's options mean, read before the file's (bash -O dotglob x.sh)
    sourced: bool = False  # run in the line's own shell (. x.sh): its cd and settings last after it
    bin_folders: tuple[str, ...] = ()  # first on PATH for its commands (a package script: node_modules/.bin)


def may_run_scripts(analysis: Analysis, programs: frozenset[str]) -> bool:
    """The cheap test first: does some command run one of ``programs`` (shells, ``source``, the
    runners of ``package_scripts``, ``make_recipes`` …) or a program by path?"""
    for info in analysis.commands:
        for form in info.forms:
            if form:
                name = form[0].text
                if name in programs or "/" in name:
                    return True
    return False


def scripts_run(info: CommandInfo, cwds: list[str]) -> list[Script]:
    """The script files this command runs (every form: ``timeout 60 bash x.sh`` runs ``x.sh``)."""
    found: list[Script] = []
    for form in info.forms:
        if not form or not form[0].static:
            continue
        program = form[0].text
        name = program.rsplit("/", 1)[-1]
        if name in POSIX_SHELLS:
            call = shell_call([w.literal for w in form[1:]], name)
            if call.mode in ("file", "unknown") and call.operand is not None:
                scripts = located(form[1 + call.operand], cwds, search_path=True)
            else:  # bash -c CODE, bash reading stdin (bash_wrappers reads those); sh < FILE (bash_stdin)
                scripts = [s for word in info.stdin_scripts for s in located(word, cwds, search_path=False)]
            if call.rcfile is not None:  # bash --rcfile x.sh -i: x.sh runs first, in the same shell
                scripts += located(form[1 + call.rcfile], cwds, search_path=False)
            found.extend(replace(s, prelude=call.prelude) if call.prelude else s for s in scripts)
        elif program in SOURCE:
            args = form[2:] if len(form) > 1 and form[1].literal == "--" else form[1:]
            if args:
                found.extend(replace(s, sourced=True) for s in located(args[0], cwds, search_path=True,
                                                                         path_first=True))
        elif "/" in program:
            for script in located(form[0], cwds, search_path=False):
                shell = script_shell(script.path) if script.path is not None else "bash"
                if shell is not None:  # #!/bin/zsh: as zsh reads it
                    prelude = shell_call((), shell).prelude
                    found.append(replace(script, prelude=prelude) if prelude else script)
    return found


def passed_on(words: tuple[Word, ...]) -> str:
    """Words a task runner hands to a script's command (``npm run show -- .env``), as shell code:
    fixed ones quoted, the others a word only known at run time (a leading ``--`` dropped)."""
    if words and words[0].literal == "--":
        words = words[1:]
    return " ".join(shlex.quote(w.literal) if w.literal is not None else _PASSED_ON for w in words)


def templated(line: str, pattern: re.Pattern[str], value: Callable[[re.Match[str]], str]) -> str:
    """``line`` with each match of ``pattern`` (a template: just's ``{{x}}``, go-task's ``{{.X}}``,
    a Python value IPython puts in) replaced by ``value(match)``, shell code for words (``"${X}"``:
    a word only known at run time), outside the quotes it stands in: ``rm -rf '{{d}}'`` removes what
    ``d`` says, not a file so named.  Quotes are followed into ``$(…)`` and backquotes, and
    ``$'…'``; a backslash before a template quotes only the value's first character."""
    out: list[str] = []
    stack = [""]  # the quotes open, innermost last: "" (unquoted, or in $( )), "`", "'", '"', "$'"
    parens = [0]  # open parentheses at each level (the one closing $( ends it)
    i, n = 0, len(line)
    while i < n:
        top = stack[-1]
        match = pattern.match(line, i)
        if match is not None and match.end() > i:
            words = value(match)  # close the quote, the words, reopen it
            out.append(words if top in ("", "`") else f"{top[-1]}{words}{top}")
            i = match.end()
            continue
        c = line[i]
        if c == "\\" and top not in ("'",) and i + 1 < n:
            if pattern.match(line, i + 1):
                out.append("\\_")
                i += 1
            else:
                out.append(line[i:i + 2])
                i += 2
            continue
        out.append(c)
        i += 1
        nxt = line[i] if i < n else ""
        if top in ("'", "$'"):
            if c == "'":
                stack.pop()
                parens.pop()
        elif c == "$" and (nxt == "(" or (nxt == "'" and top != '"')):
            out.append(nxt)
            i += 1
            stack.append("" if nxt == "(" else "$'")
            parens.append(0)
        elif c == "`":
            if top == "`":
                stack.pop()
                parens.pop()
            else:
                stack.append("`")
                parens.append(0)
        elif top == '"':
            if c == '"':
                stack.pop()
                parens.pop()
        elif c in "'\"":
            stack.append(c)
            parens.append(0)
        elif c == "(":
            parens[-1] += 1
        elif c == ")" and parens[-1]:
            parens[-1] -= 1
        elif c == ")" and len(stack) > 1:
            stack.pop()
            parens.pop()
    return "".join(out)


class NotKnown(Exception):
    """What a reader of a runner's file raises when what it runs is only known at run time (why)."""


def options_of(words: Sequence[Word], takes_value: frozenset[str], program: str
               ) -> Iterator[tuple[str, str | None, Word]]:
    """A runner's command line, word by word: ``(option, value, word)`` for an option (its value
    after ``=``, or the next word for one of ``takes_value``; else None), ``("", None, word)`` for
    an operand (whose ``literal`` may be None: the caller says what that means).  A word only known
    at run time where an option or its value stands is ``NotKnown``."""
    i = 0
    while i < len(words):
        word = words[i]
        text = word.literal
        if text is None or not text.startswith("-") or text == "-":
            if text is None and word.text.startswith("-"):
                raise NotKnown(f"{word.text} is only known at run time")
            yield "", None, word
            i += 1
            continue
        option, eq, value = text.partition("=")
        if option in takes_value and not eq:
            following = words[i + 1].literal if i + 1 < len(words) else None
            if following is None:
                raise NotKnown(f"{program} {option} has a value only known at run time")
            value, eq, i = following, "=", i + 1
        yield option, value if eq else None, word
        i += 1


def walk_bounded(folder: str, what: str, limit: int = 20_000) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(folder)`` (the caller may prune ``dirs``), ``NotKnown`` past ``limit`` entries:
    a runner's search of a huge tree (a data folder) is not followed."""
    seen = 0
    for where, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if seen > limit:
            raise NotKnown(f"{folder} is too big to search for {what}")
        yield where, dirs, files


def front_matter(text: str) -> dict[str, Any] | None:
    """The YAML between a leading ``---`` line and the next ``---`` (or ``...``) line of a document
    or a notebook cell; None when there is none, ``{}`` when it is not a mapping."""
    lines = text.lstrip("\ufeff").strip("\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for end, line in enumerate(lines[1:], 1):
        if line.strip() in ("---", "..."):
            loaded = yaml_of("\n".join(lines[1:end]).encode())
            return loaded if isinstance(loaded, dict) else {}
    return None


def per_form(shown: str, of_form: Callable[[tuple[Word, ...], str, bool], list[Script]]
             ) -> Callable[[tuple[Word, ...], str, bool], list[Script]]:
    """``of_form(form, cwd, cwd_unknown)`` for ``scripts_of_forms``, a ``NotKnown`` it raises made
    a script only known at run time (``shown``: what it is).  Made once per reader: ``scripts_of_forms``
    memoizes by the function."""
    def read(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
        try:
            return of_form(form, cwd, cwd_unknown)
        except NotKnown as why:
            return [Script(shown, None, str(why))]
    return read


def scripts_of_forms(
    info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object], programs: frozenset[str],
    of_form: Callable[[tuple[Word, ...], Any, bool], list[Script]], per_folder: bool,
) -> list[Script]:
    """``of_form(form, where, cwd_unknown)`` for each form of the command whose program is one of
    ``programs`` (``timeout 60 make clean``: make's), once per decision (``memo``: a long line runs
    make or npm many times in the same folders); ``where`` is each folder (``per_folder``) or all."""
    found: list[Script] = []
    unknown = getattr(cwds, "unknown", False)
    places: list[Any] = list(dict.fromkeys(cwds)) if per_folder else [cwds]
    for form in info.forms:
        if form and form[0].literal in programs:
            shape = tuple((w.text, w.literal is not None) for w in form)
            for place in places:
                key = (of_form, shape, place if per_folder else tuple(place), unknown)
                if key not in memo:
                    memo[key] = of_form(form, place, unknown)
                found.extend(memo[key])  # type: ignore[arg-type]
    return found


def located(word: Word, cwds: list[str], search_path: bool, path_first: bool = False) -> list[Script]:
    """Where the file ``word`` names is, from every folder the command may run in; a name
    without a slash is also looked up on ``PATH`` (``source`` looks there first, bash after the
    working folder), as the shell does."""
    text = word.literal or tilde_path(word)
    if text is None or "{}" in text:  # find -exec bash {} ;: each file found
        return [Script(word.text, None, f"{word.text} is a file only known at run time")]
    if text[:1] != "/" and getattr(cwds, "unknown", False):
        return [Script(text, None, f"{text} is found from a folder only known at run time")]
    on_path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p] if search_path and "/" not in text else []
    found = []
    for cwd in dict.fromkeys(cwds):
        try:
            lexical, local = resolve_below(text, cwd)
        except BadPath:
            found.append(Script(text, None, f"{text} could not be resolved"))
            continue
        if lexical.startswith(_PER_PROCESS):  # /dev/stdin here is not the command's
            found.append(Script(text, None, f"{text} is read from what the command is given"))
            continue
        candidates = [os.path.realpath(os.path.join(p, text)) for p in on_path]
        candidates = [*candidates, local] if path_first else [local, *candidates]
        path = next((c for c in candidates if os.path.isfile(c)), None)
        if path is not None:
            found.append(Script(text, path))
        elif os.path.exists(local):  # bash /dev/stdin, a fifo, <(…)'s /dev/fd/63: read as it runs
            found.append(Script(text, None, f"{text} is not a regular file"))
        else:
            found.append(Script(text, local, missing=True))
    return found


def shell_script(path: str) -> bool:
    """A file run by path is shell code when its ``#!`` names a POSIX shell (``/usr/bin/env
    bash`` too) or when it has none (bash runs a text file without one itself); an unreadable
    one counts as one (its text is not known)."""
    return script_shell(path) is not None


def script_shell(path: str) -> str | None:
    """The POSIX shell that runs the file ``path`` when it is run by path (``bash`` for a text
    file with no ``#!``, and for one that cannot be read), None when it is no shell's."""
    try:
        with open_regular(path) as handle:
            head = handle.read(256)
    except OSError:
        return "bash"
    if not head.startswith(b"#!"):
        return "bash" if b"\x00" not in head else None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    name = interpreter_name(words) if words else "bash"
    return name if name in POSIX_SHELLS else None


def interpreter_name(words: list[str]) -> str:
    """The program a ``#!`` line, make's ``SHELL`` or just's ``set shell`` names:
    ``/bin/bash -e`` -> bash, ``/usr/bin/env -S bash -e`` -> bash (env's options and
    ``NAME=VALUE`` words skipped)."""
    name = words[0].rsplit("/", 1)[-1] if words else ""
    if name == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        name = rest[0].rsplit("/", 1)[-1] if rest else ""
    return name


def variable_set(info: CommandInfo, name: str) -> bool:
    """Does the line (``COMPOSER=x.json composer …``, ``env NAME=…``) or the environment set
    ``name``, a variable naming the file a runner reads instead of its own?"""
    return any(assigned == name for assigned, _value in info.assigned) or bool(os.environ.get(name))


def not_there(folder: str, names: Iterable[str]) -> list[Script]:
    """The files a runner would read from ``folder`` (its Makefile, tox.ini …) when it finds none
    there: nothing runs unless the line makes one first (then it is code only known at run time)."""
    return [Script(path, path, missing=True) for path in (os.path.join(folder, name) for name in names)]


def nearest_files(cwds: list[str], name: str) -> list[tuple[str, str]]:
    """``(folder, path)`` of the nearest ``name`` upwards from each working folder, each once: the
    manifest a package manager or task runner finds (``package.json``, ``pyproject.toml``)."""
    found = (nearest_holding(cwd, (name,)) for cwd in dict.fromkeys(cwds))
    return [(folder, os.path.join(folder, name)) for folder in dict.fromkeys(f for f in found if f is not None)]


def read_bounded(path: str, limit: int = MAX_BYTES) -> tuple[bytes | None, str]:
    """A regular file's bytes, at most ``limit`` of them; else None and why they are not known
    (the scripts, makefiles, justfiles and manifests this analyzer reads)."""
    try:
        with open_regular(path) as handle:  # (a named pipe is not waited on)
            data = handle.read(limit + 1)
    except OSError as exc:
        if exc.strerror == NOT_REGULAR:
            return None, NOT_REGULAR
        return None, f"it could not be read ({exc.strerror or type(exc).__name__})"
    if len(data) > limit:
        return None, f"it is longer than {limit // 1024} KiB"
    return data, ""


def parsed_file(path: str, parse: Callable[[bytes], Any], limit: int = MAX_BYTES * 8) -> tuple[Any, str]:
    """``parse(its bytes)`` for the file at ``path``, kept while its inode, size and time stay the
    same (a runner's configuration is read by many decisions); ``(None, why)`` when there is no
    such file (why: ""), it cannot be read, or ``parse`` raises ``ValueError`` (its message)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"it could not be read ({exc.strerror or type(exc).__name__})"
    return _parsed_file(path, st.st_ino, st.st_mtime_ns, st.st_size, parse, limit)


@lru_cache(maxsize=1024)
def _parsed_file(path: str, _ino: int, _mtime: int, _size: int, parse: Callable[[bytes], Any],
                 limit: int) -> tuple[Any, str]:
    data, why = read_bounded(path, limit)
    if data is None:
        return None, why
    try:
        return parse(data), ""
    except ValueError as exc:
        return None, str(exc)


def ini_of(data: bytes) -> configparser.RawConfigParser:
    """The INI file ``data`` holds, as tox and pytest read one (no interpolation, repeated keys
    allowed); ``ValueError`` when it is not one."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error as exc:
        raise ValueError(f"it is not an INI file ({type(exc).__name__})") from None
    return parser


def text_of(data: bytes) -> str:
    """A text file's text (for ``parsed_file``: a module-level function, so its result is kept)."""
    return data.decode("utf-8", "replace")


def lines_of(data: bytes) -> list[str]:
    """A text file's lines (for ``parsed_file``: a module-level function, so its result is kept)."""
    return data.decode("utf-8", "replace").splitlines()


def yaml_of(data: bytes) -> Any:
    """The YAML document ``data`` holds (``ValueError`` when it is not YAML)."""
    try:
        return yaml.safe_load(data)
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not YAML ({type(exc).__name__})") from None


def mapping_file(path: str, parse: Callable[[bytes], Any] = yaml_of) -> dict[str, Any] | None:
    """A runner's configuration file parsed into a mapping; None when there is no such file;
    ``NotKnown`` when it cannot be read or is not a mapping."""
    loaded, why = parsed_file(path, parse)
    if loaded is None and not why:
        return None
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path}: {why or 'it is not a mapping'}")
    return loaded


def table_at(data: object, *keys: str) -> dict[str, Any]:
    """The table at ``keys`` of a parsed TOML document (``tool.hatch``; an empty one when it is not
    there); ``NotKnown`` when something else is there."""
    for key in keys:
        data = data.get(key, {}) if isinstance(data, dict) else {}
    if not isinstance(data, dict):
        raise NotKnown(f"{'.'.join(keys)} is not a table")
    return data


_JSONC_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_JSONC_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(\s*[}\]])', re.DOTALL)


def jsonc_of(data: bytes) -> Any:
    """JSON with comments and trailing commas (``deno.jsonc``, ``tsconfig.json``); ``ValueError``
    when it is not that."""
    text = data.decode("utf-8-sig")
    text = _JSONC_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)
    text = _JSONC_TRAILING_COMMA.sub(lambda m: m.group(0) if m.group(0).startswith('"') else m.group(1), text)
    return json.loads(text)


def toml_of(data: bytes) -> dict[str, Any]:
    """The TOML document ``data`` holds (``ValueError`` when it is not TOML)."""
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        raise ValueError("it is not valid TOML") from None


def read_script(path: str) -> tuple[str | None, str]:
    """The script's text, or None and why it is not known."""
    data, why = read_bounded(path)
    if data is None:
        return None, why
    if b"\x00" in data:
        return None, "it is not text"
    return data.decode("utf-8", "surrogateescape"), ""


def line_may_change(analysis: Analysis, runner: CommandInfo | None, path: str, cwds: list[str],
                    everything: bool = True, memo: dict[tuple[object, ...], object] | None = None) -> bool:
    """Whether a command of the line other than ``runner`` may write ``path`` before (or while)
    it runs: a write redirection to it or to a file only known at run time; a writing command
    naming it, a folder above it or a word only known at run time, or whose text mentions its
    name (``python -c "open('x.sh', 'w')"``).  ``everything``: a program this module does not
    know to write only what it names (``make``, ``git checkout``, ``unzip``) may write it too —
    for the line that runs the script, not for the script's own commands (see ``bash.py``).
    ``memo``: this decision's (a long line runs make or npm many times, each asking of the same files)."""
    before = run_before(analysis, runner) if runner is not None else None
    if before is not None:  # source .venv/bin/activate && pytest: pytest starts after it was read
        return bool(_changers(before, path, cwds, everything))
    if memo is None:
        found = _changers(analysis, path, cwds, everything)
    else:
        key = ("changers", id(analysis), path, tuple(cwds), everything)
        if key not in memo:
            memo[key] = _changers(analysis, path, cwds, everything)
        found = memo[key]  # type: ignore[assignment]
    return any(c is not runner for c in found)


def run_before(analysis: Analysis, runner: CommandInfo) -> Analysis | None:
    """The line with only the commands that run before ``runner`` (and all its redirections),
    when the line is simple commands run one after another; None when that is not known."""
    programs = _programs_in_order(analysis.source)
    commands = analysis.commands
    if programs is None or len(programs) != len(commands):
        return None
    at = None
    for i, (info, program) in enumerate(zip(commands, programs, strict=True)):
        if info.nested or info.inline_code or not info.forms or not info.forms[0] or info.forms[0][0].text != program:
            return None
        if info is runner:
            at = i
    return None if at is None else Analysis(commands[:at], analysis.redirects)


_SEPARATORS = frozenset({";", "&&", "||", "comment"})
_INNER_CODE = frozenset({"command_substitution", "process_substitution", "heredoc_body", "herestring_redirect"})


@lru_cache(maxsize=256)
def _programs_in_order(line: str) -> tuple[str, ...] | None:
    """The program words of ``line`` when it is only simple commands that run one after another —
    joined by ``;``, newlines, ``&&`` and ``||`` (no pipe, ``&``, loop, group, subshell, function
    or substitution) — in the order they run; None otherwise.  Each one ends before the next
    starts, so a later one cannot change a file an earlier one read (bash reads a sourced file
    whole before running it, and a script's shell has exited before the next command starts)."""
    from .bash_parse import _parser  # (the thread's parser, as bash_stdin uses it)

    if not line:
        return None
    root = _parser().parse(line.encode("utf-8", "surrogateescape")).root_node
    if root.has_error:
        return None
    programs: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind in ("program", "list"):
            stack.extend(reversed(node.children))
            continue
        if kind in _SEPARATORS:
            continue
        if kind == "redirected_statement":
            node = node.child_by_field_name("body")  # type: ignore[assignment]
            if node is None:
                return None
            kind = node.type
        if kind != "command":
            return None
        name = node.child_by_field_name("name")
        if name is None or name.text is None or _holds_code(node):
            return None
        programs.append(name.text.decode("utf-8", "surrogateescape"))
    return tuple(programs)


def _holds_code(node: Any) -> bool:
    stack = list(node.children)
    while stack:
        node = stack.pop()
        if node.type in _INNER_CODE:
            return True
        stack.extend(node.children)
    return False


_REDIRECT = object()  # what _changers gives for a write redirection: no command is it


def _changers(analysis: Analysis, path: str, cwds: list[str], everything: bool) -> tuple[object, ...]:
    """Up to two commands of the line that may write ``path`` (``_REDIRECT``: a redirection),
    which is enough to tell whether one other than any given command does."""
    name = os.path.basename(path)
    for redirect in analysis.redirects:
        if redirect.write and _names(redirect.target, path, name, cwds):
            return (_REDIRECT,)
    found: list[object] = []
    for info in analysis.commands:
        if info.read_only.read_only or info.cd_kind or info.inline_code:  # sh -c 'make': its commands count
            continue
        program = info.innermost[0].literal if info.innermost else None
        if program in _CHANGE_NO_TEXT or (program == "git" and _git_keeps_files(info.innermost)):
            continue
        if (everything and program not in _CHANGE_NAMED) or any(
                _names(word, path, name, cwds) for form in info.forms for word in form[1:]):
            found.append(info)
            if len(found) == 2:
                break
    return tuple(found)


def _git_keeps_files(words: tuple[Word, ...]) -> bool:
    """``git add``, ``git commit``, ``git push`` … change no file of the work tree (what their
    hooks run is checked as those hooks)."""
    _options, i = git_global_options(words)
    return i < len(words) and words[i].literal in _GIT_KEEPING_FILES


def may_put_in(analysis: Analysis, folder: str, cwds: list[str], besides: CommandInfo | None,
               last_too: bool = True, functions: frozenset[str] = frozenset()) -> bool:
    """Whether a command of ``analysis`` other than ``besides`` may write a file into
    ``folder`` (or replace the folder): a write redirection there, a writing command naming it,
    a folder above it or a file in it, or a program that may write where it likes (``pip
    install``, ``python x.py``, one only known at run time).  Builtins write no file, nor does
    calling one of ``functions`` (its commands are among the analysis's).
    ``last_too`` False: the line's last command does not count (nothing after it looks a
    program up), unless commands run in the background."""
    from .sourced_effects import BASH_BUILTINS

    name = os.path.basename(folder)
    for redirect in analysis.redirects:
        if redirect.write and _names(redirect.target, folder, name, cwds, below=True):
            return True
    commands = analysis.commands
    skip = commands[-1] if commands and not last_too and not _BACKGROUND.search(analysis.source or "") else None
    for info in commands:
        if info is besides or info is skip or info.read_only.read_only or info.cd_kind:
            continue
        program = info.innermost[0].literal if info.innermost else None
        if info.innermost and (program in functions or (program in BASH_BUILTINS and program not in _CODE_BUILTINS)):
            continue
        if program is None and not info.innermost and not info.forms:
            continue  # an assignment alone
        if (program is None or program not in _CHANGE_ONLY_NAMED) or any(
                _names(word, folder, name, cwds, below=True) for form in info.forms for word in form[1:]):
            return True
    return False


# builtins that run code or other programs (which may write anything)
_CODE_BUILTINS = frozenset({"source", ".", "eval", "exec", "command", "builtin", "trap", "fc", "enable", "coproc",
                            "time", "xargs"})
_BACKGROUND = re.compile(r"(?<![&>|])&(?![&>])")
_CHANGE_ONLY_NAMED = _CHANGE_NAMED | _CHANGE_NO_TEXT  # what writes only what it names, if anything


def _names(word: Word, path: str, name: str, cwds: list[str], below: bool = False) -> bool:
    """Whether ``word`` may name ``path`` or a folder above it (``below``: or a file in it)."""
    text = word.literal
    if text is None and (word.text == "~" or word.text[:2] == "~/") and tilde_path(word) is not None:
        text = os.path.expanduser(word.text)  # > ~/x: home's (a line that sets HOME asks on its own)
    if text is None:
        return True
    if name in text:
        return True
    for cwd in cwds:
        try:
            real = resolve_below(text, cwd)[1]
        except BadPath:
            continue
        if real == path or path.startswith(real.rstrip("/") + "/") or (below and real.startswith(path.rstrip("/") + "/")):
            return True
    return False


__all__ = ["MAX_BYTES", "MAX_DEPTH", "may_put_in", "POSIX_SHELLS", "SOURCE", "Script", "line_may_change", "may_run_scripts", "read_script", "scripts_run", "not_there",
           "NotKnown", "lines_of", "text_of", "parsed_file", "per_form", "shell_script",
           "templated", "jsonc_of", "toml_of", "yaml_of", "ini_of", "located", "nearest_files", "interpreter_name"]
