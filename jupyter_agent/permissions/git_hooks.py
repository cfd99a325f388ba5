"""The hooks a git command runs, read so that their commands meet the rules too.

``git commit`` runs ``pre-commit``, ``commit-msg`` … from the repository's hooks folder:
``.git/hooks`` (a protected path), or the folder ``core.hooksPath`` names, which projects keep
in the work tree (``.githooks/``, husky's ``.husky/``) as plain files any edit may change.  So
under ``Bash(git commit:*)`` with ``Bash(rm:*)`` denied, a ``.githooks/pre-commit`` saying
``rm -rf build`` ran.  Now each hook a command may run is checked as a script the line runs
(``bash.py``'s ``_script_checks``): a shell hook's commands meet the deny and ask rules and the
safety checks, one in another language is a program run by its path, and a hook written by the
pre-commit framework runs the hooks of ``.pre-commit-config.yaml`` (``precommit_hooks``), and one
husky writes (``.husky/_/pre-commit``) runs ``.husky/pre-commit``, which is read instead; one lefthook
writes runs the commands of its configuration (``lefthook_hooks``).

Which hooks: commands that only read run none, except that ``git status`` (and ``describe
--dirty``, ``diff``) may write the index, which runs ``post-index-change``; ``commit``, ``push``,
``add``, ``reset``, ``fetch`` … run those githooks(5) lists for them (a test runs real git with
every hook in place and checks it ran no other); any other git command may run any of them
(``reference-transaction`` runs on every ref update, ``pre-auto-gc`` on automatic gc).  The
executable bit is not looked at: ``chmod +x`` in the same line may set it.

The configuration files git reads may include others (``[include] path = ../project.gitconfig``),
which, unlike ``.git/config`` and ``~/.gitconfig``, are not protected: an edit may plant
``core.fsmonitor = rm -rf x`` (run by ``git status``) or an alias ``!code`` there.  When such a file is
in the working directories, the programs it names are checked as commands the line runs, and while
it names any (or the line may change it first) a git command asks in every mode, as ``git config
core.fsmonitor …`` does (``git_config``).  One outside them is the user's (dotfiles often include
one; writing there asks).

Where: ``core.hooksPath`` from every configuration file git reads (system, global, the
repository's, the work tree's, the kernel's ``GIT_CONFIG_*`` variables) and the files they
include, whatever an ``includeIf`` condition says, each folder a hook may come from; and the
repository's own ``hooks`` folder (of the common folder, for a linked work tree).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from .bash_analysis import CommandInfo
from .bash_git import git_folder
from .bash_rule_skips import GIT_COMMANDS
from .bash_words import Word
from .git_config import runs_program
from .git_index import git_dir
from .git_words import git_global_options
from .lefthook_hooks import GIT_HOOK as LEFTHOOK_HOOK
from .paths import protected_reason_of
from .precommit_hooks import CONFIG
from .script_files import (
    Script,
    not_there,
    parsed_file,
    passed_on,
    read_bounded,
    read_script,
    scripts_of_forms,
    shell_script,
)

GITS = frozenset({"git"})
CLIENT_HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
    "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
    "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "post-index-change", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit",
)
_INDEX_HOOKS = ("post-index-change",)
# subcommands that may write the index while reading (status refreshes it: real git runs the hook)
_REFRESH_INDEX = frozenset({"status", "diff", "describe"})
# subcommands that write nothing a hook follows
_NO_HOOKS = frozenset({
    "log", "show", "diff-tree", "diff-files", "diff-index", "diff-pairs", "rev-parse", "rev-list", "ls-files",
    "ls-tree", "ls-remote", "cat-file", "blame", "annotate", "grep", "shortlog", "show-ref", "for-each-ref",
    "name-rev", "merge-base", "cherry", "version", "help", "var", "check-ignore", "check-attr", "check-ref-format",
    "check-mailmap", "count-objects", "verify-commit", "verify-tag", "verify-pack", "whatchanged", "range-diff",
    "format-patch", "archive", "show-branch", "fsck", "column", "stripspace", "interpret-trailers", "patch-id",
    "get-tar-commit-id", "mailinfo", "mailsplit", "show-index", "bugreport", "config",
})
_REF_HOOKS = ("reference-transaction", "post-index-change", "pre-auto-gc")
_RECEIVE_HOOKS = ("pre-receive", "update", "proc-receive", "post-receive", "post-update", "push-to-checkout")
# the hooks of the commonest commands (githooks(5)); any other command may run any hook
_HOOKS_OF = {
    "commit": ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-rewrite", *_REF_HOOKS),
    "push": ("pre-push", "reference-transaction", *_RECEIVE_HOOKS),  # (a push to this repository: its own)
    "add": _INDEX_HOOKS, "rm": _INDEX_HOOKS, "mv": _INDEX_HOOKS, "update-index": _INDEX_HOOKS,
    "restore": ("post-index-change", "post-checkout"), "reset": ("post-index-change", "reference-transaction"),
    "fetch": ("reference-transaction", "pre-auto-gc"),
}
MAX_INCLUDES = 10  # git's own limit on include depth
PRE_COMMIT_MARK = "File generated by pre-commit"
# husky 9 writes each hook of .husky/_ as this (its h then runs .husky/NAME); husky 4-8's hooks began by sourcing
# husky.sh (which only sets things up; husky 9's prints that it is deprecated)
_HUSKY_WRAPPER = re.compile(r'#!/usr/bin/env sh\n\. "\$\(dirname "\$0"\)/h"\n?')
_HUSKY_SOURCE = re.compile(r'(?m)^\. "\$\(dirname (?:-- )?"\$0"\)/_/husky\.sh"[ \t]*$')


# the hooks --no-verify skips (githooks(5)); commit's -n is --no-verify (push's -n is --dry-run)
_VERIFIED = {"commit": ("pre-commit", "commit-msg"), "merge": ("pre-merge-commit", "commit-msg"),
             "push": ("pre-push",), "am": ("pre-applypatch", "applypatch-msg")}
_VALUE_LETTERS = frozenset("mFcCtSu")  # commit's short options whose value may follow in the same word


def _no_verify(words: tuple[Word, ...], sub: str) -> bool:
    """Whether ``git SUB WORDS`` has ``--no-verify`` (a beginning of it too, as git takes), or
    commit's ``-n`` (also in a cluster: ``-anm msg``)."""
    for word in words:
        text = word.literal
        if text is None or text == "--":
            return False
        if text[:2] == "--":
            if len(text) >= 9 and "--no-verify".startswith(text):  # (--no-ver may be --no-verbose)
                return True
        elif text[:1] == "-" and sub == "commit":
            for letter in text[1:]:
                if letter == "n":
                    return True
                if letter in _VALUE_LETTERS:
                    break
    return False


def git_hook_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The hooks the ``git`` in this command (any form: ``timeout 60 git commit``) may run."""
    return scripts_of_forms(info, cwds, memo, GITS, hooks_run, per_folder=True)


def hooks_run(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """The hook files ``git …`` (``form``) run from ``cwd`` may run, as scripts: each with the
    code that runs it and the folder it runs in (the work tree's top); and the programs named in
    the configuration files it includes that are not protected (``_settings_script``)."""
    options, i = git_global_options(form)
    if any(name in ("--git-dir", "--work-tree") or name.startswith(("--git-dir=", "--work-tree="))
           for name, _value in options):
        return [Script("git's hooks", None, "git --git-dir/--work-tree names the repository whose hooks run")]
    sub = form[i].literal if i < len(form) else None
    if i < len(form) and sub is None:
        return [Script("git's hooks", None, "the git subcommand is only known at run time")]
    if sub is None or sub in ("version", "help"):
        return []
    if cwd_unknown:
        return [Script("git's hooks", None, "the repository is found from a folder only known at run time")]
    folder = git_folder(form, cwd)[0]
    if folder is None:
        return [Script("git's hooks", None, "git -C names a folder only known at run time")]
    env_dir = os.environ.get("GIT_DIR")  # the kernel's
    top = _top(folder)
    repo = os.path.normpath(os.path.join(folder, env_dir)) if env_dir else git_dir(top) if top else None
    top = top or folder
    if repo is None:
        return []  # no repository (a bare one found by the walk asks in git_guards)
    common = _common_dir(repo)
    files, why = config_files(repo, common)
    if why:
        return [Script("git's hooks", None, why)]
    found = [_settings_script(f, top) for f in files if f.included and protected_reason_of(f.path, f.real) is None]
    if sub not in GIT_COMMANDS:  # git x: an alias (a builtin's name cannot be one), or a program git-x
        found += _alias_scripts(sub, form, i, files, top)
    if sub in _NO_HOOKS:
        return found
    names = _INDEX_HOOKS if sub in _REFRESH_INDEX else _HOOKS_OF.get(sub, CLIENT_HOOKS)
    if sub in _VERIFIED and _no_verify(form[i + 1:], sub):  # git commit --no-verify: not pre-commit, commit-msg
        names = tuple(name for name in names if name not in _VERIFIED[sub])
    for hooks in hook_folders(files, common, top):
        try:
            present = set(os.listdir(hooks))
        except OSError:
            present = set()  # (none yet: the line may make the folder and a hook in it)
        for name in names:
            if name in present:
                found.append(_hook_script(os.path.join(hooks, name), top))
        if protected_reason_of(hooks + "/x", hooks + "/x") is None:  # writing into .git/hooks, .husky asks anyway
            found += not_there(hooks, [n for n in names if n not in present])
    return found


def _alias_scripts(sub: str, form: tuple[Word, ...], i: int, files: list[ConfigFile], top: str) -> list[Script]:
    """What ``git SUB ARGS`` runs when SUB is an alias: ``!CODE`` is shell code run at the work
    tree's top with ARGS after it (``sh -c 'CODE "$@"'``); anything else is ``git VALUE ARGS``
    (which is checked as a git command: ``alias.p = push --force`` meets ``Bash(git push
    --force:*)``).  Every definition in every file counts (the last one wins: which is last
    depends on ``includeIf`` conditions), and those of the kernel's ``GIT_CONFIG_*`` variables."""
    name = sub.lower()
    values = [value for f in files for section, key, value in f.entries if section == "alias" and key == name]
    values += [value for key, value in _environment_settings() if key == f"alias.{name}"]
    if f"alias.{name}" in os.environ.get("GIT_CONFIG_PARAMETERS", "").lower():
        return [Script(f"the git alias {sub}", None, "a GIT_CONFIG_PARAMETERS setting of the kernel defines it")]
    values = list(dict.fromkeys(values))
    args = passed_on(form[i + 1:])
    scripts = []
    for value in values:
        shown = f"the git alias {sub} ({value[:60]})"
        if value.startswith("!"):
            scripts.append(Script(shown, None, code=f"{value[1:]} {args}".rstrip(), cwd=top, certain=len(values) == 1))
        else:
            head = passed_on(form[:i])  # git and its global options
            scripts.append(Script(shown, None, code=f"{head} {value} {args}".rstrip(), certain=len(values) == 1))
    return scripts


def _top(folder: str) -> str:
    """The work tree's top above ``folder`` ("" outside any), as ``bash_git.top_level`` finds it,
    with one ``access`` call a level (no exception raised for each folder without ``.git``: this
    runs for every git command)."""
    current = folder.rstrip("/")
    while True:
        if os.access(current + "/.git", os.F_OK):
            return current or "/"
        if not current:
            return ""
        current = current.rpartition("/")[0]


def _settings_script(config: ConfigFile, top: str) -> Script:
    """An included configuration file any edit may change: the programs its settings name are
    commands git may run (``core.fsmonitor`` on ``status``, an alias's ``!code``); they meet the
    rules, and while it names any, a git command asks in every mode when it is in the working
    directories (``Script.ask``), as writing the same setting with ``git config`` does."""
    codes = [code for section, key, value in config.entries if (code := _setting_code(section, key, value)) is not None]
    # what asks: those, and the hooks folder, another file or work tree it names (as git config would ask)
    keys = [f"{section}.{key}" for section, key, _value in config.entries if runs_program(f"{section}.{key}")]
    shown = f"the git settings in {config.path}"
    why = (f"git reads {config.path}, which is not a protected file and names programs git runs "
           f"({', '.join(dict.fromkeys(keys))})") if keys else ""
    return Script(shown, config.real, code="\n".join(codes), cwd=top, ask=why,
                  ask_if_changed=f"git reads {config.path}, which the line may change first")


def _setting_code(section: str, key: str, value: str) -> str | None:
    """The shell code (or command) a setting makes git run; None for one that names none."""
    if section in ("include", "includeif") or (section, key) in (("core", "hookspath"), ("core", "worktree")):
        return None  # (followed here)
    if not runs_program(f"{section}.{key}"):
        return None
    if section == "alias":
        return value[1:] if value.startswith("!") else f"git {value}"
    if section == "credential" and key == "helper":
        if value.startswith("!"):
            return value[1:]
        return value if value.startswith("/") else f"git credential-{value}"
    return value


def _hook_script(path: str, top: str) -> Script:
    inside = path.startswith(top.rstrip("/") + "/")
    shown = "./" + os.path.relpath(path, top) if inside else path  # git runs it from the top
    real = os.path.realpath(path)
    text, _why = read_script(real)  # (None: binary, too long or unreadable)
    # a hook pre-commit or lefthook wrote runs their configuration's commands; only one in a protected
    # folder (.git/hooks) is taken for theirs: elsewhere any edit may add their mark to its own commands
    generated = text if text is not None and protected_reason_of(path, real) is not None else ""
    if PRE_COMMIT_MARK in generated[:512]:
        config = re.search(r"--config=([^\s)]+)", generated)
        name = config.group(1) if config else CONFIG
        given = f" --config={shlex.quote(name)}" if name != CONFIG else ""  # (naming it looks like a write)
        return Script(f"the git hook {shown}", real, cwd=top,
                      code=f"pre-commit hook-impl{given} --hook-type={shlex.quote(os.path.basename(path))}")
    lefthook = LEFTHOOK_HOOK.search(generated)
    if lefthook is not None:
        return Script(f"the git hook {shown}", real, code=f"lefthook run {lefthook.group(1)}", cwd=top)
    if text is not None and _HUSKY_WRAPPER.fullmatch(text):  # husky 9's .husky/_/NAME runs .husky/NAME with sh -e
        user = os.path.join(os.path.dirname(os.path.dirname(path)), os.path.basename(path))
        if not os.path.lexists(user):
            return Script(f"the git hook {shown}", real, code="", cwd=top)  # (h exits at once)
        return _hook_script(user, top)
    if shell_script(real):
        if text is not None and _HUSKY_SOURCE.search(text):  # husky 4-8: the line sources husky.sh, the rest is the hook
            return Script(f"the git hook {shown}", real, code=_HUSKY_SOURCE.sub("", text), cwd=top)
        return Script(f"the git hook {shown}", real, cwd=top)
    return Script(f"the git hook {shown}", real, code=shlex.quote(shown), cwd=top)  # a program run by its path


def hook_folders(files: list[ConfigFile], common: str, top: str) -> list[str]:
    """The folders git may take hooks from: the repository's ``hooks`` and every ``core.hooksPath``
    of its configuration files (relative ones from the work tree's top, where hooks run)."""
    folders = [os.path.join(common, "hooks")]
    values = [value for f in files for section, key, value in f.entries if (section, key) == ("core", "hookspath")]
    for value in [*values, *_environment_values()]:
        folders.append(os.path.normpath(os.path.join(top, os.path.expanduser(value))))
    return list(dict.fromkeys(folders))


@dataclass(frozen=True, slots=True)
class ConfigFile:
    path: str
    real: str  # (resolved for an included file only: git's own are checked by their path)
    entries: tuple[tuple[str, str, str], ...]
    included: bool  # named by an include (any other is git's own: system, global, the repository's)


def config_files(repo: str, common: str) -> tuple[list[ConfigFile], str]:
    """The configuration files git reads for the repository folder ``repo`` (the files they
    include too, whatever an ``includeIf`` condition says), or why they are not known."""
    found: list[ConfigFile] = []
    for path in _config_files(repo, common):
        why = _read_into(path, False, 0, found)
        if why:
            return [], why
    if "hookspath" in os.environ.get("GIT_CONFIG_PARAMETERS", "").lower():
        return [], "a GIT_CONFIG_PARAMETERS setting of the kernel may name the hooks folder"
    return found, ""


def _common_dir(repo: str) -> str:
    """A linked work tree's repository folder keeps its hooks and config in the common folder."""
    path = repo + "/commondir"
    if not os.access(path, os.F_OK):
        return repo  # (the common case, told without raising)
    data, _why = read_bounded(path, 4096)
    if data is None:
        return repo
    text = data.decode("utf-8", "replace").strip()
    return os.path.normpath(os.path.join(repo, text)) if text else repo


def _config_files(repo: str, common: str) -> list[str]:
    env = os.environ
    files = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = env.get("HOME") or os.path.expanduser("~")
        files += [(env.get("XDG_CONFIG_HOME") or home + "/.config") + "/git/config", home + "/.gitconfig"]
    files += [common + "/config", repo + "/config.worktree"]
    return files


def _environment_values() -> list[str]:
    """``core.hooksPath`` given by the kernel's ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``."""
    return [value for key, value in _environment_settings() if key == "core.hookspath"]


def _environment_settings() -> list[tuple[str, str]]:
    """The kernel's ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` settings (the first
    ``GIT_CONFIG_COUNT`` of them, as git reads them), keys lower-cased."""
    env = os.environ
    try:
        count = min(int(env.get("GIT_CONFIG_COUNT") or 0), 1000)
    except ValueError:
        return []  # git refuses to run
    return [(env.get(f"GIT_CONFIG_KEY_{n}", "").lower(), env.get(f"GIT_CONFIG_VALUE_{n}", "")) for n in range(count)]


def _read_into(path: str, included: bool, depth: int, found: list[ConfigFile]) -> str:
    """Append the file ``path`` and those it includes to ``found``; why they are not known, or ""."""
    entries, why = parsed_file(path, _entries, 1 << 20)
    if why:
        return f"the git configuration {path} could not be read ({why})"
    if entries is None:
        return ""  # no such file
    found.append(ConfigFile(path, os.path.realpath(path) if included else path, entries, included))
    for section, key, value in entries:
        if section in ("include", "includeif") and key == "path":
            if depth >= MAX_INCLUDES:
                return f"the git configuration {path} includes files too deeply to follow"
            target = os.path.normpath(os.path.join(os.path.dirname(path), os.path.expanduser(value)))
            why = _read_into(target, True, depth + 1, found)
            if why:
                return why
    return ""


def _entries(data: bytes) -> tuple[tuple[str, str, str], ...]:
    return tuple(config_entries(data.decode("utf-8", "surrogateescape")))


def config_entries(text: str) -> list[tuple[str, str, str]]:
    """``(section, key, value)`` of a git configuration file: section and key lower-cased (a
    subsection dropped: ``[includeIf "gitdir:~/w/"]`` is ``includeif``), values unquoted and
    unescaped, comments and line continuations as git reads them."""
    entries: list[tuple[str, str, str]] = []
    section = ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c in "#;":
            i = _line_end(text, i)
        elif c == "[":
            end = text.find("]", i)
            if end < 0:
                break
            header = text[i + 1:end].strip()
            name = header.split(None, 1)[0] if header else ""
            section = (name.split(".", 1)[0] if '"' not in header else name).lower()
            i = end + 1
        else:
            start = i
            while i < n and (text[i].isalnum() or text[i] == "-"):
                i += 1
            key = text[start:i].lower()
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] == "=":
                value, i = _value(text, i + 1)
            else:
                value = "true"  # a key alone is a boolean
                i = _line_end(text, i)
            if key:
                entries.append((section, key, value))
            else:
                i = _line_end(text, i)
    return entries


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


def _value(text: str, i: int) -> tuple[str, int]:
    """A value from ``i`` to its line's end: quotes removed, escapes and ``\\``-newline joined,
    a comment outside quotes dropped, trailing blanks outside quotes dropped."""
    out: list[str] = []
    quoted = False
    kept = 0  # the length of out up to the last character that is not a blank outside quotes
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            break
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            i += 2
            if nxt == "\n":
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            kept = len(out)
            continue
        i += 1
        if c == '"':
            quoted = not quoted
            kept = len(out)
        elif not quoted and c in "#;":
            i = _line_end(text, i - 1)
            break
        elif not quoted and c in " \t" and not out:
            continue
        else:
            out.append(c)
            if quoted or c not in " \t\r":
                kept = len(out)
    return "".join(out[:kept]), i


__all__ = ["CLIENT_HOOKS", "GITS", "ConfigFile", "config_entries", "config_files", "git_hook_scripts", "hook_folders",
           "hooks_run"]
