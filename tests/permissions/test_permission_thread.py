"""Permission decisions are made in a thread of their own, never on the kernel's loop: a first
decision in a large project reads hundreds of files, and the kernel must answer meanwhile.

Each test makes a decision wait until the loop has done something (set an event); made on the
loop, the decision would hold the loop and wait in vain (each wait is bounded, so such a failure
is an assertion, not a hang)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from jupyter_agent.permissions import bash, permission_thread
from jupyter_agent.permissions.bash import check_bash_permission_async
from jupyter_agent.permissions.permission_thread import THREAD_NAME, decide_off_loop
from tests.kernels import start_kernel
from tests.notebook.kernel_driver import TASK_RUNNER, KernelDriver
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

DENY_RM = ("Bash(rm:*)",)


async def test_a_bash_decision_is_made_off_the_loop(tmp_path, monkeypatch):
    released = threading.Event()
    seen: list[tuple[str, bool]] = []
    real = bash.check_bash_permission

    def waiting(command, context):
        seen.append((threading.current_thread().name, released.wait(10)))
        return real(command, context)

    monkeypatch.setattr(bash, "check_bash_permission", waiting)
    asyncio.get_running_loop().call_soon(released.set)  # runs only if the loop is free meanwhile
    verdict = await check_bash_permission_async("git status && rm -rf build", make_ctx(tmp_path, deny=DENY_RM))
    assert verdict_name(verdict) == "deny" and "Bash(rm:*)" in verdict.message
    assert len(seen) == 1 and seen[0][0].startswith(THREAD_NAME) and seen[0][1], seen


async def test_the_whole_pipeline_decides_in_the_thread(tmp_path, monkeypatch):
    names: list[str] = []
    real = bash.check_bash_permission

    def noting(command, context):
        names.append(threading.current_thread().name)
        return real(command, context)

    monkeypatch.setattr(bash, "check_bash_permission", noting)
    verdict = await decide_bash(make_ctx(tmp_path, deny=DENY_RM), "FOO=1 rm x")
    assert verdict_name(verdict) == "deny"
    assert len(names) == 1 and names[0].startswith(THREAD_NAME)
    assert names[0] != threading.current_thread().name


async def test_decisions_are_made_one_at_a_time_in_the_order_asked(tmp_path, monkeypatch):
    """Tools run in parallel (read-only ones, up to ten) still get their decisions, and so their
    approval cards, in the order of the calls; the checks' caches see one decision at a time."""
    order: list[str] = []
    running = [0, 0]  # now, most at once
    real = bash.check_bash_permission

    def counting(command, context):
        running[0] += 1
        running[1] = max(running)
        time.sleep(0.01)  # room for another thread to start one meanwhile, were there one
        order.append(command)
        running[0] -= 1
        return real(command, context)

    monkeypatch.setattr(bash, "check_bash_permission", counting)
    ctx = make_ctx(tmp_path, deny=DENY_RM, allow=("Bash(ls:*)",))
    commands = [f"ls dir{i}" for i in range(6)] + ["rm -rf x"]
    verdicts = await asyncio.gather(*(check_bash_permission_async(c, ctx) for c in commands))
    assert order == commands and running == [0, 1]
    assert [verdict_name(v) for v in verdicts][-1] == "deny"


async def test_an_error_in_a_check_reaches_the_caller_and_the_thread_goes_on():
    with pytest.raises(ZeroDivisionError):
        await decide_off_loop(lambda: 1 // 0, bash.check_timed_out)
    assert await decide_off_loop(lambda: threading.current_thread().name.startswith(THREAD_NAME),
                                 bash.check_timed_out) is True


async def test_a_check_that_hangs_asks_and_the_decisions_after_it_go_on(tmp_path, monkeypatch):
    """A check stuck in a read (a hung file system) answers with an ask no mode skips after
    ``CHECK_TIMEOUT``; the next decision gets a thread of its own meanwhile."""
    released = threading.Event()
    real = bash.check_bash_permission
    threads: list[int] = []

    def hanging(command, context):
        threads.append(threading.get_ident())
        if command == "cat stuck.txt":
            released.wait(30)
        return real(command, context)

    monkeypatch.setattr(bash, "check_bash_permission", hanging)
    monkeypatch.setattr(permission_thread, "CHECK_TIMEOUT", 0.5)
    try:
        verdict = await decide_bash(make_ctx(tmp_path, deny=DENY_RM, mode="bypassPermissions"), "cat stuck.txt")
        assert verdict_name(verdict) == "ask" and "did not finish within 0.5 s" in verdict.message
        monkeypatch.setattr(permission_thread, "CHECK_TIMEOUT", 60.0)
        verdict = await check_bash_permission_async("rm -rf x", make_ctx(tmp_path, deny=DENY_RM))
        assert verdict_name(verdict) == "deny"
        assert len(threads) == 2 and threads[0] != threads[1]  # (the stuck thread is still in its check)
    finally:
        released.set()


async def test_an_interrupted_decision_leaves_the_thread_working(tmp_path, monkeypatch):
    """The user stops the turn while a decision is under way: the waiting call is cancelled, the
    check finishes in its thread unseen, and the next decision is made as usual."""
    entered, released = threading.Event(), threading.Event()
    real = bash.check_bash_permission

    def slow(command, context):
        if command == "cat slow.txt":
            entered.set()
            released.wait(10)
        return real(command, context)

    monkeypatch.setattr(bash, "check_bash_permission", slow)
    ctx = make_ctx(tmp_path, deny=DENY_RM)
    task = asyncio.ensure_future(check_bash_permission_async("cat slow.txt", ctx))
    while not entered.is_set():
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    released.set()
    verdict = await check_bash_permission_async("rm -rf x", ctx)
    assert verdict_name(verdict) == "deny" and "Bash(rm:*)" in verdict.message


def test_a_new_loop_uses_the_same_thread(tmp_path):
    """The kernel's loop, a subagent's or a test's: any running loop can ask."""
    ctx = make_ctx(tmp_path, deny=DENY_RM)
    for _ in range(2):
        verdict = asyncio.run(check_bash_permission_async("rm x", ctx))
        assert verdict_name(verdict) == "deny"


KERNEL_SETUP = """
import asyncio, json, threading
from pathlib import Path
from jupyter_agent.core.context import AppState, ToolUseContext, ToolUseOptions
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.permissions import bash, permission_thread
from jupyter_agent.permissions.bash import check_bash_permission_async

_ctx = ToolUseContext(options=ToolUseOptions(), cwd=Path({root!r}), session_dir=Path({root!r}) / ".session")
_ctx.set_app_state(lambda s: AppState(tool_permission_context=ToolPermissionContext(
    deny_rules={{"localSettings": ("Bash(rm:*)",)}}, project_dir=Path({root!r}))))
_entered, _released, _real = threading.Event(), threading.Event(), bash.check_bash_permission

def _waiting(command, context):
    _entered.set()
    _released.wait(30)  # until the test says so, through the kernel
    return _real(command, context)

bash.check_bash_permission = _waiting

async def decide(command):
    verdict = await check_bash_permission_async(command, _ctx)
    return [type(verdict).__name__, verdict.message]
""" + TASK_RUNNER


@pytest.mark.e2e
def test_the_kernel_answers_while_a_decision_is_made(tmp_path):
    """In a real kernel: while the agent's Bash decision is under way (here: until the test
    releases it), the kernel still runs what the frontend sends (made on the loop, the decision
    would hold the kernel for the whole wait and the next request would find it finished)."""
    km, kc = start_kernel(str(tmp_path))
    try:
        k = KernelDriver(kc)
        k.execute(KERNEL_SETUP.format(root=str(tmp_path)))
        k.execute("start('d', decide('git status; rm -rf build'))")
        assert k.execute("print(_entered.wait(20), _results.get('d'))").strip() == "True None"
        k.execute("_released.set()")
        deadline = time.monotonic() + 30
        while (result := k.poll("d", deadline)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert result is not None and result["ok"][0] == "PermissionDeny" and "Bash(rm:*)" in result["ok"][1], result
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
