"""The shell commands Mercurial runs from its settings: hooks, shell aliases, and the programs
``ui.ssh``, ``ui.editor`` and the merge tools name.

``hg --config hooks.pre-status='rm x' status`` ran ``rm`` under ``Bash(hg:*)`` allowed and
``Bash(rm:*)`` denied, as a ``[hooks]`` entry of ``.hg/hgrc`` or ``~/.hgrc`` does for the commands
it fires on, and an alias whose value starts with ``!`` is shell code (``[alias] wipe = !rm -rf
x``; ``hg wipe``).  The settings are read as Mercurial reads them: the system's
(``/etc/mercurial/hgrc``, ``hgrc.d/*.rc``), the user's (``~/.hgrc``, ``$XDG_CONFIG_HOME/hg/hgrc``),
the repository's (``.hg/hgrc``, found from the folder or ``-R``/``--cwd``), with ``%include`` and
``%unset``, then ``--config`` — later wins.  A hook fires for its command (``pre-commit``,
``post-status``, ``fail-push``; an alias's by the command it stands for) or, for the events of a
repository's history (``precommit``, ``pretxnopen``, ``update`` …), for any command not known to
only read.  Which event a command fires is not modelled finer, so those hooks, the SSH command and
the merge tools are commands that *may* run (a deny rule asks).  A Python hook
(``python:file.py:fn``) and an extension given by path are Python code: their strings are read
(``package_builds.py``), a hook naming a module is code only known at run time.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

from .bash_analysis import CommandInfo
from .bash_words import Word
from .paths import nearest_holding
from .script_files import NotKnown, Script, lines_of, parsed_file, per_form, scripts_of_forms

HGS = frozenset({"hg", "chg"})
# hg's global options that take a value
_VALUED = frozenset({"-R", "--repository", "--repo", "--cwd", "--config", "--color", "--pager", "--encoding",
                     "--encodingmode", "--config-file"})
# commands (and their short names) that only read the repository: no history event fires
_READING = frozenset({
    "status", "st", "log", "history", "diff", "cat", "annotate", "blame", "files", "manifest", "identify", "id",
    "help", "version", "paths", "root", "summary", "sum", "heads", "branches", "tags", "config", "showconfig",
    "debugconfig", "grep", "locate", "parents", "tip", "outgoing", "out", "incoming", "in", "export", "bundle",
    "archive", "verify",
})
_SHORT = {"ci": "commit", "st": "status", "up": "update", "co": "update", "checkout": "update", "pl": "pull",
          "mv": "rename", "move": "rename", "rm": "remove", "cp": "copy", "id": "identify", "sum": "summary",
          "in": "incoming", "out": "outgoing", "history": "log", "blame": "annotate"}
_MERGING = frozenset({"merge", "update", "up", "co", "checkout", "rebase", "graft", "resolve", "backout", "unshelve",
                      "histedit", "shelve", "pull", "fetch", "evolve", "next", "prev"})
_REMOTE = frozenset({"push", "pull", "clone", "incoming", "in", "outgoing", "out", "identify", "id", "fetch"})
Settings = dict[str, dict[str, tuple[str, str]]]  # section -> key -> (value, the file it is in, "" for --config)


def hg_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The shell commands the Mercurial command of ``info`` may run from its settings."""
    return scripts_of_forms(info, cwds, memo, HGS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    command, repo, given = _command_line([w.literal for w in form[1:]], cwd)
    if cwd_unknown and repo is None:
        raise NotKnown("the repository is found from a folder only known at run time")
    settings = hg_settings(repo or cwd, given)
    aliases = settings.get("alias", {})
    found: list[Script] = []
    real = command
    if command in aliases:
        value, where = aliases[command]
        if value.lstrip().startswith("!"):
            found.append(_script(f"the hg alias {command}", where, value.lstrip()[1:], repo, certain=True))
            real = ""
        else:
            real = value.split()[0] if value.split() else ""
    real = _SHORT.get(real, real)
    for key, (value, where) in settings.get("hooks", {}).items():
        event = key.split(".", 1)[0]
        prefix, dash, name = event.partition("-")
        if dash and prefix in ("pre", "post", "fail"):
            if _SHORT.get(name, name) not in (real, command):
                continue
            certain = True
        elif real in _READING or not real:
            continue
        else:
            certain = False
        if not value.strip():
            continue  # an empty value turns a hook off
        if value.startswith("python:"):
            target = value[7:].strip()
            if ".py:" not in target and not target.endswith(".py"):
                found.append(Script(f"the Python hook hooks.{key}", None, f"it imports {target}, not read here"))
            continue  # a hook file's strings: package_builds
        found.append(_script(f"the hook hooks.{key}", where, value, repo, certain))
    ui = settings.get("ui", {})
    extra = []
    if real in _REMOTE and "ssh" in ui:
        extra.append(("ui.ssh", ui["ssh"]))
    if real in ("commit", "tag", "histedit", "backout") and "editor" in ui and not {"-m", "--message", "-l", "--logfile"
                                                                                   } & {w.literal for w in form}:
        extra.append(("ui.editor", ui["editor"]))
    if real in _MERGING:
        extra += [(f"merge-tools.{key}", value) for key, value in settings.get("merge-tools", {}).items()
                  if key.endswith(".executable")]
        if "merge" in ui and not ui["merge"][0].startswith("internal:"):
            extra.append(("ui.merge", ui["merge"]))
    for name, (value, where) in extra:
        found.append(_script(f"the program {name}", where, value, repo, certain=False))
    return found


_READ = per_form("Mercurial's hooks", _of_form)


def _script(shown: str, where: str, code: str, repo: str | None, certain: bool) -> Script:
    return Script(shown, where or None, code=code, cwd=repo, certain=certain)


def _command_line(args: Sequence[str | None], cwd: str) -> tuple[str, str | None, list[str]]:
    """(the command, the repository's root or None, the ``--config`` settings given) of hg's
    words after the program."""
    given: list[str] = []
    repo: str | None = None
    folder = cwd
    command = ""
    i = 0
    while i < len(args):
        text = args[i]
        if text is None:
            raise NotKnown("a word of the command is only known at run time")
        name, equals, joined = text.partition("=")
        short = text[:2] == "-R" and len(text) > 2
        if text[:1] == "-" and (name in _VALUED or short):
            value: str | None = joined if equals else text[2:] if short else (args[i + 1] if i + 1 < len(args) else "")
            i += 0 if equals or short else 1
            if value is None:
                raise NotKnown("a value of hg's options is only known at run time")
            option = "-R" if short else name
            if option == "--config" and value:
                given.append(value)
            elif option in ("-R", "--repository", "--repo") and value:
                repo = os.path.realpath(os.path.join(folder, os.path.expanduser(value)))
            elif option == "--cwd" and value:
                folder = os.path.realpath(os.path.join(folder, os.path.expanduser(value)))
            elif option == "--config-file" and value:
                given.append(f"%include {os.path.join(folder, os.path.expanduser(value))}")
        elif text[:1] != "-" and not command:
            command = text
        i += 1
    return command, repo or nearest_holding(folder, (".hg",)), given


# settings naming a program Mercurial runs, or code it loads: any key of these sections, these keys
_PROGRAM_SECTIONS = frozenset({"hooks", "extensions", "merge-tools", "extdiff", "diff-tools", "merge-patterns"})
_PROGRAM_KEYS = frozenset({"ui.ssh", "ui.editor", "ui.merge", "ui.remotecmd", "pager.pager", "web.templates"})


def hg_program_setting(words: Sequence[Word]) -> str | None:
    """Why ``hg --config KEY=VALUE …`` (or ``--config-file``) asks in every mode: the setting
    names a program hg runs (a hook, a shell alias, the SSH command, an extension), as writing
    ``.hg/hgrc`` would (a protected path); None when no such setting is given."""
    for i, word in enumerate(words):
        text = word.literal
        if text is None or text[:2] != "--":
            continue
        name, equals, value = text.partition("=")
        if name not in ("--config", "--config-file"):
            continue
        if not equals:
            following = words[i + 1].literal if i + 1 < len(words) else None
            if following is None:
                return f"hg {name} is given a value only known at run time, which may name a program hg runs"
            value = following
        if name == "--config-file":
            return f"hg --config-file {value} reads settings that may name programs hg runs (hooks, aliases)"
        key, _eq, setting = value.partition("=")
        section = key.partition(".")[0]
        if (section in _PROGRAM_SECTIONS or key in _PROGRAM_KEYS
                or (section == "alias" and setting.lstrip()[:1] in ("!", "$"))):
            return f"hg --config {key}=… sets a program hg runs (as an edit of .hg/hgrc would)"
    return None


def hg_settings(repo: str, given: list[str]) -> Settings:
    """Mercurial's settings for the repository in ``repo``: the system's, the user's, the
    repository's, then ``given`` (``--config section.key=value``)."""
    settings: Settings = {}
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = ["/etc/mercurial/hgrc", *sorted(glob.glob("/etc/mercurial/hgrc.d/*.rc")),
             os.path.join(home, ".hgrc"), os.path.join(xdg, "hg", "hgrc"),
             os.path.join(repo, ".hg", "hgrc"), os.path.join(repo, ".hg", "hgrc-not-shared")]
    for path in files:
        _read_file(path, settings, 0)
    for item in given:
        if item.startswith("%include "):
            _read_file(item[9:], settings, 0)
            continue
        key, equals, value = item.partition("=")
        section, dot, name = key.partition(".")
        if equals and dot:
            settings.setdefault(section.strip(), {})[name.strip()] = (value, "")
    return settings


def _read_file(path: str, settings: Settings, depth: int) -> None:
    lines, why = parsed_file(path, lines_of)
    if lines is None:
        if why:  # there, but not readable: what it sets is not known
            raise NotKnown(f"{path} could not be read ({why})")
        return
    section, last = "", None
    for raw in lines:
        if raw[:1] in (" ", "\t") and last is not None and raw.strip():  # a continuation line
            value, where = settings[section][last]
            settings[section][last] = (f"{value}\n{raw.strip()}", where)
            continue
        line = raw.strip()
        last = None
        if not line or line[0] in "#;":
            continue
        if line.startswith("%include "):
            if depth < 8:
                target = os.path.join(os.path.dirname(path), os.path.expanduser(line[9:].strip()))
                _read_file(target, settings, depth + 1)
            continue
        if line.startswith("%unset "):
            settings.get(section, {}).pop(line[7:].strip(), None)
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        key, equals, value = line.partition("=")
        if equals and section:
            last = key.strip()
            settings.setdefault(section, {})[last] = (value.strip(), os.path.realpath(path))


def hg_code_files(args: Sequence[str | None], cwd: str) -> list[str]:
    """The Python files Mercurial loads for a command: extensions given by path and Python hooks
    naming a file (their strings are read as a script's)."""
    try:
        _command, repo, given = _command_line(args, cwd)
        settings = hg_settings(repo or cwd, given)
    except NotKnown:
        return []
    base = repo or cwd
    files = [value for value, _where in settings.get("extensions", {}).values()
             if value.strip() and not value.startswith("!") and ("/" in value or value.endswith(".py"))]
    for value, _where in settings.get("hooks", {}).values():
        if value.startswith("python:"):
            target = value[7:].strip()
            files.append(target.rpartition(":")[0] if ".py:" in target else target)
    return [os.path.realpath(os.path.join(base, os.path.expanduser(f.strip()))) for f in files
            if f.strip().endswith(".py") or os.path.isfile(os.path.join(base, os.path.expanduser(f.strip())))]


__all__ = ["HGS", "hg_code_files", "hg_program_setting", "hg_scripts", "hg_settings"]
