"""The shell commands hatch runs in its environments.

``hatch run [ENV:]NAME [ARGS…]`` runs the script ``NAME`` of the environment (the default one,
``-e ENV`` or ``HATCH_ENV``), or the command itself when no script has that name
(``hatch run test:rm x`` runs ``rm x``; ``hatch run :CMD`` in the system environment, with the
scripts of ``[tool.hatch.scripts]``).  ``hatch env run -e ENV -- CMD`` does the same per
environment.  ``hatch test`` runs the ``run`` script of the internal ``hatch-test`` environment
(``run-cov``, ``cov-combine`` and ``cov-report`` with ``--cover``), ``hatch fmt`` the
``lint-*``/``format-*`` scripts of ``hatch-static-analysis``, ``hatch check [code|fmt|types]``
those of ``hatch-check-code``/``-fmt``/``-types``: hatch's defaults unless the project's
configuration replaces them.  What was checked against a real hatch 1.18:

- the configuration is ``[tool.hatch]`` of the nearest ``pyproject.toml`` (or the folder of a
  ``setup.py``) with the tables of ``hatch.toml`` beside it over it;
- an environment takes the scripts (and other settings) of its ``template`` (``default`` unless it
  is ``detached``) for the names it does not define; ``extra-scripts`` come under ``scripts``;
  an environment a matrix makes (``test.py3.11``) has its matrix's;
- a script's command that starts with another script's name runs that one, with the rest of the
  words appended; ``{args}``/``{args:DEFAULT}`` take the words the line hands on, hatch's other
  fields (``{root}``, ``{env:NAME}``, ``{matrix:…}``) are words only known at run time;
- every command runs through the shell in the current folder (hatch's ``ensure_cwd``);
- when the environment does not exist yet, its ``pre-install-commands`` and
  ``post-install-commands`` run as it is made (not with ``skip-install``): they *may* run, so a
  deny rule matching one asks.

A project chosen by ``-p``/``HATCH_PROJECT``, an environment name only known at run time, an
option this does not know, a configuration that cannot be read, ``overrides`` that change scripts
or install commands, or a command hatch cannot format is code only known at run time.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import string
from collections.abc import Callable
from functools import lru_cache
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
    table_at,
    templated,
    toml_of,
)

HATCHES = frozenset({"hatch"})
_GLOBAL_VALUES = frozenset({"-e", "--env", "--data-dir", "--cache-dir", "--config"})
_GLOBAL_FLAGS = frozenset({"--color", "--no-color", "--interactive", "--no-interactive", "--verbose", "--quiet"})
_COUNTED = re.compile(r"-[vq]+")
_MAX_COMMANDS = 256
_MARK = "\x00HATCH\x00"  # a word only known at run time, until ``templated`` puts it outside its quotes
_MARKS = re.compile(re.escape(_MARK))
_RUNTIME = run_time_word("HATCH_VALUE")
# the options hatch hands its own environments' scripts (a ruff configuration, pytest's plugins)
_INTERNAL_ARGS = ("HATCH_FMT_ARGS", "HATCH_CHECK_FMT_ARGS", "HATCH_CHECK_CODE_ARGS", "HATCH_CHECK_TYPES_ARGS")
_CHANGES = frozenset({"scripts", "extra-scripts", "pre-install-commands", "post-install-commands", "skip-install",
                      "template", "detached"})
_TEST_VALUES = frozenset({"--retries", "--retry-delay", "--cover-xml-output", "--python", "-py", "--include", "-i",
                          "--exclude", "-x"})
_TEST_FLAGS = frozenset({"-r", "--randomize", "-p", "--parallel", "-c", "--cover", "--cover-quiet", "--cover-xml",
                         "-a", "--all"})
_ENV_RUN_VALUES = frozenset({"-e", "--env", "-i", "--include", "-x", "--exclude", "-f", "--filter"})
_ENV_RUN_FLAGS = frozenset({"--force-continue", "--ignore-compat"})
_INTERNAL: dict[str, dict[str, Any]] = {
    # hatch's own environments (hatch/env/internal): their default scripts, which the project's
    # table of the same name replaces key by key
    "hatch-build": {"skip-install": True},
    "hatch-uv": {"skip-install": True},
    "hatch-static-analysis": {"skip-install": True, "scripts": {
        "format-check": "ruff format{env:HATCH_FMT_ARGS:}{env:HATCH_CHECK_FMT_ARGS:} --check --diff {args:.}",
        "format-fix": "ruff format{env:HATCH_FMT_ARGS:}{env:HATCH_CHECK_FMT_ARGS:} {args:.}",
        "lint-check": "ruff check{env:HATCH_FMT_ARGS:}{env:HATCH_CHECK_CODE_ARGS:} {args:.}",
        "lint-fix": "ruff check{env:HATCH_FMT_ARGS:}{env:HATCH_CHECK_CODE_ARGS:} --fix {args:.}"}},
    "hatch-check-code": {"skip-install": True, "scripts": {
        "lint-check": "ruff check{env:HATCH_CHECK_CODE_ARGS:} {args:.}",
        "lint-fix": "ruff check{env:HATCH_CHECK_CODE_ARGS:} --fix {args:.}"}},
    "hatch-check-fmt": {"skip-install": True, "scripts": {
        "format-check": "ruff format{env:HATCH_CHECK_FMT_ARGS:} --check --diff {args:.}",
        "format-fix": "ruff format{env:HATCH_CHECK_FMT_ARGS:} {args:.}"}},
    "hatch-check-types": {"scripts": {
        "check": "pyrefly check{env:HATCH_CHECK_TYPES_ARGS:} {args}",
        "check-summarize": "pyrefly check{env:HATCH_CHECK_TYPES_ARGS:} --summarize-errors {args}",
        "coverage": "pyrefly report{env:HATCH_CHECK_TYPES_ARGS:} {args}",
        "config": "pyrefly dump-config {args}"}},
    "hatch-test": {"scripts": {
        "run": "pytest{env:HATCH_TEST_ARGS:} {args}",
        "run-cov": "coverage run -m pytest{env:HATCH_TEST_ARGS:} {args}",
        "cov-combine": "coverage combine",
        "cov-report": "coverage report"}},
}

# (environment names, the commands hatch is handed for each: a script's name and its arguments, or
# a command; none: the environment is only made)
_Request = tuple[tuple[str, ...], tuple[str, ...]]


def hatch_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The commands hatch runs for this command (every form: ``timeout 60 hatch test``)."""
    environment = dict(os.environ)
    for name, value in info.assigned:  # HATCH_ENV=docs hatch run build
        environment[name] = value if value is not None else _MARK
    if environment.get("HATCH_PROJECT"):
        return [Script("hatch's environments", None, "HATCH_PROJECT chooses a project, not read here")]
    default_env = environment.get("HATCH_ENV") or "default"
    if _MARK in default_env:
        return [Script("hatch's environments", None, "HATCH_ENV is only known at run time")]
    return scripts_of_forms(info, cwds, memo, HATCHES, _reader(default_env), per_folder=True)


@lru_cache(maxsize=16)
def _reader(default_env: str) -> Callable[[tuple[Word, ...], str, bool], list[Script]]:
    return per_form("hatch's environments", lambda form, cwd, unknown: _of_form(form, cwd, unknown, default_env))


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool, default_env: str) -> list[Script]:
    words = list(form[1:])
    env = default_env
    while words and (words[0].literal is None or words[0].literal.startswith("-")):
        option = _literal(words.pop(0), "a hatch option")
        name, has_value, value = option.partition("=")
        if name in ("-p", "--project"):
            raise NotKnown(f"hatch {name} chooses a project, not read here")
        if name in _GLOBAL_VALUES:
            if not has_value:
                value = _literal(words.pop(0), f"the value of hatch {name}") if words else ""
            if name in ("-e", "--env"):
                env = value
        elif name not in _GLOBAL_FLAGS and not _COUNTED.fullmatch(name) and name not in ("-h", "--help",
                                                                                         "--version"):
            raise NotKnown(f"hatch {name} is an option this does not know")
        elif name in ("-h", "--help", "--version"):
            return []
    if not words:
        return []
    command = _literal(words[0], "the hatch command")
    requests = _requests(command, words[1:], env)
    if not requests:
        return []
    if cwd_unknown:
        raise NotKnown("hatch runs in a folder only known at run time")
    return _Project(cwd).scripts(requests)


def _requests(command: str, args: list[Word], env: str) -> list[_Request]:
    """What ``hatch COMMAND ARGS`` asks of which environments."""
    if command == "run":
        return _run(args, env)
    if command == "env" and args and args[0].literal == "run":
        return _env_run(args[1:], env)
    if command == "env" and args and args[0].literal == "create":  # hatch env create [ENV]
        names = [_literal(w, "the environment") for w in args[1:] if not (w.literal or "x").startswith("-")]
        return [((names[0] if names else "default",), ())]
    if command == "shell":  # hatch shell [ENV]: made first, then a shell reading the terminal
        names = [_literal(w, "the environment") for w in args if not (w.literal or "x").startswith("-")]
        return [((names[0] if names else env,), ())]
    if command == "test":
        return _test(args)
    if command == "fmt":
        flags = {w.literal for w in args}
        if flags & {"-h", "--help"}:
            return []
        fix = "--check" not in flags
        scripts = ([] if flags & {"-f", "--formatter"} else ["lint-fix" if fix else "lint-check"]) + \
                  ([] if flags & {"-l", "--linter"} else ["format-fix" if fix else "format-check"])
        rest = _joined([w for w in args if w.literal not in ("--check", "-l", "--linter", "-f", "--formatter",
                                                              "--sync")])
        return [(("hatch-static-analysis",), tuple(f"{s} {rest}" for s in scripts))]
    if command == "check":
        return _check(args)
    return []  # hatch build, version, dep, publish, clean …: no environment's commands


def _run(args: list[Word], env: str) -> list[_Request]:
    while args and (args[0].literal is None or args[0].literal[:1] in "+-"):  # +py=3.12 -py=3.9: a matrix's
        variable = _literal(args.pop(0), "a matrix selection")
        if variable in ("-h", "--help"):
            return []
    if not args:
        return []
    first = _literal(args[0], "what hatch runs")
    name, colon, command = first.rpartition(":")
    if colon:
        env = name or "system"
    line = " ".join((shlex.quote(command), _joined(args[1:]))).rstrip()
    if command.endswith(".py") and not colon:  # hatch run x.py: python runs it (its own environment)
        return [(("<script>",), (f"python {line}",))]
    return [((env,), (line,))]


def _env_run(args: list[Word], env: str) -> list[_Request]:
    names: list[str] = []
    while args and (args[0].literal is None or args[0].literal.startswith("-")):
        option = _literal(args.pop(0), "a hatch env run option")
        if option == "--":
            break
        name, has_value, value = option.partition("=")
        if name in _ENV_RUN_VALUES:
            if not has_value:
                value = _literal(args.pop(0), f"the value of {name}") if args else ""
            if name in ("-e", "--env"):
                names.append(value)
        elif name in ("-h", "--help"):
            return []
        elif name not in _ENV_RUN_FLAGS:
            raise NotKnown(f"hatch env run {name} is an option this does not know")
    if not args:
        return []
    return [(tuple(dict.fromkeys(names)) or (env,), (_joined(args),))]


def _test(args: list[Word]) -> list[_Request]:
    flags: set[str] = set()
    rest: list[Word] = []
    words = list(args)
    while words:
        word = words.pop(0)
        text = word.literal
        if text == "--":
            rest += words
            break
        name = (text or "").partition("=")[0]
        if name in _TEST_VALUES:
            if "=" not in (text or "") and words:
                words.pop(0)
        elif name in _TEST_FLAGS or name in ("-s", "--show", "-h", "--help"):
            flags.add(name)
        else:
            rest.append(word)  # (hatch hands options it does not know on to the script)
    if flags & {"-s", "--show", "-h", "--help"}:
        return []
    cover = bool(flags & {"-c", "--cover", "--cover-quiet"})
    commands = ["coverage erase"] if cover else []
    commands.append(f"{'run-cov' if cover else 'run'} {_joined(rest) if rest else '<default-args>'}".rstrip())
    if cover:
        commands.append("cov-combine")
        if "--cover-quiet" not in flags:
            commands.append("cov-report")
        if "--cover-xml" in flags:
            commands.append("coverage xml")
    return [(("hatch-test",), tuple(commands))]


def _check(args: list[Word]) -> list[_Request]:
    texts = [w.literal for w in args]
    if {"-h", "--help"} & set(texts):
        return []
    which = texts[0] if texts and texts[0] in ("code", "fmt", "types") else None
    # (without a subcommand each check is run with no arguments)
    rest = _joined([w for w in args[1:] if w.literal not in ("--fix", "--sync", "-s", "--summarize",
                                                              "--cover")]) if which else ""
    fix = "--fix" in texts
    requests: list[_Request] = []
    if which in (None, "code"):
        requests.append((("hatch-check-code",), (f"{'lint-fix' if fix else 'lint-check'} {rest}",)))
    if which in (None, "fmt"):
        requests.append((("hatch-check-fmt",), (f"{'format-fix' if fix else 'format-check'} {rest}",)))
    if which in (None, "types"):
        script = "coverage" if "--cover" in texts else "check-summarize" if {"-s", "--summarize"} & set(texts) \
            else "check"
        requests.append((("hatch-check-types",), (f"{script} {rest}",)))
    return requests


class _Project:
    """The project hatch finds from ``cwd``: its configuration and environments."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        root = nearest_holding(cwd, ("pyproject.toml", "setup.py"))
        self.root = root or cwd
        self.config: dict[str, Any] = {}
        self.read: list[str] = []
        pyproject = os.path.join(self.root, "pyproject.toml")
        self.has_project_file = os.path.isfile(pyproject)  # without one, skip-install is hatch's default
        if self.has_project_file:
            hatch = table_at(_parsed(pyproject), "tool", "hatch")
            self.config.update(hatch)
            self.read.append(pyproject)
        beside = os.path.join(self.root, "hatch.toml")
        if os.path.isfile(beside):
            self.config.update(_parsed(beside))
            self.read.append(beside)
        self.shown = " and ".join(self.read) or "no configuration"
        self.envs = _environments(self.config)

    def scripts(self, requests: list[_Request]) -> list[Script]:
        # one the line makes first, nearer than those found (or none found): code only known at run time
        found = [s for s in not_there(self.cwd, ("pyproject.toml", "hatch.toml")) if not os.path.lexists(s.path or "")]
        path = os.path.realpath(self.read[0]) if self.read else None
        for names, commands in requests:
            for name in names:
                if name == "<script>":
                    found.append(Script("the script hatch run runs", None, code="\n".join(commands), cwd=self.cwd))
                    continue
                config = self._environment(name)
                if config is None:
                    continue  # hatch stops: no such environment
                scripts = _scripts_of(config, name)
                variables = _variables(config, name)
                if not config.get("skip-install", not self.has_project_file):
                    install = [line for key in ("pre-install-commands", "post-install-commands")
                               for command in _strings(config.get(key, []), f"{name}.{key}")
                               for line in _expand(command, scripts, variables)]
                    if install:
                        found.append(Script(f"the install commands of hatch's {name!r} environment ({self.shown}; "
                                            f"they run when hatch makes it)", path, code="\n".join(install),
                                            cwd=self.cwd, certain=False))
                lines = [line for command in commands for line in _expand(_defaults(command, config), scripts, variables)]
                if lines:
                    found.append(Script(f"the commands of hatch's {name!r} environment ({self.shown})", path,
                                        code="\n".join(lines), cwd=self.cwd))
        return found

    def _environment(self, name: str) -> dict[str, Any] | None:
        if name == "system":
            return {"skip-install": True, "scripts": self.config.get("scripts", {})}
        config = self.envs.get(name)
        if config is None and "." in name:  # test.py3.11: made by the matrix of test
            config = self.envs.get(name.split(".")[0])
            if config is not None and "matrix" not in config:
                config = None
        if config is not None and _changed_by_overrides(config):
            raise NotKnown(f"the overrides of hatch's {name!r} environment change what it runs")
        return config


def _environments(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each environment's settings after its template's are filled in (as hatch's ProjectConfig.envs)."""
    envs: dict[str, dict[str, Any]] = {"default": {}, **copy.deepcopy(_INTERNAL)}
    for name in _INTERNAL:
        envs[name]["template"] = name
    for name, data in table_at(config, "envs").items():
        if not isinstance(data, dict):
            raise NotKnown(f"tool.hatch.envs.{name} is not a table")
        envs.setdefault(name, {}).update(data)
    done: set[str] = set()

    def fill(name: str, active: tuple[str, ...]) -> None:
        if name in done:
            return
        data = envs[name]
        if data.pop("detached", False):
            data["template"], data["skip-install"] = name, True
        template = data.pop("template", "default")
        if not isinstance(template, str) or template not in envs or name in active:
            raise NotKnown(f"the template of hatch's {name!r} environment cannot be followed")
        if template != name:
            fill(template, (*active, name))
            for key, value in envs[template].items():
                if key == "matrix":
                    continue
                if key == "scripts" and isinstance(value, dict):
                    scripts = data.setdefault("scripts", {})
                    if isinstance(scripts, dict):
                        for script, commands in value.items():
                            scripts.setdefault(script, commands)
                else:
                    data.setdefault(key, copy.deepcopy(value))
        done.add(name)

    for name in list(envs):
        fill(name, ())
    return envs


def _changed_by_overrides(config: dict[str, Any]) -> bool:
    overrides = config.get("overrides", {})
    if not isinstance(overrides, dict):
        return True
    return any(not isinstance(options, dict) or _CHANGES & set(options)
               for kind in overrides.values() for options in (kind.values() if isinstance(kind, dict) else [None]))


def _scripts_of(config: dict[str, Any], name: str) -> dict[str, list[str]]:
    """The environment's scripts (``extra-scripts`` under ``scripts``), each expanded as hatch does:
    a command starting with another script's name runs that one's, the rest of its words appended."""
    raw: dict[str, list[str]] = {}
    for field in ("extra-scripts", "scripts"):
        table = config.get(field, {})
        if not isinstance(table, dict):
            raise NotKnown(f"tool.hatch.envs.{name}.{field} is not a table")
        for script, value in table.items():
            raw[script] = _strings(value if isinstance(value, list) else [value], f"{name}.{field}.{script}")
    done: dict[str, list[str]] = {}

    def expand(script: str, active: tuple[str, ...]) -> list[str]:
        if script in done:
            return done[script]
        if script in active or len(active) > 16:
            raise NotKnown(f"hatch's script {script!r} runs itself")
        out: list[str] = []
        for command in raw[script]:
            first, args, ignore = _parse_script_command(command)
            if first in raw:
                for inner in expand(first, (*active, script)):
                    out.append(f"{inner} {args}" if args else f"- {inner}" if ignore and not inner.startswith("- ")
                               else inner)
            else:
                out.append(command)
            if len(out) > _MAX_COMMANDS:
                raise NotKnown("hatch's scripts run too many commands")
        done[script] = out
        return out

    return {script: expand(script, ()) for script in raw}


def _expand(command: str, scripts: dict[str, list[str]], variables: dict[str, str]) -> list[str]:
    """The shell code hatch runs for one command it is handed (its ``expand_command``): a script's
    commands with the arguments (formatted first) filled in, or the command formatted."""
    first, args, _ignore = _parse_script_command(command)
    if first in scripts:
        given = _format(args, None, variables) if args else None
        lines = [_format(line, given, variables) for line in scripts[first]]
    else:
        lines = [_format(command, None, variables)]
    out = []
    for line in (raw.strip() for raw in lines):
        line = line[2:] if line.startswith("- ") else line  # its failure is ignored
        if line:
            out.append(templated(line, _MARKS, lambda _match: _RUNTIME) if _MARK in line else line)
    return out


def _parse_script_command(command: str) -> tuple[str, str, bool]:
    first, _, args = command.partition(" ")
    if first == "-":
        first, _, args = args.partition(" ")
        return first, args, True
    return first, args, False


def _format(command: str, args: str | None, variables: dict[str, str]) -> str:
    """hatch's context formatting of a command: ``{args}``/``{args:DEFAULT}`` the words handed on,
    ``{env:NAME:DEFAULT}`` the variable (``variables``), ``{/}`` and ``{;}`` the separators, any
    other field a word only known at run time."""
    out: list[str] = []
    try:
        parsed = list(string.Formatter().parse(command))
    except ValueError:
        raise NotKnown(f"hatch cannot format the command {command!r}") from None
    for literal, field, spec, _conversion in parsed:
        out.append(literal)
        if field is None:
            continue
        if field == "args" and "{" not in (spec or ""):
            out.append(args if args is not None else spec or "")
        elif field == "env" and "{" not in (spec or ""):
            name, colon, default = (spec or "").partition(":")
            out.append(variables.get(name, default if colon else _MARK))
        elif field == "/" and not spec:
            out.append(os.sep)
        elif field == ";" and not spec:
            out.append(os.pathsep)
        else:
            out.append(_MARK)
    return "".join(out)


def _variables(config: dict[str, Any], name: str) -> dict[str, str]:
    """The variables ``{env:NAME}`` reads as hatch runs the environment's commands: the kernel's
    (which the shell running this line has), the environment's ``env-vars``, and the options hatch
    hands its own scripts (``HATCH_TEST_ARGS``: ``extra-args`` and pytest plugin flags)."""
    variables = dict(os.environ)
    table = config.get("env-vars", {})
    if not isinstance(table, dict):
        raise NotKnown(f"tool.hatch.envs.{name}.env-vars is not a table")
    variables.update({key: value for key, value in table.items() if isinstance(value, str)})
    extra = config.get("extra-args", [])
    extra = _strings(extra if isinstance(extra, list) else [extra], f"{name}.extra-args")
    variables.update({key: "" for key in _INTERNAL_ARGS})
    variables["HATCH_TEST_ARGS"] = f" {shlex.join(extra)}" if extra else ""
    return variables


def _defaults(command: str, config: dict[str, Any]) -> str:
    """``hatch test`` without arguments hands on the environment's ``default-args`` (``tests``)."""
    if not command.endswith(" <default-args>"):
        return command
    default = config.get("default-args", ["tests"])
    words = _strings(default if isinstance(default, list) else [default], "hatch-test.default-args")
    return f"{command[:-len(' <default-args>')]} {shlex.join(words)}".rstrip()


def _joined(words: list[Word]) -> str:
    """The words as hatch joins them for the shell (``shlex.join``); one only known at run time is
    a mark ``_format`` turns into such a word."""
    return " ".join(shlex.quote(w.literal) if w.literal is not None else _MARK for w in words)


def _literal(word: Word, what: str) -> str:
    if word.literal is None:
        raise NotKnown(f"{what} ({word.text}) is only known at run time")
    return word.literal


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotKnown(f"tool.hatch.envs.{where} is not a list of strings")
    if any(_MARK in v for v in value):
        raise NotKnown(f"tool.hatch.envs.{where} holds a NUL character")
    return value



def _parsed(path: str) -> dict[str, Any]:
    data, why = parsed_file(path, toml_of)
    if not isinstance(data, dict):
        raise NotKnown(f"{path} could not be read: {why or 'it is not there any more'}")
    return data
