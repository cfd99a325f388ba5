"""What a git command would run or write that its command line does not show, checked for
every git command whatever rule or mode allows it: a repository planted as plain files
(``git_discovery``), a setting that names a program (``git_config``), the files a patch
names (``git_writes``), and protected files it would overwrite or delete (``git_worktree``).
Each adds a sticky ask (or a deny, for an Edit-denied patch target).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import cast

from .bash_git import git_folder, top_level
from .bash_verdict import Verdict, new_memo, resolved_once
from .bash_words import Word
from .compiled import PathScope
from .filesystem import EDIT_RULES
from .git_config import program_setting
from .git_discovery import planted_repository
from .git_worktree import brings_commits, changes_basis, spelled, worktree_problem, writes_worktree
from .git_writes import data_writes
from .paths import protected_reason_of


def git_guards(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    _planted_check(words, cwds, scope.roots, v)
    setting = program_setting(words)
    if setting is not None:
        v.sticky.append(setting)
    _patch_check(words, cwds, scope, v)
    for cwd in cwds:
        problem = worktree_problem(words, cwd, scope)
        if problem is not None:
            v.sticky.append(problem)
            return
    _basis_check(words, cwds, scope, v)


# git commands of the line seen so far: those changing the index or HEAD, those writing files
# (with where from: "revision" or "here"), and those bringing commits
_Seen = tuple[list[tuple[Word, ...]], list[tuple[tuple[Word, ...], list[str], str]], list[tuple[Word, ...]]]


def _basis_check(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``git reset --soft evil && git reset --hard``: each alone leaves protected files alone,
    but the first changes the HEAD the second writes from.  Every git command of the line that
    writes or removes working-tree files is checked again against every other one that changes
    the index or HEAD (``worktree_problem``'s ``changers``), whichever comes first in the text
    (a loop runs them in either order).  One that writes another revision's files in a line that
    also fetches (``git fetch X main:x && git checkout x``) asks: the fetched commits are not in
    the history listing the checks read."""
    memo = v.memo if v.memo is not None else new_memo(v)
    seen = cast("_Seen", memo.setdefault(("git basis",), ([], [], [])))
    changers, writers, bringers = seen
    writes = writes_worktree(words, cwds)
    brings = brings_commits(words)
    # git fetch X main:x && git checkout x: the fetched commits are not in the listing
    if writes == "revision" and bringers or brings and any(kind == "revision" for _w, _c, kind in writers):
        fetch = words if brings else bringers[0]
        v.sticky.append(f"{spelled(fetch)} brings commits the history listing does not hold yet, and the line "
                        "also writes files from another revision: they may change protected files (fetched in a "
                        "call of its own, they are checked)")
        return
    if brings:
        bringers.append(words)
    if writes:
        for changer in changers:
            if _basis_problem(words, cwds, scope, v, [changer]):
                return
        writers.append((words, cwds, writes))
    if changes_basis(words):
        for writer, writer_cwds, _kind in writers:
            if writer is not words and _basis_problem(writer, writer_cwds, scope, v, [words]):
                return
        changers.append(words)


def _basis_problem(
    words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict, changers: list[tuple[Word, ...]]
) -> bool:
    for cwd in cwds:
        problem = worktree_problem(words, cwd, scope, changers)
        if problem is not None:
            v.sticky.append(problem)
            return True
    return False


def _planted_check(words: tuple[Word, ...], cwds: list[str], roots: tuple[str, ...], v: Verdict) -> None:
    """git in a repository that is plain files (``git_discovery``) may run what they name."""
    memo = v.memo if v.memo is not None else new_memo(v)
    for cwd in cwds:
        folder = git_folder(words, cwd)[0]
        if folder is None:
            v.sticky.append("git -C names a folder only known at run time, so which repository's "
                            "configuration git reads is unknown")
            return
        key = ("planted", folder)
        if key not in memo:
            memo[key] = planted_repository(folder, roots)
        repo = memo[key]
        if repo is not None:
            v.sticky.append(f"git would use the repository in {repo}, which is not a .git folder: its "
                            "configuration and hooks are plain files that may name programs git runs")
            return


def _patch_check(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``git apply``/``am`` write the files their patches name (``git_writes``), from the cwd or
    the repository's top level."""
    named_writes_guard(lambda cwd: data_writes(words, cwd), cwds, scope, v, "patch",
                       bases=lambda cwd: dict.fromkeys((cwd, top_level(cwd))))


def named_writes_guard(
    writes: Callable[[str], tuple[str | None, Sequence[str]]], cwds: list[str], scope: PathScope, v: Verdict,
    what: str, bases: Callable[[str], Iterable[str]] = lambda cwd: (cwd,),
) -> None:
    """Check what a command writes though its words do not spell it (the files a patch, an
    archive, a URL or a copied folder names: ``what``), as if written directly.  ``writes(cwd)``
    gives ``(why it must ask, the paths)``; each path is resolved below each of ``bases(cwd)``."""
    for cwd in cwds:
        reason, paths = writes(cwd)
        if reason is not None:
            v.sticky.append(reason)
            return
        if not paths:
            continue  # (the common case: no patch, nothing to resolve)
        for base in bases(cwd):
            if not check_named_writes(paths, base, scope, v, what):
                return


def check_named_writes(paths: Sequence[str], cwd: str, scope: PathScope, v: Verdict, what: str) -> bool:
    """Check each path as if written directly; False once one asks or is denied (in ``v``)."""
    for path in paths:
        resolved = resolved_once(path, cwd, v)
        if resolved is None:
            v.sticky.append(f"the {what} writes {path}, which cannot be resolved")
            return False
        why = _named_write_problem(path, resolved, scope, v, what)
        if why is not None or v.deny:
            if why is not None:
                v.sticky.append(why)
            return False
    return True


def _named_write_problem(path: str, resolved: tuple[str, str], scope: PathScope, v: Verdict, what: str) -> str | None:
    """Why writing ``path`` (named in a patch or an archive: ``what``) must ask; a deny goes to ``v``."""
    reason = protected_reason_of(*resolved)
    if reason is not None:
        return f"the {what} writes {reason}"
    rule = scope.rule("deny", EDIT_RULES, *resolved)
    if rule is not None:
        v.deny = f"Permission to write {path} (named in the {what}) has been denied by the rule {rule}."
        return None
    asked = scope.rule("ask", EDIT_RULES, *resolved)
    if asked is not None:
        return f"the {what} writes {path} (rule {asked})"
    if not scope.inside(resolved[1]):
        return f"the {what} writes {path}, outside the working directories"
    return None


__all__ = ["check_named_writes", "git_guards", "named_writes_guard"]
