"""CronScheduler: one asyncio task per job on the session's loop, submitting prompts when due.

The session creates the scheduler with its submit callback and installs it in its app state::

    scheduler = CronScheduler(submit=lambda job: session.submit(job.prompt))
    install_scheduler(session.app_state_store, scheduler)

``submit`` may be sync or async; it should show the prompt in the transcript as a scheduled
one (``job.id``, ``job.cron``).  Errors it raises are kept in ``last_errors`` and never stop
the job.  Call ``close()`` when the session ends (the jobs live only as long as the kernel).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import Protocol

from ..core.context import AppState, AppStateStore
from .jobs import CronJob, next_fire, validate_cron

STATE_KEY = "scheduler"
MAX_JOBS = 50
CronSubmit = Callable[[CronJob], "Awaitable[None] | None"]


class Clock(Protocol):
    def now(self) -> datetime: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Local wall-clock time; cron expressions are read in the kernel's local timezone."""

    def now(self) -> datetime:
        return datetime.now().astimezone()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class CronScheduler:
    def __init__(self, submit: CronSubmit, clock: Clock | None = None) -> None:
        self._submit = submit
        self._clock = clock or SystemClock()
        self._jobs: dict[str, CronJob] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.last_errors: dict[str, str] = {}

    def create(self, cron: str, prompt: str, recurring: bool = True) -> CronJob:
        """Schedule a job (must be called on the loop). Raises ValueError with a readable reason."""
        problem = validate_cron(cron)
        if problem:
            raise ValueError(problem)
        if len(self._jobs) >= MAX_JOBS:
            raise ValueError(f"Too many scheduled jobs (limit {MAX_JOBS}); delete some with CronDelete.")
        job = CronJob(secrets.token_hex(4), cron, prompt, recurring, self._clock.now())
        self._jobs[job.id] = job
        self._tasks[job.id] = asyncio.get_running_loop().create_task(self._run(job))
        return job

    def list(self) -> list[CronJob]:
        return list(self._jobs.values())

    def next_run(self, job: CronJob) -> datetime:
        return next_fire(job.cron, self._clock.now())

    def delete(self, job_id: str) -> bool:
        task = self._tasks.pop(job_id, None)
        found = self._jobs.pop(job_id, None) is not None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        return found

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._jobs.clear()
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, job: CronJob) -> None:
        while job.id in self._jobs:
            due = next_fire(job.cron, self._clock.now())
            # Sleep until due; re-check the clock because sleeps can end early or late.
            while (wait := (due - self._clock.now()).total_seconds()) > 0:
                await self._clock.sleep(wait)
            if job.id not in self._jobs:
                return
            if not job.recurring:
                self.delete(job.id)
            await self._fire(job)
            if not job.recurring:
                return

    async def _fire(self, job: CronJob) -> None:
        try:
            result = self._submit(job)
            if inspect.isawaitable(result):
                await result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing submit must not kill the schedule
            self.last_errors[job.id] = f"{type(exc).__name__}: {exc}"


def install_scheduler(store: AppStateStore, scheduler: CronScheduler) -> None:
    store.set(lambda s: replace(s, extra={**s.extra, STATE_KEY: scheduler}))


def get_scheduler(state: AppState) -> CronScheduler | None:
    value = state.extra.get(STATE_KEY)
    return value if isinstance(value, CronScheduler) else None
