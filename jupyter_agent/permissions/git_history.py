"""Every path git's history holds: a secret committed once and removed since is still printed
by ``git log -p``, ``git show OLD``, ``git diff OLD`` or ``git cat-file``.

The index (``git_index``) tells what is tracked now; the history needs git itself.  Running it
inside the synchronous permission check would block the kernel's event loop, so the check only
reads a cache: when the cache does not know the repository in its current state, the check
records the repository as wanted (``noting_wanted``'s set in the permission thread, else the
module's ``wanted``) and asks, and the async entry point (``permission_thread.decide_off_loop``)
lists the history in a subprocess on the loop, then decides again.  A listing is valid while the refs are unchanged (``refs_state``), so it runs
once per commit, fetch or checkout, not per command.

What is listed: the paths every commit reachable from a ref, a reflog entry or a pseudo-ref
(``FETCH_HEAD``, ``ORIG_HEAD``, ``MERGE_HEAD`` …) changed (``--all --reflog``; stashes and their
untracked-files commits included), merges against their first parent (a file only an evil merge
added), root commits in full; the ids of those commits; and the id of each file in HEAD's tree
(``git reset --hard`` and ``git stash`` also throw away staged changes: ``git_worktree`` compares
the index with it).  Objects none of them reaches (an
unstaged blob, a dropped stash, a commit fetched with ``--no-write-fetch-head``) are not
listed: ``git_objects`` makes a command that names one by id ask.  A listing that fails or takes longer
than ``HISTORY_TIMEOUT`` counts as unknown, and the commands that would print history ask (fail
closed).
"""

from __future__ import annotations

import asyncio
import bisect
import contextvars
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..core.child_process import run_child
from .paths import open_regular, open_regular_text

HISTORY_TIMEOUT = 20.0  # seconds for one listing; past it the history counts as unknown
_MAX_REPOS = 32

# repo → (refs_state, its History, or None when the listing failed)
_LISTED: dict[str, tuple[tuple[object, ...], History | None]] = {}
wanted: set[str] = set()  # repositories a synchronous check needed and found unlisted
# the set a check made inside ``noting_wanted`` adds to instead (one per decision, per thread)
_NOTING: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("git_history_noting", default=None)

_UNLISTED = object()


def _common_dir(repo: str) -> str:
    """Where a worktree's refs live (``commondir``), or ``repo`` itself."""
    try:
        with open_regular_text(os.path.join(repo, "commondir"), encoding="utf-8") as f:
            return os.path.normpath(os.path.join(repo, f.read().strip()))
    except (OSError, UnicodeDecodeError):
        return repo


def refs_state(repo: str) -> tuple[object, ...]:
    """What changes whenever a ref or reflog does: HEAD, packed-refs and the HEAD reflog, and
    every file and folder under ``refs/`` and ``reftable/`` (a ref is rewritten by renaming a
    lock file over it, which changes its folder too)."""
    common = _common_dir(repo)
    state: list[object] = []
    for path in (os.path.join(repo, "HEAD"), os.path.join(common, "packed-refs"),
                 os.path.join(common, "logs", "HEAD"), *_pseudo_ref_files(repo, common)):
        state.append(_stamp(path))
    for top in (os.path.join(common, "refs"), os.path.join(common, "reftable")):
        state.extend(_tree_stamps(top))
    return tuple(state)


# Pseudo-refs name commits outside refs/ and the reflogs: ``git fetch URL BRANCH`` stores what
# it fetched only in FETCH_HEAD (``git merge FETCH_HEAD``, ``git checkout FETCH_HEAD -- .``,
# ``git show FETCH_HEAD:.env`` use it); the others hold where an operation started or stopped.
_PSEUDO_REFS = ("FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD",
                "BISECT_HEAD")
_ID = re.compile(rb"^([0-9a-f]{40}|[0-9a-f]{64})(?![0-9a-f])", re.MULTILINE)


def _pseudo_ref_files(repo: str, common: str) -> list[str]:
    folders = (repo,) if common == repo else (repo, common)
    return [os.path.join(folder, name) for folder in folders for name in _PSEUDO_REFS]


def pseudo_ref_ids(repo: str) -> list[str]:
    """Every object id the pseudo-refs hold (each line of FETCH_HEAD counts)."""
    ids: list[str] = []
    for path in _pseudo_ref_files(repo, _common_dir(repo)):
        try:
            with open_regular(path) as f:
                data = f.read(1 << 20)
        except OSError:
            continue
        ids.extend(m.decode() for m in _ID.findall(data) if m.decode() not in ids)
    return ids


def _stamp(path: str) -> object:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _tree_stamps(top: str) -> Iterable[object]:
    stack = [top]
    while stack:
        folder = stack.pop()
        yield (folder, _stamp(folder))
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        yield (entry.path, _stamp(entry.path))
        except OSError:
            continue


@dataclass(frozen=True)
class History:
    """What a listing found: the paths the history holds, every commit it reaches, and the
    object id of each file in HEAD's tree (empty when HEAD names no commit or could not be
    listed: then every tracked file counts as staged differently)."""

    paths: tuple[str, ...]
    commits: tuple[str, ...]  # full ids, sorted
    head: dict[str, str] = field(default_factory=dict)

    def reaches(self, name: str) -> bool:
        """Is the hex ``name`` (a full or abbreviated object id) one of the reachable commits?"""
        name = name.lower()
        i = bisect.bisect_left(self.commits, name)
        return i < len(self.commits) and self.commits[i].startswith(name)


def listed_history(repo: str) -> History | None | object:
    """``repo``'s listed history; ``None`` when it could not be listed; ``UNLISTED`` (and
    ``repo`` added to ``wanted``) when not listed for the current refs yet."""
    known = _LISTED.get(repo)
    if known is not None and known[0] == refs_state(repo):
        return known[1]
    noting = _NOTING.get()
    (wanted if noting is None else noting).add(repo)
    return _UNLISTED


@contextmanager
def noting_wanted() -> Iterator[set[str]]:
    """The repositories the checks made inside the block found unlisted, in a set of their own
    (a decision in the permission thread does not share the module's ``wanted`` with others)."""
    mine: set[str] = set()
    token = _NOTING.set(mine)
    try:
        yield mine
    finally:
        _NOTING.reset(token)


UNLISTED = _UNLISTED


async def list_history(repo: str, timeout: float = HISTORY_TIMEOUT) -> None:
    """List ``repo``'s history with git in subprocesses (on the running loop) into the cache."""
    state = refs_state(repo)
    # --ignore-missing: a pseudo-ref whose objects were pruned since names nothing
    starts = ("--all", "--reflog", "--ignore-missing", *pseudo_ref_ids(repo))
    names, commits, head = await asyncio.gather(
        _git_output(repo, timeout, "log", *starts, "--format=", "--name-only", "--no-renames",
                    "--diff-merges=first-parent", "-z"),
        _git_output(repo, timeout, "rev-list", *starts),
        _git_output(repo, timeout, "ls-tree", "-r", "-z", "--full-tree", "HEAD"),
    )
    history = None
    if names is not None and commits is not None:
        paths = tuple(sorted({n for n in names.decode("utf-8", "surrogateescape").split("\0") if n}))
        history = History(paths, tuple(sorted(commits.decode("ascii", "replace").split())), _tree_ids(head))
    if len(_LISTED) >= _MAX_REPOS:
        _LISTED.pop(next(iter(_LISTED)))
    _LISTED[repo] = (state, history)


def _tree_ids(listing: bytes | None) -> dict[str, str]:
    """``git ls-tree -r -z`` output (``MODE TYPE ID\tPATH\0``…) as path → id."""
    ids: dict[str, str] = {}
    for entry in (listing or b"").decode("utf-8", "surrogateescape").split("\0"):
        meta, tab, path = entry.partition("\t")
        if tab:
            ids[path] = meta.rpartition(" ")[2]
    return ids


async def _git_output(repo: str, timeout: float, *args: str) -> bytes | None:
    """What ``git ARGS`` printed in ``repo``, or None when it failed, took too long or printed
    more than ``_MAX_LISTING`` bytes."""
    command = ("git", "--no-pager", "--git-dir", repo, "-c", "log.showSignature=false", "-c", "core.quotePath=false",
               "-c", "core.fsmonitor=false", "-c", "diff.external=", *args)  # no program from the repository runs
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    try:
        done = await run_child(command, stderr=subprocess.DEVNULL, timeout=timeout, limit=_MAX_LISTING, env=env)
    except (OSError, asyncio.TimeoutError):
        return None
    return done.stdout if done.returncode == 0 and not done.cut else None


_MAX_LISTING = 256 << 20
_RUNNING: dict[str, asyncio.Future[None]] = {}  # listings under way: parallel decisions share one


async def list_wanted(repos: Iterable[str] | None = None) -> bool:
    """List ``repos`` (by default every repository a synchronous check asked for); True when
    there was any.  Decisions made in parallel (read-only tools run up to ten at once) wait for
    one listing per repository."""
    if repos is None:
        repos = set(wanted)
        wanted.clear()
    repos = sorted(repos)
    loop = asyncio.get_running_loop()
    for repo in repos:
        running = _RUNNING.get(repo)
        if running is None or running.get_loop() is not loop:
            running = _RUNNING[repo] = asyncio.ensure_future(list_history(repo))
            running.add_done_callback(lambda done, repo=repo: _RUNNING.pop(repo, None) if _RUNNING.get(repo) is done else None)
        await asyncio.shield(running)
    return bool(repos)


def forget() -> None:
    """Drop every listing (tests)."""
    _LISTED.clear()
    _RUNNING.clear()
    wanted.clear()


__all__ = [
    "HISTORY_TIMEOUT", "UNLISTED", "History", "forget", "list_history", "list_wanted",
    "listed_history", "noting_wanted", "refs_state",
]
