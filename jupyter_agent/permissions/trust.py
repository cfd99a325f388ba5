"""Folder trust: may a project's own ``.claude`` settings widen what the agent does?

A cloned repository can ship ``.claude/settings.json`` with allow rules, a permissive
``defaultMode``, extra directories and hooks (commands run at session start).  Like Claude
Code's "Do you trust the files in this folder?" dialog, those parts apply only in a folder the
user trusted.  Trusted folders are recorded in ``<home>/.jupyter-agent/trusted_folders.json``
(``{"folders": ["/real/abs/path", ...]}``); Claude Code's own record is honoured read-only:
``<home>/.claude.json`` → ``projects[<path>].hasTrustDialogAccepted``.  A folder is trusted when
it or one of its ancestors is recorded; paths compare as real paths, component by component.
A malformed record trusts nothing and says why; it never crashes the session.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.atomic import atomic_write_text
from ..errors import AgentConfigError
from .paths import home_dir as user_home
from .paths import is_within, real_dir

TRUST_FILE = Path(".jupyter-agent") / "trusted_folders.json"
CLAUDE_CODE_FILE = Path(".claude.json")


@dataclass(frozen=True)
class TrustRecords:
    """The recorded trusted folders (real paths) and any problem reading the records."""

    folders: tuple[Path, ...] = ()
    problems: tuple[str, ...] = ()

    def covers(self, project: str | os.PathLike[str]) -> bool:
        """``project`` is a recorded folder or inside one, by whole components."""
        real = real_dir(project)
        return any(is_within(real, str(folder)) for folder in self.folders)


def home_dir(home: str | os.PathLike[str] | None) -> Path:
    return Path(os.fspath(home)) if home is not None else user_home()


def trust_file(home: str | os.PathLike[str] | None = None) -> Path:
    """Where jupyter-agent records trusted folders."""
    return home_dir(home) / TRUST_FILE


def real_path(path: str | os.PathLike[str]) -> Path:
    """Absolute, with every symlink resolved (the identity a trust decision is about)."""
    return Path(real_dir(path))


def _read_json(path: Path) -> tuple[Any, str | None]:
    """(data, problem); data None when the file is absent or unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot read {path}: {exc}"
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); it trusts no folder"


def _folders(data: Any) -> list[str] | None:
    """The ``folders`` list of a trust file's content; None when the shape is wrong."""
    folders = data.get("folders", []) if isinstance(data, dict) else None
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        return None
    return folders


def _own_record(path: Path) -> tuple[list[Path], list[str]]:
    data, problem = _read_json(path)
    if data is None:
        return [], [problem] if problem else []
    folders = _folders(data)
    if folders is None:
        return [], [f'{path} must be an object like {{"folders": ["/abs/path"]}}; it trusts no folder']
    good = [real_path(f) for f in folders if os.path.isabs(f)]
    bad = [f for f in folders if not os.path.isabs(f)]
    problems = [f"{path}: ignored the relative folder {f!r} (write absolute paths)" for f in bad]
    return good, problems


def _claude_code_record(path: Path) -> tuple[list[Path], list[str]]:
    data, problem = _read_json(path)
    if data is None:
        return [], [problem] if problem else []
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return [], []
    folders = [
        real_path(key) for key, entry in projects.items()
        if isinstance(key, str) and os.path.isabs(key) and isinstance(entry, dict)
        and entry.get("hasTrustDialogAccepted") is True
    ]
    return folders, []


def load_trust_records(home: str | os.PathLike[str] | None = None) -> TrustRecords:
    """Every trusted folder from jupyter-agent's record and Claude Code's ``~/.claude.json``."""
    base = home_dir(home)
    own, own_problems = _own_record(base / TRUST_FILE)
    claude, claude_problems = _claude_code_record(base / CLAUDE_CODE_FILE)
    return TrustRecords(tuple(own + claude), tuple(own_problems + claude_problems))


def is_trusted(project: str | os.PathLike[str], home: str | os.PathLike[str] | None = None) -> bool:
    """True when ``project`` or an ancestor is recorded as trusted."""
    return load_trust_records(home).covers(project)


def trust_folder(project: str | os.PathLike[str], home: str | os.PathLike[str] | None = None) -> Path:
    """Record ``project`` (its real path) as trusted, keeping the file's other keys; returns the file.

    A malformed trust file is not overwritten: ``AgentConfigError`` says what to fix.
    """
    path = trust_file(home)
    data, problem = _read_json(path)
    if problem is not None:
        raise AgentConfigError(f"Cannot record the trusted folder: {problem}. Fix or remove the file.")
    data = {} if data is None else data
    folders = _folders(data)
    if folders is None:
        raise AgentConfigError(
            f'Cannot record the trusted folder: {path} must be an object like {{"folders": ["/abs/path"]}}. '
            "Fix or remove the file."
        )
    folder = str(real_path(project))
    if folder not in folders:
        folders.append(folder)
    data["folders"] = folders
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return path
