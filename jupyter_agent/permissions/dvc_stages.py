"""The commands DVC runs from the pipelines of its ``dvc.yaml`` files.

``dvc repro`` and ``dvc exp run`` run the ``cmd`` of stages (a string, or a list run one after
another) with the shell, in the stage's ``wdir`` (the folder of its ``dvc.yaml`` unless it says
otherwise), after deleting the stage's outputs (``outs``, ``metrics``, ``plots`` that are not
``persist: true``).  Which stages run, as a real ``dvc`` 3 showed:

- no target: the stages of the ``dvc.yaml`` in the current folder; a target names a stage of it
  (``train``, ``loop@a``), a file (``sub/dvc.yaml``) or a stage of a file
  (``sub/dvc.yaml:eval``); ``--glob`` targets are patterns; ``-R DIR`` the files under a folder;
  ``-P`` (or ``-p``) every file of the repository;
- with each, the stages upstream of it, in any ``dvc.yaml`` of the repository: a stage whose
  output is, holds or is held by one of its ``deps`` (not with ``-s``; ``--downstream`` instead
  the stages downstream);
- a ``frozen: true`` stage never runs, nor, through it, what is upstream of it.

``bash.py`` holds their commands to the deny and ask rules and the safety checks, as a script
file's; the outputs deleted are writes (``: > out``), which Edit rules govern.  A template
(``${item}``, ``${params.lr}``) is a word only known at run time.  ``--dry``, ``--queue`` and
``-h`` run nothing.  Experiments queued earlier (``dvc queue start``, ``dvc exp run --run-all``), a
target or option this does not know, a ``dvc.yaml`` that cannot be read and a repository too big to
search are code only known at run time.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from dataclasses import dataclass
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .paths import nearest_holding
from .script_files import (
    NotKnown,
    Script,
    not_there,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    templated,
    walk_bounded,
    yaml_of,
)

DVCS = frozenset({"dvc"})
PIPELINE = "dvc.yaml"
_TEMPLATE = re.compile(r"\$\{[^}]*\}")
_RUNTIME = run_time_word("DVC_VALUE")
_MAX_ENTRIES = 20_000  # folder entries looked at to find a repository's dvc.yaml files
_SKIPPED = frozenset({".git", ".dvc", ".hg", ".svn"})
# flags (no value) of dvc repro and dvc exp run, and the options of both that take a value
_FLAGS = frozenset({"-f", "--force", "-i", "--interactive", "-s", "--single-item", "-p", "--pipeline",
                    "-P", "--all-pipelines", "-R", "--recursive", "--downstream", "--force-downstream", "--pull",
                    "--allow-missing", "--dry", "--glob", "--no-commit", "--no-run-cache", "-k", "--keep-going",
                    "--ignore-errors", "-q", "--quiet", "-v", "--verbose", "-h", "--help", "--cprofile", "--pdb",
                    "--yappi", "--viztracer", "--instrument", "--instrument-open"})
_EXP_FLAGS = frozenset({"--queue", "--run-all", "--temp"})
_EXP_VALUES = frozenset({"-S", "--set-param", "-n", "--name", "-j", "--jobs", "-C", "--copy-paths", "-m",
                         "--message"})
_VALUES = frozenset({"--cd", "--cprofile-dump", "--viztracer-depth"})
_GLOBAL_FLAGS = frozenset({"-q", "--quiet", "-v", "--verbose", "--cprofile", "--pdb", "--yappi", "--viztracer",
                           "--instrument", "--instrument-open"})


def dvc_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The stage commands the ``dvc`` of this command runs (every form: ``uv run dvc repro``)."""
    return scripts_of_forms(info, cwds, memo, DVCS, _READ, per_folder=True)


@dataclass(frozen=True)
class _Stage:
    name: str
    file: str  # the dvc.yaml it is in
    wdir: str  # where its commands run
    lines: tuple[str, ...]  # its commands, templates made words only known at run time
    deleted: tuple[str, ...]  # the outputs dvc deletes before running it (relative to wdir, as written)
    deps: tuple[str, ...]  # absolute, normalised; a templated one is "*"
    outs: tuple[str, ...]
    frozen: bool


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = [w.literal for w in form[1:]]
    folder, i = None, 0
    while i < len(words) and (words[i] or "-").startswith("-"):  # dvc's own options, before the command
        option, eq, value = _known(words, i).partition("=")
        if option == "--cd":
            folder, i = (value, i + 1) if eq else (_known(words, i + 1), i + 2)
        elif option in ("-h", "--help", "-V", "--version"):
            return []
        elif option in _GLOBAL_FLAGS or re.fullmatch(r"-[qv]+", option):
            i += 1
        else:
            raise NotKnown(f"dvc {option} is an option this does not know")
    command, rest = words[i:i + 2], words[i + 2:]
    if command[:1] == ["repro"]:
        exp, rest = False, words[i + 1:]
    elif command in (["exp", "run"], ["experiments", "run"]):
        exp = True
    elif command == ["queue", "start"]:
        raise NotKnown("dvc queue start runs experiments queued earlier, with the dvc.yaml they had then")
    elif command[:1] == [None] or (command[:1] in (["exp"], ["experiments"], ["queue"]) and None in command):
        raise NotKnown("the dvc command is only known at run time")
    else:
        return []  # dvc status, dvc pull, dvc exp show …: no stage runs (dvc run: a wrapper, see bash_wrappers)
    flags, targets, folder = _options(form[1 + len(words) - len(rest):], exp, folder)
    if flags & {"--help", "--dry", "--queue"}:
        return []
    if "--run-all" in flags:
        raise NotKnown("dvc exp run --run-all runs experiments queued earlier, with the dvc.yaml they had then")
    if cwd_unknown:
        raise NotKnown("dvc runs in a folder only known at run time")
    base = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder))) if folder else cwd
    root = nearest_holding(base, (".dvc",))
    if root is None or (not targets and not flags & _EVERY and not os.path.isfile(os.path.join(base, PIPELINE))):
        return not_there(base, (PIPELINE,))  # dvc fails (unless the line makes them: dvc init && …)
    return [Script(f"the stage {s.name} of {s.file}", s.file, code=_code(s), cwd=s.wdir)
            for s in _chosen(base, root, targets, flags)]


def _known(words: list[str | None], i: int) -> str:
    if i >= len(words):
        raise NotKnown(f"dvc {words[i - 1]} has no value")
    word = words[i]
    if word is None:
        raise NotKnown("a word of the dvc command is only known at run time")
    return word


_READ = per_form("the stages dvc runs", _of_form)


def _options(words: tuple[Word, ...], exp: bool, folder: str | None) -> tuple[set[str], list[str], str | None]:
    flags: set[str] = set()
    targets: list[str] = []
    values = _VALUES | _EXP_VALUES if exp else _VALUES
    for option, value, word in options_of(words, values, "dvc"):
        if option == "--":
            at = next(k for k, w in enumerate(words) if w is word)
            targets.extend(_known([w.literal for w in words], j) for j in range(at + 1, len(words)))
            break
        if not option:
            if word.literal is None:
                raise NotKnown("a word of the dvc command is only known at run time")
            targets.append(word.literal)
        elif option in values:
            if option == "--cd":
                folder = value
        elif option in _FLAGS or (exp and option in _EXP_FLAGS):
            flags.add(option)
        elif not option.startswith("--") and all(f"-{c}" in _FLAGS for c in option[1:]):
            flags.update(f"-{c}" for c in option[1:])  # -fs
        else:
            raise NotKnown(f"dvc {'exp run' if exp else 'repro'} {option} is an option this does not know")
    return {_LONG.get(f, f) for f in flags}, targets, folder


_LONG = {"-s": "--single-item", "-p": "--pipeline", "-P": "--all-pipelines", "-R": "--recursive", "-h": "--help"}


_EVERY = frozenset({"--all-pipelines", "--pipeline"})


def _chosen(base: str, root: str, targets: list[str], flags: set[str]) -> list[_Stage]:
    """The stages that run, each once, in the order found."""
    if flags & _EVERY:  # every pipeline (-p: the targets' whole pipelines, a part of them)
        return [s for s in _repository(root) if not s.frozen]
    picked = [] if targets else _stages(os.path.join(base, PIPELINE))
    for target in targets:
        picked += _targeted(base, target, flags)
    downstream = "--downstream" in flags
    if "--single-item" not in flags and any(s.outs if downstream else s.deps for s in picked):
        picked += _related(picked, _repository(root), downstream)
    return [s for s in dict.fromkeys(picked) if not s.frozen]


def _targeted(base: str, target: str, flags: set[str]) -> list[_Stage]:
    path = os.path.realpath(os.path.join(base, os.path.expanduser(target)))
    if "--recursive" in flags and os.path.isdir(path):
        return _repository(path)
    file, sep, name = target.rpartition(":")
    if not sep:
        file, name = PIPELINE, target
        if os.path.basename(target) == PIPELINE:
            return _stages(path)
        if target.endswith(".dvc"):
            return []  # a data file: nothing of it runs a command
    elif os.path.basename(file) != PIPELINE:
        raise NotKnown(f"the dvc target {target} is not one this reads")
    stages = _stages(os.path.realpath(os.path.join(base, os.path.expanduser(file))))
    wanted = name.split("@")[0]  # loop@a: one item of a foreach stage
    found = [s for s in stages if (fnmatch.fnmatchcase(s.name, name) if "--glob" in flags else s.name == wanted)]
    if not found:
        raise NotKnown(f"there is no stage {name} in {file}")
    return found


def _related(picked: list[_Stage], every: list[_Stage], downstream: bool) -> list[_Stage]:
    """The stages upstream of ``picked`` (downstream with ``--downstream``), not through a frozen one."""
    found: dict[_Stage, None] = {}
    todo = [s for s in picked if not s.frozen]
    while todo:
        stage = todo.pop()
        for other in every:
            if other in found or other.frozen:
                continue
            linked = _feeds(stage, other) if downstream else _feeds(other, stage)
            if linked:
                found[other] = None
                todo.append(other)
    return list(found)


def _feeds(upstream: _Stage, downstream: _Stage) -> bool:
    return any(_overlap(out, dep) for out in upstream.outs for dep in downstream.deps)


def _overlap(a: str, b: str) -> bool:
    if a == "*" or b == "*":
        return True
    return a == b or a.startswith(b + os.sep) or b.startswith(a + os.sep)


def _repository(root: str) -> list[_Stage]:
    """Every stage of every ``dvc.yaml`` under ``root`` (DVC collects them all)."""
    stages: list[_Stage] = []
    for folder, dirs, files in walk_bounded(root, "its dvc.yaml files", _MAX_ENTRIES):
        # data.dvc tracks the folder data (dvc add): no dvc.yaml may be inside a tracked output
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and f"{d}.dvc" not in files)
        if PIPELINE in files:
            stages += _stages(os.path.join(folder, PIPELINE))
    return stages


def _stages(path: str) -> list[_Stage]:
    loaded, why = parsed_file(path, yaml_of)
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path}: {why or 'there is no such file' if loaded is None else 'it is not a dvc.yaml'}")
    return _stages_of(path, loaded)


def _stages_of(path: str, document: dict[str, Any]) -> list[_Stage]:
    stages = document.get("stages") or {}
    if not isinstance(stages, dict):
        raise NotKnown(f"{path}: its stages are not a mapping")
    home = os.path.dirname(path)
    out = []
    for name, body in stages.items():
        if isinstance(body, dict) and "foreach" in body:
            body = body.get("do")  # foreach: … do: {cmd …}; matrix: … keeps cmd beside it
        if not isinstance(body, dict):
            raise NotKnown(f"{path}: the stage {name} is not a mapping")
        cmd = body.get("cmd")
        lines = [cmd] if isinstance(cmd, str) else cmd
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise NotKnown(f"{path}: the command of the stage {name} is not text")
        wdir = body.get("wdir", ".")
        if not isinstance(wdir, str) or _TEMPLATE.search(wdir):
            raise NotKnown(f"{path}: the stage {name} runs in a folder only known at run time")
        where = os.path.normpath(os.path.join(home, wdir))
        outs = [entry for key in ("outs", "metrics", "plots") for entry in _entries(body.get(key), path, name)]
        out.append(_Stage(
            name=str(name), file=path, wdir=where,
            lines=tuple(templated(line, _TEMPLATE, lambda _m: _RUNTIME) for line in lines),
            deleted=tuple(p for p, persist in outs if not persist),
            deps=tuple(_absolute(where, p) for p, _ in _entries(body.get("deps"), path, name)),
            outs=tuple(_absolute(where, p) for p, _ in outs),
            frozen=body.get("frozen") is True,
        ))
    return out


def _entries(value: object, path: str, name: str) -> list[tuple[str, bool]]:
    """``(path, persist)`` of a stage's ``deps``/``outs`` list: ``- data`` or ``- data: {persist: true}``."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise NotKnown(f"{path}: a list of the stage {name} is not a list")
    out = []
    for entry in value:
        if isinstance(entry, str):
            out.append((entry, False))
        elif isinstance(entry, dict) and len(entry) == 1:
            (key, options), = entry.items()
            out.append((str(key), isinstance(options, dict) and options.get("persist") is True))
        else:
            raise NotKnown(f"{path}: an entry of the stage {name} is not a path")
    return out


def _absolute(wdir: str, path: str) -> str:
    return "*" if _TEMPLATE.search(path) else os.path.normpath(os.path.join(wdir, path))


def _code(stage: _Stage) -> str:
    deleted = [f": > {templated(shlex.quote(p), _TEMPLATE, lambda _m: _RUNTIME)}" for p in stage.deleted]
    return "\n".join([*deleted, *stage.lines])


__all__ = ["DVCS", "dvc_scripts"]
