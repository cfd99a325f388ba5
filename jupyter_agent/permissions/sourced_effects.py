"""What a sourced script (``. x.sh``, ``source .venv/bin/activate``) leaves behind for the
commands after it: it runs in the line's own shell, so its ``cd``, its settings, the variables it
sets and the functions it defines still hold when it returns.  A script it sources in turn
counts as its own text (``. ./a.sh`` where ``a.sh`` runs ``. ./b.sh`` and ``b.sh`` runs ``cd
.git``).

``bash.py`` turns these effects into the verdict (``_sourced_change_checks``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .bash_analysis import Analysis, CommandInfo, analyze
from .bash_evaluated import DECLARES, assigned_names, line_change
from .bash_runners import UNKNOWN_PROGRAM
from .script_files import MAX_DEPTH, SOURCE, line_may_change, read_script, scripts_run

# bash's builtins (`compgen -b` of bash 5.2): found before PATH is searched, so a changed PATH
# or LD_PRELOAD does not change what they run (a function of the same name does)
BASH_BUILTINS = frozenset(
    {".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen",
     "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec",
     "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
     "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly",
     "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap", "true", "type",
     "typeset", "ulimit", "umask", "unalias", "unset", "wait"}
)
# what, set in a sourced script, changes where a later cd of the line leads
CD_SETTINGS = ("CDPATH", "cdable_vars", "OLDPWD", "DIRSTACK")
OWN_SHELL_CODE = frozenset({"eval", "trap"})  # code run by the line's shell itself (not a child's)
# the variables the line's own shell reads (a builtin's meaning may change with them too)
_OWN_SHELL = frozenset({"IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "BASH_ENV", "ENV"})
_SETTERS = DECLARES | {"read", "printf", "getopts", "mapfile", "readarray"}


@dataclass(slots=True)
class SourcedEffects:
    """What one sourced script (and the scripts it sources) changes for the rest of the line."""

    unknown: str = ""  # a script it sources whose text is not known: why
    cd: str = ""  # the first cd / pushd / popd it runs
    cd_settings: bool = False  # it names CDPATH, cdable_vars, OLDPWD or DIRSTACK
    changes: list[tuple[str, bool | str]] = field(default_factory=list)  # line_change answers, with who
    programs: str = ""  # why a later program may not be the one its name finds by default
    builtins_too: bool = False  # ... a builtin's meaning too (IFS, enable)
    functions: set[str] = field(default_factory=set)  # the functions and aliases it defines
    own_code: str = ""  # code only known at run time it runs in the line's shell (eval "$(cat x)")


def sourced_effects(text: str, cwds: list[str], analysis: Analysis, runner: CommandInfo) -> SourcedEffects:
    """The effects of a sourced script's ``text`` on the line (``analysis``) that sources it with
    ``runner``."""
    out = SourcedEffects()
    _collect(text, "", cwds, analysis, runner, out, 0)
    return out


def _collect(text: str, shown: str, cwds: list[str], analysis: Analysis, runner: CommandInfo, out: SourcedEffects,
             depth: int) -> None:
    inner = analyze(text)
    where = f" (in {shown}, which it sources)" if shown else ""
    out.cd_settings = out.cd_settings or any(name in text for name in CD_SETTINGS)
    root: Any = None  # the script's parse tree, made when first needed
    if "()" in text or "function" in text:
        root = _tree(text)
        out.functions.update(_defined_functions(root))
    own_cd: bool | None = None  # (whether a cd may run in the shell itself, not in a subshell)
    for command in inner.commands:
        if command.cd_kind and not out.cd:
            if own_cd is None:
                own_cd = _cd_in_own_shell(root if root is not None else _tree(text))
            if own_cd:
                out.cd = command.text + where
        if command.ask_reason:
            change = line_change(command.forms, command.assigned)
            if change is not None:
                out.changes.append((f"runs {command.text or 'an assignment'}{where}: {change[0]}", change[1]))
            elif _sets_for_later(command) and not out.programs:
                names = ", ".join(name for name, _value in command.assigned)
                out.programs = f"{f'sets {names}' if names else f'runs {command.text}'}{where} ({command.ask_reason})"
                out.builtins_too = _own_shell(command)
        program = command.innermost[0].literal if command.innermost else None
        if not out.own_code and own_shell_unknown(command):
            # it may cd, set HOME or PATH, define functions: as eval "$X" in the line itself
            out.own_code = f"{command.text}{where}"
            out.programs = out.programs or f"runs {command.text}{where} (code only known at run time)"
            out.builtins_too = True
        if program == "enable" and len(command.innermost) > 1 and not out.programs:
            out.programs = f"runs {command.text}{where} (it turns shell builtins on or off, or loads new ones)"
            out.builtins_too = True
        elif program == "alias":  # (bash -c expands them after shopt -s expand_aliases)
            out.functions.update(w.literal.partition("=")[0] for w in command.innermost[1:]
                                 if w.literal is not None and "=" in w.literal)
        if program in SOURCE:
            _nested(command, cwds, analysis, runner, out, depth)


def own_shell_unknown(info: CommandInfo) -> bool:
    """Code only known at run time that the line's own shell runs, so that it may cd anywhere,
    set HOME, PATH or shopt options for the commands after it: ``eval "$X"``, ``trap "$X"
    DEBUG``, and a program only known at run time (``c=cd; $c "$D"``: a builtin too)."""
    if info.unknown_code and info.innermost and info.innermost[0].literal in OWN_SHELL_CODE:
        return True
    first = info.forms[0] if info.forms else ()
    if not first or first[0].literal is not None or first[0] is UNKNOWN_PROGRAM:
        return False
    return not _path_word(first[0].text)  # "$VENV/bin/python": a path, never a builtin


def _path_word(text: str) -> bool:
    """Whether ``text`` has a ``/`` of its own, outside ``${…}`` and ``$(…)``: bash then runs
    that file, never a builtin or function."""
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "$" and text[i + 1:i + 2] in ("{", "("):
            depth += 1
            i += 2
            continue
        if ch in "})" and depth:
            depth -= 1
        elif ch == "/" and not depth:
            return True
        i += 1
    return False


def _nested(command: CommandInfo, cwds: list[str], analysis: Analysis, runner: CommandInfo, out: SourcedEffects,
            depth: int) -> None:
    for script in scripts_run(command, cwds):
        if not script.sourced:
            continue
        if script.path is None:
            out.unknown = out.unknown or f"it sources {script.shown}, which is only known at run time"
            continue
        if line_may_change(analysis, runner, script.path, cwds, everything=False):
            out.unknown = out.unknown or f"it sources {script.shown}, which the line may change first"
            continue
        if script.missing:
            continue
        if depth + 1 >= MAX_DEPTH:
            out.unknown = out.unknown or "it sources scripts too deeply to follow"
            continue
        text, why = read_script(script.path)
        if text is None:
            out.unknown = out.unknown or f"it sources {script.shown}, which cannot be read ({why})"
            continue
        _collect(text, script.shown, cwds, analysis, runner, out, depth + 1)


def _sets_for_later(command: CommandInfo) -> bool:
    """``PATH=x`` alone, ``export PAGER=…``, ``read LD_PRELOAD``: a setting that lasts (not the
    ``NAME=V cmd`` of one command)."""
    if not command.innermost:
        return bool(command.assigned)
    return command.innermost[0].literal in _SETTERS


def _own_shell(command: CommandInfo) -> bool:
    """Whether the setting is of a variable the shell itself reads (``IFS``, ``PS4`` …)."""
    names = [name for name, _value in command.assigned]
    if command.innermost:
        names += assigned_names(command.innermost)
    return any(name.partition("=")[0] in _OWN_SHELL or name == "?" for name in names)


# commands that may change the folder of the shell that runs them
_FOLDER_CHANGERS = frozenset({"cd", "pushd", "popd", "builtin", "command", "eval", "trap", "source", ".", "exec"})
# what bash runs in a subshell: a cd there ends with it (a pipeline's last part runs in the shell
# itself under `shopt -s lastpipe`)
_SUBSHELLS = frozenset({"subshell", "command_substitution", "process_substitution"})
_PLAIN_NAME = re.compile(r"[\w.+/-]+")  # a program's fixed name or path (no quote, escape or expansion)


def _tree(text: str) -> Any:
    """The root node of ``text``'s parse tree."""
    from .bash_parse import _parser  # (the thread's parser)

    return _parser().parse(text.encode("utf-8", "surrogateescape")).root_node


def _cd_in_own_shell(root: Any) -> bool:
    """Whether a command of the script that may change the folder runs in the shell itself: not
    in ``( … )``, ``$( … )`` or a pipeline's first parts.  ``ROOT="$(cd "$(dirname "$0")" &&
    pwd)"`` leaves the folder as it was."""
    stack = [(root, False)]
    while stack:
        node, inside = stack.pop()
        kind = node.type
        if kind == "command" and not inside:
            name = node.child_by_field_name("name")
            word = name.text.decode("utf-8", "surrogateescape") if name is not None and name.text else ""
            if word in _FOLDER_CHANGERS or not _PLAIN_NAME.fullmatch(word):
                return True  # (a program only known at run time may be any of these)
        children = node.children
        if kind in _SUBSHELLS:
            stack.extend((child, True) for child in children)
        elif kind == "pipeline":
            named = [child for child in children if child.is_named]
            stack.extend((child, inside or child is not named[-1]) for child in children)
        else:
            stack.extend((child, inside) for child in children)
    return False


def defined_functions(text: str) -> frozenset[str]:
    """The names of the functions the script ``text`` defines (``_defined_functions``)."""
    return frozenset(_defined_functions(_tree(text)))


def _defined_functions(root: Any, depth: int = 0) -> set[str]:
    """The names of the functions the script whose tree is ``root`` defines (anywhere: a definition
    inside an ``if`` still defines it when that branch runs), also in the fixed code it evals
    (``eval 'ls() { …; }'``)."""
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            if name is not None and name.text is not None:
                names.add(name.text.decode("utf-8", "surrogateescape"))
        elif node.type == "command" and depth < MAX_DEPTH:
            name = node.child_by_field_name("name")
            if name is not None and name.text in (b"eval", b"trap"):
                code = " ".join(_literal(a) for a in node.children_by_field_name("argument"))
                names |= _defined_functions(_tree(code), depth + 1)
        stack.extend(node.children)
    return names


def _literal(node: Any) -> str:
    """A word's text without its quotes (what eval is given, near enough to find definitions)."""
    text = node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""
    return text[1:-1] if node.type in ("raw_string", "string") and len(text) >= 2 else text


__all__ = ["BASH_BUILTINS", "CD_SETTINGS", "OWN_SHELL_CODE", "SourcedEffects", "own_shell_unknown", "sourced_effects"]
