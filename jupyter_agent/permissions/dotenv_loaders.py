"""Programs that load a ``.env`` file though no argument names it.

``dotenv list`` (python-dotenv) and ``dotenvx get KEY`` print the values of ``./.env``; ``dotenv
run -- CMD``, ``pipenv run CMD``, ``honcho run CMD``, ``foreman run CMD``, ``flask run``, ``bun
x.ts``, ``deno run --env-file x.ts`` and ``heroku local`` load them into the environment of what
they run, where ``env`` prints them.  Under a ``Read`` deny rule on that file the first are reads
of it (denied as ``cat .env`` is); the others ask, in every mode and whatever rule allows the
program: the values reach a process whose output comes back to the model.

``loaded_env_files`` gives the files and whether the program prints them; an option that names
another file (``dotenv -f F``, ``honcho -e A,B``) replaces the default, and one known only at run
time is returned as it is (the caller asks).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .bash_words import Word, make_word
from .paths import nearest_holding


@dataclass(frozen=True)
class _Loader:
    defaults: tuple[str, ...]  # what it loads when no option names a file (from where it runs)
    files: frozenset[str] = frozenset()  # options naming the file(s) instead (comma-separated)
    prints: frozenset[str] = frozenset()  # subcommands that print the values ("": with no subcommand)
    loads: frozenset[str] | None = None  # subcommands that load them (None: any but `skips`)
    skips: frozenset[str] = frozenset()  # subcommands that load nothing
    off: frozenset[str] = frozenset()  # options that turn loading off
    optional: frozenset[str] = frozenset()  # options whose value may be left out (deno --env-file[=F])
    upwards: str = ""  # the file is also looked for beside this one upwards (pipenv: Pipfile)


_BUN_FILES = (".env", ".env.local", ".env.development", ".env.production", ".env.test",
              ".env.development.local", ".env.production.local", ".env.test.local")
_HELP = frozenset({"--help", "-h", "--version", "-V", "-v"})
LOADERS: dict[str, _Loader] = {
    # python-dotenv's CLI and the npm dotenv-cli (dotenv -e F -- CMD) share the name
    "dotenv": _Loader((".env",), frozenset({"-f", "--file", "-e"}), frozenset({"list", "get"}),
                      skips=frozenset({"set", "unset"})),
    "dotenvx": _Loader((".env",), frozenset({"-f", "--env-file", "-fk", "--env-keys-file"}),
                       frozenset({"get", "decrypt", "keypair"}), skips=frozenset({"set", "encrypt", "ls"})),
    "pipenv": _Loader((".env",), loads=frozenset({"run", "shell"}), upwards="Pipfile"),
    "honcho": _Loader((".env",), frozenset({"-e", "--env"}), loads=frozenset({"run", "start"}),
                      off=frozenset({"--no-env"})),
    "foreman": _Loader((".env",), frozenset({"-e", "--env"}), loads=frozenset({"run", "start"})),
    "flask": _Loader((".env", ".flaskenv"), frozenset({"-e", "--env-file"}), skips=frozenset({"--version"})),
    "bun": _Loader(_BUN_FILES, frozenset({"--env-file"}), off=frozenset({"--no-env-file"}),
                   skips=frozenset({"install", "i", "add", "a", "remove", "rm", "update", "link", "unlink", "pm",
                                    "init", "create", "upgrade", "outdated", "publish", "patch", "audit", "info"})),
    "deno": _Loader((), frozenset({"--env-file", "--env"}), optional=frozenset({"--env-file", "--env"})),
    "heroku": _Loader((".env",), frozenset({"-e", "--env"}), loads=frozenset({"local"})),
}
_NODES = frozenset({"node", "nodejs", "ts-node", "tsx"})  # node -r dotenv/config x.js: ./.env, preloaded
_PRELOADS = frozenset({"-r", "--require", "--import"})
LOADER_PROGRAMS = frozenset(LOADERS) | {"python", "python3"} | _NODES


def loaded_env_files(words: Sequence[Word]) -> tuple[list[Word], bool] | None:
    """``(files, prints)``: the dotenv files ``words`` (program first) loads, as written or
    relative to where it runs, and whether it prints their values (else it hands them to what
    it runs); None when it loads none."""
    program = words[0].literal if words else None
    if program in ("python", "python3"):  # python -m dotenv list
        if len(words) < 3 or words[1].literal != "-m" or words[2].literal != "dotenv":
            return None
        program, words = "dotenv", words[2:]
    if program in _NODES:
        return _preloaded(words[1:])
    loader = LOADERS.get(program or "")
    if loader is None:
        return None
    named: list[Word] = []
    sub: str | None = ""  # the first word that is no option; its options may follow it
    args = list(words[1:])
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None or text[:1] != "-":
            if sub == "":
                sub = text  # None: a subcommand only known at run time
            elif sub not in loader.prints:
                break  # what it runs (dotenv run env, bun x.ts ARGS): the words are its own
        elif text == "--":
            break
        elif text in loader.off or (text in _HELP and sub == ""):
            return None
        else:
            name, equals, value = text.partition("=")
            if name in loader.files:
                if equals:
                    named.extend(make_word(part) for part in value.split(",") if part)
                elif name in loader.optional:
                    named.append(make_word(".env"))  # deno --env-file: ./.env
                elif i + 1 < len(args):
                    given = args[i + 1]
                    named.extend([given] if given.literal is None else
                                 [make_word(part) for part in given.literal.split(",") if part])
                    i += 1
        i += 1
    if sub is not None and (sub in loader.skips or (loader.loads is not None and sub not in loader.loads)):
        return None  # (a subcommand only known at run time may load them)
    files = named or [make_word(name) for name in loader.defaults]
    if not files:
        return None
    return files, sub in loader.prints


def _preloaded(args: Sequence[Word]) -> tuple[list[Word], bool] | None:
    """``node -r dotenv/config`` (``--require``, ``--import``, ``-r=``) loads ``./.env`` before the
    script runs (its ``dotenv_config_path=F`` argument names another file, which still counts
    as ``.env`` here: fail closed); None without such a preload."""
    for i, word in enumerate(args):
        text = word.literal
        if text is None:
            continue  # (a word only known at run time is asked about by the path checks)
        if text[:1] != "-":
            break  # the script: what follows is its own
        name, equals, value = text.partition("=")
        module = value if equals else (args[i + 1].literal if i + 1 < len(args) else None)
        if name in _PRELOADS and module is not None and module.startswith("dotenv/config"):
            return [make_word(".env")], False
    return None


def upward_copies(program: str, file: str, cwd: str, depth: int = 3) -> list[str]:
    """For pipenv: the ``.env`` beside the nearest ``Pipfile`` upwards (as pipenv finds its
    project), within ``depth`` folders; [] for other programs."""
    loader = LOADERS.get(program)
    if loader is None or not loader.upwards:
        return []
    folder = nearest_holding(cwd, (loader.upwards,), depth)
    return [os.path.join(folder, file)] if folder is not None else []


__all__ = ["LOADERS", "LOADER_PROGRAMS", "loaded_env_files", "upward_copies"]
