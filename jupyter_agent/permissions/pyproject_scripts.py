"""The commands Python task runners take from ``pyproject.toml``: ``pdm run NAME``
(``[tool.pdm.scripts]``), ``poe NAME`` (``[tool.poe.tasks]``), ``rye run NAME``
(``[tool.rye.scripts]``) and taskipy's ``task NAME`` (``[tool.taskipy.tasks]``: shell code); hatch's
environments are ``hatch_envs.py``'s.

A task is a command line (``"pytest -q"``, ``{cmd = …}``: split and run without a shell), shell
code (``{shell = …}``), a sequence of tasks (pdm's ``composite``, poe's ``sequence`` — whose
strings name tasks unless ``default_item_type`` says otherwise —, rye's ``chain``), with pdm's
``pre_``/``post_`` hooks.
``bash.py`` holds their commands to the deny and ask rules and the safety checks, as a script
file's (``script_files.py``), in the project's folder (the nearest one upwards with
``pyproject.toml``).  Python tasks (pdm's ``call``, poe's ``script``/``expr``) are programs like any
other.  A task name only known at run time, one this module does not know the shape of (poe's
``switch``), a project chosen by an option, or a ``pyproject.toml`` that cannot be read is code only
known at run time.
"""

from __future__ import annotations

import os
import re
import shlex

from .bash_analysis import CommandInfo
from .bash_words import Word
from .script_files import (
    NotKnown,
    Script,
    nearest_files,
    not_there,
    parsed_file,
    passed_on,
    scripts_of_forms,
    table_at,
    toml_of,
)

RUNNERS = frozenset({"pdm", "poe", "rye", "task"})  # task: taskipy's (go-task's is taskfile_tasks')
# options that choose another project or environment (poe -C DIR), or take a value this does not know
_ELSEWHERE = frozenset({"-p", "--project", "-g", "--global", "-C", "--root", "--directory", "-d", "-e", "--env",
                        "--executor", "-c", "--config", "--pyproject"})
_MAX_TASKS = 64
# pdm's options (global, and of pdm run) that take a value, and its flags
_PDM_VALUES = frozenset({"--env-file", "--working-dir", "-k", "--skip", "--venv"})
_PDM_FLAGS = frozenset({"--verbose", "--quiet", "-s", "--site-packages", "--recreate", "-I", "--ignore-python",
                        "--pep582", "--no-cache"})
_COUNTED = re.compile(r"-[vq]+")
# pdm's own commands, and the user scripts of hook names each runs (pdm's "Lifecycle and Hooks")
_PDM_BUILTINS = frozenset({"add", "build", "cache", "completion", "config", "export", "fix", "import", "info",
                           "init", "install", "list", "lock", "new", "outdated", "plugin", "publish", "python", "py",
                           "remove", "run", "search", "self", "show", "sync", "update", "use", "venv"})
_PDM_HOOKS = {
    "install": ("pre_lock", "post_lock", "pre_install", "post_install"), "sync": ("pre_install", "post_install"),
    "add": ("pre_lock", "post_lock", "pre_install", "post_install"),
    "remove": ("pre_lock", "post_lock", "pre_install", "post_install"),
    "update": ("pre_lock", "post_lock", "pre_install", "post_install"), "lock": ("pre_lock", "post_lock"),
    "build": ("pre_build", "post_build"), "publish": ("pre_publish", "pre_build", "post_build", "post_publish"),
    "init": ("post_init",), "use": ("post_use",),
}
_HOOKS_OF = "\x00hooks:"  # a task name meaning: the hook scripts of this pdm command



def pyproject_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The task commands this command runs (every form: ``uv run poe test``); ``memo``: this decision's."""
    return scripts_of_forms(info, cwds, memo, RUNNERS, _of_form, per_folder=False)


def _task_name(form: tuple[Word, ...]) -> tuple[str | None, bool, tuple[Word, ...], dict[str, str]]:
    """(the task, whether it is named at all, the words after its name, pdm's options that change how
    it runs: ``--working-dir``, ``--env-file``); None: only known at run time."""
    runner = form[0].text
    words = list(form[1:])
    given: dict[str, str] = {}

    def options() -> None:
        while words and (words[0].literal or "x")[:1] == "-":
            option = words.pop(0).literal or ""
            name, has_value, value = option.partition("=")
            if name in _ELSEWHERE:
                raise NotKnown(f"{option} chooses another project, not read here")
            if runner == "task" and name in ("-l", "--list", "-h", "--help", "--version"):
                given["list"] = ""
            if runner != "pdm":
                continue  # poe's, rye's and taskipy's other options take no value
            if name in _PDM_VALUES:
                if not has_value:
                    if not words or words[0].literal is None:
                        raise NotKnown(f"the value of pdm {name} is only known at run time")
                    value = words.pop(0).literal or ""
                given[name] = value
            elif name in ("-l", "--list", "-j", "--json", "-h", "--help"):
                given["list"] = ""
            elif name not in _PDM_FLAGS and not _COUNTED.fullmatch(name):
                raise NotKnown(f"pdm {name} is an option this does not know")

    options()
    if runner == "pdm" and words and words[0].literal in _PDM_HOOKS:  # pdm install runs pre_install …
        return f"{_HOOKS_OF}{words[0].literal}", True, (), given
    if runner == "pdm" and words and words[0].literal not in _PDM_BUILTINS and words[0].literal != "run":
        return words[0].literal, True, tuple(words[1:]), given  # pdm test: the script, when no command of pdm's
    if runner in ("pdm", "rye"):
        if not words or words[0].literal != "run":
            return None, False, (), given
        words.pop(0)
        options()
    if not words or "list" in given:
        return None, False, (), given
    return words[0].literal, True, tuple(words[1:]), given


def _of_form(form: tuple[Word, ...], cwds: list[str], cwd_unknown: bool) -> list[Script]:
    runner = form[0].text
    try:
        name, named, rest, given = _task_name(form)
    except NotKnown as why:
        return [Script(f"{runner}'s tasks", None, str(why))]
    if not named:
        return []
    if name is None:
        return [Script(f"{runner}'s tasks", None, "the task's name is only known at run time")]
    if cwd_unknown:
        return [Script(f"{runner}'s tasks", None, "the project is found from a folder only known at run time")]
    found = [s for cwd in dict.fromkeys(cwds) for s in not_there(cwd, ("pyproject.toml",))
             if not os.path.lexists(s.path or "")]  # one the line makes first, nearer than the one found
    for folder, manifest in nearest_files(cwds, "pyproject.toml"):
        shown = (f"{runner}'s {name!r} task of {manifest}" if not name.startswith(_HOOKS_OF) else
                 f"pdm {name[len(_HOOKS_OF):]}'s hook scripts in {manifest}")
        try:
            data = _read(manifest)
            if runner == "pdm":
                lines = _pdm(data, name, f" {passed_on(rest)}".rstrip(), os.path.realpath(folder), given)
            else:
                lines = _LINES[runner](data, name, f" {passed_on(rest)}".rstrip())
        except NotKnown as why:
            found.append(Script(shown, None, str(why)))
            continue
        if lines:
            found.append(Script(shown, os.path.realpath(manifest), code="\n".join(lines), cwd=os.path.realpath(folder)))
    return found


def _read(manifest: str) -> dict[str, object]:
    data, why = parsed_file(manifest, toml_of)
    if data is None:
        raise NotKnown(why or "it is not there any more")
    return data  # type: ignore[no-any-return]



def _command(value: object) -> str:
    """A command run without a shell (a string split as a shell would, or a list of words)."""
    if isinstance(value, str):
        try:
            return shlex.join(shlex.split(value))
        except ValueError:
            raise NotKnown("a command does not split into words") from None
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return shlex.join(value)
    raise NotKnown("a command is neither a string nor a list of words")


def _pdm(data: dict[str, object], name: str, args: str, root: str, given: dict[str, str]) -> list[str]:
    """pdm's scripts (``args``: the words ``pdm run NAME`` hands on, as shell code; pdm appends them).
    A script runs in the project's folder, or its ``working_dir`` below it: the one ``pdm run
    --working-dir`` gives, else the outermost composite's that sets one (pdm merges a composite's
    options over its items'), else the script's own, else that of ``[tool.pdm.scripts._]``."""
    scripts = table_at(data, "tool", "pdm", "scripts")
    shared = scripts.get("_")
    lines: list[str] = _env_files(shared.get("env_file"), root) if isinstance(shared, dict) else []
    if "--env-file" in given:
        lines += _env_files(given["--env-file"], root)
    shared_dir = _working_dir(shared)

    def task(task_name: str, depth: int, outer_dir: str | None) -> bool:
        if depth > 8 or len(lines) > _MAX_TASKS:
            raise NotKnown("its tasks run tasks too deeply")
        if task_name not in scripts or task_name == "_":
            return False
        task(f"pre_{task_name}", depth + 1, outer_dir)
        value = scripts[task_name]
        if isinstance(value, dict):
            lines.extend(_env_files(value.get("env_file"), root))  # loaded into the task's environment
        own = _working_dir(value)
        where = given.get("--working-dir", outer_dir if outer_dir is not None else own if own is not None else
                          shared_dir)
        into = f"cd {shlex.quote(os.path.join(root, where))} && " if where is not None else ""
        passed = args if depth == 0 else ""
        if isinstance(value, (str, list)):
            lines.append(into + _command(value) + passed)
        elif isinstance(value, dict):
            if "shell" in value:
                if not isinstance(value["shell"], str):
                    raise NotKnown("a shell task is not a string")
                lines.append(f"{into}{{\n{value['shell']}{passed}\n}}" if into else value["shell"] + passed)
            elif "cmd" in value:
                lines.append(into + _command(value["cmd"]) + passed)
            elif "composite" in value:
                for item in value["composite"] if isinstance(value["composite"], list) else [None]:
                    if not isinstance(item, str):
                        raise NotKnown("a composite task is not a list of strings")
                    first = item.split(None, 1)[0] if item.split() else ""
                    if not task(first, depth + 1, outer_dir if outer_dir is not None else own):
                        lines.append(into + _command(item))
            elif "call" not in value:
                raise NotKnown(f"the task {task_name!r} has a shape not read here")
        task(f"post_{task_name}", depth + 1, outer_dir)
        return True

    if name.startswith(_HOOKS_OF):
        for hook in _PDM_HOOKS[name[len(_HOOKS_OF):]]:
            task(hook, 1, None)
    elif task(name, 0, None):
        for hook in ("pre_script", "post_script", "pre_run", "post_run"):  # around every script / run
            task(hook, 1, None)
    return lines


def _working_dir(value: object) -> str | None:
    """A pdm script's ``working_dir`` (below the project's folder; may be absolute)."""
    where = value.get("working_dir") if isinstance(value, dict) else None
    if where is not None and not isinstance(where, str):
        raise NotKnown("a working_dir is not a folder name")
    return where


def _poe(data: dict[str, object], name: str, args: str) -> list[str]:
    """poe's tasks (``args``: the words ``poe NAME`` hands on; a ``cmd`` task gets them), each in the
    project's folder or its ``cwd`` (a sequence's for its items that set none; ``${VAR}`` in it is a
    folder only known at run time)."""
    tasks = table_at(data, "tool", "poe", "tasks")
    lines: list[str] = _env_files(table_at(data, "tool", "poe").get("envfile"))

    def task(value: object, depth: int, outer: str = "") -> None:
        if depth > 8 or len(lines) > _MAX_TASKS:
            raise NotKnown("its tasks run tasks too deeply")
        passed = args if depth == 0 else ""
        into = outer
        if isinstance(value, dict):
            lines.extend(_env_files(value.get("envfile")))  # loaded into the task's environment
            into = _poe_cwd(value.get("cwd")) or outer
        if isinstance(value, str):
            lines.append(into + _command(value) + passed)
        elif isinstance(value, list):  # a sequence: its strings name tasks (a ref), else are commands
            for item in value:
                named = item.split()[0] if isinstance(item, str) and item.split() else None
                task(tasks.get(named, item) if named is not None else item, depth + 1, outer)
        elif isinstance(value, dict):
            if "shell" in value:
                if not isinstance(value["shell"], str):
                    raise NotKnown("a shell task is not a string")
                lines.append(f"{into}{{\n{value['shell']}\n}}" if into else value["shell"])
            elif "cmd" in value:
                lines.append(into + _command(value["cmd"]) + passed)
            elif "sequence" in value:
                items = value["sequence"]
                if not isinstance(items, list):
                    raise NotKnown("a sequence task is not a list")
                kind = value.get("default_item_type", "ref")
                if kind in ("cmd", "shell"):  # its strings are commands, or shell code
                    items = [{kind: i} if isinstance(i, str) else i for i in items]
                elif kind != "ref":
                    raise NotKnown(f"a sequence of {kind} tasks is not read here")
                task(items, depth + 1, into)
            elif "ref" in value:
                ref = value["ref"]
                if not isinstance(ref, str) or not ref.split():
                    raise NotKnown("a ref task names no task")
                task(tasks.get(ref.split()[0]), depth + 1, into)
            elif not value.keys() & {"script", "expr"}:  # switch, …: not read here
                raise NotKnown("a task has a shape not read here")
            for dep in value.get("deps", []) if isinstance(value.get("deps"), list) else []:
                if isinstance(dep, str) and dep.split():
                    task(tasks.get(dep.split()[0]), depth + 1)  # (deps run as tasks of their own)
        elif value is not None:
            raise NotKnown("a task has a shape not read here")

    if name in tasks:
        task(tasks[name], 0)
    return lines


def _poe_cwd(value: object) -> str:
    """``cd DIR && `` for a poe task's ``cwd`` (relative to the project's folder, where the script
    runs), or nothing."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise NotKnown("a task's cwd is not a folder name")
    if "$" in value:  # ${POE_PWD} and other variables poe fills in
        return 'cd "${POE_CWD}" && '
    return f"cd {shlex.quote(value)} && "


def _env_files(value: object, root: str | None = None) -> list[str]:
    """pdm's ``env_file``, poe's ``envfile``: files whose variables the task gets, read as
    ``source FILE`` would (a Read deny rule on ``.env`` closes them); pdm's are in ``root``."""
    if value is None:
        return []
    if isinstance(value, dict):  # pdm: {override = ".env"} / {file = …}
        value = [v for v in value.values() if isinstance(v, str)]
    files = [value] if isinstance(value, str) else value
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise NotKnown("an env file setting is not a file name or a list of them")
    return [f". {shlex.quote(os.path.join(root, f) if root is not None else f)}" for f in files]


def _rye(data: dict[str, object], name: str, args: str) -> list[str]:
    """rye's scripts: a command run without a shell (the words ``rye run NAME`` hands on appended),
    a ``chain`` of scripts, or a ``call`` of Python (a program)."""
    scripts = table_at(data, "tool", "rye", "scripts")
    lines: list[str] = []

    def script(script_name: str, depth: int) -> None:
        if depth > 8 or len(lines) > _MAX_TASKS:
            raise NotKnown("its scripts run scripts too deeply")
        value = scripts.get(script_name)
        passed = args if depth == 0 else ""
        if isinstance(value, (str, list)):
            lines.append(_command(value) + passed)
        elif isinstance(value, dict):
            env_file = value.get("env-file")
            if env_file is not None:
                lines.extend(_env_files(env_file))
            if "cmd" in value:
                lines.append(_command(value["cmd"]) + passed)
            elif "chain" in value:
                chain = value["chain"]
                if not isinstance(chain, list) or not all(isinstance(c, str) for c in chain):
                    raise NotKnown("a chain is not a list of script names")
                for item in chain:
                    if item not in scripts:
                        raise NotKnown(f"the chained script {item!r} is not defined")
                    script(item, depth + 1)
            elif "call" not in value:
                raise NotKnown(f"the script {script_name!r} has a shape not read here")
        elif value is not None:
            raise NotKnown(f"the script {script_name!r} has a shape not read here")

    script(name, 0)
    return lines


_TASKIPY_VARIABLE = re.compile(r"\{(\w+)\}")


def _taskipy(data: dict[str, object], name: str, args: str) -> list[str]:
    """taskipy's tasks (``[tool.taskipy.tasks]``): shell code (a string, or ``{cmd = …}``) run in
    the project's folder (or its ``cwd``) with the words ``task NAME`` hands on appended, after
    ``pre_NAME`` and before ``post_NAME``; ``[tool.taskipy.settings] runner`` goes in front of
    each, and with ``use_vars`` the ``{name}`` of ``[tool.taskipy.variables]`` are filled in."""
    taskipy = table_at(data, "tool", "taskipy")
    tasks = table_at(data, "tool", "taskipy", "tasks")
    settings = table_at(data, "tool", "taskipy", "settings")
    variables = table_at(data, "tool", "taskipy", "variables")
    if not taskipy or name not in tasks:
        return []  # (not taskipy's: go-task's, or no such task — taskipy fails)
    runner = settings.get("runner", "")
    if not isinstance(runner, str):
        raise NotKnown("taskipy's runner setting is not a string")

    def line(task_name: str, passed: str) -> str | None:
        value = tasks.get(task_name)
        if value is None:
            return None
        use_vars = settings.get("use_vars", False)
        cwd = settings.get("cwd")
        if isinstance(value, dict):
            use_vars = value.get("use_vars", use_vars)
            cwd = value.get("cwd", cwd)
            value = value.get("cmd")
        if not isinstance(value, str):
            raise NotKnown(f"taskipy's task {task_name!r} has a shape not read here")
        if use_vars:
            def filled(match: re.Match[str]) -> str:
                known = variables.get(match.group(1))
                if not isinstance(known, str):
                    raise NotKnown(f"taskipy's variable {match.group(1)!r} is not a plain string")
                return known
            value = _TASKIPY_VARIABLE.sub(filled, value)
        into = ""
        if cwd is not None:
            if not isinstance(cwd, str):
                raise NotKnown(f"the cwd of taskipy's task {task_name!r} is not a folder name")
            into = f"cd {shlex.quote(cwd)} && "
        return f"{into}{runner + ' ' if runner else ''}{value}{passed}"

    lines = [line(f"pre_{name}", ""), line(name, args), line(f"post_{name}", "")]
    return [found for found in lines if found is not None]


_LINES = {"poe": _poe, "rye": _rye, "task": _taskipy}

__all__ = ["RUNNERS", "pyproject_scripts"]
