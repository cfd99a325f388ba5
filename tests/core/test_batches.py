from __future__ import annotations

import pytest

from jupyter_agent.core.batches import partition_tool_calls
from jupyter_agent.core.orchestration import ToolUseRequest


def _calls(spec: str) -> list[ToolUseRequest]:
    return [ToolUseRequest(f"{c}{i}", c, {}) for i, c in enumerate(spec)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("", []),
        ("R", [(True, 1)]),
        ("W", [(False, 1)]),
        ("RRR", [(True, 3)]),
        ("WW", [(False, 1), (False, 1)]),
        ("RRWRR", [(True, 2), (False, 1), (True, 2)]),
        ("WRW", [(False, 1), (True, 1), (False, 1)]),
        ("RRRRRRRRRRRR", [(True, 12)]),  # the cap of 10 is applied when running, not here
    ],
)
def test_partition(spec, expected):
    batches = partition_tool_calls(_calls(spec), lambda c: c.name == "R")
    assert [(b.concurrent, len(b.calls)) for b in batches] == expected
    flat = [c for b in batches for c in b.calls]
    assert flat == _calls(spec)  # order preserved
