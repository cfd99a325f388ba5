"""Programs a runner finds in the project's own bin folder: ``npx tidy`` runs
``node_modules/.bin/tidy``, ``uv run black`` runs ``.venv/bin/black``.

The rules met ``npx tidy`` as ``tidy``, but the file it runs is the project's: in
bypassPermissions under ``Bash(rm:*)``, ``npx tidy``, ``npm exec tidy``, ``yarn tidy``, ``pnpm
exec tidy``, ``uv run black`` and ``poetry run black`` ran a ``node_modules/.bin/tidy`` or
``.venv/bin/black`` script that ran ``rm x`` (or that was a copy of ``rm``), while the same file
run by its path (``./node_modules/.bin/tidy``) was read and denied.  Here each such program is
found as the runner finds it — node's runners in the nearest ``node_modules/.bin`` from the
folder up, the Python project managers in the nearest ``.venv/bin`` — and given to the checks of
a program run by its path: its commands (a shell script), its strings (an interpreter's script)
and what program it is (a link to or a copy of one a rule names).
"""

from __future__ import annotations

import os
import re

from .bash_analysis import CommandInfo
from .bash_words import Word
from .paths import folders_up
from .script_files import Script, script_shell, shell_call

NODE_RUNNERS = frozenset({"npx", "npm", "yarn", "pnpm", "bunx", "bun"})
PYTHON_RUNNERS = frozenset({"uv", "poetry", "pdm", "hatch", "pipenv", "rye", "pixi"})
LOCAL_BIN_RUNNERS = NODE_RUNNERS | PYTHON_RUNNERS
HINT = re.compile(r"\b(?:npx|npm|yarn|pnpm|bunx|bun|uv|poetry|pdm|hatch|pipenv|rye|pixi)\b")
# yarn NAME, pnpm NAME, bun run NAME: a package script of that name, else the bin
_SCRIPT_FIRST = frozenset({"yarn", "pnpm", "bun"})
_SUBCOMMANDS = frozenset({"run", "run-script", "exec", "x", "dlx"})


def local_bin_forms(info: CommandInfo, cwds: list[str]) -> list[tuple[Word, ...]]:
    """Each form of ``info`` a runner runs from a project's bin folder, with that file's path as
    its program (``npx tidy x`` from ``/p``: ``(/p/node_modules/.bin/tidy, x)``)."""
    forms = info.forms
    found: list[tuple[Word, ...]] = []
    for i, form in enumerate(forms):
        runner = form[0].literal if form else None
        if runner not in LOCAL_BIN_RUNNERS:
            continue
        named: tuple[Word, ...] | None = None
        following = forms[i + 1] if i + 1 < len(forms) else ()
        if following and following[0].literal and "/" not in following[0].literal:
            named = following
        elif runner in _SCRIPT_FIRST:  # yarn tidy, yarn run tidy, bun run tidy
            words = list(form[1:])
            while words and (words[0].literal or "-")[:1] == "-":
                words.pop(0)
            if words and words[0].literal in _SUBCOMMANDS:
                words.pop(0)
            if words and words[0].literal and "/" not in words[0].literal and words[0].literal[:1] != "-":
                named = tuple(words)
        if named is None:
            continue
        name = named[0].literal or ""
        folder = os.path.join("node_modules", ".bin") if runner in NODE_RUNNERS else os.path.join(".venv", "bin")
        for cwd in dict.fromkeys(cwds):
            path = _nearest(cwd, os.path.join(folder, name))
            if path is not None:
                form_of_path = (Word(path), *named[1:])
                if form_of_path not in found:
                    found.append(form_of_path)
    return found


def _nearest(start: str, relative: str) -> str | None:
    """``relative`` in ``start`` or the nearest folder above it that has it (a file)."""
    return next((c for c in (os.path.join(f, relative) for f in folders_up(start)) if os.path.isfile(c)), None)


def local_bin_scripts(info: CommandInfo, cwds: list[str], memo: object = None) -> list[Script]:
    """The shell scripts among those files (``_COLLECTORS`` of ``bash.py``): their commands run."""
    found: list[Script] = []
    for form in local_bin_forms(info, cwds):
        path = form[0].text
        shell = script_shell(path)
        if shell is not None:
            prelude = shell_call((), shell).prelude
            found.append(Script(os.path.relpath(path, cwds[0]) if cwds else path, os.path.realpath(path),
                                prelude=prelude))
    return found


__all__ = ["HINT", "LOCAL_BIN_RUNNERS", "local_bin_forms", "local_bin_scripts"]
