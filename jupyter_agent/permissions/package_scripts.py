"""The shell code a package manager runs from ``package.json``: ``npm run build``, ``npm test``,
``yarn build``, ``pnpm run lint``, ``bun run dev``, and the project's own lifecycle scripts that
``npm install``, ``npm ci``, ``npm pack|publish`` and ``npm version`` run.

Each script is a line of shell code run by ``sh -c`` in the package's folder (the nearest one
upwards holding ``package.json``), after its ``pre…`` script and before its ``post…`` one;
``bash.py`` holds its commands to the deny and ask rules and the safety checks, as those of a
script file (``script_files.py``).  ``npm run NAME -w WS`` / ``-ws`` / ``--include-workspace-root``
runs NAME in each workspace chosen (by package name or folder; ``-ws`` from inside a workspace: that
one) of the nearest ``package.json`` listing ``workspaces``, in its folder, as a real npm showed;
``pnpm -r`` / ``--filter`` / ``-w`` reads the packages of ``pnpm-workspace.yaml`` the same way, and
``yarn workspace NAME`` / ``yarn workspaces foreach [-A]`` / ``yarn workspaces run`` the workspaces
of package.json.  A script name only known at run time, a package found through another option
(``--prefix``, ``pnpm -C``, ``yarn --cwd``), lifecycle scripts in workspaces (``pnpm install`` in one), a
filter with ``...``/``^``/``!``/``[ref]``, or a ``package.json`` that cannot be read is code only
known at run time.  Dependencies' install scripts are third-party programs, as a Python package's
build is: not read.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os

from .bash_analysis import CommandInfo
from .bash_words import Word
from .paths import folders_up, nearest_holding
from .script_files import (
    Script,
    nearest_files,
    not_there,
    parsed_file,
    passed_on,
    scripts_of_forms,
    yaml_of,
)

MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun"})
_NPM_RUN = frozenset({"run", "run-script", "rum", "urn"})
_NPM_NAMED = {"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop", "restart": "restart"}
_NPM_LIFECYCLE = {
    "install": ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"),
    "ci": ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"),
    "pack": ("prepack", "prepare", "postpack"),
    "publish": ("prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"),
    "version": ("preversion", "version", "postversion"),
}
for _alias in ("i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add"):
    _NPM_LIFECYCLE[_alias] = _NPM_LIFECYCLE["install"]
for _alias in ("clean-install", "ic", "install-clean", "isntall-clean", "install-ci-test", "cit"):
    _NPM_LIFECYCLE[_alias] = _NPM_LIFECYCLE["ci"]
# options that choose another package than the nearest one
_ELSEWHERE = frozenset({"--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--workspaces", "-ws", "--filter",
                        "-F", "-r", "--recursive"})
# options whose value chooses packages of a workspace
_CHOOSERS = frozenset({("npm", "-w"), ("npm", "--workspace"), ("pnpm", "--filter"), ("pnpm", "-F")})
# pnpm's commands that install packages (and run their lifecycle scripts)
_PNPM_INSTALLS = frozenset({"install", "i", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un",
                            "link", "ln", "unlink", "import", "rebuild", "rb", "install-test", "it", "dedupe",
                            "deploy", "publish", "pack", "patch-commit"})
_NOWHERE = frozenset({"-g", "--global", "--location=global"})  # a global install: the package's own scripts
_VALUES = frozenset({"--loglevel", "--registry", "--cache", "--userconfig", "--reporter", "--location"})
_BARE_INSTALLS = {"yarn": ("preinstall", "install", "postinstall", "prepare"),
                  "pnpm": (), "bun": (), "npm": ()}


def package_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The package scripts this command runs (every form: ``timeout 60 npm test``); ``memo``:
    this decision's."""
    return scripts_of_forms(info, cwds, memo, MANAGERS, _of_form, per_folder=False)


def _of_form(form: tuple[Word, ...], cwds: list[str], cwd_unknown: bool) -> list[Script]:
    if form[0].text == "yarn" and len(form) > 2 and form[1].literal in ("workspace", "workspaces"):
        try:
            form, preset = _yarn_workspaces(form)
        except ValueError as problem:
            return [Script("yarn's scripts", None, str(problem))]
        return _of_plain_form(form, cwds, cwd_unknown, preset) if preset else []
    return _of_plain_form(form, cwds, cwd_unknown, [])


MONOREPOS = frozenset({"turbo", "lerna", "nx"})
_MONOREPO_FLAGS = frozenset({"--parallel", "--stream", "--no-bail", "--concurrency", "--continue", "--no-cache",
                             "--force", "--dry-run", "--dry", "--graph", "--summarize", "--verbose"})


def monorepo_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The package scripts ``turbo run TASK``, ``lerna run SCRIPT`` and ``nx run-many -t TARGET``
    run: the script of that name in the workspaces that have one (as ``npm run NAME
    --workspaces``; options that narrow them, ``--filter``/``--scope``/``--projects``, make it
    ``some of them``, so a deny rule asks).  nx's own targets (``project.json``) and a task only
    known at run time are code only known at run time."""
    return scripts_of_forms(info, cwds, memo, MONOREPOS, _monorepo_form, per_folder=False)


def _monorepo_form(form: tuple[Word, ...], cwds: list[str], cwd_unknown: bool) -> list[Script]:
    runner = form[0].text
    words = [w.literal for w in form[1:]]
    shown = f"{runner}'s tasks"
    if any(w is None for w in words):
        return [Script(shown, None, "a word only known at run time may name the task")]
    texts = [w or "" for w in words]
    operands = [t for t in texts if not t.startswith("-")]
    if runner == "nx":
        if not operands or operands[0] in ("graph", "show", "list", "report", "reset", "daemon", "help", "--help"):
            return []
        return [Script(shown, None, "nx runs its projects' targets (project.json or package.json), not read here")]
    tasks: list[str] = []
    if runner == "lerna":
        if operands[:1] != ["run"]:
            return [] if operands[:1] in (["list"], ["ls"], ["la"], ["ll"], ["info"], ["changed"], ["diff"]) else [
                Script(shown, None, f"lerna {operands[0] if operands else ''} is a command this does not read")]
        tasks = operands[1:2]
    else:  # turbo run A B, turbo A B (turbo 2)
        if operands[:1] in (["prune"], ["login"], ["logout"], ["link"], ["unlink"], ["daemon"], ["telemetry"],
                            ["info"], ["ls"], ["query"], ["gen"], ["scan"]) or not operands:
            return []
        tasks = operands[1:] if operands[0] == "run" else operands
        tasks = [t for t in tasks if t not in ("--",)]
    narrowed = any(t.partition("=")[0] not in _MONOREPO_FLAGS for t in texts if t.startswith("-"))
    found: list[Script] = []
    for task in tasks:
        npm_form = (Word("npm"), Word("run"), Word(task), Word("--workspaces"))
        found += _of_plain_form(npm_form, cwds, cwd_unknown, ["?*" if narrowed else "*"])
    return found


def _yarn_workspaces(form: tuple[Word, ...]) -> tuple[tuple[Word, ...], list[str]]:
    """``yarn workspace NAME CMD…`` / ``yarn workspaces foreach [-A] CMD…`` (yarn 1's ``yarn
    workspaces run CMD``): the form of CMD and the workspaces chosen (``=NAME``; ``**`` all and the
    root; ``.`` the workspace the command runs in and those below it, as a real yarn 3 showed).  A
    choice led by ``?`` may be fewer: ``--since``, ``--include``, ``--exclude``, ``--no-private``
    narrow it by what is only known at run time (git's changes, globs), ``-R``/``--from``/``-W``
    take some of all the workspaces (``?**``); ``-n`` runs nothing."""
    words = list(form[2:])
    if form[1].literal == "workspace":
        name = words.pop(0).literal if words else None
        if name is None:
            raise ValueError("the workspace is only known at run time")
        return (form[0], *words), [f"={name}"]
    sub = words.pop(0).literal if words else None
    if sub == "run":  # yarn 1: every workspace
        return (form[0], Word("run"), *words), ["*all"]
    if sub != "foreach":
        return form, []  # yarn workspaces list, focus …: no scripts
    chosen, maybe = ".", False
    while words and (words[0].literal or "x").startswith("-"):
        option, eq, _value = (words.pop(0).literal or "").partition("=")
        if option in ("-A", "--all"):
            chosen = "**"
        elif option in ("-R", "--recursive", "-W", "--worktree", "--from"):  # some of all of them
            chosen, maybe = "**", True
            if option == "--from" and not eq:
                words = words[1:]
        elif option in ("--include", "--exclude"):  # a glob over names: fewer
            maybe = True
            if not eq:
                words = words[1:]
        elif option in ("--since", "--no-private"):  # --since[=REF]: the ones git says changed
            maybe = True
        elif option in ("-n", "--dry-run"):
            return form, []
        elif option in ("-j", "--jobs"):
            if not eq:
                words = words[1:]
        elif option not in ("-v", "--verbose", "-p", "--parallel", "-i", "--interlaced", "-t", "--topological",
                            "--topological-dev"):
            raise ValueError(f"yarn workspaces foreach {option} is an option this does not know")
    return (form[0], *words), ["?" * maybe + chosen]


def _of_plain_form(form: tuple[Word, ...], cwds: list[str], cwd_unknown: bool, preset: list[str]) -> list[Script]:
    manager = form[0].text
    texts: list[str | None] = []
    at: list[int] = []  # where each of texts is in the form
    # npm -w NAME|PATH, pnpm --filter; "*": -ws / -r, "": the root; yarn's (see _yarn_workspaces)
    workspaces: list[str] = list(preset)
    i = 1
    while i < len(form):
        text = form[i].literal
        option, has_value, value = (text or "").partition("=")
        if text is None:
            texts.append(None)
            at.append(i)
        elif text == "--":
            break
        elif text in _NOWHERE:
            return []
        elif (manager, option) in _CHOOSERS:  # npm -w WS, pnpm --filter SELECTOR
            if not has_value:
                i += 1
                value = (form[i].literal if i < len(form) else "") or ""
                if i < len(form) and form[i].literal is None:
                    return [Script(f"{manager}'s scripts", None, f"{option} {form[i].text} is only known at run time")]
            workspaces.append(value)
        elif manager == "npm" and (text in ("-ws", "--workspaces", "--workspaces=true", "--include-workspace-root",
                                            "--include-workspace-root=true")):
            workspaces.append("*" if "workspaces" in text or text == "-ws" else "")
        elif manager == "npm" and text in ("--workspaces=false", "--include-workspace-root=false", "--if-present"):
            pass
        elif manager == "pnpm" and text in ("-r", "--recursive", "--include-workspace-root", "-w", "--workspace-root"):
            workspaces.append({"-r": "*", "--recursive": "*", "-w": "/", "--workspace-root": "/"}.get(text, ""))
        elif manager == "pnpm" and text in ("--if-present", "--parallel", "--stream", "--no-bail", "--bail",
                                            "--sort", "--no-sort", "--reverse", "--silent", "-s"):
            pass
        elif text.partition("=")[0] in _ELSEWHERE:
            return [Script(f"{manager}'s scripts", None, f"{text} chooses another package, not read here")]
        elif text in _VALUES:
            i += 1
        elif text[:1] != "-":
            texts.append(text)
            at.append(i)
        i += 1
    names = _names(manager, texts)
    if names is None:
        return [Script(f"{manager}'s scripts", None, "the script's name is only known at run time")]
    if not names:
        return []
    if cwd_unknown:
        return [Script(f"{manager}'s scripts", None, "the package is found from a folder only known at run time")]
    if manager == "pnpm" and texts and texts[0] in _PNPM_INSTALLS and (workspaces or any(
            nearest_holding(cwd, ("pnpm-workspace.yaml",)) for cwd in cwds)):
        # (pnpm installs every package of a workspace, running their lifecycle scripts)
        return [Script("pnpm's scripts", None, "the lifecycle scripts of a pnpm workspace's packages are not read here")]
    found = [s for cwd in dict.fromkeys(cwds) for s in not_there(cwd, ("package.json",)) if not os.path.lexists(s.path or "")]
    places = nearest_files(cwds, "package.json")
    if workspaces:
        if not (len(names) == 3 and names[0] == f"pre{names[1]}" and names[2] == f"post{names[1]}"):
            return [Script(f"{manager}'s scripts", None, "lifecycle scripts in workspaces are not read here")]
        members = _pnpm_workspaces if manager == "pnpm" else _npm_workspaces
        try:
            places = [(folder, os.path.join(folder, "package.json")) for cwd in dict.fromkeys(cwds)
                      for folder in members(cwd, workspaces)]
        except ValueError as problem:
            return [Script(f"{manager}'s scripts", None, str(problem))]
    maybe = any(choice[:1] == "?" for choice in workspaces)  # yarn foreach --since: some of them run
    for folder, manifest in dict.fromkeys(places):
        shell = _settings_shell(manager, folder)
        if shell is not None:  # .npmrc's script-shell=./x.sh: the scripts are that program's input
            found.append(Script(f"{manager}'s scripts in {manifest}", None, shell))
        scripts, why = _read(manifest)
        if scripts is None:
            found.append(Script(f"{manager}'s scripts in {manifest}", None, why))
            continue
        for name in names:
            code = scripts.get(name)
            if code is None and name == "start" and manager in ("npm", "pnpm") and os.path.isfile(
                    os.path.join(folder, "server.js")):
                code = "node server.js"  # npm's and pnpm's start with no start script
            if isinstance(code, str) and len(names) == 3 and name == names[1]:
                # npm run show -- .env: the words after the script's name go to its command
                first = 1 if manager != "npm" and texts[0] in ("run", "run-script") or (
                    manager == "npm" and texts[0] in _NPM_RUN) else 0
                rest = form[at[first] + 1:]
                code = f"{code} {passed_on(_npm_passed(rest) if manager == 'npm' else rest)}".rstrip()
            if isinstance(code, str):
                found.append(Script(f"the {name!r} script of {manifest}", os.path.realpath(manifest), code=code,
                                    cwd=os.path.realpath(folder), certain=not maybe,
                                    bin_folders=node_bin_folders(os.path.realpath(folder))))
    return found


def node_bin_folders(folder: str) -> tuple[str, ...]:
    """The ``node_modules/.bin`` folders the package managers put first on PATH for a package
    script run in ``folder``: its own and each one above (``tidy`` in a script is
    ``node_modules/.bin/tidy`` when that is there)."""
    return tuple(b for b in (os.path.join(f, "node_modules", ".bin") for f in folders_up(folder)) if os.path.isdir(b))


def _npm_passed(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words ``npm run NAME …`` hands to the script: npm takes the options before ``--`` (and
    the values of those that have one) itself, as a real npm showed for ``-w``."""
    out: list[Word] = []
    i = 0
    while i < len(words):
        text = words[i].literal
        if text == "--":
            return (*out, *words[i:])  # (passed_on drops a leading --)
        if text is not None and text.startswith("-") and text != "-":
            if text in ("-w", "--workspace", *_VALUES):
                i += 1
        else:
            out.append(words[i])
        i += 1
    return tuple(out)


def _npm_workspaces(cwd: str, chosen: list[str]) -> list[str]:
    """The folders of the workspaces ``npm -w NAME|PATH`` / ``-ws`` / ``--include-workspace-root``
    chooses: those the nearest ``package.json`` with ``workspaces`` (globs) lists, by package
    name, by folder or by a folder holding them (``ValueError`` when not known here)."""
    folder = cwd
    while True:
        data, why = parsed_file(os.path.join(folder, "package.json"), _manifest)
        if isinstance(data, dict) and "workspaces" in data:
            break
        if why and os.path.lexists(os.path.join(folder, "package.json")):
            raise ValueError(f"{folder}/package.json: {why}")
        parent = os.path.dirname(folder)
        if parent == folder:
            raise ValueError("no package.json above lists workspaces")
        folder = parent
    patterns = data["workspaces"]
    if isinstance(patterns, dict):
        patterns = patterns.get("packages", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ValueError("the workspaces are not a list of folders")
    members: dict[str, str] = {}  # folder -> package name
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(folder, pattern))):
            member, _ = parsed_file(os.path.join(path, "package.json"), _manifest)
            if isinstance(member, dict):
                members[os.path.realpath(path)] = str(member.get("name", ""))
    out: list[str] = []
    root = os.path.realpath(folder)
    here = os.path.realpath(cwd)
    for choice in (c.lstrip("?") for c in chosen):  # (?: may be fewer; the caller knows)
        if choice == "*":  # from inside a workspace, npm takes -ws for that one (as a real npm 11 showed)
            inside = [m for m in members if here == m or here.startswith(m + os.sep)]
            out += inside[:1] or list(members)
        elif choice == "":
            out.append(root)
        elif choice in ("*all", "**"):  # yarn 1's workspaces run; yarn foreach -A (the root too)
            out += list(members) + ([root] if choice == "**" else [])
        elif choice == ".":  # yarn foreach: the workspace it runs in (the root is one) and those below
            holders = [m for m in [*members, root] if here == m or here.startswith(m + os.sep)]
            top = max(holders, key=len)
            out += [m for m in [root, *members] if m == top or m.startswith(top + os.sep)]
        elif choice.startswith("="):  # yarn workspace NAME
            picked = [m for m, name in members.items() if name == choice[1:]]
            if not picked:
                raise ValueError(f"no workspace is {choice[1:]!r}")
            out += picked
        else:
            where = os.path.realpath(os.path.join(cwd, choice))
            picked = [m for m, name in members.items() if name == choice or m == where or m.startswith(where + os.sep)]
            if not picked:
                raise ValueError(f"no workspace is {choice!r}")
            out += picked
    return list(dict.fromkeys(out))


def _pnpm_workspaces(cwd: str, chosen: list[str]) -> list[str]:
    """The folders of the packages ``pnpm -r`` / ``--filter SELECTOR`` / ``-w`` chooses from the
    nearest ``pnpm-workspace.yaml``'s ``packages`` (as a real pnpm 9 showed: ``-r`` leaves the root
    out unless ``--include-workspace-root``; a filter is a package name, a ``*`` pattern over names,
    or a folder from the current one, ``./path`` / ``{path}``, taking the packages at or below it).
    ``ValueError`` when not known here (``...``, ``^``, ``!``, ``[ref]`` selectors)."""
    folder = nearest_holding(cwd, ("pnpm-workspace.yaml",))
    if folder is None:
        raise ValueError("no pnpm-workspace.yaml above lists the packages")
    data, why = parsed_file(os.path.join(folder, "pnpm-workspace.yaml"), yaml_of)
    patterns = data.get("packages", []) if isinstance(data, dict) else None
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ValueError(f"pnpm-workspace.yaml: {why or 'its packages are not a list of folders'}")
    members: dict[str, str] = {}  # folder -> package name
    for pattern in patterns:
        if pattern.startswith("!"):
            raise ValueError("pnpm-workspace.yaml leaves packages out, not read here")
        for path in sorted(glob.glob(os.path.join(folder, pattern), recursive=True)):
            member, _ = parsed_file(os.path.join(path, "package.json"), _manifest)
            if isinstance(member, dict):
                members[os.path.realpath(path)] = str(member.get("name", ""))
    root = os.path.realpath(folder)
    members.pop(root, None)
    out: list[str] = []
    for choice in chosen:
        if choice == "*":
            out += list(members)
        elif choice in ("", "/"):
            out.append(root)
        elif any(mark in choice for mark in ("...", "^", "!", "[")):
            raise ValueError(f"the filter {choice!r} is not read here")
        elif choice.startswith((".", "/", "{")):
            where = os.path.realpath(os.path.join(cwd, choice.strip("{}")))
            out += [m for m in [root, *members] if m == where or m.startswith(where + os.sep)]
        else:
            out += [m for m, name in members.items() if fnmatch.fnmatchcase(name, choice)]
    return list(dict.fromkeys(out))


def _manifest(data: bytes) -> dict[str, object]:
    try:
        parsed = json.loads(data)
    except ValueError:
        raise ValueError("it is not valid JSON") from None
    if not isinstance(parsed, dict):
        raise ValueError("it is not an object")
    return parsed


def _names(manager: str, texts: list[str | None]) -> list[str] | None:
    """The scripts run, with their pre and post scripts; None when only known at run time."""
    if not texts:
        return list(_BARE_INSTALLS[manager])  # bare yarn installs
    first = texts[0]
    if first is None:
        return None
    if manager == "npm":
        if first in _NPM_RUN:
            name = texts[1] if len(texts) > 1 else ""
        elif first in _NPM_NAMED:
            name = _NPM_NAMED[first]
        else:
            return list(_NPM_LIFECYCLE.get(first, ()))
    elif first in ("run", "run-script"):
        name = texts[1] if len(texts) > 1 else ""
    else:
        if manager == "yarn" and first in ("workspace", "workspaces"):
            return None  # yarn workspace web build: another package's script
        name = first  # yarn build, pnpm lint, bun dev: a script when package.json has one of that name
        if manager == "yarn" and name in ("install", "add"):
            return list(_BARE_INSTALLS["yarn"])
    if name is None:
        return None
    return [f"pre{name}", name, f"post{name}"] if name else []


# the package's settings files that name the program running its scripts (npm, pnpm and yarn 1
# read .npmrc; yarn 1 .yarnrc too, whose yarn-path replaces yarn itself; yarn 2+ .yarnrc.yml's yarnPath)
_SETTINGS = {"npm": (".npmrc",), "pnpm": (".npmrc",), "yarn": (".npmrc", ".yarnrc", ".yarnrc.yml"), "bun": ()}
_SHELL_KEYS = frozenset({"script-shell", "shell", "yarn-path", "yarnpath", "onload-script", "node-options",
                         "userconfig", "globalconfig"})


def _settings_shell(manager: str, folder: str) -> str | None:
    """Why the scripts of the package in ``folder`` run through a program its settings name
    (``script-shell=./x.sh`` in ``.npmrc``), or None."""
    for name in _SETTINGS.get(manager, ()):
        data, why = parsed_file(os.path.join(folder, name), _setting_keys)
        if why:
            return f"{folder}/{name} could not be read ({why})"
        if data:
            return f"{folder}/{name} sets {sorted(data)[0]}, a program that runs the scripts"
    return None


def _setting_keys(data: bytes) -> frozenset[str]:
    """The keys among ``_SHELL_KEYS`` an ini-like (``key=value``, ``key "value"``) or YAML
    (``key: value``) settings file sets."""
    found = set()
    for line in data.decode("utf-8", "replace").splitlines():
        text = line.strip()
        if not text or text[0] in "#;":
            continue
        parts = text.replace("=", " ").replace(":", " ").split()
        key = parts[0].strip("\"'").lower() if parts else ""  # (a line of "=" alone has none)
        if key in _SHELL_KEYS:
            found.add(key)
    return frozenset(found)


def _read(manifest: str) -> tuple[dict[str, object] | None, str]:
    scripts, why = parsed_file(manifest, _scripts)
    return scripts, why or ("it is not there any more" if scripts is None else "")


def _scripts(data: bytes) -> dict[str, object]:
    try:
        parsed = json.loads(data)
    except ValueError:
        raise ValueError("it is not valid JSON") from None
    scripts = parsed.get("scripts", {}) if isinstance(parsed, dict) else None
    if not isinstance(scripts, dict):
        raise ValueError("its scripts are not an object")
    return scripts


__all__ = ["MANAGERS", "MONOREPOS", "monorepo_scripts", "package_scripts"]
