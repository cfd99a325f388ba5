"""The commands of the services ``docker compose up|create|start|restart|run|watch`` starts.

``docker run IMG rm x`` meets the Bash rules as running ``rm x`` (``bash_runner_table``); a
compose service's ``command:`` (with its ``entrypoint:`` before it) is the same thing written in
``compose.yaml``, so ``docker compose up`` starting a service whose command is ``rm -rf /data``
meets a ``Bash(rm:*)`` deny rule too.  Read as Compose v2 documents it (no compose binary can be
installed here to check against):

- the files: ``-f FILE`` (each), else the first of ``compose.yaml``, ``compose.yml``,
  ``docker-compose.yaml``, ``docker-compose.yml`` in the folder or the nearest above it, with its
  ``compose.override.*`` / ``docker-compose.override.*`` beside it merged over it;
- the services: those named (``up``, ``create``, ``start``, ``restart``; ``run SERVICE``) and,
  unless ``--no-deps``, those they ``depends_on``; without names every service not in a
  ``profiles`` list (or in one ``--profile`` turns on);
- a ``command`` or ``entrypoint`` string is split into words as a shell would and run without
  one; a list is the words; ``$$`` is ``$``, and ``${VAR}``/``$VAR`` fill in values only known at
  run time.  ``run SERVICE CMD…`` runs CMD (``bash_runner_table`` reads it) after the service's
  entrypoint.  A service with neither runs its image's command: not known here, as with
  ``docker run IMG``.

``COMPOSE_FILE``, ``extends``, ``include``, a file that cannot be read, a name or option only
known at run time, or an option this does not know is code only known at run time; ``--dry-run``
and ``up --no-start`` run nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word, run_time_word
from .paths import nearest_holding
from .script_files import NotKnown, Script, parsed_file, per_form, scripts_of_forms, variable_set, yaml_of

COMPOSES = frozenset({"docker", "podman", "docker-compose", "podman-compose"})
_NAMES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_OVERRIDES = {"compose": ("compose.override.yaml", "compose.override.yml"),
              "docker-compose": ("docker-compose.override.yaml", "docker-compose.override.yml")}
_DOCKER_VALUES = frozenset({"--context", "-c", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert",
                            "--tlscert", "--tlskey"})
_DOCKER_FLAGS = frozenset({"-D", "--debug", "--tls", "--tlsverify"})
_COMPOSE_VALUES = frozenset({"-f", "--file", "-p", "--project-name", "--project-directory", "--profile",
                             "--env-file", "--ansi", "--progress", "--parallel"})
_COMPOSE_FLAGS = frozenset({"--compatibility", "--all-resources", "--verbose", "--no-ansi"})
_STARTS = frozenset({"up", "create", "start", "restart", "watch"})
_START_VALUES = frozenset({"--scale", "-t", "--timeout", "--exit-code-from", "--attach", "--no-attach", "--pull",
                           "--wait-timeout"})
_START_FLAGS = frozenset({"-d", "--detach", "--build", "--no-build", "--force-recreate", "--no-deps",
                          "--remove-orphans", "-V", "--renew-anon-volumes", "--abort-on-container-exit",
                          "--abort-on-container-failure", "--quiet-pull", "--wait", "-y", "--yes", "--no-recreate",
                          "--always-recreate-deps", "--no-color", "--no-log-prefix", "--timestamps", "--menu",
                          "-w", "--watch", "--no-start", "--no-up", "--prune", "--quiet"})
_RUN_VALUES = frozenset({"-e", "--env", "--env-from-file", "-l", "--label", "--name", "-p", "--publish", "-u",
                         "--user", "-v", "--volume", "-w", "--workdir", "--entrypoint", "--cap-add", "--cap-drop",
                         "--pull"})
_RUN_FLAGS = frozenset({"-d", "--detach", "--rm", "--no-deps", "-i", "--interactive", "-T", "--no-TTY", "--tty",
                        "-t", "--service-ports", "--use-aliases", "--build", "--quiet-pull", "--remove-orphans",
                        "-P", "--quiet", "--quiet-build"})
_RUNTIME = run_time_word("COMPOSE_VALUE")
_VARIABLE = re.compile(r"\$(?:\{[^}]*\}|\w+)")


def compose_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The service commands this command's ``docker compose`` starts (every form)."""
    if variable_set(info, "COMPOSE_FILE") and any(form and form[0].literal in COMPOSES for form in info.forms):
        return [Script("the services compose starts", None, "COMPOSE_FILE names the files, not read here")]
    return scripts_of_forms(info, cwds, memo, COMPOSES, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = list(form[1:])
    if form[0].literal in ("docker", "podman"):
        if not any(w.literal == "compose" for w in words):
            return []  # docker run, build, ps …: not compose
        _options(words, _DOCKER_VALUES, _DOCKER_FLAGS, form[0].text, {})
        if not words or words[0].literal != "compose":
            return []
        words.pop(0)
    given: dict[str, list[str]] = {}
    _options(words, _COMPOSE_VALUES, _COMPOSE_FLAGS | {"--dry-run"}, "compose", given)
    if "--dry-run" in given or not words:
        return []
    command = words.pop(0).literal
    if command is None:
        raise NotKnown("the compose command is only known at run time")
    if command not in _STARTS and command != "run":
        return []  # down, ps, logs, build, pull, exec (bash_runner_table) …
    options: dict[str, list[str]] = {}
    if command == "run":
        _options(words, _RUN_VALUES, _RUN_FLAGS, "compose run", options)
        if not words:
            return []
    else:
        _options(words, _START_VALUES, _START_FLAGS, f"compose {command}", options)
        if "--no-start" in options:
            return []
    names = [w.literal for w in words]
    if any(name is None for name in names):
        raise NotKnown("a service is only known at run time")
    if cwd_unknown:
        raise NotKnown("compose looks for its files from a folder only known at run time")
    files, folder = _files(given, cwd)
    if not files:
        return []
    services = _services(files)
    if command == "run":
        chosen = [names[0] or ""]
        own_command = len(names) > 1  # run SERVICE CMD: CMD (read by bash_runner_table) replaces command
    else:
        chosen = [n or "" for n in names] or [
            name for name, service in services.items()
            if not service.get("profiles") or set(_strings(service.get("profiles"), name)) & set(given.get(
                "--profile", []))]
        own_command = False
    started = _with_dependencies(services, chosen, "--no-deps" not in options)
    lines: list[str] = []
    for name in started:
        service = services.get(name)
        if service is None:
            continue  # compose stops: no such service
        entry = _argv(service.get("entrypoint"), name, "entrypoint")
        if name == chosen[0] and command == "run" and "--entrypoint" in options:
            entry = None  # (only known from the option's words: bash_runner_table reads them)
        argv = _argv(service.get("command"), name, "command")
        if name == chosen[0] and own_command:
            argv = None
        words_run = [*(entry or []), *(argv or [])]
        if words_run:
            lines.append(" ".join(words_run))
    if not lines:
        return []
    shown = f"the commands of the services compose starts ({', '.join(files)})"
    return [Script(shown, os.path.realpath(files[0]), code="\n".join(lines), cwd=folder)]


_READ = per_form("the services compose starts", _of_form)


def _options(words: list[Word], values: frozenset[str], flags: frozenset[str], where: str,
             given: dict[str, list[str]]) -> None:
    """Take the options in front of ``words`` (into ``given``); one this does not know is NotKnown."""
    while words and (words[0].literal or words[0].text).startswith("-"):
        option = words.pop(0).literal
        if option is None:
            raise NotKnown(f"an option of {where} is only known at run time")
        if option == "--":
            return
        name, has_value, value = option.partition("=")
        if name in values:
            if not has_value:
                if not words or words[0].literal is None:
                    raise NotKnown(f"the value of {where} {name} is only known at run time")
                value = words.pop(0).literal or ""
            given.setdefault(name, []).append(value)
        elif name in flags or name in ("-h", "--help"):
            given.setdefault(name, [])
            if name in ("-h", "--help"):
                words.clear()
        else:
            raise NotKnown(f"{where} {name} is an option this does not know")


def _files(given: dict[str, list[str]], cwd: str) -> tuple[list[str], str]:
    """The compose files read, in order, and the project's folder."""
    named = given.get("-f", []) + given.get("--file", [])
    if named:
        if "-" in named:
            raise NotKnown("the compose file is read from standard input")
        files = [os.path.realpath(os.path.join(cwd, os.path.expanduser(f))) for f in named]
        folder = given.get("--project-directory", [os.path.dirname(files[0])])[-1]
        return files, os.path.realpath(os.path.join(cwd, folder))
    holder = nearest_holding(cwd, _NAMES)
    if holder is None:
        return [], cwd
    first = next(os.path.join(holder, n) for n in _NAMES if os.path.lexists(os.path.join(holder, n)))
    stem = "compose" if os.path.basename(first).startswith("compose") else "docker-compose"
    overrides = [os.path.join(holder, n) for n in _OVERRIDES[stem] if os.path.lexists(os.path.join(holder, n))][:1]
    folder = given.get("--project-directory", [holder])[-1]
    return [first, *overrides], os.path.realpath(os.path.join(cwd, folder))


def _services(files: list[str]) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for path in files:
        data, why = parsed_file(path, yaml_of)
        if not isinstance(data, dict):
            raise NotKnown(f"{path} could not be read: {why or 'it is not a mapping'}")
        if "include" in data:
            raise NotKnown(f"{path} includes other compose files, not read here")
        services = data.get("services", {}) or {}
        if not isinstance(services, dict):
            raise NotKnown(f"{path}: services is not a mapping")
        for name, service in services.items():
            if not isinstance(service, dict):
                raise NotKnown(f"{path}: the service {name!r} is not a mapping")
            if "extends" in service:
                raise NotKnown(f"{path}: the service {name!r} extends another, not read here")
            merged.setdefault(str(name), {}).update(service)
    return merged


def _with_dependencies(services: dict[str, dict[str, Any]], chosen: list[str], follow: bool) -> list[str]:
    out: list[str] = []
    todo = list(chosen)
    while todo:
        name = todo.pop(0)
        if name in out:
            continue
        out.append(name)
        if not follow:
            continue
        depends = (services.get(name) or {}).get("depends_on", [])
        if isinstance(depends, dict):
            depends = list(depends)
        todo += _strings(depends, name)
        if len(out) > 256:
            raise NotKnown("compose starts too many services")
    return out


def _argv(value: object, service: str, key: str) -> list[str] | None:
    """A service's ``command`` / ``entrypoint`` as shell words (run without a shell)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError:
            raise NotKnown(f"the {key} of {service!r} does not split into words") from None
    elif isinstance(value, list) and all(isinstance(w, (str, int, float)) for w in value):
        words = [str(w) for w in value]
    else:
        raise NotKnown(f"the {key} of {service!r} is neither a string nor a list")
    return [_word(w) for w in words]


def _word(text: str) -> str:
    """One word as shell code: ``$$`` is ``$``; a word with a variable compose fills in is only
    known at run time."""
    if _VARIABLE.search(text.replace("$$", "")):
        return _RUNTIME
    return shlex.quote(text.replace("$$", "$"))


def _strings(value: object, service: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotKnown(f"a list of the service {service!r} is not a list of names")
    return value
