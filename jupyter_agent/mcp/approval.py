"""Approval of the servers in a project's ``.mcp.json``: a cloned repository must not start programs.

Claude Code's settings keys decide: ``enableAllProjectMcpServers``, ``enabledMcpjsonServers``,
``disabledMcpjsonServers``.  They are read from the user's and the local (uncommitted) settings
only; the project's committed ``.claude/settings.json`` cannot approve its own servers, and the
local file's approvals count only once the user trusts the folder (``permissions.trust``): a
cloned repository can ship a ``settings.local.json`` too.  Rejections count everywhere.
Servers neither enabled nor disabled are pending: not started until the user approves them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.atomic import atomic_write_text
from ..errors import AgentConfigError
from ..permissions.settings import read_settings_file, settings_path
from ..permissions.trust import is_trusted

ApprovalState = Literal["approved", "rejected", "pending"]


@dataclass(frozen=True)
class ProjectServerApproval:
    enable_all: bool = False
    enabled: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()

    def state(self, name: str) -> ApprovalState:
        if name in self.disabled:
            return "rejected"
        if self.enable_all or name in self.enabled:
            return "approved"
        return "pending"


def _names(value: object) -> frozenset[str]:
    if isinstance(value, list):
        return frozenset(str(v) for v in value if isinstance(v, str))
    return frozenset()


def load_project_approval(project_dir: Path, home: Path | None = None) -> tuple[ProjectServerApproval, list[str]]:
    """The approval state from user and local settings, and any problem reading them."""
    enable_all = False
    enabled: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()
    errors: list[str] = []
    for source in ("userSettings", "localSettings"):
        try:
            data = read_settings_file(settings_path(source, project_dir, home))
        except AgentConfigError as exc:
            errors.append(str(exc))
            continue
        disabled |= _names(data.get("disabledMcpjsonServers"))
        if source == "localSettings" and data and not is_trusted(project_dir, home):
            continue  # approvals a cloned repository may have shipped
        if isinstance(data.get("enableAllProjectMcpServers"), bool):
            enable_all = data["enableAllProjectMcpServers"]
        enabled |= _names(data.get("enabledMcpjsonServers"))
    return ProjectServerApproval(enable_all, enabled, disabled), errors


def save_project_approval(project_dir: Path, names: list[str], *, approve: bool = True) -> Path:
    """Record the user's choice for ``names`` in ``.claude/settings.local.json`` (atomically)."""
    path = settings_path("localSettings", project_dir)
    data = read_settings_file(path)
    key, other = (
        ("enabledMcpjsonServers", "disabledMcpjsonServers")
        if approve
        else ("disabledMcpjsonServers", "enabledMcpjsonServers")
    )
    chosen = [n for n in data.get(key, []) if isinstance(n, str)]
    chosen += [n for n in names if n not in chosen]
    data[key] = chosen
    if isinstance(data.get(other), list):
        data[other] = [n for n in data[other] if n not in names]
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return path
