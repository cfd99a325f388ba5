from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jupyter_agent.scheduler import next_fire, validate_cron

T0 = datetime(2026, 11, 30, 10, 0, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("*/5 * * * *", datetime(2026, 11, 30, 10, 5, tzinfo=timezone.utc)),
        ("0 9 * * 1-5", datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)),
        ("30 10 30 11 *", datetime(2026, 11, 30, 10, 30, tzinfo=timezone.utc)),
        ("0 10 30 11 *", datetime(2027, 11, 30, 10, 0, tzinfo=timezone.utc)),  # 10:00 today has passed
    ],
)
def test_next_fire(expr, expected):
    assert next_fire(expr, T0) == expected


@pytest.mark.parametrize(
    ("expr", "needle"),
    [("* * * *", "5 fields"), ("* * * * * *", "5 fields"), ("61 * * * *", "out of range"), ("a b c d e", "malformed")],
)
def test_invalid_expressions(expr, needle):
    assert needle in validate_cron(expr)


def test_valid_expression():
    assert validate_cron("0 */2 * * *") is None
