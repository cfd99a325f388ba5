"""Commands that write another revision's files (or a template's) into the working copy, from
a history nobody has listed: ``svn update``, ``hg pull -u``, ``hg update REV``, ``bzr pull``,
``fossil update``, ``darcs pull``, ``jj new REV``, ``repo sync``, ``yadm pull`` (your home's
dotfiles: ``~/.bashrc``), ``chezmoi apply``, and scaffolders writing into a folder that is
already there (``npx degit user/repo .``, ``copier copy URL .``).

Each ran in bypassPermissions and may bring a ``.claude/settings.json``, a ``.vscode/tasks.json``
or a ``.mcp.json`` (git's own moves are checked against the listed history, ``git_worktree``;
``git pull`` asks as these do).  They ask in every mode, whatever rule allows the program.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_words import Word

_HG = frozenset({"update", "up", "checkout", "co", "merge", "rebase", "unshelve", "graft", "backout", "histedit",
                 "strip", "rollback", "import", "fetch", "transplant"})
_BZR = frozenset({"pull", "update", "up", "merge", "switch"})
# program → the subcommands that write the working copy from revisions not known here
_UPDATES: dict[str, frozenset[str]] = {
    "svn": frozenset({"update", "up", "switch", "sw", "merge", "patch"}),
    "hg": _HG, "chg": _HG, "bzr": _BZR, "brz": _BZR,
    "fossil": frozenset({"update", "up", "checkout", "co", "merge", "open", "stash"}),
    "darcs": frozenset({"pull", "apply", "rebase", "obliterate", "unpull", "rollback"}),
    "jj": frozenset({"new", "edit", "checkout", "co", "rebase", "restore", "abandon", "undo", "next", "prev",
                     "op", "workspace", "duplicate", "squash", "unsquash", "split", "backout", "revert"}),
    "repo": frozenset({"sync", "init"}),
    "yadm": frozenset({"pull", "clone", "checkout", "reset", "merge", "rebase", "stash", "restore", "switch",
                       "cherry-pick", "revert", "bootstrap", "decrypt"}),
    "chezmoi": frozenset({"apply", "update", "init", "merge", "merge-all", "import", "re-add"}),
}
# svn|bzr checkout URL [DEST] make DEST (by default the URL's last name): a folder already there asks
_CHECKOUTS = {"svn": frozenset({"checkout", "co"}), **dict.fromkeys(("bzr", "brz"), frozenset({"checkout", "co", "branch"}))}
# hg pull writes the working copy only with -u/--update (or --rebase from the rebase extension)
_PULL_UPDATES = dict.fromkeys(("hg", "chg"), ("-u", "--update", "--rebase"))
# scaffolders that fetch a repository or template into the folder given (the current one by default)
_SCAFFOLDERS = frozenset({"degit", "tiged", "copier", "cookiecutter"})
VCS_UPDATERS = frozenset(_UPDATES) | _SCAFFOLDERS


def update_reason(words: Sequence[Word], cwd: str) -> str | None:
    """Why ``words`` (the program first, its base name) must ask, or None."""
    program = (words[0].literal or "").rpartition("/")[2] if words else ""
    texts = [w.literal for w in words[1:]]
    if program in _SCAFFOLDERS:
        return _scaffold_reason(program, texts, cwd)
    subs = _UPDATES.get(program)
    if subs is None:
        return None
    if any(t is None for t in texts):
        return f"{program} has a word only known at run time, so whether it brings another revision's files is unknown"
    plain = [t for t in texts if t is not None and t[:1] != "-"]
    found = next((t for t in plain if t in subs), None)
    checkout = _CHECKOUTS.get(program, frozenset())
    if found is None and plain and plain[0] in checkout and len(plain) > 1:
        dest = plain[2] if len(plain) > 2 else plain[1].rstrip("/").rpartition("/")[2]
        if os.path.isdir(os.path.join(cwd, os.path.expanduser(dest or "."))):
            found = f"{plain[0]} into {dest}, a folder already there,"
    if found is None and program in _PULL_UPDATES and "pull" in plain and any(
            t is not None and (t in _PULL_UPDATES[program] or (t[:1] == "-" and t[1:2] != "-" and "u" in t))
            for t in texts):
        found = "pull -u"
    if found is None:
        return None
    return (f"{program} {found} writes files of a revision (or a remote's) that is not known here: they may change "
            f"protected files (.claude/, .vscode/, .mcp.json, shell start-up files …)")


def _scaffold_reason(program: str, texts: Sequence[str | None], cwd: str) -> str | None:
    """A scaffolder asks when it writes into a folder that is there already (the current one, or
    one named): a template may bring any file, a protected one too.  A new folder is left alone."""
    if any(t is None for t in texts):
        return f"{program} has a word only known at run time, so where it writes is unknown"
    plain = [t for t in texts if t is not None and t[:1] != "-"]
    if program == "cookiecutter":
        out = next((texts[i + 1] for i, t in enumerate(texts[:-1]) if t in ("-o", "--output-dir")), None)
        folders = [out] if out else []  # (it makes a new folder, named by the template, below it)
        overwrite = any(t in ("-f", "--overwrite-if-exists") for t in texts)
        if not overwrite:
            return None
        folders = folders or ["."]
    elif program == "copier":
        folders = plain[2:3] if plain[:1] in (["copy"], ["recopy"], ["update"]) else plain[1:2]
        if plain[:1] in (["recopy"], ["update"]):
            folders = plain[1:2] or ["."]
    else:  # degit/tiged SRC [DEST]: DEST or the current folder
        folders = plain[1:2] or ["."]
    for folder in folders:
        path = os.path.join(cwd, os.path.expanduser(folder or "."))
        if os.path.isdir(path):
            return (f"{program} writes a template's files into {folder}, which is there already: they may change "
                    f"protected files (.claude/, .vscode/, .mcp.json …)")
    return None


__all__ = ["VCS_UPDATERS", "update_reason"]
