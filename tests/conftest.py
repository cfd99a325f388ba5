from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions import managed

# The machine's own managed settings (/etc/claude-code) never reach a test: this folder does not
# exist.  Tests of the managed settings point ``MANAGED_DIR`` at a folder of their own.
managed.MANAGED_DIR = Path(tempfile.gettempdir()) / "jupyter-agent-tests-no-managed-settings"


class RecordingApprover:
    """A ``can_use_tool`` for tests: answers with a fixed decision and records every ask."""

    def __init__(self, decision=None) -> None:
        self.decision = decision or PermissionAllow()
        self.asks: list[tuple[str, PermissionAsk]] = []

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks.append((tool.name, ask))
        return self.decision


@pytest.fixture
def approve():
    return RecordingApprover(PermissionAllow())


@pytest.fixture
def reject():
    return RecordingApprover(PermissionDeny("The user said no: use a different file."))


@pytest.fixture
def managed_policy(tmp_path, monkeypatch) -> Path:
    """An empty folder that is this test's managed settings folder (``/etc/claude-code``)."""
    folder = tmp_path / "managed-policy"
    folder.mkdir()
    monkeypatch.setattr(managed, "MANAGED_DIR", folder)
    return folder
