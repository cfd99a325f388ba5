"""The administrator's managed settings: Claude Code's ``managed-settings.json``.

    /etc/claude-code/managed-settings.json                          (Linux, WSL)
    /Library/Application Support/ClaudeCode/managed-settings.json   (macOS)
    C:\\Program Files\\ClaudeCode\\managed-settings.json               (Windows)

plus every ``*.json`` in ``managed-settings.d/`` beside it, merged on top in name order
(objects merge key by key, lists join, anything else: the later file wins).  The result is the
highest settings source, ``policySettings``: always applied (no folder trust needed), its
deny / ask rules and hooks beside everyone else's, its ``defaultMode``, ``cleanupPeriodDays``
and sandbox switches above every other file's.  Two keys count only here:
``permissions.allowManagedPermissionRulesOnly`` (only these allow rules apply, and nothing
offers "Always allow") and ``allowManagedHooksOnly`` (only these hooks run).

A managed file that cannot be read or is malformed stops the session (``AgentConfigError``
naming the file): a policy that cannot be read is not silently skipped.  The folder is a
protected path (``paths.py``): the agent never writes it without asking, in any mode.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AgentConfigError

if TYPE_CHECKING:
    from .settings import FileSettings

MANAGED_FILE = "managed-settings.json"
DROP_INS = "managed-settings.d"
# Where the managed settings live when the caller names no folder (None: the platform's own).
# Tests and unusual deployments set it; a project's files cannot.
MANAGED_DIR: Path | None = None


def platform_managed_dir() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    if os.name == "nt":
        return Path(r"C:\Program Files\ClaudeCode")  # not from %ProgramFiles%: the user sets that
    return Path("/etc/claude-code")


def managed_dir() -> Path:
    return MANAGED_DIR if MANAGED_DIR is not None else platform_managed_dir()


def managed_files(folder: Path) -> list[Path]:
    """``managed-settings.json`` (when present), then the drop-ins in name order."""
    files = [folder / MANAGED_FILE] if os.path.lexists(folder / MANAGED_FILE) else []
    drop_ins = folder / DROP_INS
    if os.path.isdir(drop_ins):
        try:
            names = sorted(os.listdir(drop_ins))
        except OSError as exc:
            raise AgentConfigError(f"Cannot read the managed settings folder {drop_ins}: {exc}") from exc
        files.extend(drop_ins / n for n in names if n.endswith(".json") and not n.startswith("."))
    return files


def _read_files(folder: str | os.PathLike[str] | None) -> tuple[Path, list[tuple[Path, dict[str, Any]]]]:
    """The managed settings folder and each of its files' JSON, in merge order."""
    from .settings import read_settings_file

    base = Path(folder) if folder is not None else managed_dir()
    return base, [(path, read_settings_file(path)) for path in managed_files(base)]


def _merged(base: Path, files: list[tuple[Path, dict[str, Any]]]) -> tuple[dict[str, Any], Path | None]:
    merged: dict[str, Any] = {}
    for _path, data in files:
        merged = merge(merged, data)
    if not merged:
        return {}, None
    return merged, files[0][0] if len(files) == 1 else base


def read_managed(folder: str | os.PathLike[str] | None = None) -> tuple[dict[str, Any], Path | None]:
    """The merged managed settings and the path that names them ({} and None when there are none)."""
    return _merged(*_read_files(folder))


def load_managed_settings(
    project: Path, folder: str | os.PathLike[str] | None = None
) -> FileSettings | None:
    """The managed settings, validated file by file (errors name the file), then merged."""
    from .settings import POLICY, parse_settings_file

    base, files = _read_files(folder)
    for path, data in files:
        parse_settings_file(POLICY, path, data, project)
    merged, label = _merged(base, files)
    if label is None:
        return None
    return parse_settings_file(POLICY, label, merged, project)


def merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    """``high`` on top of ``low``: objects key by key, lists joined (no repeats), else ``high``."""
    out = dict(low)
    for key, value in high.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = merge(old, value)
        elif isinstance(old, list) and isinstance(value, list):
            seen = {json.dumps(v, sort_keys=True) for v in old}
            out[key] = old + [v for v in value if json.dumps(v, sort_keys=True) not in seen]
        else:
            out[key] = value
    return out


_FOLDER: list[Any] = [None, ()]  # (MANAGED_DIR they were worked out for, the folder's prefixes)


def managed_reason(form: str) -> str | None:
    """Why ``form`` (an absolute, normalized path, as written or real) is protected as the
    managed settings folder or a file in it; None when it is not there.  The folder counts as
    named and as its real path (a symlinked ``/etc/claude-code``)."""
    if _FOLDER[0] is not MANAGED_DIR or not _FOLDER[1]:
        folder = os.fspath(managed_dir())
        _FOLDER[:] = [MANAGED_DIR, tuple(dict.fromkeys(
            os.path.normcase(f).rstrip(os.sep) + os.sep for f in (folder, os.path.realpath(folder))))]
    path = os.path.normcase(form)
    if path.startswith(_FOLDER[1]) or path + os.sep in _FOLDER[1]:
        return f"{form} is the administrator's managed settings (a protected path)"
    return None
