"""What a git command would run or write that its command line does not show, checked for
every git command whatever rule or mode allows it: a repository planted as plain files
(``git_discovery``), a setting that names a program (``git_config``), and the files a patch
names (``git_writes``).  Each adds a sticky ask (or a deny, for an Edit-denied patch target).
"""

from __future__ import annotations

from .bash_git import git_folder, top_level
from .bash_verdict import Verdict, new_memo, resolved_once
from .bash_words import Word
from .compiled import PathScope
from .filesystem import EDIT_RULES
from .git_config import program_setting
from .git_discovery import planted_repository
from .git_writes import data_writes
from .paths import protected_reason_of


def git_guards(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    _planted_check(words, cwds, scope.roots, v)
    setting = program_setting(words)
    if setting is not None:
        v.sticky.append(setting)
    _patch_check(words, cwds, scope, v)


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
    """``git apply``/``am`` write the files their patches name (``git_writes``): a protected,
    Edit-denied or outside path among them is checked as if written directly."""
    for cwd in cwds:
        reason, paths = data_writes(words, cwd)
        if reason is not None:
            v.sticky.append(reason)
            return
        for base in dict.fromkeys((cwd, top_level(cwd))):
            for path in paths:
                resolved = resolved_once(path, base, v)
                if resolved is None:
                    v.sticky.append(f"the patch names {path}, which cannot be resolved")
                    return
                why = patched_path_problem(path, resolved, scope, v)
                if why is not None or v.deny:
                    if why is not None:
                        v.sticky.append(why)
                    return


def patched_path_problem(
    path: str, resolved: tuple[str, str], scope: PathScope, v: Verdict, what: str = "patch"
) -> str | None:
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


__all__ = ["git_guards", "patched_path_problem"]
