"""The commands cluster launchers run on their cloud machines from a YAML file.

SkyPilot: ``sky launch [-c CLUSTER] task.yaml`` (and ``sky exec CLUSTER task.yaml``, ``sky jobs
launch``, ``sky spot launch``, ``sky serve up``) runs the task's ``setup`` and then its ``run``
shell code on the cluster's machines.  Ray's cluster launcher: ``ray up cluster.yaml`` runs the
lists ``initialization_commands``, ``setup_commands``, ``head_setup_commands``,
``worker_setup_commands``, ``head_start_ray_commands`` and ``worker_start_ray_commands`` there.
Those are another machine's commands: they meet the deny and ask rules only (``Script.remote``),
as ``ssh host CMD``'s do.  A command line instead of a YAML is read by ``bash_runner_table``
(``sky exec c 'rm x'``, ``ray exec cluster.yaml 'rm x'``).  A YAML that cannot be read, or a
command that is not shell code, is code only known at run time.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from .bash_analysis import CommandInfo
from .bash_runner_table import RUNNERS
from .bash_runners import after_path
from .bash_words import Word
from .script_files import NotKnown, Script, parsed_file, per_form, scripts_of_forms

CLUSTER_LAUNCHERS = frozenset({"sky", "ray"})
_PATHS = (("launch",), ("exec",), ("jobs", "launch"), ("spot", "launch"), ("serve", "up"), ("serve", "update"))
_RUNNER = RUNNERS["sky"][-1][1]  # the options of sky launch (exec shares them)
_RAY_COMMANDS = ("initialization_commands", "setup_commands", "head_setup_commands", "worker_setup_commands",
                 "head_start_ray_commands", "worker_start_ray_commands")
_RAY_VALUES = frozenset({"--min-workers", "--max-workers", "-n", "--cluster-name", "--run-env", "-p",
                         "--port-forward", "--log-style", "--log-color"})


def cluster_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the cluster YAMLs this command launches run there (every form)."""
    return scripts_of_forms(info, cwds, memo, CLUSTER_LAUNCHERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    if form[0].literal == "ray":
        return _ray(form, cwd, cwd_unknown)
    found: list[Script] = []
    for path in _PATHS:
        for start in after_path(form, path):
            operands = _operands(form[start:])
            if path == ("exec",):
                operands = operands[1:]  # the cluster
            if path == ("serve", "update"):
                operands = operands[1:]  # the service name
            if len(operands) != 1 or not (operands[0].literal or "").endswith((".yaml", ".yml")):
                continue  # a command line (bash_runner_table), or nothing
            if cwd_unknown:
                raise NotKnown("the task YAML is found from a folder only known at run time")
            found += _task(os.path.realpath(os.path.join(cwd, os.path.expanduser(operands[0].literal or ""))))
    return found


def _ray(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``ray up [options] cluster.yaml``: the YAML's command lists (``ray exec``'s command: the table)."""
    words = list(form[1:])
    if not words or words[0].literal != "up":
        if words and words[0].literal is None:
            raise NotKnown(f"the ray command {words[0].text} is only known at run time")
        return []
    operands = _operands(tuple(words[1:]), _RAY_VALUES)
    if not operands:
        return []
    if cwd_unknown:
        raise NotKnown("the cluster YAML is found from a folder only known at run time")
    path = os.path.realpath(os.path.join(cwd, os.path.expanduser(operands[0].literal or "")))
    data, why = parsed_file(path, _documents)
    if data is None:
        if not why:
            return []  # no such file: ray stops
        raise NotKnown(f"{path} could not be read ({why})")
    config = data[0] if data and isinstance(data[0], dict) else {}
    code = []
    for key in _RAY_COMMANDS:
        commands = config.get(key) or []
        if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
            raise NotKnown(f"{path}: its {key} is not a list of commands")
        code += commands
    return [Script(f"the commands of {path}", path, code="\n".join(code), remote=True)] if code else []


def _operands(words: tuple[Word, ...], values: frozenset[str] | None = None) -> list[Word]:
    values = _RUNNER.values if values is None else values
    out, i = [], 0
    while i < len(words):
        text = words[i].literal
        if text is None:
            raise NotKnown(f"{words[i].text} is only known at run time")
        if text.startswith("-") and text != "-":
            i += 2 if text in values and "=" not in text else 1
            continue
        out.append(words[i])
        i += 1
    return out


def _task(path: str) -> list[Script]:
    data, why = parsed_file(path, _documents)
    if data is None:
        if not why:
            return []  # no such file: sky stops
        raise NotKnown(f"{path} could not be read ({why})")
    code = []
    for document in data:  # a pipeline: several tasks
        if not isinstance(document, dict):
            continue
        for key in ("setup", "run"):
            value = document.get(key)
            if value is None:
                continue
            if not isinstance(value, str):
                raise NotKnown(f"{path}: its {key} is not shell code")
            code.append(value)
    if not code:
        return []
    return [Script(f"the setup and run of {path}", path, code="\n".join(code), remote=True)]


def _documents(data: bytes) -> list[Any]:
    try:
        return list(yaml.safe_load_all(data))
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not YAML ({type(exc).__name__})") from None


def uploaded_paths(words: tuple[Word, ...], cwd: str) -> list[str] | None:
    """The local paths the YAML this command launches sends to the cluster (SkyPilot's ``workdir``
    and ``file_mounts`` sources, Ray's ``file_mounts``), relative to ``cwd``; None when a YAML it
    names cannot be read (what it sends is not known)."""
    try:
        yamls = _launched_yamls(words)
    except NotKnown:
        return None
    found: list[str] = []
    for name in yamls:
        data, why = parsed_file(os.path.realpath(os.path.join(cwd, os.path.expanduser(name))), _documents)
        if data is None:
            if why:
                return None
            continue
        for document in data:
            if not isinstance(document, dict):
                continue
            workdir = document.get("workdir")
            if isinstance(workdir, str):
                found.append(workdir)
            mounts = document.get("file_mounts") or {}
            for source in mounts.values() if isinstance(mounts, dict) else ():
                if isinstance(source, dict):
                    source = source.get("source")
                for item in source if isinstance(source, list) else [source]:
                    if isinstance(item, str) and "://" not in item:
                        found.append(item)
    return found


def _launched_yamls(words: tuple[Word, ...]) -> list[str]:
    if words[0].literal == "ray":
        rest = words[1:]
        if not rest or rest[0].literal not in ("up", "submit", "exec", "rsync-up", "attach"):
            return []
        return [w.literal or "" for w in _operands(tuple(rest[1:]), _RAY_VALUES)[:1]]
    names = []
    for path in _PATHS:
        for start in after_path(words, path):
            operands = _operands(words[start:])
            operands = operands[1:] if path in (("exec",), ("serve", "update")) else operands
            names += [w.literal or "" for w in operands if (w.literal or "").endswith((".yaml", ".yml"))]
    return names


_READ = per_form("the commands a cluster launcher runs", _of_form)

__all__ = ["CLUSTER_LAUNCHERS", "cluster_scripts", "uploaded_paths"]
