"""The commands SkyPilot runs on its cloud machines from a task YAML: ``sky launch task.yaml``.

``sky launch [-c CLUSTER] task.yaml`` (and ``sky exec CLUSTER task.yaml``, ``sky jobs launch``,
``sky spot launch``, ``sky serve up``) runs the task's ``setup`` and then its ``run`` shell code
on the cluster's machines.  Those are another machine's commands: they meet the deny and ask
rules only (``Script.remote``), as ``ssh host CMD``'s do.  A command line instead of a YAML is
read by ``bash_runner_table`` (``sky exec c 'rm x'``).  A YAML that cannot be read, or a ``run``
that is not shell code (a Python function in the SDK is never here), is code only known at run
time.
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

SKIES = frozenset({"sky"})
_PATHS = (("launch",), ("exec",), ("jobs", "launch"), ("spot", "launch"), ("serve", "up"), ("serve", "update"))
_RUNNER = RUNNERS["sky"][-1][1]  # the options of sky launch (exec shares them)


def sky_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The setup and run code of the task YAMLs this command launches (every form)."""
    return scripts_of_forms(info, cwds, memo, SKIES, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
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


def _operands(words: tuple[Word, ...]) -> list[Word]:
    out, i = [], 0
    while i < len(words):
        text = words[i].literal
        if text is None:
            raise NotKnown(f"{words[i].text} is only known at run time")
        if text.startswith("-") and text != "-":
            i += 2 if text in _RUNNER.values and "=" not in text else 1
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


_READ = per_form("the task SkyPilot runs", _of_form)

__all__ = ["SKIES", "sky_scripts"]
