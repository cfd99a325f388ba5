"""The commands ``mise run`` runs: tasks of the ``mise.toml`` files and the task folders above the folder.

``mise run TASK [ARGS…] [::: TASK [ARGS…]]…`` (also ``mise r``, ``mise tasks run``, and ``mise TASK``
when ``TASK`` is no mise command; no task: the ``default`` task) runs each task named (a name with
``*``, ``?`` or ``[`` is a pattern over the task names; an ``alias`` names the task too), after its
``depends`` and before its ``depends_post`` (not with ``--skip-deps``).  As a real mise showed:

- the tasks come from every config file from the folder up to ``/`` (``mise.toml``, ``.mise.toml``,
  ``mise.local.toml``, ``mise.ENV.toml``, ``mise/config.toml``, ``.mise/config.toml``,
  ``.config/mise.toml``, ``.config/mise/config.toml``, ``.config/mise/conf.d/*.toml``) and the
  user's ``~/.config/mise``; the nearest definition of a name wins, but every definition counts here;
- a ``[task_config] includes`` file or folder adds tasks, and so do the executable files below the
  task folders (``mise-tasks``, ``.mise-tasks``, ``mise/tasks``, ``.mise/tasks``,
  ``.config/mise/tasks``) of each folder up to ``/``: ``mise-tasks/ci/lint.sh`` is ``ci:lint.sh``,
  run by path (``bash.py`` reads it when it is a shell script), its ``#MISE depends=…`` and
  ``#MISE dir=…`` lines read;
- a task runs in its ``dir`` (relative to its config's folder; ``{{cwd}}``: where mise runs), else
  in that folder; each string of ``run`` (or ``run = [{ task = "x" }]``: that task) is shell code,
  the words after the task name appended (a first ``--`` dropped) to the last one, each quoted; its
  ``file`` runs by path; a ``shell`` (the task's, ``-s``) that is no POSIX shell makes the text that
  program's input (``python3 -c``: inline Python);
- ``[env] _.source`` scripts are sourced whenever mise loads the environment, first.

``{{ … }}`` templates are words only known at run time; a ``{% … %}`` block, a template calling
``exec(…)`` (it runs a command), a remote task file, an option this does not know and a config
that cannot be read are code only known at run time.  A task found nowhere fails (unless the line
makes it: the config files and task folders count as files it may write).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    POSIX_SHELLS,
    NotKnown,
    Script,
    interpreter_name,
    not_there,
    options_of,
    parsed_file,
    per_form,
    read_bounded,
    scripts_of_forms,
    templated,
    toml_of,
)

MISES = frozenset({"mise"})
_RUNTIME = run_time_word("MISE_VALUE")
_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_EXEC = re.compile(r"\{[{%](?:(?![}%]\}).)*\bexec\s*\(", re.DOTALL)
_CONFIG = re.compile(r"\.?mise(\.[^/]+)?\.toml")  # mise.toml, .mise.local.toml, mise.ci.toml …
_NESTED_CONFIGS = ("mise/config.toml", ".mise/config.toml", ".config/mise.toml", ".config/mise/config.toml")
_TASK_DIRS = ("mise-tasks", ".mise-tasks", "mise/tasks", ".mise/tasks", ".config/mise/tasks")
_HEADER = re.compile(r"^#\s*(?:MISE|\[MISE\])\s+(.*)$", re.MULTILINE)
_MAX_TASKS = 64
_MAX_FILES = 2_000
# mise's commands and their aliases: ``mise NAME`` runs the task NAME only when NAME is none of these
_COMMANDS = frozenset({
    "activate", "backends", "b", "backend", "backend-list", "bin-paths", "bootstrap", "bs", "cache", "completion",
    "complete", "completions", "config", "cfg", "toml", "daemons", "daemon", "deactivate", "deps", "dep", "prepare",
    "doctor", "dr", "dotfiles", "dot", "edit", "en", "env", "e", "exec", "x", "fmt", "generate", "gen", "g",
    "implode", "install", "i", "install-into", "latest", "link", "ln", "lock", "ls", "list", "ls-remote",
    "list-all", "list-remote", "mcp", "oci", "outdated", "packslip", "patrons", "plugins", "p", "plugin",
    "plugin-list", "prune", "registry", "reshim", "run", "r", "search", "self-update", "set", "ev", "env-vars",
    "settings", "shell", "sh", "shell-alias", "skills", "skill", "sponsors", "ssh", "sync", "tasks", "t", "task",
    "test-tool", "token", "tool", "tool-alias", "alias", "aliases", "tool-stub", "trust", "uninstall", "unset",
    "untrust", "unuse", "rm", "remove", "upgrade", "up", "use", "u", "version", "v", "watch", "w", "where", "which",
    "help"})
_GLOBAL_VALUES = frozenset({"-C", "--cd", "-E", "--env", "-j", "--jobs", "--log-level", "--output"})
_GLOBAL_FLAGS = frozenset({"-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "-y", "--yes", "-S", "--silent",
                           "-r", "--raw", "--locked", "--debug", "--trace", "--no-config", "--no-env",
                           "--no-hooks", "--offline", "--prefer-offline"})
_RUN_VALUES = _GLOBAL_VALUES | frozenset({
    "-o", "-s", "--shell", "-t", "--tool", "--allow-env", "--allow-net", "--allow-read", "--allow-write",
    "--affected-base", "--affected-head", "--task-cache", "--timeout"})
_RUN_FLAGS = _GLOBAL_FLAGS | frozenset({
    "--affected", "--affected-explain", "--affected-json", "-c", "--continue-on-error", "-f", "--force",
    "--deny-all", "--deny-env", "--deny-net", "--deny-read", "--deny-write", "--fresh-env", "--no-cache",
    "--no-deps", "--no-timings", "--skip-deps", "--skip-tools", "--task-cache-explain",
    "--task-cache-explain-json", "--task-cache-stats", "-p", "--prefix", "-i", "--interleave"})
_NOTHING_RUNS = frozenset({"-n", "--dry-run", "-h", "--help", "--all", "--affected-explain", "--affected-json",
                           "-V", "--version"})


def mise_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``mise run`` of this command runs (every form: ``timeout 60 mise run test``)."""
    return scripts_of_forms(info, cwds, memo, MISES, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    options: dict[str, str] = {}
    rest: tuple[Word, ...] | None = None
    for option, value, word in options_of(words, _GLOBAL_VALUES, "mise"):
        if option:
            if option not in _GLOBAL_VALUES and option not in _GLOBAL_FLAGS and option not in _NOTHING_RUNS:
                raise NotKnown(f"mise {option} is an option this does not know")
            options[option] = value or ""
            continue
        if word.literal is None:
            raise NotKnown(f"{word.text} is only known at run time")
        at = next(k for k, w in enumerate(words) if w is word)
        command, after = word.literal, words[at + 1:]
        if command in ("run", "r"):
            rest = after
        elif command in ("tasks", "task", "t"):
            if not after or after[0].literal is None:
                if after:
                    raise NotKnown(f"{after[0].text} is only known at run time")
                return []
            if after[0].literal not in ("run", "r"):
                return []  # mise tasks ls, info, deps …
            rest = after[1:]
        elif command in ("watch", "w"):
            raise NotKnown("mise watch runs tasks whenever files change")
        elif command in _COMMANDS:
            return []  # mise install, mise exec (bash_runners sees its command) …
        else:
            rest = words[at:]  # mise TASK: a task of that name
        break
    if rest is None or options.keys() & _NOTHING_RUNS:
        return []
    run_options, runs = _run_line(rest)
    options.update(run_options)
    if options.keys() & _NOTHING_RUNS:
        return []
    if cwd_unknown:
        raise NotKnown("mise runs in a folder only known at run time")
    if "-C" in options or "--cd" in options:
        cwd = os.path.realpath(os.path.join(cwd, os.path.expanduser(options.get("-C", options.get("--cd", "")))))
    shell = options.get("-s", options.get("--shell"))
    found = _Found.of(cwd)
    scripts = [*found.sources, *found.absent]
    tasks = _Tasks(found, cwd, shell, skip_deps="--skip-deps" in options)
    for name, args in runs or [("default", ())]:
        if not tasks.run(name, args, top=not runs):
            return scripts  # no such task: mise fails (unless the line makes it)
    return [*scripts, *tasks.found]


_READ = per_form("the tasks mise runs", _of_form)


def _run_line(words: tuple[Word, ...]) -> tuple[dict[str, str], list[tuple[str, tuple[str | None, ...]]]]:
    """``mise run``'s options, then each task and its words (``:::`` between tasks)."""
    options: dict[str, str] = {}
    i = 0
    while i < len(words):
        text = words[i].literal
        if text is None:
            if words[i].text.startswith("-"):
                raise NotKnown(f"{words[i].text} is only known at run time")
            raise NotKnown(f"the task {words[i].text} is only known at run time")
        if not text.startswith("-") or text == "-":
            break
        option, eq, value = text.partition("=")
        if option == "--":
            i += 1
            break
        if option in _RUN_VALUES and not eq:
            if i + 1 >= len(words) or words[i + 1].literal is None:
                raise NotKnown(f"mise run {option} has a value only known at run time")
            value, i = words[i + 1].literal or "", i + 1
        elif option not in _RUN_VALUES and option not in _RUN_FLAGS and option not in _NOTHING_RUNS:
            raise NotKnown(f"mise run {option} is an option this does not know")
        options[option] = value
        i += 1
    runs: list[tuple[str, tuple[str | None, ...]]] = []
    group: list[Word] = []
    for word in [*words[i:], None]:
        if word is None or word.literal == ":::":
            if group:
                if group[0].literal is None:
                    raise NotKnown(f"the task {group[0].text} is only known at run time")
                args = tuple(w.literal for w in group[1:])
                runs.append((group[0].literal, args[1:] if args[:1] == ("--",) else args))
            group = []
        else:
            group.append(word)
    return options, runs


class _Found:
    """The tasks mise finds from a folder: ``tasks`` maps a name to its definitions ``(task,
    config file, folder it belongs to)``; ``sources`` are the env scripts; ``absent`` the config
    files and task folders the line could make."""

    def __init__(self) -> None:
        self.tasks: dict[str, list[tuple[Any, str, str]]] = {}
        self.aliases: dict[str, list[str]] = {}
        self.sources: list[Script] = []
        self.absent: list[Script] = []
        self.settings_shell: str | None = None
        self.files = 0

    @classmethod
    def of(cls, cwd: str) -> _Found:
        found = cls()
        folders, folder = [], cwd
        while True:
            folders.append(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        home = os.path.realpath(os.path.expanduser("~"))
        found.absent = not_there(cwd, ("mise.toml", ".mise.toml", "mise.local.toml", *_NESTED_CONFIGS, *_TASK_DIRS))
        for folder in folders:
            found._folder(folder)
        user = os.path.join(home, ".config", "mise")
        for path in [os.path.join(user, "config.toml"), *_conf_d(user)]:
            if os.path.isfile(path):
                found._config(path, home)
        found._task_dir(os.path.join(user, "tasks"), home)
        return found

    def _folder(self, folder: str) -> None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
        configs = sorted(n for n in names if _CONFIG.fullmatch(n))
        configs += [c for c in _NESTED_CONFIGS if c.split("/", 1)[0] in names]
        configs += [os.path.relpath(p, folder) for p in _conf_d(os.path.join(folder, ".config", "mise"))]
        for name in configs:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                self._config(os.path.realpath(path), folder)
        for name in _TASK_DIRS:
            if name.split("/", 1)[0] in names:
                self._task_dir(os.path.join(folder, name), folder)

    def _config(self, path: str, root: str) -> None:
        data, why = read_bounded(path, 1024 * 1024)
        if data is None:
            raise NotKnown(f"{path}: {why}")
        if _EXEC.search(data.decode("utf-8", "replace")):
            raise NotKnown(f"{path} runs a command from a template (exec)")
        loaded, why = parsed_file(path, toml_of)
        if not isinstance(loaded, dict):
            raise NotKnown(f"{path}: {why or 'it is not TOML'}")
        settings = loaded.get("settings")
        if isinstance(settings, dict):
            for key in ("unix_default_inline_shell_args", "default_inline_shell_args"):
                if key in settings:
                    if not isinstance(settings[key], str):
                        raise NotKnown(f"{path}: its {key} is not text")
                    self.settings_shell = settings[key]
        self._env_sources(loaded.get("env"), path, root)
        tasks = loaded.get("tasks", {})
        if not isinstance(tasks, dict):
            raise NotKnown(f"{path}: its tasks are not a table")
        for name, task in tasks.items():
            self._add(str(name), task, path, root)
        task_config = loaded.get("task_config")
        includes = task_config.get("includes", []) if isinstance(task_config, dict) else []
        if not isinstance(includes, list):
            raise NotKnown(f"{path}: its task includes are not a list")
        for include in includes:
            if not isinstance(include, str) or "://" in include or include.startswith("git::"):
                raise NotKnown(f"{path}: it includes tasks from {include!r}")
            where = os.path.realpath(os.path.join(root, os.path.expanduser(include)))
            if os.path.isdir(where):
                self._task_dir(where, root)
            elif os.path.isfile(where):
                loaded_tasks, why = parsed_file(where, toml_of)
                if not isinstance(loaded_tasks, dict):
                    raise NotKnown(f"{where}: {why or 'it is not TOML'}")
                for name, task in loaded_tasks.items():
                    self._add(str(name), task, where, root)

    def _env_sources(self, env: object, path: str, root: str) -> None:
        """``[env] _.source = "x.sh"`` (or a list, or ``{ path = … }``): sourced by bash first, in
        the config's folder."""
        if isinstance(env, list):  # [[env]]: several tables
            for part in env:
                self._env_sources(part, path, root)
            return
        directives = env.get("_") if isinstance(env, dict) else None
        if not isinstance(directives, dict):
            return
        sources = directives.get("source")
        for source in sources if isinstance(sources, list) else [] if sources is None else [sources]:
            if isinstance(source, dict):
                source = source.get("path")
            if not isinstance(source, str) or _TEMPLATE.search(source) or "{%" in source:
                raise NotKnown(f"{path}: it sources a script only known at run time")
            real = os.path.realpath(os.path.join(root, os.path.expanduser(source)))
            self.sources.append(Script(f"the env script {source} of {path}", real, missing=not os.path.isfile(real),
                                       cwd=root))

    def _add(self, name: str, task: object, path: str, root: str) -> None:
        self.tasks.setdefault(name, []).append((task, path, root))
        aliases = task.get("alias", []) if isinstance(task, dict) else []
        for alias in [aliases] if isinstance(aliases, str) else aliases if isinstance(aliases, list) else []:
            self.aliases.setdefault(str(alias), []).append(name)

    def _task_dir(self, folder: str, root: str) -> None:
        if not os.path.isdir(folder):
            return
        for where, dirs, files in os.walk(folder):
            dirs.sort()
            for file in sorted(files):
                self.files += 1
                if self.files > _MAX_FILES:
                    raise NotKnown(f"{folder} holds too many files to read as tasks")
                path = os.path.join(where, file)
                if os.path.isfile(path) and os.access(path, os.X_OK):
                    name = os.path.relpath(path, folder).replace(os.sep, ":")
                    self._add(name, {"file": os.path.realpath(path), "header": True}, os.path.realpath(path), root)

    def names(self, pattern: str) -> list[str]:
        if any(c in pattern for c in "*?["):
            return sorted(n for n in self.tasks if fnmatch.fnmatchcase(n, pattern))
        return [pattern] if pattern in self.tasks else list(dict.fromkeys(self.aliases.get(pattern, ())))


def _conf_d(folder: str) -> list[str]:
    conf_d = os.path.join(folder, "conf.d")
    try:
        return [os.path.join(conf_d, n) for n in sorted(os.listdir(conf_d)) if n.endswith(".toml")]
    except OSError:
        return []


class _Tasks:
    """What running tasks runs, dependencies first: ``found`` holds a script per command."""

    def __init__(self, found: _Found, cwd: str, shell: str | None, skip_deps: bool) -> None:
        self.tasks, self.cwd, self.skip_deps = found, cwd, skip_deps
        self.shell = shell or found.settings_shell
        self.found: list[Script] = []
        self.count = 0

    def run(self, pattern: str, args: tuple[str | None, ...], depth: int = 0, top: bool = False) -> bool:
        self.count += 1
        if self.count > _MAX_TASKS or depth > _MAX_TASKS:
            raise NotKnown(f"the mise task {pattern} runs more than {_MAX_TASKS} tasks")
        names = self.tasks.names(pattern)
        if not names:
            if depth:
                raise NotKnown(f"there is no mise task {pattern}")
            return top  # mise run alone with no default task: a chooser, which cannot run here
        for name in names:
            for task, path, root in self.tasks.tasks[name]:
                self._one(name, task, path, root, args, depth)
        return True

    def _one(self, name: str, task: object, path: str, root: str, args: tuple[str | None, ...], depth: int) -> None:
        if isinstance(task, (str, list)):
            task = {"run": task}
        if not isinstance(task, dict):
            raise NotKnown(f"the mise task {name} of {path} is not a string, a list or a table")
        if task.get("header"):
            task = {**task, **_header(path)}
        if not self.skip_deps or depth:
            for dependency in _list(task.get("depends"), name):
                self._dependency(dependency, name, depth)
        where = self._dir(task.get("dir"), name, root)
        env = task.get("env")
        exports = [f"export {k}={_RUNTIME}" for k in env if re.fullmatch(r"[A-Za-z_]\w*", str(k))] \
            if isinstance(env, dict) else []
        shown = f"mise's '{name}' task of {path}"
        file = task.get("file")
        if file is not None:
            if not isinstance(file, str) or "://" in file or file.startswith("git::") or _TEMPLATE.search(file):
                raise NotKnown(f"the mise task {name} runs a file only known at run time")
            real = os.path.realpath(os.path.join(root, os.path.expanduser(file)))
            code = " ".join([shlex.quote(real), *_quoted(args)])
            self.found.append(Script(shown, path, code="\n".join([*exports, code]), cwd=where))
        else:
            runs = task.get("run", [])
            runs = [runs] if isinstance(runs, (str, dict)) else runs
            if not isinstance(runs, list):
                raise NotKnown(f"the command of the mise task {name} is not text")
            shell = task.get("shell", self.shell)
            if shell is not None and not isinstance(shell, str):
                raise NotKnown(f"the shell of the mise task {name} is not text")
            for k, run in enumerate(runs):
                if isinstance(run, dict):  # { task = "x" } or { tasks = [...] }: those tasks, here
                    for dependency in _list(run.get("tasks", run.get("task")), name):
                        self._dependency(dependency, name, depth)
                    continue
                if not isinstance(run, str):
                    raise NotKnown(f"the command of the mise task {name} is not text")
                if "{%" in run:
                    raise NotKnown(f"the mise task {name} has a template block: its command is only known at run time")
                code = templated(run, _TEMPLATE, lambda _m: _RUNTIME)
                if k == len(runs) - 1:
                    code = " ".join([code, *_quoted(args)])
                self.found.append(Script(shown, path, code="\n".join([*exports, _in_shell(code, shell)]), cwd=where))
        if not self.skip_deps or depth:
            for dependency in _list(task.get("depends_post"), name):
                self._dependency(dependency, name, depth)

    def _dependency(self, dependency: object, name: str, depth: int) -> None:
        if isinstance(dependency, dict):
            dependency = [dependency.get("task"), *(_list(dependency.get("args"), name))]
        if isinstance(dependency, str):
            if _TEMPLATE.search(dependency):
                raise NotKnown(f"a dependency of the mise task {name} is only known at run time")
            try:
                dependency = shlex.split(dependency)
            except ValueError:
                raise NotKnown(f"a dependency of the mise task {name} cannot be split") from None
        if not isinstance(dependency, list) or not dependency or not all(isinstance(d, str) for d in dependency):
            raise NotKnown(f"a dependency of the mise task {name} is not a task name")
        self.run(dependency[0], tuple(dependency[1:]), depth + 1)

    def _dir(self, where: object, name: str, root: str) -> str:
        if where is None:
            return root
        if not isinstance(where, str):
            raise NotKnown(f"the mise task {name} runs in a folder only known at run time")
        text = where.replace("{{cwd}}", self.cwd).replace("{{ cwd }}", self.cwd)
        text = text.replace("{{config_root}}", root).replace("{{ config_root }}", root)
        if _TEMPLATE.search(text) or "{%" in text:
            raise NotKnown(f"the mise task {name} runs in a folder only known at run time")
        return os.path.normpath(os.path.join(root, os.path.expanduser(text)))


def _list(value: object, name: str) -> list[object]:
    if value is None:
        return []
    if isinstance(value, (str, dict)):
        return [value]
    if isinstance(value, list):
        return value
    raise NotKnown(f"the dependencies of the mise task {name} are not a list")


def _quoted(args: tuple[str | None, ...]) -> list[str]:
    return [shlex.quote(a) if a is not None else _RUNTIME for a in args]


def _in_shell(code: str, shell: str | None) -> str:
    """``code`` as the task's shell runs it: itself for a POSIX shell, else that program's input."""
    if shell is None:
        return code
    try:
        words = shlex.split(shell)
    except ValueError:
        raise NotKnown(f"the mise shell {shell!r} cannot be split") from None
    if not words or interpreter_name(words) in POSIX_SHELLS:
        return code
    return " ".join([*(shlex.quote(w) for w in words), shlex.quote(code)])


def _header(path: str) -> dict[str, Any]:
    """A file task's ``#MISE key=value`` lines (TOML), as a task's fields."""
    data, why = read_bounded(path)
    if data is None:
        return {}  # bash.py reads (or fails to read) the file itself
    lines = _HEADER.findall(data.decode("utf-8", "replace"))
    if not lines:
        return {}
    try:
        fields = toml_of("\n".join(lines).encode())
    except Exception:
        raise NotKnown(f"the #MISE lines of {path} cannot be read") from None
    return {k: v for k, v in fields.items() if k in ("depends", "depends_post", "dir", "env")}


__all__ = ["MISES", "mise_scripts"]
