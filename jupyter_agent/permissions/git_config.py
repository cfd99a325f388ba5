"""git settings that name a program: ``git config core.fsmonitor "sh -c …"`` (then any
``git status`` runs it), ``git -c core.pager=… log``, an alias, an include, a filter driver.

Writing one is writing what git will run, so it asks in every mode and past a rule such as
``Bash(git:*)``, like a write to ``.git/config`` itself (a protected path); so does any setting
written with ``--global`` or ``--system`` (``~/.gitconfig`` is protected).  A repository's own
settings that only tell git where things are or how to behave (``user.email``,
``branch.x.remote``, ``remote.origin.url``, ``core.autocrlf``) run as the rule or mode says.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .bash_readonly import option_arguments
from .bash_words import Word
from .git_words import git_global_options

# every key in these sections names a program, a file of settings, or a protocol it may run
_SECTIONS = frozenset({
    "alias", "include", "includeif", "filter", "credential", "pager", "gpg", "difftool", "mergetool", "browser",
    "man", "web", "sendemail", "trace2", "protocol", "uploadpack", "receive", "instaweb", "guitool",
})
_KEYS = frozenset({  # section.key (any subsection)
    "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.gitproxy", "core.askpass",
    "core.hookspath", "core.worktree", "core.alternaterefscommand", "sequence.editor", "diff.external",
    "diff.command", "diff.textconv", "merge.driver", "remote.uploadpack", "remote.receivepack", "remote.vcs",
    "submodule.update", "init.templatedir",
})
_SUBCOMMANDS_READING = frozenset({"get", "list", "get-all", "get-regexp", "get-urlmatch"})
_OPTIONS_READING = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                              "--get-color", "--get-colorbool"})
_OPTIONS_WITH_VALUE = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})
_OPTIONS_ASKING = frozenset({"-e", "--edit", "--rename-section", "--remove-section"})


def runs_program(key: str) -> bool:
    """Does setting ``key`` (``section[.subsection].name``) tell git a program to run?"""
    parts = key.lower().split(".")
    if len(parts) < 2:
        return True  # not a key git accepts; asking is the safe side
    return parts[0] in _SECTIONS or f"{parts[0]}.{parts[-1]}" in _KEYS


def program_setting(words: Sequence[Word]) -> str | None:
    """Why ``git …`` sets a program for git to run (``-c``, ``--config-env``, ``git config``)."""
    options, i = git_global_options(words)
    for name, value in options:
        if name.startswith("--exec-path="):  # (bare --exec-path prints the folder)
            return f"{name} makes git run its helper programs from that folder"
        if name in ("-c", "--config-env") or name.startswith("--config-env="):
            setting = name.partition("=")[2] if "=" in name else (value.literal if value is not None else None)
            if setting is None or runs_program(setting.partition("=")[0]):
                return f"{name} {setting or '…'} makes git run a program it names"
    sub = words[i].literal if i < len(words) else None
    if sub in ("clone", "init"):  # settings and hooks the new repository starts with
        args = words[i + 1:]
        for value in option_arguments(args, "c" if sub == "clone" else "", "--config"):
            setting = value.literal
            if setting is None or runs_program(setting.partition("=")[0]):
                return f"git {sub} --config {setting or '…'} makes git run a program it names"
        if option_arguments(args, "", "--template"):
            return f"git {sub} --template copies its hooks into the repository, which git runs"
    if sub == "config":
        args = words[i + 1:]
        user_wide = any(w.literal in ("--global", "--system") for w in args)
        for key in _written_keys(args):
            if key is None or runs_program(key):
                return f"git config sets {key or 'a setting only known at run time'}, which names a program git runs"
            if user_wide:
                return f"git config sets {key} for every repository (~/.gitconfig, a protected file)"
    return None


def config_writes(args: Sequence[Word]) -> bool:
    """Does ``git config ARGS`` write its file (a key set or removed, a section renamed, an edit)?"""
    if any(w.literal in ("--unset", "--unset-all") for w in args):
        return True
    plain = [w.literal for w in args if (w.literal or "")[:1] != "-"]
    return bool(plain[:1] == ["unset"] or next(_written_keys(args), False) is not False)


def _written_keys(args: Sequence[Word]) -> Iterator[str | None]:
    """The keys ``git config ARGS`` writes (None: one not known before it runs)."""
    operands: list[str | None] = []
    skip = False
    for word in args:
        value = word.literal
        if skip:
            skip = False
            continue
        if value is not None and value[:1] == "-" and value != "-":
            if value in _OPTIONS_READING:
                return
            if value in _OPTIONS_ASKING:
                yield None
                return
            skip = value in _OPTIONS_WITH_VALUE
            continue
        operands.append(value)
    if operands and operands[0] in _SUBCOMMANDS_READING:
        return
    if operands and operands[0] in ("set", "unset"):  # git 2.46's subcommands
        operands = operands[1:]
    elif operands and operands[0] in ("edit", "rename-section", "remove-section"):
        yield None
        return
    if len(operands) >= 2:  # KEY VALUE (one operand reads it; --unset KEY removes, which runs nothing)
        yield operands[0]
