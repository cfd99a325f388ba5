"""The commands Procfile runners start: ``honcho start``, ``foreman start``, ``overmind start``,
``hivemind``, ``forego start``, ``goreman start``, ``nf start``.

A ``Procfile`` holds one process a line (``web: gunicorn app:app``), each shell code the runner
starts with ``sh -c`` in the file's folder (or the one ``-d``/``--root`` names).  ``bash.py``
holds those commands to the deny and ask rules and the safety checks, as a script file's: with
``worker: rm -rf build`` in it, ``honcho start`` ran ``rm`` under ``Bash(rm:*)`` in
bypassPermissions.  Every process counts, also when the line names some (``honcho start web``):
which names a runner takes, and how (``-m web=1``, ``-l web``), varies, so a deny rule then asks.
``RUNNER run CMD …`` runs ``CMD``: it is a command of the line.  A Procfile chosen by a word only
known at run time, an option a runner does not document, or a file that cannot be read is code
only known at run time.
"""

from __future__ import annotations

import os
import re

from .bash_analysis import CommandInfo
from .bash_words import Word
from .script_files import (
    NotKnown,
    Script,
    not_there,
    options_of,
    passed_on,
    read_bounded,
    scripts_of_forms,
)

PROCFILE_RUNNERS = frozenset({"honcho", "foreman", "overmind", "hivemind", "forego", "goreman", "nf"})
# options (of the runner and of its start) naming the Procfile, the root folder, and the others with a value
_FILE = frozenset({"-f", "--procfile", "-j"})
_ROOT = frozenset({"-d", "--app-root", "--root", "-r"})
_VALUES = _FILE | _ROOT | frozenset({
    "-e", "--env", "-p", "--port", "-c", "--concurrency", "-m", "--formation", "-l", "--processes",
    "-s", "--socket", "-t", "--timeout", "-b", "--port-step", "-x", "--ignored-processes", "-T", "--title",
    "-D", "--daemonize-output", "-i", "--interval", "-a", "--app", "-u", "--user", "-P", "--procfile-env",
    "--shell", "-N", "--network",
})
_FLAGS = frozenset({
    "-q", "--quiet", "--no-colour", "--no-color", "--no-prefix", "-h", "--help", "-v", "--version", "-c",
    "--color", "-D", "--daemonize", "-N", "--no-port", "-r", "--any-can-die", "--exit-with-error",
    "--timestamp", "-w", "--raw",
})
_STARTS = frozenset({"start", "s"})
_RUNS = frozenset({"run", "r"})
_NO_RUN = frozenset({"check", "export", "help", "version", "connect", "c", "echo", "e", "stop", "kill", "k",
                     "restart", "status", "ps", "quit", "q"})
_LINE = re.compile(r"^([A-Za-z0-9_-]+):\s?(.*)$")


def procfile_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the Procfile runner of this command starts (every form: ``uv run honcho start``)."""
    return scripts_of_forms(info, cwds, memo, PROCFILE_RUNNERS, _scripts_of, per_folder=True)


def _scripts_of(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    runner = form[0].text
    try:
        return _of_form(form, cwd, cwd_unknown)
    except NotKnown as why:
        return [Script(f"{runner}'s processes", None, str(why))]


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    runner = form[0].text
    procfile, root = "Procfile", ""
    action: str | None = "start" if runner == "hivemind" else None
    named = False
    words = form[1:]
    for k, (option, value, word) in enumerate(options_of(words, _VALUES, runner)):
        if not option:
            if word.literal is None:
                raise NotKnown(f"{word.text} is only known at run time")
            if action is None:
                action = word.literal
                if action in _RUNS:  # honcho run CMD …: a command of the line
                    rest = words[next(j for j, w in enumerate(words) if w is word) + 1:]  # (not an equal value before it)
                    return [Script(f"{runner} run", None, code=passed_on(rest))] if rest else []
                if action not in _STARTS:
                    if action in _NO_RUN:
                        return []
                    raise NotKnown(f"{runner} {action} is a command this does not know")
            elif runner == "hivemind" and not named and k == 0:
                procfile = word.literal  # hivemind [Procfile]
            else:
                named = True  # honcho start web
            continue
        if option in _FILE:
            procfile = value or procfile
        elif option in _ROOT and value is not None:
            root = value
        elif option in ("-l", "--processes", "-m", "--formation"):
            named = True
        elif option not in _VALUES and option not in _FLAGS:
            raise NotKnown(f"{runner} {option} is an option this does not know")
    if action is None or action not in _STARTS:
        return []
    if cwd_unknown:
        raise NotKnown("the Procfile is found from a folder only known at run time")
    path = os.path.normpath(os.path.join(cwd, os.path.expanduser(procfile)))
    folder = os.path.normpath(os.path.join(cwd, os.path.expanduser(root))) if root else os.path.dirname(path)
    if not os.path.lexists(path):
        return not_there(os.path.dirname(path), (os.path.basename(path),))
    data, why = read_bounded(path)
    if data is None:
        raise NotKnown(f"{path} {why}")
    lines = []
    for line in data.decode("utf-8", "replace").splitlines():
        match = _LINE.match(line.strip())
        if match is not None and match.group(2).strip():
            lines.append(match.group(2))
    return [Script(f"the processes of {path}", os.path.realpath(path), code="\n".join(lines), cwd=folder,
                   certain=not named)]


__all__ = ["PROCFILE_RUNNERS", "procfile_scripts"]
