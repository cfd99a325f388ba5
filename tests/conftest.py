from __future__ import annotations

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny


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
