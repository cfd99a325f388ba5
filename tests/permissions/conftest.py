from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny

EXPECTED = {"allow": PermissionAllow, "ask": PermissionAsk, "deny": PermissionDeny}


@dataclass
class World:
    """A project, a home folder and an outside folder with a few real files and links."""

    root: Path
    project: Path
    home: Path
    outside: Path


@pytest.fixture
def world(tmp_path, monkeypatch) -> World:
    project, home, outside = tmp_path / "proj", tmp_path / "home", tmp_path / "outside"
    for d in (project / "sub", project / ".git", home / ".ssh", outside):
        d.mkdir(parents=True)
    (project / ".env").write_text("SECRET=1\n")
    (project / "a.py").write_text("print(1)\n")
    (project / ".git" / "config").write_text("[core]\n")
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    (outside / "data.txt").write_text("x\n")
    os.symlink(project / ".env", project / "env-link")
    os.symlink(home / ".ssh" / "id_rsa", project / "key")
    os.symlink(outside / "data.txt", project / "out-link")
    monkeypatch.setenv("HOME", str(home))
    return World(tmp_path, project, home, outside)


def verdict_name(verdict: object) -> str:
    for name, cls in EXPECTED.items():
        if isinstance(verdict, cls):
            return name
    raise AssertionError(f"not a decision: {verdict!r}")
