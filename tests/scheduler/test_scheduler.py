from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jupyter_agent.core.context import AppStateStore
from jupyter_agent.scheduler import CronScheduler, get_scheduler, install_scheduler
from tests.scheduler.clock import ManualClock

T0 = datetime(2026, 11, 30, 10, 0, 30, tzinfo=timezone.utc)


def at(h: int, m: int) -> datetime:
    return datetime(2026, 11, 30, h, m, tzinfo=timezone.utc)


async def test_recurring_and_one_shot_jobs_fire_on_schedule():
    clock = ManualClock(T0)
    fired: list[tuple[str, str]] = []

    async def submit(job):
        fired.append((job.prompt, clock.now().strftime("%H:%M")))

    sched = CronScheduler(submit, clock)
    every5 = sched.create("*/5 * * * *", "check the build")
    once = sched.create("0 11 * * *", "write the report", recurring=False)
    await clock.advance_to(at(10, 16))
    assert fired == [("check the build", t) for t in ("10:05", "10:10", "10:15")]
    await clock.advance_to(at(11, 1))
    assert fired.count(("write the report", "11:00")) == 1
    assert [j.id for j in sched.list()] == [every5.id]  # the one-shot job is gone
    assert once.id not in [j.id for j in sched.list()]
    assert len([f for f in fired if f[0] == "check the build"]) == 12
    await sched.close()


async def test_delete_stops_a_job_and_close_stops_all():
    clock = ManualClock(T0)
    fired: list[str] = []
    sched = CronScheduler(lambda job: fired.append(job.prompt), clock)  # a sync submit works too
    a = sched.create("* * * * *", "a")
    sched.create("* * * * *", "b")
    await clock.advance_to(at(10, 2))
    assert sorted(fired) == ["a", "a", "b", "b"]
    assert sched.delete(a.id) and not sched.delete(a.id)
    await clock.advance_to(at(10, 4))
    assert fired.count("a") == 2 and fired.count("b") == 4
    await sched.close()
    await clock.advance_to(at(10, 10))
    assert fired.count("b") == 4 and sched.list() == []


async def test_a_failing_submit_is_recorded_and_the_job_keeps_running():
    clock = ManualClock(T0)
    calls: list[str] = []

    def submit(job):
        calls.append(clock.now().strftime("%H:%M"))
        raise RuntimeError("session busy")

    sched = CronScheduler(submit, clock)
    job = sched.create("* * * * *", "x")
    await clock.advance_to(at(10, 3))
    assert calls == ["10:01", "10:02", "10:03"]
    assert sched.last_errors[job.id] == "RuntimeError: session busy"
    await sched.close()


async def test_invalid_and_too_many_jobs():
    sched = CronScheduler(lambda job: None, ManualClock(T0))
    with pytest.raises(ValueError, match="5 fields"):
        sched.create("* *", "x")
    for i in range(50):
        sched.create("0 0 1 1 *", f"p{i}")
    with pytest.raises(ValueError, match="Too many"):
        sched.create("0 0 1 1 *", "one more")
    await sched.close()


async def test_install_in_app_state():
    store = AppStateStore()
    sched = CronScheduler(lambda job: None, ManualClock(T0))
    assert get_scheduler(store.get()) is None
    install_scheduler(store, sched)
    assert get_scheduler(store.get()) is sched
