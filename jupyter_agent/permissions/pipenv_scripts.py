"""The commands ``pipenv run NAME`` takes from the ``[scripts]`` of the ``Pipfile``.

``pipenv run NAME [ARGS…]`` runs the script ``NAME`` of the nearest ``Pipfile`` from the folder
upwards (at most ten folders, as pipenv looks; ``PIPENV_PIPFILE`` names another), else the command
``NAME`` itself.  A script is a command line split as a shell would and run without one (``FOO=1
cmd`` sets a variable), a list of such lines run one after another (the words handed on go to the
last), or ``{call = "pkg:func"}`` (Python: a program).  ``$VAR`` in an argument is filled in by
pipenv, a word only known at run time here.  It runs in the current folder.  A Pipfile that cannot
be read, a script of another shape, a name or option only known at run time, or an option this
does not know is code only known at run time.  (pipenv also loads ``.env``: ``dotenv_loaders.py``.)
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .paths import nearest_holding
from .script_files import (
    NotKnown,
    Script,
    not_there,
    parsed_file,
    per_form,
    scripts_of_forms,
    toml_of,
    variable_set,
)

PIPENVS = frozenset({"pipenv"})
_VALUES = frozenset({"--python", "--pypi-mirror"})
_FLAGS = frozenset({"--system", "-v", "--verbose", "-q", "--quiet", "--clear", "--site-packages",
                    "--no-site-packages"})
_VARIABLE = re.compile(r"\$(?:\w+|\{\w+\})")
_RUNTIME = run_time_word("PIPENV_VALUE")


def pipenv_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands ``pipenv run`` runs for this command (every form: ``timeout 60 pipenv run test``)."""
    if variable_set(info, "PIPENV_PIPFILE"):
        return [Script("pipenv's scripts", None, "PIPENV_PIPFILE names a Pipfile, not read here")]
    return scripts_of_forms(info, cwds, memo, PIPENVS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = list(form[1:])
    if not words or words[0].literal != "run":
        if words and words[0].literal is None:
            raise NotKnown(f"the pipenv command {words[0].text} is only known at run time")
        return []  # pipenv install, shell, lock …: not scripts
    words.pop(0)
    while words and (words[0].literal is None or words[0].literal.startswith("-")):
        option = words.pop(0).literal
        if option is None:
            raise NotKnown("an option of pipenv run is only known at run time")
        name, has_value, _value = option.partition("=")
        if name in _VALUES:
            if not has_value and words:
                words.pop(0)
        elif name in ("-h", "--help"):
            return []
        elif name not in _FLAGS:
            raise NotKnown(f"pipenv run {name} is an option this does not know")
    if not words:
        return []
    if words[0].literal is None:
        raise NotKnown(f"the script {words[0].text} is only known at run time")
    if cwd_unknown:
        raise NotKnown("pipenv looks for its Pipfile from a folder only known at run time")
    folder = nearest_holding(cwd, ("Pipfile",), depth=9)
    found = [s for s in not_there(cwd, ("Pipfile",)) if not os.path.lexists(s.path or "")]
    if folder is None:
        return found
    pipfile = os.path.join(folder, "Pipfile")
    data, why = parsed_file(pipfile, toml_of)
    if not isinstance(data, dict):
        raise NotKnown(f"{pipfile} could not be read: {why or 'it is not there any more'}")
    scripts = data.get("scripts", {})
    if not isinstance(scripts, dict):
        raise NotKnown(f"{pipfile}: [scripts] is not a table")
    name = words[0].literal
    if name not in scripts:
        return found  # the command itself runs (bash_runners reads it)
    lines = [_line(line) for line in _parsed(scripts[name], name)]
    if len(words) > 1:  # handed on to the (last) command, $VAR in them filled in by pipenv
        lines[-1] += " " + " ".join(_word(w.literal) if w.literal is not None else _RUNTIME for w in words[1:])
    return [*found, Script(f"pipenv's {name!r} script of {pipfile}", os.path.realpath(pipfile), code="\n".join(lines),
                           cwd=cwd)]


_READ = per_form("pipenv's scripts", _of_form)


def _parsed(value: Any, name: str) -> list[list[str]]:
    """The script's command lines, each split into words as pipenv does."""
    if isinstance(value, dict):
        call = value.get("call") if len(value) == 1 else None
        module, _, func = call.partition(":") if isinstance(call, str) else ("", "", "")
        if not module or not func:
            raise NotKnown(f"the script {name!r} has a shape not read here")
        return [["python", "-c", f"import {module} as _m; _m.{func}"]]
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, str) for item in items):
        raise NotKnown(f"the script {name!r} is neither a command line nor a list of them")
    try:
        lines = [shlex.split(item) for item in items]
    except ValueError:
        raise NotKnown(f"the script {name!r} does not split into words") from None
    if not all(lines):
        raise NotKnown(f"the script {name!r} has an empty command")
    return lines


def _line(words: list[str]) -> str:
    """Shell code for a command line pipenv runs without a shell: leading ``KEY=value`` words set
    variables, the command's arguments have ``$VAR`` filled in (words only known at run time)."""
    out, at = [], 0
    while at < len(words) - 1 and re.fullmatch(r"[A-Za-z_]\w*=.*", words[at], re.DOTALL):
        key, _, value = words[at].partition("=")
        out.append(f"{key}={shlex.quote(value)}")
        at += 1
    out.append(shlex.quote(words[at]))
    out += [_word(w) for w in words[at + 1:]]
    return " ".join(out)


def _word(text: str) -> str:
    return _RUNTIME if _VARIABLE.search(text) else shlex.quote(text)
