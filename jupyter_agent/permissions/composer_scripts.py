"""The commands ``composer`` runs from the ``scripts`` of ``composer.json``.

Composer (2.5, run here) runs a script of the root ``composer.json`` by name — ``composer
run-script NAME``, ``composer run NAME``, ``composer NAME`` (a script that is no event is a command
of its own; an unambiguous beginning of a command's name is that command) — and the scripts named
after the events a command fires: ``install`` the install events with a ``composer.lock`` (else
the update ones) and the autoload and package events, ``update``/``require``/``remove`` the update
ones, ``dump-autoload``, ``status`` and ``archive`` theirs, and ``init``, ``pre-command-run`` and
``command`` run for almost every command.  ``--no-scripts`` runs none.  A script is a command
line or a list of them, run by ``sh -c`` in the file's folder with the words handed on appended
single-quoted (or put where ``@additional_args`` stands); ``@NAME`` runs another script, ``@php``
and ``@composer`` those programs, ``@putenv`` sets a variable, and a PHP callable
(``Vendor\\Class::method``) or command class is PHP: a program whose code is not read.

Composer takes ``composer.json`` from the folder ``-d``/``--working-dir`` names or the current
one (with a terminal, from a folder above too: the nearest counts here).  ``COMPOSER`` naming
another file, a name or option only known at run time, or a file that cannot be read is code
only known at run time.  Scripts run for events that may not fire (which ones depends on what
is installed) are not certain: a deny rule asks.  ``composer exec CMD`` runs CMD
(``bash_runner_table``); ``composer global`` works in Composer's home folder, not read here.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word
from .paths import nearest_holding
from .script_files import (
    NotKnown,
    Script,
    not_there,
    options_of,
    parsed_file,
    passed_on,
    per_form,
    scripts_of_forms,
    variable_set,
)

COMPOSERS = frozenset({"composer"})
_VALUES = frozenset({"-d", "--working-dir", "--timeout"})
_FLAGS = frozenset({"-h", "--help", "-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "-V", "--version", "--ansi",
                    "--no-ansi", "-n", "--no-interaction", "--profile", "--no-plugins", "--no-scripts",
                    "--no-cache", "--dev", "--no-dev", "-l", "--list"})
# Composer's commands and their aliases (2.5 and later), each to its own name
_COMMANDS = {name: name for name in (
    "about", "archive", "audit", "browse", "bump", "check-platform-reqs", "clear-cache", "completion", "config",
    "create-project", "depends", "diagnose", "dump-autoload", "exec", "fund", "global", "help", "init", "install",
    "licenses", "list", "outdated", "prohibits", "reinstall", "remove", "require", "run-script", "search",
    "self-update", "show", "status", "suggests", "update", "validate", "_complete", "repository")}
_COMMANDS.update({"home": "browse", "clearcache": "clear-cache", "cc": "clear-cache", "why": "depends",
                  "dumpautoload": "dump-autoload", "i": "install", "why-not": "prohibits", "rm": "remove",
                  "uninstall": "remove", "r": "require", "run": "run-script", "selfupdate": "self-update",
                  "info": "show", "u": "update", "upgrade": "update", "repo": "repository"})
_INSTALL = ("pre-install-cmd", "post-install-cmd")
_UPDATE = ("pre-update-cmd", "post-update-cmd")
_AUTOLOAD = ("pre-autoload-dump", "post-autoload-dump")
_PACKAGE = ("pre-package-install", "post-package-install", "pre-package-update", "post-package-update",
            "pre-package-uninstall", "post-package-uninstall", "pre-operations-exec", "pre-pool-create",
            "pre-file-download", "post-file-download")
_EVERY = ("init", "pre-command-run", "command")
# the events each command fires (besides _EVERY); install: _INSTALL or _UPDATE by the lock file
_FIRES = {"install": _AUTOLOAD + _PACKAGE, "update": _UPDATE + _AUTOLOAD + _PACKAGE,
          "require": _UPDATE + _AUTOLOAD + _PACKAGE, "remove": _UPDATE + _AUTOLOAD + _PACKAGE,
          "reinstall": _AUTOLOAD + _PACKAGE, "dump-autoload": _AUTOLOAD,
          "status": ("pre-status-cmd", "post-status-cmd"), "archive": ("pre-archive-cmd", "post-archive-cmd")}
EVENTS = frozenset(_INSTALL + _UPDATE + _AUTOLOAD + _PACKAGE + _EVERY + tuple(e for v in _FIRES.values() for e in v)
                   + ("post-root-package-install", "post-create-project-cmd", "pre-dependencies-solving",
                      "post-dependencies-solving", "post-pool-create"))
_MAX_SCRIPTS = 64
_PHP_CALLABLE = re.compile(r"^\\?[A-Za-z_][\w\\]*(::\w+)?$")  # Vendor\Class::method, a command class


def composer_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands composer runs from ``composer.json`` for this command (every form)."""
    if variable_set(info, "COMPOSER"):
        return [Script("composer's scripts", None, "COMPOSER names a composer.json, not read here")]
    return scripts_of_forms(info, cwds, memo, COMPOSERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    options: dict[str, str | None] = {}
    operands: list[Word] = []
    words = form[1:]
    dashdash = next((k for k, w in enumerate(words) if w.literal == "--"), len(words))
    for option, value, word in options_of(words[:dashdash], _VALUES, "composer"):
        if not option:
            operands.append(word)
            if len(operands) == 1 and word.literal == "global":
                raise NotKnown("composer global runs the scripts of Composer's home folder, not read here")
            if len(operands) == 1 and word.literal == "exec":
                break  # composer exec CMD: a runner (bash_runner_table); its words are not composer's
            continue
        if option[:2] == "-d" and len(option) > 2:  # -dsub: the folder attached
            option, value = "-d", option[2:]
        elif option[1:2] != "-" and "d" in option[2:]:
            raise NotKnown(f"composer {option}: a folder after other options, not read here")
        options[option] = value
    if "--no-scripts" in options:
        return []
    if not operands:
        return [] if options.keys() & {"-V", "--version", "-h", "--help"} else _run(cwd, cwd_unknown, options, [])
    if operands[0].literal is None:
        raise NotKnown(f"the composer command {operands[0].text} is only known at run time")
    handed = [*operands[1:], *words[dashdash + 1:]]
    return _run(cwd, cwd_unknown, options, [operands[0].literal, *handed])


def _run(cwd: str, cwd_unknown: bool, options: dict[str, str | None], line: list[Any]) -> list[Script]:
    """The scripts of ``composer LINE`` (``line[0]``: the command as written, then its words)."""
    if cwd_unknown:
        raise NotKnown("composer reads composer.json from a folder only known at run time")
    where = options.get("-d", options.get("--working-dir"))
    folder = os.path.realpath(os.path.join(cwd, os.path.expanduser(where))) if where else cwd
    found = not_there(folder, ("composer.json",)) if not os.path.lexists(os.path.join(folder, "composer.json")) else []
    home = folder if not found else nearest_holding(folder, ("composer.json",), depth=32)
    if home is None:
        return found
    path = os.path.join(home, "composer.json")
    scripts = _scripts_of(path)
    command = _command(line[0] if line else "list", scripts)
    if command is None:
        return found  # not defined or ambiguous: composer stops (after init, which every command runs)
    run = _Scripts(path, scripts)
    for event in _EVERY:
        run.named(event, (), certain=False)
    if command == "run-script":
        if options.keys() & {"-l", "--list"} or len(line) < 2:
            return found + run.found
        name = line[1].literal
        if name is None:
            raise NotKnown(f"the script {line[1].text} is only known at run time")
        run.named(name, tuple(line[2:]), certain=True)
    elif command in scripts:  # composer NAME: the script as a command of its own
        run.named(command, tuple(line[1:]), certain=True)
    elif command in _FIRES:
        locked = os.path.lexists(os.path.join(home, "composer.lock"))
        if command == "install":
            run.events(_INSTALL if locked else _UPDATE, certain=True)
            run.events(_UPDATE if locked else _INSTALL, certain=False)
        run.events(_FIRES[command], certain=False)
    return found + run.found


def _command(written: str, scripts: dict[str, Any]) -> str | None:
    """The command ``composer WRITTEN`` runs (Symfony's rules): a command or alias by its name, a
    script that is no event, else the one command whose name begins with it; None when none or
    several do (an unknown word may be a plugin's command: no script of this file)."""
    names = dict(_COMMANDS)
    names.update({name: name for name in scripts if name not in EVENTS and name not in _COMMANDS})
    if written in names:
        return names[written]
    matches = {names[name] for name in names if name.startswith(written)}
    return matches.pop() if len(matches) == 1 else None


def _scripts_of(path: str) -> dict[str, Any]:
    loaded, why = parsed_file(path, json.loads)
    if loaded is None:
        raise NotKnown(f"{path} could not be read ({why or 'it is not there any more'})")
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path} is not a JSON object")
    scripts = loaded.get("scripts", {})
    aliases = loaded.get("scripts-aliases", {})
    if not isinstance(scripts, dict) or not isinstance(aliases, dict):
        raise NotKnown(f"{path}: its scripts are not an object")
    scripts = dict(scripts)
    for name, names in aliases.items():  # "scripts-aliases": {"test": ["t"]} (Composer 2.6 and later)
        if name in scripts and isinstance(names, list):
            scripts.update({alias: scripts[name] for alias in names if isinstance(alias, str)})
    return scripts


class _Scripts:
    """What running scripts runs, ``@NAME`` references followed: ``found`` holds a script per command."""

    def __init__(self, path: str, scripts: dict[str, Any]) -> None:
        self.path, self.scripts = path, scripts
        self.folder = os.path.dirname(os.path.realpath(path))
        self.found: list[Script] = []

    def events(self, events: tuple[str, ...], certain: bool) -> None:
        for event in events:
            self.named(event, (), certain)

    def named(self, name: str, args: tuple[Word, ...], certain: bool, depth: int = 0) -> None:
        if name not in self.scripts:
            return
        if len(self.found) > _MAX_SCRIPTS or depth > _MAX_SCRIPTS:
            raise NotKnown(f"the composer script {name} runs more than {_MAX_SCRIPTS} scripts")
        value = self.scripts[name]
        entries = value if isinstance(value, list) else [value]
        if not all(isinstance(entry, str) for entry in entries):
            raise NotKnown(f"the composer script {name} of {self.path} is neither a command nor a list of them")
        for entry in entries:
            self._one(name, entry.strip(), args, certain, depth)

    def _one(self, name: str, entry: str, args: tuple[Word, ...], certain: bool, depth: int) -> None:
        head, _, rest = entry.partition(" ")
        if head.startswith("@") and head not in ("@php", "@composer", "@putenv"):
            self.named(head[1:], args, certain, depth + 1)  # @test: that script, with the same words
            return
        handed = passed_on(args)  # quoted, as composer escapes them
        if head == "@putenv":
            code = f"export {rest}"
        elif _PHP_CALLABLE.match(entry) and ("::" in entry or "\\" in entry):
            code = f"php -r {shlex.quote(entry)}"  # PHP composer loads and calls: a program
        else:
            code = entry[1:] if head in ("@php", "@composer") else entry
            code = code.replace("@additional_args", handed) if "@additional_args" in code else \
                f"{code} {handed}" if handed else code
        self.found.append(Script(f"composer's {name!r} script of {self.path}", os.path.realpath(self.path),
                                 code=code, cwd=self.folder, certain=certain))


_READ = per_form("composer's scripts", _of_form)

__all__ = ["COMPOSERS", "composer_scripts"]
