"""The commands ``pixi run`` runs: a task of the workspace manifest, or a command line given as one word.

``pixi run NAME [ARGS…]`` runs the task ``NAME`` of the nearest workspace manifest (``pixi.toml``,
or a ``pyproject.toml`` with ``[tool.pixi]``; ``--manifest-path``), looked up in ``[tasks]``,
``[target.*.tasks]``, ``[feature.*.tasks]`` and ``[feature.*.target.*.tasks]`` (every definition of
the name counts): its ``cmd`` (a string, or a list pixi joins quoting only words with blanks or
brackets, so ``&&`` stays an operator), after the tasks it ``depends-on`` (not with
``--skip-deps``), in its ``cwd`` relative to the manifest's folder, else that folder.  The words
after the name are appended, each single-quoted; a task with typed ``args`` takes them as values
instead, and its ``{{ … }}`` templates are words only known at run time.  An ``env`` value is
too.  The manifest's ``[activation] scripts`` (and a feature's or target's) run first, from files.

A name that is no task is a command: several words run as they are (``bash_runners`` sees them;
an older pixi joined them as a task's list, so that reading counts too), one word is split as a
shell splits it and joined again as a task's list — shell code (``pixi run 'make && rm -rf x'``).
``-n``/``--dry-run`` and ``--help`` run nothing.  A template block (``{% … %}``), a
``member::task`` name (hierarchical tasks), an option this does not know and a manifest that
cannot be read are code only known at run time.
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
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    templated,
    toml_of,
)

PIXIS = frozenset({"pixi"})
_MANIFESTS = ("pixi.toml", "pyproject.toml")
_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_RUNTIME = run_time_word("PIXI_VALUE")
_MAX_TASKS = 64
# options of pixi (before run) and of pixi run (before the task) that take a value, and flags
_VALUES = frozenset({"-m", "--manifest-path", "-w", "--workspace", "--color", "-e", "--environment", "-p",
                     "--platform", "--pypi-keyring-provider", "--concurrent-solves", "--concurrent-downloads",
                     "--auth-file", "--config-file", "--tls-root-certs"})
_FLAGS = frozenset({"-v", "--verbose", "-q", "--quiet", "--no-progress", "--frozen", "--locked", "--no-install",
                    "--no-lockfile-update", "--as-is", "--clean-env", "--skip-deps", "-n", "--dry-run", "--templated",
                    "-x", "--executable", "--force-activate", "--no-completions", "--revalidate", "--tls-no-verify",
                    "--run-post-link-scripts", "--no-config", "--use-environment-activation-cache", "-h", "--help",
                    "--experimental", "--no-install-config"})


def pixi_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``pixi run`` of this command runs (every form: ``timeout 60 pixi run test``)."""
    return scripts_of_forms(info, cwds, memo, PIXIS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    options: dict[str, str] = {}
    seen_run, rest = False, None
    for option, value, word in options_of(words, _VALUES, "pixi"):
        if option == "--" and seen_run or not option and seen_run:
            at = next(k for k, w in enumerate(words) if w is word)
            rest = words[at + 1:] if option else words[at:]  # the task and its words
            break
        if not option:
            if word.literal is None:
                raise NotKnown(f"{word.text} is only known at run time")
            if word.literal != "run":
                return []  # pixi install, pixi add, pixi exec (bash_runners sees its command) …
            seen_run = True
        elif option in _VALUES or option in _FLAGS:
            options[option] = value or ""
        else:
            raise NotKnown(f"pixi {option} is an option this does not know")
    if not seen_run or options.keys() & {"-n", "--dry-run", "-h", "--help"}:
        return []
    if not rest:
        return []  # pixi run alone lists the tasks
    if rest[0].literal is None:
        raise NotKnown(f"{rest[0].text} is only known at run time")
    if cwd_unknown:
        raise NotKnown("pixi runs in a folder only known at run time")
    given = options.get("-m", options.get("--manifest-path"))
    manifest = _manifest(cwd, given)
    if manifest is None:  # no workspace: pixi fails (unless the line makes one)
        return not_there(cwd, ("pixi.toml",)) if given is None else []
    path, pixi = manifest
    scripts = _activation(path, pixi)
    if len(rest) == 1:  # one word: split as a shell does, each word quoted again as a task's list
        text = rest[0].literal or ""
        try:
            split = shlex.split(text)
        except ValueError:
            return []  # pixi cannot split it: it runs nothing
        first, run = (split[0] if split else ""), " ".join(_quote(w) for w in split)
        more: tuple[Word, ...] = ()
    else:
        first, more = rest[0].literal or "", rest[1:]
        run = " ".join(_quote(w.literal) if w.literal is not None else _RUNTIME for w in rest)
    if "-x" in options or "--executable" in options or not _definitions(pixi, first):
        return [*scripts, Script("the command pixi runs", None, code=run, cwd=cwd)]
    if "::" in first:
        raise NotKnown(f"pixi task {first} may be a task of a member workspace")
    tasks = _Tasks(pixi, os.path.dirname(path), skip_deps="--skip-deps" in options)
    tasks.run(first, tuple(w.literal for w in more) if len(rest) > 1 else tuple(split[1:]))
    return [*scripts, *(Script(f"pixi's '{name}' task of {path}", path, code=code, cwd=where)
                        for name, code, where in tasks.found)]


_READ = per_form("the tasks pixi runs", _of_form)


def _quote(text: str | None) -> str:
    """A word as pixi's ``quote`` writes a list's words: in double quotes (``"`` and ``\\``
    escaped) only with a blank or a bracket; else as it is (``&&``, ``$HOME`` and ``>`` act)."""
    if text is None:
        return _RUNTIME
    if text == "":
        return '""'
    if any(c in text for c in "\t\r\n []"):
        return '"' + re.sub(r'(["\\])', r"\\\1", text) + '"'
    return text


def _manifest(cwd: str, given: str | None) -> tuple[str, dict[str, Any]] | None:
    """The workspace manifest pixi takes, and its pixi table; None when there is none."""
    if given is not None:
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))
        candidates = [os.path.join(path, n) for n in _MANIFESTS] if os.path.isdir(path) else [path]
        for candidate in candidates:
            found = _pixi_table(candidate)
            if found is not None:
                return candidate, found
        return None
    folder = cwd
    while True:
        for name in _MANIFESTS:
            candidate = os.path.join(folder, name)
            found = _pixi_table(candidate)
            if found is not None:
                return os.path.realpath(candidate), found
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _pixi_table(path: str) -> dict[str, Any] | None:
    if not os.path.isfile(path):
        return None
    loaded, why = parsed_file(path, toml_of)
    if not isinstance(loaded, dict):
        raise NotKnown(f"{path}: {why or 'it is not TOML'}")
    if os.path.basename(path) == "pyproject.toml":
        tool = loaded.get("tool")
        pixi = tool.get("pixi") if isinstance(tool, dict) else None
        return pixi if isinstance(pixi, dict) else None
    return loaded


def _sections(pixi: dict[str, Any]) -> list[dict[str, Any]]:
    """The manifest's tables that may hold ``tasks`` or ``activation``: the top, each target, each
    feature and each feature's target."""
    out = [pixi]
    features = pixi.get("feature")
    for top in [pixi, *(features.values() if isinstance(features, dict) else ())]:
        if not isinstance(top, dict):
            raise NotKnown("a feature of the pixi manifest is not a table")
        if top is not pixi:
            out.append(top)
        targets = top.get("target")
        if isinstance(targets, dict):
            out.extend(t for t in targets.values() if isinstance(t, dict))
    return out


def _definitions(pixi: dict[str, Any], name: str) -> list[object]:
    found = []
    for section in _sections(pixi):
        tasks = section.get("tasks")
        if isinstance(tasks, dict) and name in tasks:
            found.append(tasks[name])
    return found


def _activation(path: str, pixi: dict[str, Any]) -> list[Script]:
    """The activation scripts pixi runs before any command of the workspace."""
    home, out = os.path.dirname(path), []
    for section in _sections(pixi):
        activation = section.get("activation")
        scripts = activation.get("scripts") if isinstance(activation, dict) else None
        if scripts is None:
            continue
        if not isinstance(scripts, list) or not all(isinstance(s, str) for s in scripts):
            raise NotKnown(f"{path}: its activation scripts are not a list of files")
        for script in scripts:
            real = os.path.realpath(os.path.join(home, script))
            out.append(Script(f"the activation script {script} of {path}", real, missing=not os.path.isfile(real)))
    return out


class _Tasks:
    """What running a task runs, its dependencies first: ``found`` is ``(name, code, folder)``."""

    def __init__(self, pixi: dict[str, Any], home: str, skip_deps: bool) -> None:
        self.pixi, self.home, self.skip_deps = pixi, home, skip_deps
        self.found: list[tuple[str, str, str]] = []
        self.count = 0

    def run(self, name: str, args: tuple[str | None, ...], depth: int = 0) -> None:
        self.count += 1
        if self.count > _MAX_TASKS or depth > _MAX_TASKS:
            raise NotKnown(f"the pixi task {name} runs more than {_MAX_TASKS} tasks")
        definitions = _definitions(self.pixi, name)
        if not definitions:
            raise NotKnown(f"there is no pixi task {name}")
        for task in definitions:
            self._one(name, task, args, depth)

    def _one(self, name: str, task: object, args: tuple[str | None, ...], depth: int) -> None:
        if isinstance(task, list):
            task = {"depends-on": task}
        if isinstance(task, str):
            task = {"cmd": task}
        if not isinstance(task, dict):
            raise NotKnown(f"the pixi task {name} is not a string, a list or a table")
        if not self.skip_deps or depth:
            depends = task.get("depends-on", task.get("depends_on", []))
            if isinstance(depends, (str, dict)):
                depends = [depends]
            if not isinstance(depends, list):
                raise NotKnown(f"the dependencies of the pixi task {name} are not a list")
            for dependency in depends:
                dep = dependency.get("task") if isinstance(dependency, dict) else dependency
                if not isinstance(dep, str):
                    raise NotKnown(f"a dependency of the pixi task {name} is not a task name")
                self.run(dep, (), depth + 1)
        cmd = task.get("cmd")
        if cmd is None:
            return  # an alias: its dependencies are what runs
        typed = task.get("args") is not None
        if isinstance(cmd, str):
            code = cmd
        elif isinstance(cmd, list) and all(isinstance(c, str) for c in cmd):
            code = " ".join(_RUNTIME if typed and _TEMPLATE.search(c) else _quote(c) for c in cmd)
        else:
            raise NotKnown(f"the command of the pixi task {name} is not text")
        if typed:
            if "{%" in code:
                raise NotKnown(f"the pixi task {name} has a template block: its command is only known at run time")
            code = templated(code, _TEMPLATE, lambda _m: _RUNTIME)
            extra = args[args.index("--") + 1:] if "--" in args else ()
        else:
            extra = args[1:] if args[:1] == ("--",) else args
        code = " ".join([code, *("'" + a.replace("'", "'\"'\"'") + "'" if a is not None else _RUNTIME
                                 for a in extra)])
        env = task.get("env")
        if isinstance(env, dict):
            code = "\n".join([*(f"export {k}={_RUNTIME}" for k in env if re.fullmatch(r"[A-Za-z_]\w*", str(k))),
                              code])
        where = task.get("cwd")
        if where is None:
            folder = self.home
        elif isinstance(where, str) and not _TEMPLATE.search(where):
            folder = os.path.normpath(os.path.join(self.home, where))
        else:
            raise NotKnown(f"the pixi task {name} runs in a folder only known at run time")
        self.found.append((name, code, folder))


__all__ = ["PIXIS", "pixi_scripts"]
