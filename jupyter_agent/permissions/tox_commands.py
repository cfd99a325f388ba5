"""The commands tox runs from its configuration: ``commands_pre``, ``commands`` and
``commands_post`` of each environment it runs.

``tox`` (``tox run|r|p|run-parallel|legacy``, ``tox -e lint,py312``) finds its configuration from
the folder it runs in upwards (``tox.ini``, ``setup.cfg`` with ``[tox:tox]``, ``pyproject.toml``'s
``legacy_tox_ini``) and runs each line of the chosen environments (``[testenv:NAME]``, falling back
to ``[testenv]``; with no ``-e``, every environment of the file) in ``change_dir`` (default: the
file's folder).  ``bash.py`` holds those commands to the deny and ask rules and the safety checks,
as a script file's.  tox's substitutions are expanded where tox fixes them (``{envpython}`` is the
environment's ``python``, ``{toxinidir}`` the file's folder, ``{[testenv]commands}`` the lines it
names, ``{posargs}`` the words after ``--``); the others are words only known at run time.  A
factor-conditional line (``py312: pytest``) counts for every environment.  tox's native TOML
configuration, an environment or file chosen at run time, or a file that cannot be read is code
only known at run time.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .paths import BadPath, resolve_below
from .script_files import (
    MAX_BYTES,
    NotKnown,
    Script,
    ini_of,
    not_there,
    parsed_file,
    passed_on,
    read_bounded,
    scripts_of_forms,
    toml_of,
)

TOXES = frozenset({"tox"})
_RUNS = frozenset({"run", "r", "run-parallel", "p", "legacy", "le"})
_SUBCOMMANDS = _RUNS | {"exec", "e", "devenv", "d", "list", "l", "config", "c", "depends", "de", "quickstart", "q",
                        "schema"}
_VALUES = frozenset({"-e", "--env", "-c", "--conf", "--root", "--workdir", "-x", "--override", "-m", "--labels",
                     "-f", "--factors", "-p", "--parallel", "--hashseed", "--installpkg", "--develop", "-i",
                     "--index-url", "--discover", "--exit-and-dump-after", "--runner", "--result-json",
                     "-o", "--output-file", "--colored", "--stderr-color"})
_KEYS = ("commands_pre", "commands", "commands_post")
_FACTOR = re.compile(r"^!?[\w.]+(?:[-,]!?[\w.]+)*:\s")
_REFERENCE = re.compile(r"\{\[([^\]]+)\]([\w-]+)\}")
_RUNTIME = run_time_word("TOX_VALUE")
_MAX_REFERENCES = 16



def tox_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands the ``tox`` of this command runs (every form: ``uvx tox -e lint``)."""
    return scripts_of_forms(info, cwds, memo, TOXES, _of_form, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    shown = "tox's commands"
    args = list(form[1:])
    rest: tuple[Word, ...] = ()
    literals = [w.literal for w in args]
    if "--" in literals:
        cut = literals.index("--")
        args, rest = args[:cut], tuple(args[cut + 1:])
    if any(w.literal is None for w in args):
        return [Script(shown, None, "its words are only known at run time")]
    texts = [w.literal or "" for w in args]
    if any(t in ("-h", "--help", "--version", "--notest", "--no-test", "-n", "--showconfig", "-l", "--listenvs",
                 "-a", "--listenvs-all") for t in texts):
        return []
    envs: list[str] | None = None
    config: str | None = None
    sub: str | None = None
    i = 0
    while i < len(texts):
        option, eq, value = texts[i].partition("=")
        if option in _VALUES:
            if not eq:
                value = texts[i + 1] if i + 1 < len(texts) else ""
                i += 1
            if option in ("-e", "--env"):
                envs = [*(envs or []), *(e.strip() for e in value.split(",") if e.strip())]
            elif option in ("-c", "--conf"):
                config = value
            elif option in ("--root", "--workdir", "-x", "--override", "-m", "--labels", "-f", "--factors"):
                return [Script(shown, None, f"tox {option} changes which configuration or environments run")]
        elif texts[i][:1] != "-" and sub is None:
            sub = texts[i]
        i += 1
    if sub is not None and sub not in _RUNS:
        return [] if sub in _SUBCOMMANDS else [Script(shown, None, f"tox {sub} is not a command this reads")]
    if cwd_unknown:
        return [Script(shown, None, "its configuration is found from a folder only known at run time")]
    if envs is not None and "ALL" in envs:
        envs = None
    try:
        path = _config_file(config, cwd)
        if path is None:  # tox finds no configuration: it runs nothing (unless the line makes one)
            return not_there(cwd, ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")) if config is None else []
        shown = f"tox's commands in {path}"
        lines = _commands(path, envs, passed_on(rest) if rest else None)
    except NotKnown as why:
        return [Script(shown, None, str(why))]
    return [Script(shown, os.path.realpath(path), code="\n".join(code), cwd=where) for where, code in lines.items()]


def _config_file(config: str | None, cwd: str) -> str | None:
    if config is not None:
        try:
            path = resolve_below(config, cwd)[1]
        except BadPath:
            raise NotKnown(f"{config} could not be resolved") from None
        if os.path.isdir(path):
            return _in_folder(path)
        return path if os.path.exists(path) else None
    folder = cwd
    while True:
        found = _in_folder(folder)
        if found is not None:
            return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _in_folder(folder: str) -> str | None:
    """The file of ``folder`` tox takes its configuration from, in tox's order."""
    for name, mark in (("tox.ini", None), ("setup.cfg", b"[tox:tox]"), ("pyproject.toml", b"[tool.tox"),
                       ("tox.toml", None)):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        if mark is None:
            return path
        data, _why = read_bounded(path, MAX_BYTES * 8)
        if data is None or mark in data:
            return path
    return None


def _commands(path: str, envs: list[str] | None, posargs: str | None) -> dict[str, list[str]]:
    """Per folder the commands run there: each chosen environment's lines."""
    parser = _parse(path)
    base = "tox:testenv" if path.endswith("setup.cfg") else "testenv"
    if envs is None:  # every environment of the file, and [testenv]'s own for those env_list names
        envs = [*(s.partition(":")[2] for s in parser.sections() if s.startswith(base + ":")), "py"]
    folder = os.path.dirname(path)
    found: dict[str, list[str]] = {}
    for env in envs:
        section = f"{base}:{env}"

        def setting(key: str, section: str = section) -> str | None:
            for name in (section, base):
                if parser.has_section(name):
                    for spelled in (key, key.replace("_", "")):  # change_dir = changedir
                        if parser.has_option(name, spelled):
                            return parser.get(name, spelled)
            return None

        where = _substituted(setting("change_dir") or "{toxinidir}", parser, env, folder, posargs).strip()
        where = os.path.normpath(os.path.join(folder, where.strip("'\"")))
        for key in _KEYS:
            value = setting(key)
            if value:
                found.setdefault(where, []).extend(_lines(_substituted(value, parser, env, folder, posargs)))
    return found


def _parse(path: str) -> configparser.RawConfigParser:
    parser, why = parsed_file(path, _legacy_ini if path.endswith(".toml") else ini_of)
    if parser is None:
        raise NotKnown(f"{os.path.basename(path)}: {why or 'it is not there any more'}")
    return parser  # type: ignore[no-any-return]


def _legacy_ini(data: bytes) -> configparser.RawConfigParser:
    """``pyproject.toml``'s ``[tool.tox] legacy_tox_ini``, read as a ``tox.ini``."""
    tool = toml_of(data).get("tool")
    tox = tool.get("tox") if isinstance(tool, dict) else None
    legacy = tox.get("legacy_tox_ini") if isinstance(tox, dict) else None
    if not isinstance(legacy, str):
        raise ValueError("tox's TOML configuration is not read here")
    return ini_of(legacy.encode("utf-8", "surrogateescape"))


def _substituted(value: str, parser: configparser.RawConfigParser, env: str, folder: str, posargs: str | None,
                 depth: int = 0) -> str:
    """``value`` with tox's substitutions made (see the module docstring)."""
    def reference(match: re.Match[str]) -> str:
        section, key = match.group(1), match.group(2)
        if depth >= _MAX_REFERENCES:
            raise NotKnown("its settings refer to each other too deeply")
        if not parser.has_option(section, key):
            return _RUNTIME
        return _substituted(parser.get(section, key), parser, env, folder, posargs, depth + 1)

    value = _REFERENCE.sub(reference, value)
    work = os.path.join(folder, ".tox")
    fixed = {
        "envpython": "python", "env_python": "python", "toxinidir": folder, "tox_root": folder, "toxworkdir": work,
        "work_dir": work, "envdir": f"{work}/{env}", "env_dir": f"{work}/{env}", "envbindir": f"{work}/{env}/bin",
        "env_bin_dir": f"{work}/{env}/bin", "envtmpdir": f"{work}/{env}/tmp", "env_tmp_dir": f"{work}/{env}/tmp",
        "envname": env, "env_name": env, "/": "/", ":": ":",
    }

    def plain(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner in fixed:
            return shlex.quote(fixed[inner]) if inner not in ("/", ":") else fixed[inner]
        if inner == "posargs" or inner.startswith("posargs:"):
            if posargs is not None:
                return posargs
            return inner[len("posargs:"):] if inner.startswith("posargs:") else ""
        return _RUNTIME

    return re.sub(r"\{([^{}\[\]]*)\}", plain, value)


def _lines(value: str) -> list[str]:
    """The command lines of a ``commands`` value: continuations joined, ``-``/``!`` prefixes and
    factor conditions dropped."""
    out: list[str] = []
    pending = ""
    for raw in value.splitlines():
        line = raw.strip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = (pending + line).strip(), ""
        if not line or line.startswith("#"):
            continue
        line = _FACTOR.sub("", line, count=1).lstrip("-! ")
        if line:
            out.append(line)
    if pending.strip():
        out.append(pending.strip())
    return out


__all__ = ["TOXES", "tox_scripts"]
