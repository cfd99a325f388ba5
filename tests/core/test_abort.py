"""AbortController and await_unless_aborted."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_agent.core.abort import AbortController, Aborted, await_unless_aborted


async def test_result_when_the_task_finishes_first():
    controller = AbortController()
    assert await await_unless_aborted(asyncio.ensure_future(asyncio.sleep(0, "done")), controller) == "done"


async def test_abort_cancels_the_task_and_raises():
    controller = AbortController()
    cancelled = asyncio.Event()

    async def slow():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    asyncio.get_running_loop().call_later(0.01, controller.abort)
    with pytest.raises(Aborted):
        await asyncio.wait_for(await_unless_aborted(asyncio.ensure_future(slow()), controller), 5)
    assert cancelled.is_set()


async def test_cancelling_the_caller_cancels_the_task():
    controller = AbortController()
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow():
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    outer = asyncio.ensure_future(await_unless_aborted(asyncio.ensure_future(slow()), controller))
    await started.wait()
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert cancelled.is_set()


def test_children_abort_with_their_parent():
    parent = AbortController()
    child = parent.child()
    seen = []
    child.on_abort(seen.append)
    parent.abort("stop")
    assert child.aborted and child.reason == "stop" and seen == ["stop"]
    assert AbortController(parent=parent).aborted  # a child made after the abort starts aborted
