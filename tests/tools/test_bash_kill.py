"""Timeouts and aborts kill the whole process group; nothing survives, nothing hangs."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_agent.core.orchestration import INTERRUPTED_MESSAGE
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.tasks.shell_support import (
    bash,
    bash_context,
    eventually,
    live_with,
    sleeps_with,
    token,
)


async def test_timeout_kills_the_command_and_says_so(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    outcome = await bash(ctx, approve, f"echo before; sleep {mark}; echo finished", timeout=300)
    assert outcome.text.startswith("before\n")
    assert "finished" not in outcome.text
    assert "Command timed out after 0.3 s and was killed." in outcome.text
    assert outcome.result.data.timed_out
    assert live_with(mark) == []


async def test_timeout_kills_a_grandchild_holding_stdout(tmp_path, approve):
    """A grandchild in a subshell keeps the output open; it must die with the group."""
    ctx = bash_context(tmp_path)
    mark = token()
    command = f"( sleep {mark}; echo late ) & ( bash -c 'sleep {mark}' ) & echo started; wait"
    outcome = await bash(ctx, approve, command, timeout=400)
    assert outcome.text.startswith("started")
    assert outcome.result.data.timed_out
    assert live_with(mark) == []


async def test_leftover_background_process_is_stopped_when_command_returns(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    outcome = await bash(ctx, approve, f"sleep {mark} & echo returned")
    assert outcome.text == "returned" and not outcome.result.data.timed_out
    assert live_with(mark) == []


async def test_process_ignoring_sigterm_is_sigkilled(tmp_path, approve):
    ctx = bash_context(tmp_path, grace=0.2)
    mark = token()
    ready = tmp_path / "ready"
    command = f"trap '' TERM; bash -c \"trap '' TERM; touch {ready}; sleep {mark}\"; sleep {mark}"
    outcome = await bash(ctx, approve, command, timeout=1000)
    assert ready.exists()
    assert outcome.result.data.timed_out
    assert live_with(mark) == []


async def test_a_hundred_timeouts_leave_no_process_behind(tmp_path, approve):
    ctx = bash_context(tmp_path, grace=0.2)
    mark = token()
    command = f"sleep {mark} & (sleep {mark}) & sleep {mark}"
    for _round in range(10):
        outcomes = await asyncio.gather(
            *(bash(ctx, approve, command, timeout=60) for _ in range(10))
        )
        assert all(o.result.data.timed_out for o in outcomes)
    assert live_with(mark) == []
    assert list((tmp_path / "session" / "bash").glob("*")) == []  # no temp files left either


async def test_abort_stops_a_running_command(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    started = tmp_path / "started"
    run = asyncio.ensure_future(
        bash(ctx, approve, f"touch {started}; (sleep {mark}) & sleep {mark}", timeout=600_000)
    )
    assert await eventually(started.exists)
    assert await eventually(lambda: sleeps_with(mark) == 2)
    ctx.abort_controller.abort("user pressed stop")
    outcome = await asyncio.wait_for(run, 30)
    assert outcome.is_error and outcome.text == INTERRUPTED_MESSAGE
    assert live_with(mark) == []
    assert list((tmp_path / "session" / "bash").glob("*")) == []


async def test_cancelling_the_call_kills_the_group(tmp_path):
    """A torn-down turn (task cancelled) must not leave the command running."""
    ctx = bash_context(tmp_path)
    mark = token()
    started = tmp_path / "started"
    tool = BashTool(kill_grace=0.3)
    call = asyncio.ensure_future(
        tool.call(BashInput(command=f"touch {started}; sleep {mark}"), ctx, None, None)
    )
    assert await eventually(started.exists)
    call.cancel()
    await asyncio.gather(call, return_exceptions=True)
    assert call.cancelled()
    assert live_with(mark) == []


async def test_abort_seen_by_the_tool_itself_reports_interrupted(tmp_path):
    """Called directly (no orchestrator), the tool returns what ran and says it was stopped."""
    ctx = bash_context(tmp_path)
    mark = token()
    started = tmp_path / "started"
    tool = BashTool(kill_grace=0.3)
    call = asyncio.ensure_future(
        tool.call(BashInput(command=f"echo partial; touch {started}; sleep {mark}"), ctx, None, None)
    )
    assert await eventually(started.exists)
    ctx.abort_controller.abort()
    result = await asyncio.wait_for(call, 30)
    assert result.data.interrupted and not result.data.timed_out
    assert result.data.to_text() == "partial\nCommand was interrupted by the user and killed."
    assert live_with(mark) == []


async def test_timeout_kills_a_process_that_left_the_group(tmp_path, approve):
    """``setsid`` (or a daemonizing double fork) leaves the process group; the environment
    marker every descendant inherits still finds it."""
    ctx = bash_context(tmp_path)
    mark = token()
    command = f"setsid sleep {mark} & ( setsid bash -c 'sleep {mark} & wait' & ) ; echo started; sleep {mark}"
    outcome = await bash(ctx, approve, command, timeout=400)
    assert outcome.text.startswith("started") and outcome.result.data.timed_out
    assert live_with(mark) == []


async def test_a_daemon_started_by_a_finished_command_is_left_alone(tmp_path, approve):
    """Only a kill (timeout, Stop) reaches processes outside the group; a command that ends on its
    own may leave a daemon it meant to start (``setsid server &``)."""
    ctx = bash_context(tmp_path)
    mark = token()
    ready = tmp_path / "detached"  # written after setsid() ran: the daemon has left the group
    command = (f"setsid sh -c 'echo $$ > {ready}; exec sleep {mark}' & "
               f"while [ ! -s {ready} ]; do sleep 0.01; done; echo started")
    outcome = await bash(ctx, approve, command)
    try:
        assert outcome.text == "started"
        assert await eventually(lambda: len(live_with(mark)) == 1)
    finally:
        for proc in live_with(mark):
            proc.kill()


def _open_fds() -> set[str]:
    import os

    return set(os.listdir("/proc/self/fd"))


async def test_a_command_start_cannot_be_cut_off_after_the_fork(tmp_path):
    """asyncio's own subprocess start suspends between the fork and handing the process over,
    and a caller cancelled there left the command's children running.  ``ShellProcess.start``
    never suspends: driven by hand, one step finishes it, so there is no point at which a
    cancellation could land with a process nobody owns.  The command it returns, and all it
    began (the one that left the group with ``setsid`` too), is then killed, and nothing the
    start opened stays open."""
    from jupyter_agent.tools.shell.process import ShellFiles, ShellProcess

    mark = token()
    before = _open_fds()
    starting = ShellProcess.start(
        f"sleep {mark} & setsid sleep {mark} & sleep {mark}; wait", cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
        files=ShellFiles.under(tmp_path, "c"),
    )
    with pytest.raises(StopIteration) as finished:
        starting.send(None)
    process = finished.value.value
    assert await eventually(lambda: sleeps_with(mark) == 3)
    await process.kill("stopped")
    process.close()
    assert live_with(mark) == []
    assert await eventually(lambda: _open_fds() <= before)
