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
    for operands in _sky_entrypoints(form):
        if len(operands) != 1 or not _is_yaml(operands[0]):
            continue  # a command line (bash_runner_table), or nothing
        if cwd_unknown:
            raise NotKnown("the task YAML is found from a folder only known at run time")
        found += _task(_at(cwd, operands[0]))
    return found


def _ray(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``ray up [options] cluster.yaml``: the YAML's command lists (``ray exec``'s command: the table)."""
    if len(form) > 1 and form[1].literal is None:
        raise NotKnown(f"the ray command {form[1].text} is only known at run time")
    config = _ray_config(form, ("up",))
    if config is None:
        return []
    if cwd_unknown:
        raise NotKnown("the cluster YAML is found from a folder only known at run time")
    path = _at(cwd, config)
    data = _yaml_documents(path)
    settings = data[0] if data and isinstance(data[0], dict) else {}
    code = []
    for key in _RAY_COMMANDS:
        commands = settings.get(key) or []
        if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
            raise NotKnown(f"{path}: its {key} is not a list of commands")
        code += commands
    return [Script(f"the commands of {path}", path, code="\n".join(code), remote=True)] if code else []


def _sky_entrypoints(words: tuple[Word, ...]) -> list[list[Word]]:
    """The operands after each subcommand of ``sky`` that launches something (the cluster of
    ``exec`` and the service of ``serve update`` left out): a task YAML or a command line."""
    found = []
    for path in _PATHS:
        for start in after_path(words, path):
            operands = _operands(words[start:])
            found.append(operands[1:] if path in (("exec",), ("serve", "update")) else operands)
    return found


def _ray_config(words: tuple[Word, ...], subcommands: tuple[str, ...]) -> Word | None:
    """The cluster YAML of ``ray SUBCOMMAND [options] cluster.yaml``, for one of ``subcommands``."""
    rest = words[1:]
    if not rest or rest[0].literal not in subcommands:
        return None
    operands = _operands(rest[1:], _RAY_VALUES)
    return operands[0] if operands else None


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


def _is_yaml(word: Word) -> bool:
    return (word.literal or "").endswith((".yaml", ".yml"))


def _at(cwd: str, word: Word) -> str:
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(word.literal or "")))


def _task(path: str) -> list[Script]:
    code = []
    for document in _yaml_documents(path):  # a pipeline: several tasks
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


def _yaml_documents(path: str) -> list[Any]:
    """The YAML documents of ``path``; none when there is no such file (the launcher stops)."""
    data, why = parsed_file(path, _documents)
    if data is None:
        if not why:
            return []
        raise NotKnown(f"{path} could not be read ({why})")
    return data


def _documents(data: bytes) -> list[Any]:
    try:
        return list(yaml.safe_load_all(data))
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not YAML ({type(exc).__name__})") from None


def uploaded_paths(words: tuple[Word, ...], cwd: str) -> list[str] | None:
    """The local paths the YAML this command launches sends to the cluster (SkyPilot's ``workdir``
    and ``file_mounts`` sources, Ray's ``file_mounts``), relative to ``cwd``; None when a YAML it
    names cannot be read (what it sends is not known)."""
    found: list[str] = []
    try:
        for name in _launched_yamls(words):
            for document in _yaml_documents(_at(cwd, name)):
                if isinstance(document, dict):
                    found += _sent(document)
    except NotKnown:
        return None
    return found


def _launched_yamls(words: tuple[Word, ...]) -> list[Word]:
    if words[0].literal == "ray":
        config = _ray_config(words, ("up", "submit", "exec", "rsync-up", "attach"))
        return [config] if config is not None else []
    return [w for operands in _sky_entrypoints(words) for w in operands if _is_yaml(w)]


def _sent(document: dict[str, Any]) -> list[str]:
    """A task's ``workdir`` and the local sources of its ``file_mounts`` (not bucket URIs)."""
    found = []
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


_READ = per_form("the commands a cluster launcher runs", _of_form)

__all__ = ["CLUSTER_LAUNCHERS", "cluster_scripts", "uploaded_paths"]
