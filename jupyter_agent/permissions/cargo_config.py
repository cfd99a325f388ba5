"""The programs Cargo runs because its configuration names them: ``cargo run`` under a
``.cargo/config.toml`` with ``runner = "rm -rf x"`` runs ``rm -rf x target/debug/app``.

Cargo reads ``.cargo/config.toml`` (or the older ``.cargo/config``) in the folder it runs in and in
every folder above it, then ``$CARGO_HOME/config.toml`` (``~/.cargo``; ``cargo install`` reads
only that one).  The programs they name, each run with arguments cargo adds:

- ``[target.<triple>]`` or ``[target.'cfg(…)']`` ``runner``: what ``cargo run|test|bench`` (and
  ``r``, ``t``) run the built program with;
- ``[target.*] linker``, ``[build] rustc``, ``rustc-wrapper``, ``rustc-workspace-wrapper`` and
  ``rustdoc``: what every build runs (``build``, ``check``, ``test``, ``doc``, ``clippy`` …);
- ``[doc] browser``: what ``cargo doc --open`` opens the docs with.

An alias (``[alias]``, and cargo's own ``b``, ``c``, ``d``, ``r``, ``t``) is followed to the
subcommand it runs.  Which target's entry applies is not known here, so each program *may* run: a
deny rule matching it asks.  A program with a slash is found from the folder holding ``.cargo``,
as Cargo does.  A configuration file that cannot be read, or a subcommand only known at run time
for a build, is code only known at run time.  What cargo's other settings (``[env]``,
``--config``, ``CARGO_*`` variables) change is checked elsewhere (``bash_wrappers``).
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import NotKnown, Script, parsed_file, per_form, scripts_of_forms, toml_of

CARGOS = frozenset({"cargo"})
_BUILT = run_time_word("CARGO_BUILT_PROGRAM")  # what cargo adds after the program its settings name
# cargo's own options before the subcommand that take a value
_VALUES = frozenset({"--config", "-C", "-Z", "--color", "--explain", "--manifest-path"})
_BUILTIN_ALIASES = {"b": "build", "c": "check", "d": "doc", "r": "run", "t": "test", "rm": "remove"}
_RUNS = frozenset({"run", "test", "bench"})
_BUILDS = _RUNS | frozenset({"build", "check", "doc", "install", "clippy", "fix", "rustc", "rustdoc",
                             "package", "publish", "miri"})
_BUILD_KEYS = ("rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc")
_NAMES = ("config.toml", "config")
_MAX_ALIASES = 8


def cargo_config_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]
                         ) -> list[Script]:
    """The programs the ``cargo`` of this command may run because a configuration file names them."""
    return scripts_of_forms(info, cwds, memo, CARGOS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = [w.literal for w in form[1:]]
    folder = cwd
    i = 0
    while i < len(words) and (words[i] is None or words[i][:1] in ("-", "+")):  # type: ignore[index]
        word = words[i]
        if word is None:
            raise NotKnown(f"the cargo option {form[i + 1].text} is only known at run time")
        option, eq, value = word.partition("=")
        if option in _VALUES and not eq:
            value, i = (words[i + 1] or "") if i + 1 < len(words) else "", i + 1
        if option == "-C":
            folder = os.path.join(folder, os.path.expanduser(value))
        i += 1
    if i >= len(words):
        return []  # cargo --version, cargo -h
    given = words[i]
    if given is None:
        raise NotKnown(f"the cargo command {form[i + 1].text} is only known at run time")
    rest = words[i + 1:]
    files = _config_files(folder, cwd_unknown, home_only=given == "install")
    tables = [(path, data) for path in files if (data := _table(path)) is not None]
    command = _unaliased(given, rest, tables)
    if command not in _BUILDS:
        return []
    found: list[Script] = []
    for path, data in tables:
        base = os.path.dirname(os.path.dirname(path))  # the folder holding .cargo
        build = data.get("build")
        if isinstance(build, dict):
            for key in _BUILD_KEYS:
                found += _programs(build.get(key), f"[build] {key} of {path}", base)
        targets = data.get("target")
        if isinstance(targets, dict):
            for name, target in targets.items():
                if isinstance(target, dict):
                    found += _programs(target.get("linker"), f"[target.{name}] linker of {path}", base)
                    if command in _RUNS:
                        found += _programs(target.get("runner"), f"[target.{name}] runner of {path}", base)
        doc = data.get("doc")
        if command == "doc" and "--open" in rest and isinstance(doc, dict):
            found += _programs(doc.get("browser"), f"[doc] browser of {path}", base)
    return found


_READ = per_form("the programs cargo's configuration names", _of_form)


def _config_files(folder: str, cwd_unknown: bool, home_only: bool) -> list[str]:
    """Cargo's configuration files, the nearest first (a ``.cargo/config.toml`` in ``folder`` or
    above it, then ``$CARGO_HOME``'s)."""
    found: list[str] = []
    if not home_only:
        if cwd_unknown and not os.path.isabs(folder):
            raise NotKnown("cargo reads .cargo/config.toml from a folder only known at run time")
        here = os.path.realpath(folder)
        while True:
            for name in _NAMES:
                path = os.path.join(here, ".cargo", name)
                if os.path.isfile(path):
                    found.append(path)
                    break  # config.toml wins over config in one folder
            above = os.path.dirname(here)
            if above == here:
                break
            here = above
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    for name in _NAMES:
        path = os.path.join(home, name)
        if os.path.isfile(path):
            if os.path.realpath(path) not in map(os.path.realpath, found):
                found.append(path)
            break
    return found


def _table(path: str) -> dict[str, Any] | None:
    data, why = parsed_file(path, toml_of)
    if data is None:
        if not why:
            return None  # gone since it was listed
        raise NotKnown(f"{path} could not be read ({why})")
    if not isinstance(data, dict):
        raise NotKnown(f"{path} is not a TOML table")
    return data


def _unaliased(command: str, rest: list[str | None], tables: list[tuple[str, dict[str, Any]]]) -> str:
    """The subcommand ``command`` runs after Cargo's aliases (the nearest file's first); the
    alias's own arguments are put in front of ``rest``."""
    seen: set[str] = set()
    while len(seen) < _MAX_ALIASES and command not in _BUILDS:
        if command in seen:
            return command
        seen.add(command)
        value: Any = None
        for _path, data in tables:
            aliases = data.get("alias")
            if isinstance(aliases, dict) and command in aliases:
                value = aliases[command]
                break
        if value is None:
            return _BUILTIN_ALIASES.get(command, command)
        words = value.split() if isinstance(value, str) else value
        if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
            raise NotKnown(f"the cargo alias {command!r} is not a command")
        command = words[0]
        rest[:0] = words[1:]
    return command


def _programs(value: Any, shown: str, base: str) -> list[Script]:
    """The program a setting names (a string split on spaces, or a list: the program and its
    arguments), as a command with cargo's arguments after it; none for an unset one."""
    if value is None:
        return []
    if isinstance(value, dict) and set(value) <= {"path", "args"}:  # { path = …, args = […] }
        value = [value.get("path"), *(value.get("args") or [])]
    words = value.split() if isinstance(value, str) else value
    if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
        return [Script(shown, None, f"the {shown} is not a program with its arguments")]
    program = words[0]
    if "/" in program and not os.path.isabs(program):  # relative to the folder holding .cargo
        program = os.path.join(base, program)
    code = " ".join([shlex.quote(program), *map(shlex.quote, words[1:]), _BUILT])
    return [Script(f"the {shown}", None, code=code, certain=False)]


__all__ = ["CARGOS", "cargo_config_scripts"]
