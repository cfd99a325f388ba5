"""The commands lefthook runs for a git hook, from its configuration.

``lefthook run pre-commit`` (and the git hook ``lefthook install`` writes, which ``git commit`` runs:
``git_hooks``) runs, for that hook, each command's ``run`` (shell code) in its ``root``, each script
of ``.lefthook/HOOK/`` (with its ``runner``), and each job of ``jobs`` (groups too), from
``lefthook.yml`` / ``.lefthook.yml`` / ``.config/lefthook.yml`` (``.yaml``, ``.json``, ``.toml``), the
``lefthook-local`` files beside it and the files it ``extends``, in the repository's top folder.
``bash.py`` holds them to the deny and ask rules and the safety checks, as a script file's.  File
templates (``{staged_files}``, ``{all_files}``, ``{0}`` …) are words only known at run time.  Every
command of the hook counts, whatever its ``glob``, ``skip`` or ``only`` says.  Configuration from
``remotes``, one that cannot be read, or a word only known at run time is code only known at run
time.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable
from typing import Any

from .bash_analysis import CommandInfo
from .bash_git import top_level
from .bash_words import Word, run_time_word
from .script_files import (
    NotKnown,
    Script,
    not_there,
    parsed_file,
    per_form,
    scripts_of_forms,
    templated,
    toml_of,
    yaml_of,
)

LEFTHOOKS = frozenset({"lefthook"})
_BASES = ("lefthook", ".lefthook", ".config/lefthook")
_SUFFIXES = (".yml", ".yaml", ".json", ".toml")
_TEMPLATE = re.compile(r"\{[\w-]+\}")
_RUNTIME = run_time_word("LEFTHOOK_FILES", listed=True)  # {staged_files}, {1}: git's
_MAX_JOBS = 256
GIT_HOOK = re.compile(r'call_lefthook run "([\w-]+)"')  # the last line of the hook lefthook install writes



def lefthook_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``lefthook`` of this command runs (every form)."""
    return scripts_of_forms(info, cwds, memo, LEFTHOOKS, _scripts_of, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = [w.literal for w in form[1:]]
    if None in words:
        raise NotKnown("its words are only known at run time")
    plain = [w for w in words if w is not None and w[:1] != "-"]
    if not plain or plain[0] != "run" or len(plain) < 2:
        return []  # install, add, version, validate … run no hook
    if cwd_unknown:
        raise NotKnown("lefthook runs in a folder only known at run time")
    top = top_level(cwd)
    if os.environ.get("LEFTHOOK_CONFIG"):
        raise NotKnown("LEFTHOOK_CONFIG names the configuration, which is not read here")
    configs = _configs(top)
    hook = plain[1]
    lines: dict[str, list[str]] = {}
    for path, data in configs:
        if data.get("remotes"):
            raise NotKnown(f"{path} takes configuration from remotes, which is not read here")
        _hook(data.get(hook), path, top, data, hook, lines)
    shown = f"lefthook's {hook} commands in {configs[0][0]}" if configs else "lefthook"
    read = {path for path, _data in configs}
    absent = not_there(top, [b + local + s for local in ("", "-local") for b in _BASES for s in _SUFFIXES])
    return [*(Script(shown, configs[0][0], code="\n".join(code), cwd=where) for where, code in lines.items()),
            *(s for s in absent if s.path not in read)]  # one the line may make first


def _configs(top: str) -> list[tuple[str, dict[str, Any]]]:
    """The configuration files lefthook merges: the main one, its ``-local`` one, the files they extend."""
    found: list[tuple[str, dict[str, Any]]] = []
    for local in ("", "-local"):
        for base in _BASES:
            path = next((p for p in (os.path.join(top, base + local + s) for s in _SUFFIXES) if os.path.isfile(p)), None)
            if path is not None:
                found.append((path, _load(path)))
                break
    for path, data in list(found):
        extends = data.get("extends") or []
        for name in extends if isinstance(extends, list) else [extends]:
            if not isinstance(name, str) or "*" in name:
                raise NotKnown(f"{path} extends files this does not read")
            target = os.path.join(top, os.path.expanduser(name))
            if os.path.isfile(target):
                found.append((target, _load(target)))
    return found


def _load(path: str) -> dict[str, Any]:
    data, why = parsed_file(path, _TOMLS.get(os.path.splitext(path)[1], yaml_of))
    if data is None and not why:
        data = {}  # an empty file
    if not isinstance(data, dict):
        raise NotKnown(f"{path}: {why or 'it is not a mapping of hooks'}")
    return data


_TOMLS: dict[str, Callable[[bytes], Any]] = {".json": json.loads, ".toml": toml_of}


def _hook(spec: object, path: str, top: str, data: dict[str, Any], hook: str, lines: dict[str, list[str]]) -> None:
    if spec is None:
        return
    if not isinstance(spec, dict):
        raise NotKnown(f"{path}: its {hook} is not a mapping")
    commands = spec.get("commands") or {}
    if not isinstance(commands, dict):
        raise NotKnown(f"{path}: its {hook} commands are not a mapping")
    for command in commands.values():
        _job(command, top, lines)
    scripts = spec.get("scripts") or {}
    if not isinstance(scripts, dict):
        raise NotKnown(f"{path}: its {hook} scripts are not a mapping")
    for name, script in scripts.items():
        _script(str(name), script, top, data, hook, lines)
    jobs = spec.get("jobs") or []
    if not isinstance(jobs, list):
        raise NotKnown(f"{path}: its {hook} jobs are not a list")
    _jobs(jobs, top, data, hook, lines, 0)


def _jobs(jobs: list[object], top: str, data: dict[str, Any], hook: str, lines: dict[str, list[str]],
          count: int) -> int:
    for job in jobs:
        count += 1
        if count > _MAX_JOBS or not isinstance(job, dict):
            raise NotKnown("its jobs are more or other than this reads")
        if "group" in job:
            group = job["group"]
            inner = group.get("jobs") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                raise NotKnown("a group of jobs has no list of jobs")
            count = _jobs(inner, top, data, hook, lines, count)
        elif "script" in job:
            _script(str(job["script"]), job, top, data, hook, lines)
        else:
            _job(job, top, lines)
    return count


def _where(spec: dict[str, Any], top: str) -> str:
    root = spec.get("root")
    if root is None:
        return top
    if not isinstance(root, str) or "{" in root:
        raise NotKnown("a command runs in a folder only known at run time")
    return os.path.normpath(os.path.join(top, root))


def _job(spec: object, top: str, lines: dict[str, list[str]]) -> None:
    if not isinstance(spec, dict) or not isinstance(spec.get("run"), str):
        raise NotKnown("a command has no run this reads")
    code = templated(spec["run"], _TEMPLATE, lambda _m: _RUNTIME)
    lines.setdefault(_where(spec, top), []).append(code)


def _script(name: str, spec: object, top: str, data: dict[str, Any], hook: str, lines: dict[str, list[str]]) -> None:
    """A file of ``source_dir/HOOK/`` (and ``source_dir_local``), run by its ``runner`` or by path."""
    spec = spec if isinstance(spec, dict) else {}
    runner = spec.get("runner")
    if runner is not None and not isinstance(runner, str):
        raise NotKnown(f"the script {name} has a runner this does not read")
    for key, default in (("source_dir", ".lefthook"), ("source_dir_local", ".lefthook-local")):
        folder = data.get(key, default)
        if not isinstance(folder, str):
            raise NotKnown(f"{key} is not a folder")
        path = os.path.normpath(os.path.join(top, folder, hook, name))
        if os.path.lexists(path):
            code = f"{runner} {shlex.quote(path)}" if runner else shlex.quote(path)
            lines.setdefault(_where(spec, top), []).append(code)


_scripts_of = per_form("lefthook's configuration", _of_form)

__all__ = ["GIT_HOOK", "LEFTHOOKS", "lefthook_scripts"]
