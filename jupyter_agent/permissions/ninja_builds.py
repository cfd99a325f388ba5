"""The commands ``ninja`` runs from ``build.ninja``.

``ninja [-C DIR] [-f FILE] [TARGET…]`` runs the ``command`` of the rule of each build edge it
needs, with ``/bin/sh -c`` in ``DIR``.  Every edge that is not ``phony`` may be needed, so each
one's command counts (which targets are out of date is not known before it runs).  A command is
evaluated as ninja evaluates it (the manual's scoping): ``$in``/``$out``/``$in_newline`` are the
edge's explicit paths, each shell-escaped; then the edge's own bindings, the rule's, the file's
variables as the files end (``include`` shares the file's scope, ``subninja`` opens a child
one; an edge's own bindings are evaluated where they stand); ``$$``, ``$ ``, ``$:`` and ``$``-newline are ninja's escapes.  ``-n`` and ``-t TOOL``
run no command.  A bad ``$`` escape, an include that cannot be read, an option this does not
know or more than ``_MAX_COMMANDS`` distinct commands are code only known at run time.
Checked against ``ninja -t commands`` of a real ninja (tests).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from .bash_analysis import CommandInfo
from .bash_words import Word, make_word
from .script_files import NotKnown, Script, options_of, per_form, read_bounded, scripts_of_forms

_GENERATED = frozenset({"cmake", "meson"})  # cmake --build DIR, meson compile -C DIR: ninja (or make) there
NINJAS = frozenset({"ninja", "ninja-build", "samu"}) | _GENERATED
_VALUES = frozenset({"-C", "-f", "-j", "-k", "-l", "-d", "-t", "-w"})
_FLAGS = frozenset({"-n", "-v", "--verbose", "--quiet", "--version", "-h", "--help"})
_MAX_COMMANDS = 300
# the bindings a rule may have (ninja 1.13); any other makes ninja refuse the file
_RULE_KEYS = frozenset({"command", "depfile", "deps", "msvc_deps_prefix", "description", "dyndep", "generator",
                        "pool", "restat", "rspfile", "rspfile_content"})
_MAX_FILES = 64
_SIMPLE_NAME = re.compile(r"[a-zA-Z0-9_-]+")
_BRACED_NAME = re.compile(r"[a-zA-Z0-9_.-]+")


def ninja_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``ninja`` of this command may run (every form: ``uv run ninja``)."""
    return scripts_of_forms(info, cwds, memo, NINJAS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    if form[0].literal in _GENERATED:
        return _generated_build(form, cwd, cwd_unknown)
    folder, name = ".", "build.ninja"
    words: list[Word] = []
    for word in form[1:]:  # -j4, -Cbuild: getopt's attached values
        text = word.literal
        if text is not None and text[:2] in _VALUES and len(text) > 2:
            words.extend((make_word(text[:2]), make_word(text[2:])))
        else:
            words.append(word)
    for option, value, word in options_of(words, _VALUES, "ninja"):
        if not option:
            if word.literal is None:
                raise NotKnown(f"the ninja target {word.text} is only known at run time")
        elif option in ("-n", "-t", "--version", "-h", "--help"):
            return []  # a dry run, a tool, the version or the help: no command of the file runs
        elif option == "-C":
            folder = os.path.join(folder, value or "")
        elif option == "-f":
            name = value or ""
        elif option not in _VALUES and option not in _FLAGS:
            raise NotKnown(f"ninja {option} is an option this does not know")
    if cwd_unknown:
        raise NotKnown("ninja runs in a folder only known at run time")
    where = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
    path = os.path.join(where, name)
    if not os.path.exists(path):
        return []  # ninja: error loading 'build.ninja' — nothing runs
    commands = NinjaFile(where).commands(path)
    return [Script(f"the ninja file {path}", path, code=command, cwd=where) for command in commands]


def _generated_build(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``cmake --build DIR`` runs the build tool its generator wrote there (``ninja -C DIR`` when
    ``DIR/build.ninja`` exists, else ``make -C DIR``); ``meson compile [-C DIR]`` runs ninja in DIR
    (the build folder is the current one without ``-C``).  The command is read as a line of its
    own, so ninja's and make's readers give what those run."""
    words = [w.literal for w in form[1:]]
    if None in words:
        raise NotKnown(f"{form[0].text}'s arguments are only known at run time")
    texts: list[str] = [w or "" for w in words]
    if form[0].literal == "cmake":
        if not texts or texts[0].partition("=")[0] != "--build":
            return []  # configuring, -E commands (read elsewhere), --install …
        folder = texts[0].partition("=")[2] or (texts[1] if len(texts) > 1 else "")
        if not folder or folder.startswith("-"):
            raise NotKnown("cmake --build names its build folder by a preset or not at all")
    else:
        if not texts or texts[0] != "compile":
            return []  # meson setup, meson test …: no build file's commands
        folder = "."
        for k, text in enumerate(texts[1:], 1):
            if text in ("-C",) and k + 1 < len(texts):
                folder = texts[k + 1]
            elif text.startswith("-C") and len(text) > 2:
                folder = text[2:]
    if cwd_unknown:
        raise NotKnown(f"{form[0].text} runs in a folder only known at run time")
    where = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
    if os.path.exists(os.path.join(where, "build.ninja")):
        tool, path = "ninja", os.path.join(where, "build.ninja")
    elif form[0].literal == "cmake" and os.path.exists(os.path.join(where, "Makefile")):
        tool, path = "make", os.path.join(where, "Makefile")
    elif not os.path.isdir(where):
        return []  # no build folder: the tool fails
    else:
        raise NotKnown(f"{form[0].text} builds {where} with a tool this does not read")
    return [Script(f"the {tool} build in {where}", path, code=f"{tool} -C {shlex.quote(where)}", cwd=where)]


_READ = per_form("the commands ninja runs", _of_form)


@dataclass
class _Scope:
    variables: dict[str, str] = field(default_factory=dict)
    rules: dict[str, dict[str, str]] = field(default_factory=dict)  # name → unevaluated bindings
    parent: _Scope | None = None

    def lookup(self, name: str) -> str:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.variables:
                return scope.variables[name]
            scope = scope.parent
        return ""

    def rule(self, name: str) -> dict[str, str] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.rules:
                return scope.rules[name]
            scope = scope.parent
        return None


class NinjaFile:
    """Reads a ninja file and the files it includes; ``commands`` lists each edge's command."""

    def __init__(self, folder: str) -> None:
        self.folder = folder  # include and subninja paths are relative to where ninja runs
        self.found: dict[str, None] = {}
        self.edges: list[Callable[[], str]] = []
        self.files = 0

    def commands(self, path: str) -> list[str]:
        """Each edge's command, evaluated once every file is read: a rule's command sees the
        file's variables as they end up (as ninja evaluates it when the edge runs)."""
        self._read(path, _Scope())
        for edge in self.edges:
            command = edge()
            if command:
                self.found[command] = None
                if len(self.found) > _MAX_COMMANDS:
                    raise NotKnown(f"{path} has more than {_MAX_COMMANDS} different commands")
        return list(self.found)

    def _read(self, path: str, scope: _Scope) -> None:
        self.files += 1
        if self.files > _MAX_FILES:
            raise NotKnown("ninja's files include too many others")
        data, why = read_bounded(path, 8 * 1024 * 1024)
        if data is None:
            raise NotKnown(f"{path}: {why}")
        lines = _logical_lines(data.decode("utf-8", errors="replace"))
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            block: list[tuple[str, str]] = []
            while i < len(lines) and lines[i][:1] in (" ", "\t"):
                key, eq, value = lines[i].strip().partition("=")
                if not eq:
                    raise NotKnown(f"{path}: {lines[i].strip()[:60]} is not a binding")
                block.append((key.strip(), value.lstrip()))
                i += 1
            self._statement(path, line, block, scope)

    def _statement(self, path: str, line: str, block: list[tuple[str, str]], scope: _Scope) -> None:
        keyword, _, rest = line.partition(" ")
        if keyword == "rule":
            unknown = [key for key, _value in block if key not in _RULE_KEYS]
            if unknown:  # ninja refuses the file
                raise NotKnown(f"{path}: a rule binding ninja does not take ({unknown[0]})")
            scope.rules[rest.strip()] = dict(block)
        elif keyword == "build":
            self._edge(path, rest, block, scope)
        elif keyword in ("include", "subninja"):
            target = os.path.join(self.folder, _evaluate(rest.strip(), scope.lookup))
            self._read(target, scope if keyword == "include" else _Scope(parent=scope))
        elif keyword in ("default", "pool", "ninja_required_version"):
            return
        else:
            name, eq, value = line.partition("=")
            if not eq or not _SIMPLE_NAME.fullmatch(name.strip()):
                raise NotKnown(f"{path}: {line[:60]} is not a statement ninja knows")
            scope.variables[name.strip()] = _evaluate(value.lstrip(), scope.lookup)

    def _edge(self, path: str, rest: str, block: list[tuple[str, str]], scope: _Scope) -> None:
        outputs, colon, after = _split_colon(rest)
        if not colon:
            raise NotKnown(f"{path}: a build line without ':'")
        words = _paths(after, scope)
        if not words:
            raise NotKnown(f"{path}: a build line without a rule")
        rule_name, inputs = words[0], words[1:]
        explicit_in = inputs[:next((k for k, w in enumerate(inputs) if w in ("|", "||", "|@")), len(inputs))]
        outs = _paths(outputs, scope)
        explicit_out = outs[:next((k for k, w in enumerate(outs) if w == "|"), len(outs))]
        if rule_name == "phony":
            return
        rule = scope.rule(rule_name)
        if rule is None:
            raise NotKnown(f"{path}: the rule {rule_name} is not defined")
        edge = {key: _evaluate(value, scope.lookup) for key, value in block}  # in the file's scope
        special = {"in": " ".join(shlex.quote(p) for p in explicit_in),
                   "in_newline": "\n".join(shlex.quote(p) for p in explicit_in),
                   "out": " ".join(shlex.quote(p) for p in explicit_out)}
        depth = [0]

        def lookup(name: str) -> str:
            if name in special:
                return special[name]
            if name in edge:
                return edge[name]
            if name in rule:
                depth[0] += 1
                if depth[0] > 64:
                    raise NotKnown(f"{path}: the variable {name} refers to itself")
                try:
                    return _evaluate(rule[name], lookup)
                finally:
                    depth[0] -= 1
            return scope.lookup(name)

        self.edges.append(lambda: lookup("command"))


def _logical_lines(text: str) -> list[str]:
    """The file's lines with ``$``-newline continuations joined (the next line's leading blanks
    dropped), comments and blank lines left out; indentation kept."""
    out: list[str] = []
    pending = ""
    for raw in text.split("\n"):
        raw = raw.rstrip("\r")
        line = pending + (raw.lstrip(" ") if pending else raw)
        trailing = len(line) - len(line.rstrip("$"))
        if trailing % 2 == 1:  # an unescaped $ at the end: the line goes on
            pending = line[:-1]
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
    if pending.strip():
        out.append(pending)
    return out


def _evaluate(text: str, lookup) -> str:  # type: ignore[no-untyped-def]
    """``text`` with ninja's escapes and variables expanded."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "$":
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1:i + 2]
        if nxt in ("$", " ", ":"):
            out.append(nxt)
            i += 2
        elif nxt == "{":
            end = text.find("}", i + 2)
            name = text[i + 2:end] if end >= 0 else ""
            if not _BRACED_NAME.fullmatch(name):
                raise NotKnown(f"a bad $-escape in {text[:60]!r}")
            out.append(lookup(name))
            i = end + 1
        else:
            match = _SIMPLE_NAME.match(text, i + 1)
            if match is None:
                raise NotKnown(f"a bad $-escape in {text[:60]!r}")
            out.append(lookup(match.group()))
            i = match.end()
    return "".join(out)


def _split_colon(text: str) -> tuple[str, str, str]:
    """``outputs: rule inputs`` split at the first unescaped ``:``."""
    i = 0
    while i < len(text):
        if text[i] == "$":
            i += 2
            continue
        if text[i] == ":":
            return text[:i], ":", text[i + 1:]
        i += 1
    return text, "", ""


def _paths(text: str, scope: _Scope) -> list[str]:
    """The space-separated paths of a build line (``$ `` a space inside one), evaluated."""
    words: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "$" and i + 1 < len(text):
            current.append(text[i:i + 2] if text[i + 1] != "{" else text[i:text.find("}", i) + 1 or len(text)])
            i += len(current[-1])
            continue
        if ch in " \t":
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
        i += 1
    if current:
        words.append("".join(current))
    return [_evaluate(w, scope.lookup) for w in words]


__all__ = ["NINJAS", "NinjaFile", "ninja_scripts"]
