"""Old sessions are removed at session start: ``cleanupPeriodDays`` (Claude Code's setting, default 30).

A session leaves ``<sessions_dir>/<id>.jsonl`` (its transcript) and ``<sessions_dir>/<id>/`` (saved
tool outputs, background-task logs, MCP logs, task lists).  Those of sessions idle for longer than
the period are deleted, in a background thread so the kernel never waits.  Only names that look
like session ids are touched, the running session never, and a symlink is removed as a link
(its target is left alone).  ``0`` keeps everything.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from .config import SessionConfig, default_sessions_dir

log = logging.getLogger(__name__)
DEFAULT_DAYS = 30
_SESSION_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{8}")


def cleanup_folders(config: SessionConfig) -> list[Path]:
    """Where sessions live: every project's folder under the default place, or the configured one."""
    if config.sessions_dir is not None:
        return [Path(config.sessions_dir)]
    base = default_sessions_dir()
    try:
        with os.scandir(base) as entries:
            return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def cleanup_old_sessions(folders: Iterable[Path], days: int, keep: str, now: float | None = None) -> list[str]:
    """Delete sessions idle for more than ``days`` days (none when ``days <= 0``); their ids."""
    if days <= 0:
        return []
    cutoff = (time.time() if now is None else now) - days * 86400
    removed: list[str] = []
    for folder in folders:
        for session_id, paths in _sessions_in(folder, keep).items():
            if max(_last_activity(p) for p in paths) >= cutoff:
                continue
            for path in paths:
                _remove(path)
            removed.append(session_id)
    return removed


def start_cleanup(config: SessionConfig, days: int, keep: str) -> threading.Thread | None:
    """Run ``cleanup_old_sessions`` in a daemon thread (never blocks, never fails the session)."""
    if days <= 0:
        return None

    def run() -> None:
        try:
            removed = cleanup_old_sessions(cleanup_folders(config), days, keep)
            if removed:
                log.info("removed %d session(s) idle for more than %d days", len(removed), days)
        except Exception:  # cleaning up is a courtesy; it must not disturb the session
            log.exception("session cleanup failed")

    thread = threading.Thread(target=run, name="jupyter-agent-cleanup", daemon=True)
    thread.start()
    return thread


def _sessions_in(folder: Path, keep: str) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries]
    except OSError:
        return found
    for name in names:
        session_id = name[:-6] if name.endswith(".jsonl") else name
        if session_id != keep and _SESSION_ID.fullmatch(session_id):
            found.setdefault(session_id, []).append(folder / name)
    return found


def _last_activity(path: Path) -> float:
    """The newest mtime of the path and, for a real folder, of everything in it."""
    try:
        info = os.lstat(path)
    except OSError:
        return float("inf")  # vanished or unreadable: leave it
    newest = info.st_mtime
    if stat.S_ISDIR(info.st_mode):
        for root, dirs, files in os.walk(path):  # os.walk does not follow symlinked folders
            for name in (*dirs, *files):
                try:
                    newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
                except OSError:
                    continue
    return newest


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError as exc:
        log.warning("could not remove old session data %s: %s", path, exc)
