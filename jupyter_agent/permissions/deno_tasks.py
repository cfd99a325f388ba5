"""The commands ``deno task`` runs: tasks of ``deno.json``/``deno.jsonc`` and scripts of ``package.json``.

``deno task NAME [ARGS…]`` runs, as a real deno 2 showed, the task ``NAME`` (a name with ``*`` is a
pattern over the task names) of the nearest config from the folder upwards, falling back to the
workspace root's: here every ``deno.json``, ``deno.jsonc`` and ``package.json`` from the folder up to
``/`` counts (deno takes the nearest definition).  A task is a command string, or ``{ "command": …,
"dependencies": [...] }`` whose dependencies run first; a ``package.json`` script runs after its
``pre…`` script and before its ``post…`` one.  Each runs in its config's folder (``--cwd DIR``:
there), the words after the name appended single-quoted.  ``deno task --eval CODE`` runs CODE.
``-r``/``--recursive`` and ``--filter`` run the task in every member the workspaces list too.
deno's own task shell reads the text as a POSIX shell would, here.  A config that cannot be read,
a name or option only known at run time, or one this does not know is code only known at run time.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    NotKnown,
    Script,
    jsonc_of,
    not_there,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
)

DENOS = frozenset({"deno"})
_CONFIGS = ("deno.json", "deno.jsonc", "package.json")
_MAX_TASKS = 64
_RUNTIME = run_time_word("DENO_VALUE")  # a word of the line only known at run time
_VALUES = frozenset({"--cwd", "-c", "--config", "-f", "--filter", "--env-file", "--lock", "--node-modules-dir",
                     "--log-level", "--cert", "--unstable-sloppy-imports"})
_FLAGS = frozenset({"-r", "--recursive", "-q", "--quiet", "--frozen", "--no-lock", "--no-config", "--eval",
                    "--unstable", "--env", "-h", "--help"})


def deno_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``deno task`` of this command runs (every form: ``timeout 60 deno task build``)."""
    return scripts_of_forms(info, cwds, memo, DENOS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    if not words or words[0].literal != "task":
        if words and words[0].literal is None:
            raise NotKnown(f"the deno command {words[0].text} is only known at run time")
        return []  # deno run, deno test …: programs
    options: dict[str, str] = {}
    rest: tuple[Word, ...] = ()
    for option, value, word in options_of(words[1:], _VALUES, "deno task"):
        if not option:
            at = next(k for k, w in enumerate(words) if w is word)
            rest = words[at:]
            break
        if option == "--":
            at = next(k for k, w in enumerate(words) if w is word)
            rest = words[at + 1:]
            break
        if option not in _VALUES and option not in _FLAGS:
            raise NotKnown(f"deno task {option} is an option this does not know")
        options[option] = value or ""
    if options.keys() & {"-h", "--help"} or not rest:
        return []  # deno task alone lists the tasks
    if cwd_unknown:
        raise NotKnown("deno runs in a folder only known at run time")
    if any(w.literal is None for w in rest[:1]):
        raise NotKnown(f"the task {rest[0].text} is only known at run time")
    given_cwd = options.get("--cwd")
    run_in = os.path.realpath(os.path.join(cwd, os.path.expanduser(given_cwd))) if given_cwd is not None else None
    if "--eval" in options:
        code = " ".join(shlex.quote(w.literal) if w.literal is not None else _RUNTIME for w in rest)
        code = rest[0].literal if len(rest) == 1 else code
        return [Script("the command deno task --eval runs", None, code=code, cwd=run_in or cwd)]
    given = options.get("-c", options.get("--config"))
    if given is not None:
        configs = [os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))]
    else:
        configs = _configs_up(cwd)
    if "-r" in options or "--recursive" in options or "--filter" in options or "-f" in options:
        configs += _members(configs)
    tasks = _Tasks([(path, _tasks_of(path)) for path in dict.fromkeys(configs) if os.path.isfile(path)], run_in)
    name, args = rest[0].literal or "", tuple(w.literal for w in rest[1:])
    tasks.run(name, args)
    return [*not_there(cwd, _CONFIGS), *tasks.found]


_READ = per_form("the tasks deno runs", _of_form)


def _configs_up(cwd: str) -> list[str]:
    found, folder = [], cwd
    while True:
        found += [os.path.join(folder, n) for n in _CONFIGS if os.path.isfile(os.path.join(folder, n))]
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def _members(configs: list[str]) -> list[str]:
    """The configs of the members each workspace lists (``"workspace": ["./a", "./pkgs/*"]``)."""
    found = []
    for path in configs:
        if os.path.basename(path) == "package.json":
            continue
        loaded, why = parsed_file(path, jsonc_of)
        members = loaded.get("workspace", []) if isinstance(loaded, dict) else []
        if isinstance(members, dict):
            members = members.get("members", [])
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise NotKnown(f"{path}: its workspace members are not a list of folders")
        for member in members:
            for folder in sorted(glob.glob(os.path.join(os.path.dirname(path), member))):
                found += [os.path.join(folder, n) for n in _CONFIGS if os.path.isfile(os.path.join(folder, n))]
    return found


def _tasks_of(path: str) -> dict[str, Any]:
    loaded, why = parsed_file(path, jsonc_of)
    if loaded is None and why:
        raise NotKnown(f"{path} could not be read ({why})")
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path} is not a JSON object")
    tasks = loaded.get("scripts" if path.endswith("package.json") else "tasks", {})
    if not isinstance(tasks, dict):
        raise NotKnown(f"{path}: its tasks are not an object")
    return tasks


class _Tasks:
    """What running a task runs, its dependencies first: ``found`` holds a script per command."""

    def __init__(self, configs: list[tuple[str, dict[str, Any]]], run_in: str | None) -> None:
        self.configs, self.run_in = configs, run_in
        self.found: list[Script] = []
        self.count = 0

    def run(self, pattern: str, args: tuple[str | None, ...], depth: int = 0) -> None:
        self.count += 1
        if self.count > _MAX_TASKS or depth > _MAX_TASKS:
            raise NotKnown(f"the deno task {pattern} runs more than {_MAX_TASKS} tasks")
        for path, tasks in self.configs:
            names = sorted(n for n in tasks if fnmatch.fnmatchcase(n, pattern)) if "*" in pattern else \
                [pattern] if pattern in tasks else []
            for name in names:
                npm = path.endswith("package.json")
                for each in [f"pre{name}", name, f"post{name}"] if npm else [name]:
                    if each in tasks:
                        self._one(each, tasks[each], path, args if each == name else (), depth, npm)

    def _one(self, name: str, task: object, path: str, args: tuple[str | None, ...], depth: int, npm: bool) -> None:
        if isinstance(task, dict) and not npm:
            dependencies = task.get("dependencies", [])
            if not isinstance(dependencies, list) or not all(isinstance(d, str) for d in dependencies):
                raise NotKnown(f"the dependencies of the deno task {name} of {path} are not task names")
            for dependency in dependencies:
                self.run(dependency, (), depth + 1)
            task = task.get("command")
            if task is None:
                return  # only its dependencies
        if not isinstance(task, str):
            raise NotKnown(f"the deno task {name} of {path} is not a command")
        code = " ".join([task, *("'" + a.replace("'", "'\"'\"'") + "'" if a is not None else _RUNTIME
                                 for a in args)])
        self.found.append(Script(f"deno's '{name}' task of {path}", path, code=code,
                                 cwd=self.run_in or os.path.dirname(path)))


__all__ = ["DENOS", "deno_scripts"]
