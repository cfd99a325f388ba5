"""The folders a shell script's PATH assignments put on PATH, when they can be told before it runs.

A script that sets PATH changes which program a later command name runs, so a command after it
may be any program a deny rule names (``PATH=./bin:$PATH; ls`` runs ``bin/ls``, which may be a
copy of ``rm``).  A venv's activate script does exactly that::

    VIRTUAL_ENV="/p/.venv"            (3.13: in a `case "$(uname)"`, cygpath for Windows)
    PATH="$VIRTUAL_ENV/bin:$PATH"

``path_effects`` follows the script's assignments as bash would, every way through its ``if``,
``case``, ``&&``/``||`` and loops, and the functions it calls (``deactivate nondestructive``),
and gives the absolute folders PATH may hold that it did not: ``("/p/.venv/bin",)``.  A value
is its fixed text, ``$NAME``/``${NAME}``/``${NAME:-word}`` of a variable whose values are
known (one the script assigned, or the environment's), ``$PATH`` as what PATH held before, and
``$(cmd …)`` of a program that is not there (empty: ``cygpath`` on Linux).  ``[ -n "$V" ]``
before a branch drops the empty value of V in it (``deactivate``'s ``PATH="$_OLD_VIRTUAL_PATH"``
runs only when it is set).  Anything else (``eval``, ``source``, ``read PATH``, a program only
known at run time, an empty or relative entry, which bash looks up from the current folder)
makes the answer None: not known.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

from .bash_evaluated import DECLARES

_OLD = "\0"  # the value PATH had before the script (no fixed folders of the script's own)
_UNSET = "\x02"  # a variable that is not set (as a word: empty; ${V+x} tells it from V='')
_MAX_VALUES = 32  # more possible values of one variable than this: not known
_MAX_CALLS = 4  # functions calling functions deeper than this: not known
_NO_EFFECT = frozenset({"comment", ";", "&", "&&", "||", "|", "|&", "file_redirect",
                        "heredoc_redirect", "herestring_redirect", "heredoc_body", "heredoc_start", "heredoc_end"})
# builtins that set the variables they are given by name (read PATH, printf -v PATH …)
_NAME_SETTERS = frozenset({"read", "printf", "mapfile", "readarray", "getopts", "wait"})
# what runs code or changes the shell in ways not followed here (an alias runs only after
# shopt -s expand_aliases, which is one of them)
_NOT_FOLLOWED = frozenset({"eval", "source", ".", "trap", "let", "shopt", "enable", "fc", "coproc"})

# variables bash itself sets when it starts or as it runs: not the environment's values
_SHELL_SET = frozenset({"PWD", "OLDPWD", "SHLVL", "_", "BASH", "BASHPID", "BASHOPTS", "SHELLOPTS", "BASH_SOURCE",
                        "BASH_LINENO", "BASH_ARGV", "BASH_ARGC", "BASH_COMMAND", "BASH_SUBSHELL", "BASH_VERSION",
                        "BASH_VERSINFO", "FUNCNAME", "LINENO", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS",
                        "EPOCHREALTIME", "PPID", "UID", "EUID", "GROUPS", "HOSTNAME", "HOSTTYPE", "OSTYPE",
                        "MACHTYPE", "PIPESTATUS", "DIRSTACK", "IFS", "OPTIND", "OPTARG", "REPLY", "HISTCMD",
                        "COLUMNS", "LINES"})

_EVALUATING_EXPANSIONS = frozenset({"=", ":=", "?", ":?", ":", "subscript"})
_ARITHMETIC_TESTS = frozenset({b"-eq", b"-ne", b"-lt", b"-le", b"-gt", b"-ge"})

Value = tuple[str, ...]  # the pieces of one possible value, joined
State = dict[str, "frozenset[Value] | None"]  # a variable's possible values; None: not known


class _NotKnown(Exception):
    pass


@dataclass(frozen=True)
class PathEffects:
    """What a script does to PATH: ``gained``, the absolute folders it may put there that were
    not; ``restored``, the other variables it sets only back to the value they had before or
    to nothing (``deactivate``'s ``PYTHONHOME="$_OLD_VIRTUAL_PYTHONHOME"``)."""

    gained: tuple[str, ...]
    restored: frozenset[str]


@lru_cache(maxsize=128)
def path_effects(text: str, environment: tuple[tuple[str, str], ...]) -> PathEffects | None:
    """What the script ``text`` does to PATH when it starts with the variables ``environment``
    (``tuple(os.environ.items())``, its PATH among them); None when that cannot be told."""
    from .sourced_effects import _tree  # (the thread's parser)

    walker = _Walker(dict(environment))
    try:
        walker.block(_tree(text).children, {})
        gained = _folders(walker.taken, walker.environment.get("PATH", ""))
    except (_NotKnown, RecursionError):
        return None
    restored = frozenset(name for name, values in walker.given.items() if name != "PATH" and all(
        value is not None and value <= {(_UNSET,), ("",), (walker.environment.get(name, ""),)} for value in values))
    return PathEffects(gained, restored)


def _folders(taken: Iterable[Value], search: str) -> tuple[str, ...]:
    before = {os.path.normpath(p) for p in search.split(":") if p}
    found: dict[str, None] = {}
    for value in taken:
        for entry in "".join(value).split(":"):
            if entry == _OLD:
                continue
            if _OLD in entry or not entry.startswith("/"):
                raise _NotKnown  # an empty or relative entry: the current folder at run time
            folder = os.path.normpath(entry)
            if folder not in before:
                found[folder] = None
    return tuple(found)


class _Walker:
    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.functions: dict[str, Any] = {}
        self.taken: list[Value] = []  # every value PATH is given
        self.given: dict[str, list[frozenset[Value] | None]] = {}  # every variable's values given
        self.calls = 0
        self.depth = 0  # functions calling functions

    # --- statements: each takes the state before it and gives the state after it

    def block(self, nodes: Iterable[Any], state: State) -> State:
        for node in nodes:
            if node.is_named:
                state = self.statement(node, state)
        return state

    def statement(self, node: Any, state: State) -> State:
        kind = node.type
        if kind in _NO_EFFECT:
            return state
        if kind == "test_command":  # [ "${X:=/x}" ], [ "$(f)" ]: what its words do
            self._scan(node.children, state)
            return state
        if kind in ("compound_statement", "do_group", "program"):
            return self.block(node.children, state)
        if kind in ("redirected_statement", "negated_command"):
            self._scan(node.children[1:] if kind == "redirected_statement" else (), state)
            return self.statement(node.named_children[0], state) if node.named_children else state
        if kind == "variable_assignment":
            return self.assign(node, dict(state))
        if kind == "variable_assignments":
            state = dict(state)
            for child in node.named_children:
                state = self.assign(child, state)
            return state
        if kind == "declaration_command":
            return self.declare(node, dict(state))
        if kind == "unset_command":
            return self.unset(node, dict(state))
        if kind == "command":
            return self.command(node, state)
        if kind == "list":  # a && b, a || b: b may not run
            left, right = node.named_children[0], node.named_children[-1]
            after_left = self.statement(left, state)
            return self._join([after_left, self.statement(right, after_left)])
        if kind in ("pipeline", "subshell"):  # their own shells: what they set does not last
            return self._join([state, self.block(node.children, state)])
        if kind == "if_statement":
            return self.if_statement(node, state)
        if kind == "case_statement":
            self._scan(node.children[1:2], state)
            outcomes = [state] + [self.block(_after_patterns(item), state) for item in node.named_children
                                  if item.type == "case_item"]
            return self._join(outcomes)
        if kind in ("for_statement", "while_statement", "until_statement", "c_style_for_statement"):
            return self.loop(node, state)
        if kind == "function_definition":
            name = node.named_children[0]
            body = node.named_children[-1]
            self.functions[name.text.decode("utf-8", "surrogateescape")] = body
            return state
        raise _NotKnown

    def assign(self, node: Any, state: State) -> State:
        target = node.named_children[0] if node.named_children else None
        if target is None or target.type != "variable_name":
            raise _NotKnown  # a[1]=x: an array element
        name = target.text.decode()
        value_nodes = [c for c in node.children[2:]]
        appended = node.children[1].type == "+=" if len(node.children) > 1 else False
        self._scan(value_nodes, state)
        try:
            values: frozenset[Value] | None = self.value(value_nodes[0], state) if value_nodes else frozenset({("",)})
            if appended:
                values = _limit(frozenset(a + b for a, b in product(self._known(name, state), values or ())))
        except _NotKnown:
            if name == "PATH":
                raise
            values = None  # PS1="(`basename …`)": not known, which matters only if PATH takes it
        state[name] = values
        self.given.setdefault(name, []).append(values)
        if name == "PATH" and values is not None:
            self.taken.extend(values)
        return state

    def declare(self, node: Any, state: State) -> State:
        keyword = node.children[0].type
        for child in node.named_children:
            if child.type == "variable_assignment":
                state = self.assign(child, state)
            elif child.type == "variable_name":
                if keyword in ("local", "declare", "typeset"):  # local X: unset in the function
                    state[child.text.decode()] = _union(self.values_of(child.text.decode(), state), {(_UNSET,)})
            elif child.type == "word" and child.text.startswith(b"-"):
                if keyword != "export" and b"n" in child.text:
                    raise _NotKnown  # declare -n r=PATH: r's assignments set PATH
            else:
                raise _NotKnown  # a name only known at run time
        return state

    def unset(self, node: Any, state: State) -> State:
        functions = False
        for child in node.named_children:
            text = child.text.decode("utf-8", "surrogateescape")
            if child.type == "word" and text.startswith("-"):
                functions = "f" in text and "v" not in text
            elif child.type in ("variable_name", "word") and _plain_name(text):
                if not functions:
                    state[text] = frozenset({(_UNSET,)})
                    self.given.setdefault(text, []).append(state[text])
                    if text == "PATH":
                        self.taken.append(("",))  # no PATH: the current folder
            else:
                raise _NotKnown
        return state

    def command(self, node: Any, state: State) -> State:
        words: list[Any] = []
        prefixed = dict(state)  # NAME=V cmd: what cmd (a function too) runs with
        for child in node.named_children:
            if child.type == "variable_assignment":
                saved = self.taken, self.given
                self.taken, self.given = list(saved[0]), {k: list(v) for k, v in saved[1].items()}
                prefixed = self.assign(child, prefixed)  # (PATH=/p ls: what ls runs with is taken)
                self.given = saved[1]  # (not the shell's own: restored after the command)
            elif child.type == "command_name":
                words.append(child.named_children[0] if child.named_children else child)
            else:
                words.append(child)
        if not words:
            return state
        if words[0].type != "word":
            # $cmd …: any program, read or eval too; but $(command -v x &>/dev/null) is nothing
            if len(words) == 1 and self.value(words[0], state) == {("",)}:
                return state
            raise _NotKnown
        name = words[0].text.decode("utf-8", "surrogateescape")
        rest = words[1:]
        while name in ("builtin", "command") and rest:
            if rest[0].text.startswith(b"-"):
                return state  # command -v x: a look-up
            if rest[0].type != "word":
                raise _NotKnown
            name, rest = rest[0].text.decode("utf-8", "surrogateescape"), rest[1:]
        self._scan(rest, state)
        if name in _NOT_FOLLOWED or name in DECLARES or name == "unset":
            raise _NotKnown  # (command unset PATH, builtin export …: not read as those here)
        if name == "printf" and not any(w.text.startswith(b"-v") for w in rest):
            return state  # printf without -v only prints
        if name in _NAME_SETTERS:
            for word in rest:
                text = word.text.decode("utf-8", "surrogateescape")
                if word.type != "word" and not text.startswith("-"):
                    raise _NotKnown
                if text == "PATH":
                    raise _NotKnown
                if _plain_name(text):
                    state = {**state, text: None}
            return state
        if name in self.functions:
            self.calls += 1
            if self.calls > 64:
                raise _NotKnown
            if self.depth >= _MAX_CALLS:
                raise _NotKnown
            self.depth += 1
            try:
                return self._join([state, self.statement(self.functions[name], prefixed)])
            finally:
                self.depth -= 1
        return state

    def if_statement(self, node: Any, state: State) -> State:
        outcomes: list[State] = []
        rest = state
        for condition, body in _branches(node):
            if condition is None:  # else
                outcomes.append(self.block(body, rest))
                rest = None  # type: ignore[assignment]
                break
            after = self.block(condition, rest)
            outcomes.append(self.block(body, self._refined(condition, after)))
            rest = self._refined(condition, after, holds=False)
        if rest is not None:
            outcomes.append(rest)  # no branch taken
        return self._join(outcomes)

    def loop(self, node: Any, state: State) -> State:
        state = dict(state)
        variable = next((c for c in node.named_children if c.type == "variable_name"), None)
        if variable is not None and node.type == "for_statement":
            name = variable.text.decode()
            if name == "PATH":
                raise _NotKnown
            state[name] = None  # (not followed: its values are the list's words)
        body = [c for c in node.named_children if c.type == "do_group"]
        conditions = [c for c in node.named_children if c.type not in ("do_group", "variable_name")]
        if node.type in ("while_statement", "until_statement"):
            state = self.block(conditions, state)
        elif node.type == "c_style_for_statement":
            raise _NotKnown  # for ((…)): arithmetic, which may assign any variable
        else:
            self._scan(conditions, state)
        once = self._join([state, self.block(body, state)])
        twice = self._join([once, self.block(body, once)])
        if twice != once:  # a value that grows each time round: not followed
            for name in twice:
                if twice[name] != once.get(name, twice[name]):
                    if name == "PATH":
                        raise _NotKnown
                    twice[name] = None
        return twice

    def _join(self, states: list[State]) -> State:
        """What may hold after one of ``states``: each variable's values in any of them (one a
        state does not set has its value from before the script)."""
        joined: State = {}
        for name in {name for state in states for name in state}:
            values: frozenset[Value] | None = frozenset()
            for state in states:
                got = self.values_of(name, state)
                if got is None or values is None:
                    values = None
                    break
                values = values | got
            joined[name] = _limit(values) if values is not None else None
        return joined

    def _refined(self, condition: list[Any], state: State, holds: bool = True) -> State:
        """The state where ``condition`` is ``holds``, when it is one test of one variable
        (``[ -n "$V" ]``, ``! [ -z "${V:+_}" ]``, ``[ -n "${V+x}" ]``): V keeps the values for
        which the test may come out so (``deactivate``'s ``PATH="$_OLD_VIRTUAL_PATH"`` runs only
        when it is set)."""
        named = [c for c in condition if c.is_named]
        if len(named) != 1:
            return state
        test = named[0]
        while test.type == "negated_command" and test.named_children:
            holds = not holds
            test = test.named_children[0]
        if test.type != "test_command" or len(test.named_children) != 1:
            return state
        expression = test.named_children[0]
        operator, *operand = expression.children if expression.type == "unary_expression" else (None,)
        if operator is None or operator.text not in (b"-n", b"-z") or len(operand) != 1:
            return state
        name = _only_variable(operand[0])
        values = self.values_of(name, state) if name is not None else None
        if name is None or values is None:
            return state
        kept = set()
        for value in values:
            try:
                texts = {"".join(v) for v in self.value(operand[0], {**state, name: frozenset({value})})}
            except _NotKnown:
                return state
            outcomes = {bool(t) == (operator.text == b"-n") for t in texts}
            if holds in outcomes:
                kept.add(value)
        return {**state, name: frozenset(kept)}

    # --- values: the possible values of a word

    def value(self, node: Any, state: State) -> frozenset[Value]:
        kind = node.type
        text = node.text.decode("utf-8", "surrogateescape")
        if kind == "word":
            if any(c in text for c in "\\$`") or text.startswith("~"):
                raise _NotKnown
            return frozenset({(text,)})
        if kind == "number":
            return frozenset({(text,)})
        if kind == "raw_string":
            return frozenset({(text[1:-1],)})
        if kind in ("string", "concatenation"):
            pieces = [c for c in node.children if c.type != '"']
            found: frozenset[Value] = frozenset({()})
            for piece in pieces:
                if piece.type == "string_content":
                    part = piece.text.decode("utf-8", "surrogateescape")
                    if "\\" in part or "`" in part:
                        raise _NotKnown
                    values: frozenset[Value] = frozenset({(part,)})
                else:
                    values = self.value(piece, state)
                found = _limit(frozenset(a + b for a, b in product(found, values)))
            return found
        if kind == "simple_expansion":
            names = node.named_children
            if len(names) != 1 or names[0].type != "variable_name":
                raise _NotKnown  # $1, $@, $$ …
            return _as_text(self._known(names[0].text.decode(), state))
        if kind == "expansion":
            parts = [c for c in node.children if c.type not in ("${", "}")]
            if not parts or parts[0].type != "variable_name":
                raise _NotKnown
            values = self._known(parts[0].text.decode(), state)
            if len(parts) == 1:
                return _as_text(values)
            operator = parts[1].type
            if operator not in (":-", "-", ":+", "+") or len(parts) > 3:
                raise _NotKnown
            word = self.value(parts[2], state) if len(parts) == 3 else frozenset({("",)})
            out: set[Value] = set()
            for value in values:
                unset = value == (_UNSET,)
                missing = unset if operator in ("-", "+") else unset or not "".join(value)  # (: empty too)
                if operator[-1] == "+":  # ${V:+word}: word when V is there, else nothing
                    out.update({("",)} if missing else word)
                else:  # ${V:-word}: word when V is not there, else V
                    out.update(word if missing else {value})
            return _limit(_as_text(frozenset(out)))
        if kind == "command_substitution":
            return self._output(node)
        raise _NotKnown

    def _output(self, node: Any) -> frozenset[Value]:
        """What ``$( … )`` prints, when that is known: nothing when all it prints goes to
        /dev/null or its program is not there (``$(cygpath …)`` on Linux); the path of ``command
        -v NAME`` (or nothing)."""
        commands = node.named_children
        if len(commands) != 1:
            raise _NotKnown
        body = commands[0]
        if body.type == "redirected_statement":
            redirects = body.named_children[1:]
            if any(r.type == "file_redirect" and r.children and r.children[0].type in ("&>", ">", "1>")
                   and r.named_children and r.named_children[-1].text == b"/dev/null" for r in redirects):
                return frozenset({("",)})
            raise _NotKnown
        if body.type != "command":
            raise _NotKnown
        words = [c for c in body.named_children if c.type != "command_name"]
        program = body.child_by_field_name("name")
        name = program.text.decode("utf-8", "surrogateescape") if program is not None else ""
        search = self.environment.get("PATH")
        if name == "command" and len(words) == 2 and words[0].text == b"-v" and words[1].type == "word":
            looked = words[1].text.decode("utf-8", "surrogateescape")
            if _builtin(looked) or looked in self.functions:
                return frozenset({(looked,)})
            found = shutil.which(looked, path=search)
            return frozenset({(found or "",)})
        if (name and name.isascii() and "/" not in name and name not in self.functions and not _builtin(name)
                and shutil.which(name, path=search) is None):
            return frozenset({("",)})  # a program that is not there prints nothing
        raise _NotKnown

    def values_of(self, name: str, state: State) -> frozenset[Value] | None:
        if name in state:
            return state[name]
        if name == "PATH":
            return frozenset({(_OLD,)})
        if name in _SHELL_SET:
            return None  # $PWD is where the command runs, not the kernel's folder
        value = self.environment.get(name)
        if value is None:
            return frozenset({(_UNSET,)})
        if _OLD in value or _UNSET in value:
            return None
        return frozenset({(value,)})

    def _known(self, name: str, state: State) -> frozenset[Value]:
        values = self.values_of(name, state)
        if values is None:
            raise _NotKnown
        return values

    def _scan(self, nodes: Iterable[Any], state: State) -> None:
        """What words do besides giving text: code in ``$( … )`` or ``<( … )`` runs in a shell
        of its own, where it may still set PATH (``$(f; ls)`` with ``f`` setting it) for what
        it runs, so it is followed like a subshell; ``${X:=v}`` and arithmetic (``$((PATH=0))``)
        assign variables, which is not followed."""
        stack = list(nodes)
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("command_substitution", "process_substitution"):
                self.block(node.children, state)
                continue
            if kind == "expansion" and any(c.type in _EVALUATING_EXPANSIONS for c in node.children):
                raise _NotKnown  # ${X:=v} assigns; ${a[i]}, ${x:1:2} evaluate arithmetic
            if "arithmetic" in kind or kind == "subscript":
                raise _NotKnown  # $((x)) with x='PATH=0' assigns: a value is evaluated as arithmetic too
            if kind == "binary_expression" and any(c.type == "test_operator" and c.text in _ARITHMETIC_TESTS
                                                   for c in node.children):
                raise _NotKnown  # [[ x -eq 0 ]]: the operands are arithmetic, which may assign
            stack.extend(node.children)


def _branches(node: Any) -> list[tuple[list[Any] | None, list[Any]]]:
    """An if statement's (condition, body) pairs, the else body last with condition None."""
    found: list[tuple[list[Any] | None, list[Any]]] = []
    condition: list[Any] = []
    body: list[Any] = []
    where = "start"
    for child in node.children:
        kind = child.type
        if kind in ("if", "elif"):
            where = "condition"
        elif kind == "then":
            where = "body"
        elif kind in ("elif_clause", "else_clause"):
            if where == "body":
                found.append((condition, body))
                condition, body, where = [], [], "done"
            found.extend(_branches(child) if kind == "elif_clause" else [(None, list(child.children))])
        elif kind == "fi":
            break
        elif where == "condition":
            condition.append(child)
        elif where == "body":
            body.append(child)
    if where == "body":
        found.append((condition, body))
    return found


def _after_patterns(item: Any) -> list[Any]:
    """A case item's commands: what follows the ``)`` after its patterns."""
    children = list(item.children)
    for k, child in enumerate(children):
        if child.type == ")":
            return children[k + 1:]
    raise _NotKnown


def _only_variable(node: Any) -> str | None:
    """The one variable ``node`` expands (``"$V"``, ``"${V:+_}"``), or None."""
    found = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("command_substitution", "arithmetic_expansion", "process_substitution"):
            return None
        if current.type == "variable_name":
            found.add(current.text.decode())
        stack.extend(current.children)
    return found.pop() if len(found) == 1 else None


def _as_text(values: frozenset[Value]) -> frozenset[Value]:
    """Values as text in a word: an unset variable is empty."""
    return frozenset(("",) if v == (_UNSET,) else v for v in values) if any(v == (_UNSET,) for v in values) else values


def _union(values: frozenset[Value] | None, more: Iterable[Value]) -> frozenset[Value] | None:
    return None if values is None else _limit(values | frozenset(more))


def _limit(values: frozenset[Value]) -> frozenset[Value]:
    if len(values) > _MAX_VALUES:
        raise _NotKnown
    return frozenset(tuple(_merged(v)) for v in values)


def _merged(value: Value) -> list[str]:
    """Adjacent fixed pieces as one (the old PATH stays a piece of its own)."""
    out: list[str] = []
    for piece in value:
        if not piece:
            continue
        if out and piece != _OLD and out[-1] != _OLD:
            out[-1] += piece
        else:
            out.append(piece)
    return out or [""]


def _plain_name(text: str) -> bool:
    return bool(text) and (text[0].isalpha() or text[0] == "_") and all(c.isalnum() or c == "_" for c in text)


def _builtin(name: str) -> bool:
    from .sourced_effects import BASH_BUILTINS

    return name in BASH_BUILTINS
