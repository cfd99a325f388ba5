"""The ``.envrc`` that ``direnv exec DIR CMD`` and ``direnv export SHELL`` run first.

direnv evaluates the nearest ``.envrc`` from the folder upwards with bash, in the ``.envrc``'s
folder, before it runs the command (which runs where the line does).  It does so only when the
file's content is allowed (``direnv allow`` wrote ``sha256(path + "\\n" + content)`` into its
allow folder, ``$XDG_DATA_HOME/direnv/allow``); a blocked one stops direnv, and nothing runs.  So
an allowed ``.envrc`` runs for sure; one not allowed (or allowed by a whitelist in
``direnv.toml``) *may*: a deny rule matching its commands asks.  ``direnv allow`` itself asks
(``bash_arguments``: it trusts the file).

Its stdlib loaders are read as what they do: ``dotenv [FILE]`` / ``dotenv_if_exists`` as ``.
FILE`` (``.env``), ``source_env PATH`` / ``source_env_if_exists`` as sourcing the file (a
folder's ``.envrc``) in its folder, ``source_up`` as sourcing the next ``.envrc`` above.  Remote
code (``source_url``, ``fetchurl``), ``use nix``/``use flake`` (a shellHook), a loader called
other than as a line's command, or a file that cannot be read is code only known at run time.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex

from .bash_analysis import CommandInfo
from .bash_words import Word
from .paths import nearest_holding
from .script_files import NotKnown, Script, per_form, read_script, scripts_of_forms

DIRENVS = frozenset({"direnv"})
_LOADERS = ("dotenv", "dotenv_if_exists", "source_env", "source_env_if_exists", "source_up", "source_up_if_exists")
_REMOTE = re.compile(r"\b(?:source_url|fetchurl)\b|^\s*use\s+(?:nix|flake|guix)\b", re.MULTILINE)
_ANY_LOADER = re.compile(r"\b(?:" + "|".join(_LOADERS) + r")\b")


def direnv_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The ``.envrc`` this command's ``direnv exec``/``export`` evaluates (every form)."""
    return scripts_of_forms(info, cwds, memo, DIRENVS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = list(form[1:])
    while words and (words[0].literal or "x").startswith("-"):
        words.pop(0)  # (direnv has no options but --help / --version)
    if not words:
        return []
    command = words[0].literal
    if command is None:
        raise NotKnown(f"the direnv command {words[0].text} is only known at run time")
    if command == "exec":
        if len(words) < 2:
            return []
        folder = words[1].literal
        if folder is None:
            raise NotKnown(f"direnv exec loads the .envrc of a folder only known at run time ({words[1].text})")
    elif command == "export":
        folder = "."
    else:
        return []  # allow, deny, status, reload …: nothing is evaluated
    if cwd_unknown:
        raise NotKnown("direnv looks for the .envrc from a folder only known at run time")
    start = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
    holder = nearest_holding(start, (".envrc",))
    if holder is None:
        return []
    envrc = os.path.join(holder, ".envrc")
    text, why = read_script(envrc)
    if text is None:
        raise NotKnown(f"{envrc} could not be read: {why}")
    allowed = _allowed(envrc, text)
    code = _translated(text, holder)
    shown = f"the .envrc direnv evaluates first ({envrc}{'' if allowed else ', when direnv allows it'})"
    return [Script(shown, os.path.realpath(envrc), code=code, cwd=holder, certain=allowed)]


_READ = per_form("the .envrc direnv evaluates", _of_form)


def _allowed(envrc: str, text: str) -> bool:
    """Whether ``direnv allow`` approved this content of the file."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    digest = hashlib.sha256(envrc.encode() + b"\n" + text.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.isfile(os.path.join(data, "direnv", "allow", digest))


def _translated(text: str, folder: str, depth: int = 0) -> str:
    """The ``.envrc`` as shell code this analyzer reads: its stdlib loaders made what they run."""
    if _REMOTE.search(text):
        raise NotKnown("the .envrc loads code from elsewhere (source_url, fetchurl, use nix/flake)")
    out = []
    for line in text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = []
        if words and words[0] in _LOADERS:
            out.append(_loader(words, folder, depth))
        elif _ANY_LOADER.search(line.split("#", 1)[0]):
            raise NotKnown("the .envrc calls a direnv loader inside another command")
        else:
            out.append(line)
    return "\n".join(out)


def _loader(words: list[str], folder: str, depth: int) -> str:
    name, args = words[0], words[1:]
    if name.startswith("dotenv"):
        return f". {shlex.quote(args[0] if args else '.env')}"
    if name.startswith("source_env"):
        if not args:
            raise NotKnown(f"{name} without a file")
        path = os.path.join(folder, os.path.expanduser(args[0]))
        if os.path.isdir(path):
            path = os.path.join(path, ".envrc")
        if not os.path.exists(path):
            return ":" if name.endswith("_if_exists") else f". {shlex.quote(path)}"
    else:  # source_up [FILE]: the next FILE (.envrc) from the folder above
        parent = os.path.dirname(folder)
        above = nearest_holding(parent, (args[0] if args else ".envrc",)) if parent != folder else None
        if above is None:
            return ":"
        path = os.path.join(above, args[0] if args else ".envrc")
    if depth > 8:
        raise NotKnown("the .envrc files load each other too deeply")
    text, why = read_script(path)
    if text is None:
        raise NotKnown(f"{path} could not be read: {why}")
    inner = os.path.dirname(path)  # (direnv sources it from its own folder)
    return f"(cd {shlex.quote(inner)} && {{\n{_translated(text, inner, depth + 1)}\n}})"
