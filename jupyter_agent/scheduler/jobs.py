"""Cron jobs as values, and the pure cron arithmetic (standard 5-field expressions, local time)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from croniter import croniter


@dataclass(frozen=True)
class CronJob:
    id: str
    cron: str
    prompt: str
    recurring: bool
    created_at: datetime


def validate_cron(expr: str) -> str | None:
    """``None`` when ``expr`` is a valid 5-field cron expression, else what is wrong."""
    fields = expr.split()
    if len(fields) != 5:
        return (
            f"Invalid cron expression {expr!r}: use 5 fields (minute hour day-of-month month "
            "day-of-week), e.g. '*/5 * * * *' or '0 9 * * 1-5'."
        )
    if not croniter.is_valid(expr):
        return f"Invalid cron expression {expr!r}: a field is out of range or malformed."
    return None


def next_fire(expr: str, after: datetime) -> datetime:
    """The first time strictly after ``after`` that matches ``expr`` (same timezone as ``after``)."""
    return croniter(expr, after).get_next(datetime)
