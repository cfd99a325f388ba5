"""The commands cargo-make may run from ``Makefile.toml``: ``cargo make TASK``, ``makers TASK``.

cargo-make reads ``Makefile.toml`` of its folder (``--cwd DIR``; ``--makefile FILE`` names
another) over its own built-in tasks, and runs the task with its dependencies, ``run_task``s,
aliases, ``init_task``/``end_task``, platform overrides, conditions and profiles — and, in a Cargo
workspace, the task again in every member (``--no-workspace``: not).  Which of the file's tasks a
line runs depends on all of that, so every command the file holds *may* run (a deny rule asks),
each checked as shell code in the file's folder like any script's: a task's ``command`` with its
``args``, ``script`` (text, lines, or ``pre``/``main``/``post``; ``{ file = … }`` is a script
file), ``condition_script``, ``install_script`` and ``[config] load_script``, from the file,
the files it ``extend``s and the workspace members' ``Makefile.toml``.  A script for
``@duckscript`` (whose ``exec`` runs commands), a variable that changes what runs (``PATH`` in an
``env`` table), a file that cannot be read or a word only known at run time is code only known
at run time; a script for ``@rust`` or another interpreter is a program's code, not read (as
``python x.py``'s).  ``--list-all-steps``, ``--print-steps`` and the like run nothing.
"""

from __future__ import annotations

import glob
import os
import shlex
from dataclasses import replace
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word
from .bash_wrappers import dangerous_env
from .script_files import (
    POSIX_SHELLS,
    NotKnown,
    Script,
    located,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    toml_of,
)

CARGO_MAKES = frozenset({"cargo", "makers", "cargo-make"})
_VALUES = frozenset({"--makefile", "--cwd", "-t", "--task", "-p", "--profile", "-e", "--env", "--env-file",
                     "-l", "--loglevel", "--skip-tasks", "--output-format", "--output-file", "--hide-uninteresting",
                     "--skip-init-end-tasks"})
_LISTINGS = frozenset({"--list-all-steps", "--list-category-steps", "--print-steps", "--diff-steps", "-h", "--help",
                       "-V", "--version", "--list-steps"})
# cargo's own options before its subcommand (cargo +nightly -q make …) that take a value
_CARGO_VALUES = frozenset({"--config", "-C", "-Z", "--color", "--explain"})
_MAX_FILES = 32


def cargo_make_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the cargo-make of this command may run (every form: ``timeout 60 makers build``)."""
    return scripts_of_forms(info, cwds, memo, CARGO_MAKES, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = list(form[1:])
    if form[0].literal == "cargo":  # cargo [+toolchain] [options] make …
        while words and (words[0].literal or "").startswith(("+", "-")):
            option = words.pop(0).literal or ""
            if option in _CARGO_VALUES and words:
                words.pop(0)
        if not words or words[0].literal != "make":
            if words and words[0].literal is None:
                raise NotKnown(f"the cargo command {words[0].text} is only known at run time")
            return []  # cargo build, cargo test …: cargo's own
        words.pop(0)
    elif form[0].literal == "cargo-make" and words and words[0].literal == "make":  # the plugin binary
        words.pop(0)
    options: dict[str, str | None] = {}
    for option, value, _word in options_of(words, _VALUES, "cargo make"):
        if option in ("-e", "--env") and dangerous_env((value or "").partition("=")[0]):
            raise NotKnown(f"cargo make {option} {value} changes what the tasks run")
        if option:
            options[option] = value
    if options.keys() & _LISTINGS:
        return []
    if cwd_unknown:
        raise NotKnown("cargo-make reads Makefile.toml from a folder only known at run time")
    folder = os.path.realpath(os.path.join(cwd, os.path.expanduser(options.get("--cwd") or ".")))
    given = options.get("--makefile")
    makefile = os.path.join(folder, os.path.expanduser(given)) if given else os.path.join(folder, "Makefile.toml")
    reader = _Reader()
    reader.read(os.path.realpath(makefile), optional=not given)
    if "--no-workspace" not in options:
        for member in _members(folder):
            reader.read(os.path.join(member, "Makefile.toml"), optional=True)
    return reader.found


_READ = per_form("the tasks cargo-make runs", _of_form)


def _members(folder: str) -> list[str]:
    """The folders of the Cargo workspace ``folder`` is the root of (``[workspace] members``)."""
    data, _why = parsed_file(os.path.join(folder, "Cargo.toml"), toml_of)
    workspace = data.get("workspace") if isinstance(data, dict) else None
    if not isinstance(workspace, dict):
        return []
    members = workspace.get("members", [])
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise NotKnown(f"{folder}/Cargo.toml: its workspace members are not a list of folders")
    found = [path for member in members for path in sorted(glob.glob(os.path.join(folder, member)))]
    return [os.path.realpath(path) for path in found if os.path.isdir(path)]


class _Reader:
    """Every command of the makefiles read: ``found``, a script each (not certain to run)."""

    def __init__(self) -> None:
        self.found: list[Script] = []
        self.seen: set[str] = set()

    def read(self, path: str, optional: bool) -> None:
        if path in self.seen:
            return
        if len(self.seen) >= _MAX_FILES:
            raise NotKnown(f"cargo-make reads more than {_MAX_FILES} makefiles")
        self.seen.add(path)
        data, why = parsed_file(path, toml_of)
        if data is None:
            if optional and not why:
                return  # no Makefile.toml here: cargo-make's own tasks
            raise NotKnown(f"{path} could not be read ({why or 'it is not there'})")
        if not isinstance(data, dict):
            raise NotKnown(f"{path} is not a TOML table")
        folder = os.path.dirname(path)
        for extended in _extends(data.get("extend"), path):
            self.read(os.path.realpath(os.path.join(folder, extended[0])), optional=extended[1])
        self._env(data.get("env"), path)
        config = data.get("config", {})
        if isinstance(config, dict):
            self._script(config.get("load_script"), "@shell", f"the load_script of {path}", path)
        tasks = data.get("tasks", {})
        if not isinstance(tasks, dict):
            raise NotKnown(f"{path}: [tasks] is not a table")
        for name, task in tasks.items():
            self._task(task, f"cargo-make's {name!r} task of {path}", path)

    def _task(self, task: Any, shown: str, path: str, depth: int = 0) -> None:
        if not isinstance(task, dict):
            raise NotKnown(f"{shown} is not a table")
        self._env(task.get("env"), path)
        runner = task.get("script_runner", "@shell")
        command = task.get("command")
        if command is not None:
            args = task.get("args", [])
            if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise NotKnown(f"{shown}: its command is not a program and a list of arguments")
            self._add(shlex.join([command, *args]), shown, path)
        self._script(task.get("script"), runner, shown, path)
        for key in ("condition_script", "install_script"):
            self._script(task.get(key), "@shell", f"{shown} ({key})", path)
        if depth < 2:  # [tasks.x.linux], [tasks.x.mac] …: the same task on a platform
            for platform in ("linux", "mac", "windows"):
                if platform in task:
                    self._task(task[platform], f"{shown} ({platform})", path, depth + 1)

    def _script(self, script: Any, runner: Any, shown: str, path: str) -> None:
        if script is None:
            return
        if not isinstance(runner, str):
            raise NotKnown(f"{shown}: its script_runner is not a name")
        if isinstance(script, dict) and "file" in script:
            file = script["file"]
            if not isinstance(file, str):
                raise NotKnown(f"{shown}: its script file is not a path")
            if runner == "@shell" or runner.rsplit("/", 1)[-1] in POSIX_SHELLS:
                self.found.extend(replace(s, cwd=os.path.dirname(path), certain=False)
                                  for s in located(Word(file), [os.path.dirname(path)], search_path=False))
            return
        if isinstance(script, dict):  # pre / main / post
            parts = [script.get(k) for k in ("pre", "main", "post") if script.get(k) is not None]
        else:
            parts = [script]
        lines: list[str] = []
        for part in parts:
            items = part if isinstance(part, list) else [part]
            texts = [item for item in items if isinstance(item, str)]
            if len(texts) != len(items):
                raise NotKnown(f"{shown}: its script is not text")
            lines.extend(texts)
        if runner == "@duckscript":
            raise NotKnown(f"{shown} is a duckscript script (its exec runs commands), not read here")
        if runner == "@shell" or runner.rsplit("/", 1)[-1] in POSIX_SHELLS:
            self._add("\n".join(lines), shown, path)
        # else @rust, python, node …: a program's code, not read (as python x.py's)

    def _env(self, env: Any, path: str) -> None:
        if isinstance(env, dict) and any(dangerous_env(str(name)) for name in env):
            names = ", ".join(str(name) for name in env if dangerous_env(str(name)))
            raise NotKnown(f"{path} sets {names}, which changes what the tasks run")

    def _add(self, code: str, shown: str, path: str) -> None:
        self.found.append(Script(shown, path, code=code, cwd=os.path.dirname(path), certain=False))


def _extends(extend: Any, path: str) -> list[tuple[str, bool]]:
    """The files ``extend = "x.toml"`` / ``[{ path = …, optional = true }]`` names, each with
    whether it may be missing."""
    if extend is None:
        return []
    items = extend if isinstance(extend, list) else [extend]
    out = []
    for item in items:
        if isinstance(item, str):
            out.append((item, False))
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            out.append((item["path"], bool(item.get("optional", False))))
        else:
            raise NotKnown(f"{path}: its extend is not a file or a list of them")
    return out


__all__ = ["CARGO_MAKES", "cargo_make_scripts"]
