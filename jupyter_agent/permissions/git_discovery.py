"""Which repository git would use from a folder, found the way git finds it, and whether that
repository is one the user made.

git runs programs named in a repository's configuration (``core.fsmonitor`` on ``git status``,
``diff.*.textconv`` on ``git diff``, hooks on commits).  The project's ``.git`` is a protected
path, so its configuration is the user's.  But git also takes any folder holding ``HEAD`` and
``objects`` as a (bare) repository, and such a folder is plain files: a Write into
``sub/config`` plants ``fsmonitor = <program>``, and ``git -C sub status`` runs it.  So a git
command whose repository is not a ``.git`` folder (or a ``.git`` file pointing into one, as
worktrees and submodules do) asks, in every mode and past allow rules.

Like git, the walk goes up from the folder: a ``.git`` entry first, then the folder itself as
a repository.  Where it differs it asks more: anything with ``HEAD`` and ``objects`` (or
``commondir``) counts as a repository, and it does not stop at file-system boundaries or
``GIT_CEILING_DIRECTORIES``; it does stop at the working directories, above which writing
asks anyway.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection

from .git_index import gitfile_target


def planted_repository(folder: str, roots: Collection[str] = ()) -> str | None:
    """The repository git would use from the real, absolute ``folder`` when it is not one the
    user made (see the module docstring); None when it is, or when there is none.  The walk
    stops at the first of ``roots`` (the working directories) it reaches: what git finds above
    them is the user's, since writing there asks."""
    current = folder.rstrip("/")
    while True:
        dot_git = current + "/.git"
        try:
            mode = os.stat(dot_git).st_mode
        except OSError:
            mode = 0
        if stat.S_ISREG(mode):
            target = gitfile_target(dot_git, current or "/")
            return None if target is not None and ".git" in target.split("/") else target or dot_git
        if stat.S_ISDIR(mode) and looks_like_repository(dot_git):
            return None
        if looks_like_repository(current or "/"):
            return current or "/"
        if not current or (current in roots):
            return None
        current = current.rpartition("/")[0]


def looks_like_repository(path: str) -> bool:
    """Might git take ``path`` for a repository folder?  (git also wants ``refs`` and a valid
    ``HEAD``; asking about more folders than git uses is the safe side.)"""
    return os.path.lexists(path + "/HEAD") and (
        os.path.lexists(path + "/objects") or os.path.lexists(path + "/commondir")
    )


__all__ = ["looks_like_repository", "planted_repository"]
