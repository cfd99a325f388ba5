from __future__ import annotations

from datetime import datetime, timezone

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.scheduler import CronScheduler, install_scheduler
from jupyter_agent.tools.cron import NO_SCHEDULER, CronCreateTool, CronDeleteTool, CronListTool
from tests.scheduler.clock import ManualClock
from tests.support.tools import make_context

T0 = datetime(2026, 11, 30, 10, 0, 30, tzinfo=timezone.utc)


def _ctx(tmp_path):
    clock = ManualClock(T0)
    submitted: list[str] = []
    ctx = make_context([CronCreateTool(), CronListTool(), CronDeleteTool()], tmp_path)
    sched = CronScheduler(lambda job: submitted.append(job.prompt), clock)
    install_scheduler(ctx.app_state_store, sched)
    return ctx, clock, sched, submitted


async def _run(ctx, name, inp, approver):
    return await run_tool_use(ToolUseRequest(f"id_{name}", name, inp), ctx, approver)


async def test_a_cron_prompt_fires_and_can_be_listed_and_deleted(tmp_path, reject):
    ctx, clock, sched, submitted = _ctx(tmp_path)
    out = await _run(ctx, "CronCreate", {"cron": "*/15 * * * *", "prompt": "check CI status"}, reject)
    assert not out.is_error, out.text
    job_id = out.result.data.job.id
    assert out.text.startswith(f"Scheduled recurring job {job_id} (*/15 * * * *), next run 2026-11-30 10:15 UTC.")
    assert reject.asks == []

    listed = await _run(ctx, "CronList", {}, reject)
    assert listed.text == f"{job_id}  */15 * * * *  (recurring, next 2026-11-30 10:15 UTC)  check CI status"

    await clock.advance_to(datetime(2026, 11, 30, 10, 31, tzinfo=timezone.utc))
    assert submitted == ["check CI status", "check CI status"]

    deleted = await _run(ctx, "CronDelete", {"id": job_id}, reject)
    assert deleted.text == f"Deleted scheduled job {job_id}."
    await clock.advance_to(datetime(2026, 11, 30, 11, 0, tzinfo=timezone.utc))
    assert len(submitted) == 2
    assert (await _run(ctx, "CronList", {}, reject)).text == "No scheduled jobs."
    await sched.close()


async def test_one_shot_job(tmp_path, approve):
    ctx, clock, sched, submitted = _ctx(tmp_path)
    out = await _run(ctx, "CronCreate", {"cron": "45 10 * * *", "prompt": "remind me", "recurring": False}, approve)
    assert "one-shot job" in out.text
    await clock.advance_to(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    assert submitted == ["remind me"] and sched.list() == []


async def test_errors(tmp_path, approve):
    ctx, _clock, sched, _ = _ctx(tmp_path)
    bad = await _run(ctx, "CronCreate", {"cron": "every hour", "prompt": "x"}, approve)
    assert bad.is_error and "Invalid cron expression" in bad.text
    missing = await _run(ctx, "CronDelete", {"id": "nope"}, approve)
    assert missing.is_error and "No scheduled job with id 'nope'" in missing.text
    bare = make_context([CronCreateTool()], tmp_path)
    out = await _run(bare, "CronCreate", {"cron": "* * * * *", "prompt": "x"}, approve)
    assert out.is_error and out.text == NO_SCHEDULER
    assert sched.list() == []


async def test_plan_mode_blocks_scheduling(tmp_path, approve):
    from dataclasses import replace

    ctx, _clock, sched, _ = _ctx(tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="plan")))
    out = await _run(ctx, "CronCreate", {"cron": "* * * * *", "prompt": "x"}, approve)
    assert out.is_error and sched.list() == []
    assert not (await _run(ctx, "CronList", {}, approve)).is_error
