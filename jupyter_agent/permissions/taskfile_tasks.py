"""The commands go-task (``task``) runs from its ``Taskfile.yml``.

``task build`` (no name: the ``default`` task) runs the task's ``cmds`` after its ``deps`` (and the
tasks its ``cmds`` call: ``- task: other``), its ``preconditions`` and ``status`` checks, its
``defer``\\ red commands, and the ``sh:`` of the variables it uses (the file's and the task's), in
the Taskfile's folder or the task's ``dir``.  ``bash.py`` holds them to the deny and ask rules and
the safety checks, as a script file's; ``dotenv`` files are read as ``source FILE``.  A template
``{{.NAME}}`` of a variable the task itself sets to a string (its ``vars:``, which win over the
line's ``NAME=VALUE``, a caller's and the file's, as a real task 3 showed) is that text, put in
before the shell reads the line; any other template is a word only known at run time, and
``{{.CLI_ARGS}}`` the words after ``--``.

The Taskfile is the one task finds (``Taskfile.yml``, ``taskfile.yaml``, ``Taskfile.dist.yml`` …, in
the folder it runs in or the nearest one above), or ``-t FILE`` / ``-d DIR``.  ``--list``,
``--summary`` and the like run nothing.  ``includes``: ``NS:TASK`` runs TASK of the included
Taskfile (a ``flatten``\\ ed one's tasks by their own names), in the include's ``dir`` or else where
the including Taskfile's tasks run (as a real task 3 showed); ``optional`` ones may be missing.
``-g``, a templated ``dir`` or include, a task this does not find or a Taskfile that cannot be read
is code only known at run time.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    NotKnown,
    Script,
    not_there,
    parsed_file,
    passed_on,
    per_form,
    scripts_of_forms,
    templated,
    yaml_of,
)

TASKS = frozenset({"task", "go-task"})
NAMES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml",
         "Taskfile.dist.yaml", "taskfile.dist.yaml")
_NO_RUN = frozenset({"-l", "--list", "-a", "--list-all", "--summary", "-i", "--init", "--version", "-h", "--help",
                     "--completion", "--experiments"})
_VALUES = frozenset({"-t", "--taskfile", "-d", "--dir", "-C", "--concurrency", "-o", "--output", "--output-group-begin",
                     "--output-group-end", "--interval", "--sort", "--color", "-I", "--cacert", "--cert", "--cert-key",
                     "--timeout", "--remote-cache-dir", "--cache-expiry"})
_TEMPLATE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_RUNTIME = run_time_word("TASK_VALUE")
_MAX_TASKS = 64



def taskfile_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``task`` of this command runs (every form)."""
    return scripts_of_forms(info, cwds, memo, TASKS, _scripts_of, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    args = list(form[1:])
    literals = [w.literal for w in args]
    rest: tuple[Word, ...] = ()
    if "--" in literals:
        cut = literals.index("--")
        args, rest = args[:cut], tuple(args[cut + 1:])
    given: str | None = None
    folder: str | None = None
    names: list[str] = []
    line_vars: dict[str, str] = {}
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None:
            raise NotKnown(f"{args[i].text} is only known at run time")
        option, eq, value = text.partition("=")
        if text[:1] == "-":
            if option in _NO_RUN:
                return []
            if option in ("-g", "--global"):
                raise NotKnown("task -g runs the Taskfile of the home folder")
            if option in _VALUES and not eq:
                following = args[i + 1].literal if i + 1 < len(args) else ""
                if following is None:
                    raise NotKnown(f"task {option} has a value only known at run time")
                value, i = following, i + 1
            if option in ("-t", "--taskfile"):
                given = value
            elif option in ("-d", "--dir"):
                folder = value
            i += 1
            continue
        if not re.match(r"^[A-Za-z_][\w]*=", text):  # NAME=VALUE sets a variable
            names.append(text)
        else:
            line_vars[option] = value
        i += 1
    if cwd_unknown:
        raise NotKnown("task runs in a folder only known at run time")
    base = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder))) if folder else cwd
    path = _find(base, given)
    if path is None:  # task finds no Taskfile: it runs nothing (unless the line makes one)
        return not_there(base, NAMES) if given is None else []
    home = os.path.dirname(path) if folder is None else base
    taskfile = _load(path)
    code = _Runner(taskfile, home, passed_on(rest) if rest else "", os.path.dirname(path),
                   line_vars=line_vars).code(names or ["default"])
    return [Script(f"the Taskfile {path}", path, code="\n".join(lines), cwd=where) for where, lines in code.items()]


def _find(base: str, given: str | None) -> str | None:
    if given is not None:
        path = os.path.realpath(os.path.join(base, os.path.expanduser(given)))
        if os.path.isdir(path):
            base, given = path, None
        else:
            return path if os.path.exists(path) else None
    folder = base
    while True:
        for name in NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return os.path.realpath(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _load(path: str) -> dict[str, Any]:
    loaded, why = parsed_file(path, yaml_of)
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path}: {why or 'it is not a Taskfile'}")
    return loaded


class _Runner:
    """Collects what running some tasks runs, per folder."""

    def __init__(self, taskfile: dict[str, Any], home: str, cli_args: str, file_dir: str,
                 out: dict[str, list[str]] | None = None, depth: int = 0, line_vars: dict[str, str] | None = None
                 ) -> None:
        self.taskfile, self.home, self.cli_args = taskfile, home, cli_args
        self.file_dir, self.depth = file_dir, depth  # the Taskfile's own folder (its includes are from there)
        tasks = taskfile.get("tasks", {}) or {}
        if not isinstance(tasks, dict):
            raise NotKnown("its tasks are not a mapping")
        self.tasks = tasks
        self.aliases = {alias: name for name, task in tasks.items() if isinstance(task, dict)
                        for alias in (task.get("aliases") or []) if isinstance(alias, str)}
        self.out: dict[str, list[str]] = {} if out is None else out
        self.seen: set[str] = set()
        self.included: dict[str, _Runner | None] = {}
        self.globals = _global_variables(taskfile, line_vars or {}) if depth == 0 else {}

    def code(self, names: list[str]) -> dict[str, list[str]]:
        self._variables(self.taskfile, self.home)  # the file's own: evaluated for any task
        for name in names:
            self._task(name)
        return self.out

    def _add(self, where: str, line: object, fixed: dict[str, str] | None = None) -> None:
        if not isinstance(line, str):
            raise NotKnown("a command is not a string")
        self.out.setdefault(where, []).append(self._expand(line, fixed))

    def _expand(self, text: str, fixed: dict[str, str] | None = None) -> str:
        if fixed:  # {{.D}} of the task's own string: its text, as task puts it in
            text = _TEMPLATE.sub(lambda m: fixed.get(m.group(1).strip()[1:], m.group(0))
                                 if m.group(1).strip()[:1] == "." else m.group(0), text)
        return templated(text, _TEMPLATE, lambda m: self.cli_args if m.group(1).strip() == ".CLI_ARGS" else _RUNTIME)

    def _variables(self, holder: dict[str, Any], where: str) -> None:
        for key in ("vars", "env"):
            values = holder.get(key) or {}
            if not isinstance(values, dict):
                raise NotKnown(f"its {key} are not a mapping")
            for value in values.values():
                if isinstance(value, dict) and "sh" in value:
                    self._add(where, value["sh"])
        dotenv = holder.get("dotenv") or []
        for name in dotenv if isinstance(dotenv, list) else [dotenv]:
            if not isinstance(name, str):
                raise NotKnown("its dotenv is not a list of files")
            self._add(where, f". {shlex.quote(name if '/' in name else './' + name)}")

    def _task(self, name: str) -> None:
        name = self.aliases.get(name, name)
        if name in self.seen:
            return
        if len(self.seen) >= _MAX_TASKS:
            raise NotKnown("its tasks call too many tasks to follow")
        self.seen.add(name)
        task = self.tasks.get(name)
        if task is None:
            if self.taskfile.get("includes") and self._included_task(name):
                return
            if any(isinstance(k, str) and "*" in k for k in self.tasks):
                raise NotKnown(f"the task {name} may match a wildcard task, which is not read here")
            return  # task fails: no such task
        if isinstance(task, (str, list)):
            task = {"cmds": [task] if isinstance(task, str) else task}
        if not isinstance(task, dict):
            raise NotKnown(f"the task {name} is not a mapping")
        where = self.home
        folder = task.get("dir")
        if folder is not None:
            if not isinstance(folder, str) or "{{" in folder:
                raise NotKnown(f"the task {name} runs in a folder only known at run time")
            where = os.path.normpath(os.path.join(self.home, os.path.expanduser(folder)))
        self._variables(task, where)
        own = task.get("vars")
        fixed = {name: value for name, value in self.globals.items() if not isinstance(own, dict) or name not in own}
        fixed.update(_fixed_variables(task))
        for dep in task.get("deps") or []:
            self._call(dep, where)
        for key in ("preconditions", "status"):
            for check in task.get(key) or []:
                self._add(where, check.get("sh") if isinstance(check, dict) else check, fixed)
        for cmd in task.get("cmds") or []:
            self._cmd(cmd, where, fixed)

    def _included_task(self, name: str) -> bool:
        r"""Run ``NAMESPACE:TASK`` (or a task of a ``flatten``\ ed include) from an included
        Taskfile; False when no include has it.  Its tasks run in the include's ``dir`` (from this
        Taskfile's folder), else where this Taskfile's tasks run, as task 3 does."""
        includes = self.taskfile.get("includes")
        if not isinstance(includes, dict):
            raise NotKnown("its includes are not a mapping")
        namespace, _, inner = name.partition(":")
        for key, spec in includes.items():
            spec = {"taskfile": spec} if isinstance(spec, str) else spec
            if not isinstance(spec, dict):
                raise NotKnown(f"the include {key} is not a Taskfile or a mapping")
            aliases = spec.get("aliases") or []
            if spec.get("flatten") is True:
                runner = self._include(str(key), spec)
                if runner is not None and (name in runner.tasks or name in runner.aliases):
                    runner._task(name)
                    return True
            elif inner and (namespace == key or (isinstance(aliases, list) and namespace in aliases)):
                runner = self._include(str(key), spec)
                if runner is not None:
                    runner._task(inner)
                return True
        return False

    def _include(self, key: str, spec: dict[str, Any]) -> _Runner | None:
        if key in self.included:
            return self.included[key]
        if self.depth > 8:
            raise NotKnown("its Taskfiles include each other too deeply")
        target, folder = spec.get("taskfile"), spec.get("dir")
        if not isinstance(target, str) or "{{" in target or (folder is not None and (
                not isinstance(folder, str) or "{{" in folder)):
            raise NotKnown(f"the include {key} names a Taskfile or folder only known at run time")
        path = os.path.normpath(os.path.join(self.file_dir, os.path.expanduser(target)))
        if os.path.isdir(path):
            path = next((os.path.join(path, n) for n in NAMES if os.path.isfile(os.path.join(path, n))), path)
        if not os.path.isfile(path):
            if spec.get("optional") is True:
                self.included[key] = None
                return None
            raise NotKnown(f"the included Taskfile {path} is not there")
        home = os.path.normpath(os.path.join(self.file_dir, folder)) if folder is not None else self.home
        runner = _Runner(_load(os.path.realpath(path)), home, self.cli_args, os.path.dirname(os.path.realpath(path)),
                         self.out, self.depth + 1)
        runner._variables(runner.taskfile, home)
        self.included[key] = runner
        return runner

    def _call(self, call: object, where: str) -> None:
        target = call.get("task") if isinstance(call, dict) else call
        if not isinstance(target, str) or "{{" in target:
            raise NotKnown("a task calls a task only known at run time")
        self._task(target)

    def _cmd(self, cmd: object, where: str, fixed: dict[str, str] | None = None) -> None:
        if isinstance(cmd, str):
            self._add(where, cmd, fixed)
        elif isinstance(cmd, dict):
            if "task" in cmd:
                self._call(cmd, where)
            elif "cmd" in cmd:
                self._add(where, cmd["cmd"], fixed)
            elif "defer" in cmd:
                self._cmd(cmd["defer"], where, fixed)
            else:
                raise NotKnown("a command has a shape this does not read")
        else:
            raise NotKnown("a command has a shape this does not read")


def _fixed_variables(task: dict[str, Any]) -> dict[str, str]:
    """The task's own ``vars:`` that are plain strings (no template, no ``sh:``)."""
    values = task.get("vars") or {}
    if not isinstance(values, dict):
        return {}
    return {str(name): value for name, value in values.items()
            if isinstance(value, str) and "{{" not in value and "\x00" not in value}


def _global_variables(taskfile: dict[str, Any], line_vars: dict[str, str]) -> dict[str, str]:
    """The values of the file's ``vars:`` and the line's ``NAME=VALUE`` that every task of this
    Taskfile sees unless it sets the name itself (the line's win over the file's, as a real task 3
    showed): plain strings only, none with includes (their variables come between), and no name a
    task passes to another (``- task: x`` with ``vars:``: the caller's value wins there)."""
    if taskfile.get("includes"):
        return {}
    values = {**_fixed_variables(taskfile), **line_vars}  # (a templated or sh: value of the file: not there)
    for task in (taskfile.get("tasks") or {}).values():
        calls = [*(task.get("deps") or []), *(task.get("cmds") or [])] if isinstance(task, dict) else []
        for call in calls:
            passed = call.get("vars") if isinstance(call, dict) and "task" in call else None
            if passed:
                if not isinstance(passed, dict):
                    return {}
                for name in passed:
                    values.pop(str(name), None)
    return values


_scripts_of = per_form("task's Taskfile", _of_form)

__all__ = ["NAMES", "TASKS", "taskfile_scripts"]
