"""The command ``mlflow run`` runs from a project's ``MLproject`` file.

``mlflow run DIR [-e ENTRY] [-P NAME=VALUE]…`` runs the entry point's ``command`` with
``bash -c`` in ``DIR``, as a real MLflow showed: its ``{name}`` placeholders filled with the
parameters' values, each shell-quoted (a word only known at run time here, where it may stand in
any quote), and the parameters the entry point does not declare appended as ``--NAME VALUE``.  An
entry point the file does not name but that ends in ``.py`` or ``.sh`` runs ``python FILE`` or
``$SHELL FILE`` (read as such); ``.R`` runs Rscript, a program.  ``bash.py`` holds the command
to the deny and ask rules and the safety checks, as a script file's.  A project from a git URI,
another backend (``-b databricks``), an option this does not know or an ``MLproject`` that cannot
be read is code only known at run time.
"""

from __future__ import annotations

import os
import re
import shlex

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .script_files import (
    NotKnown,
    Script,
    mapping_file,
    options_of,
    per_form,
    scripts_of_forms,
    templated,
)

MLFLOWS = frozenset({"mlflow"})
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_RUNTIME = run_time_word("MLFLOW_PARAMETER")
_VALUES = frozenset({"-e", "--entry-point", "-v", "--version", "-P", "--param-list", "-A", "--docker-args",
                     "--experiment-name", "--experiment-id", "-b", "--backend", "-c", "--backend-config",
                     "--env-manager", "--storage-dir", "--run-id", "--run-name"})
_FLAGS = frozenset({"--build-image", "--no-conda", "--help", "-h"})


def mlflow_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The command the ``mlflow run`` of this command runs (every form: ``uv run mlflow run .``)."""
    return scripts_of_forms(info, cwds, memo, MLFLOWS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    if not words or words[0].literal != "run":
        if words and words[0].literal is None:
            raise NotKnown("the mlflow command is only known at run time")
        return []  # mlflow ui, mlflow models serve … (mlflow recipes: Python, a program)
    entry, backend = "main", "local"
    params: list[tuple[str, str | None]] = []
    uri: Word | None = None
    for option, value, word in options_of(words[1:], _VALUES, "mlflow run"):
        if not option:
            if word.literal is None:
                raise NotKnown(f"{word.text} is only known at run time")
            uri = uri or word
        elif option in ("--help", "-h"):
            return []
        elif option in ("-e", "--entry-point"):
            entry = value or ""
        elif option in ("-b", "--backend"):
            backend = value or ""
        elif option in ("-P", "--param-list"):
            name, equals, given = (value or "").partition("=")
            if not equals:
                raise NotKnown(f"the mlflow parameter {value} has no value")
            params.append((name, given))
        elif option not in _VALUES and option not in _FLAGS:
            raise NotKnown(f"mlflow run {option} is an option this does not know")
    if uri is None or uri.literal is None:
        return []  # mlflow run needs a project: it fails
    if backend != "local":
        raise NotKnown(f"mlflow runs the project on the {backend} backend")
    if "://" in uri.literal or uri.literal.startswith("git@") or "#" in uri.literal:
        raise NotKnown(f"the project {uri.literal} is fetched from elsewhere")
    if cwd_unknown:
        raise NotKnown("mlflow runs in a folder only known at run time")
    project = os.path.realpath(os.path.join(cwd, os.path.expanduser(uri.literal)))
    if not os.path.isdir(project):
        return []  # no such project: mlflow fails
    names = [n for n in os.listdir(project) if n.lower() == "mlproject"]
    path = os.path.join(project, names[0]) if names else None
    entry_points = _entry_points(path) if path is not None else {}
    if entry in entry_points:
        declared, command = entry_points[entry]
        code = templated(command, _PLACEHOLDER, lambda _m: _RUNTIME)
        extra = [(n, v) for n, v in params if n not in declared]
    else:
        extension = os.path.splitext(entry)[1]
        if extension not in (".py", ".sh"):
            return []  # .R: Rscript, a program; no such entry point: mlflow fails
        code = f"{'python' if extension == '.py' else 'bash'} {shlex.quote(entry)}"
        extra = params
    code = " ".join([code, *(f"--{shlex.quote(n)} {shlex.quote(v or '')}" for n, v in extra)])
    shown = f"mlflow's {entry!r} entry point of {path or project}"
    return [Script(shown, path, code=code, cwd=project)]


_READ = per_form("the command mlflow runs", _of_form)


def _entry_points(path: str) -> dict[str, tuple[set[str], str]]:
    """Each entry point's declared parameters and command."""
    loaded = mapping_file(path)
    if loaded is None:
        return {}
    points = loaded.get("entry_points") or {}
    if not isinstance(points, dict):
        raise NotKnown(f"{path}: its entry points are not a mapping")
    out = {}
    for name, point in points.items():
        command = point.get("command") if isinstance(point, dict) else None
        parameters = point.get("parameters") or {} if isinstance(point, dict) else {}
        if not isinstance(command, str) or not isinstance(parameters, dict):
            raise NotKnown(f"{path}: the entry point {name} has no command or its parameters are not a mapping")
        out[str(name)] = ({str(p) for p in parameters}, command)
    return out


__all__ = ["MLFLOWS", "mlflow_scripts"]
