from __future__ import annotations

import asyncio

from jupyter_agent.core.orchestration import INTERRUPTED_MESSAGE, ToolUseRequest, run_tool_use
from jupyter_agent.tools.sleep import SleepTool
from tests.support.tools import make_context


async def test_short_sleep(tmp_path, reject):
    ctx = make_context([SleepTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("s", "Sleep", {"seconds": 0.01}), ctx, reject)
    assert out.text == "Slept for 0.01 seconds." and reject.asks == []


async def test_stop_wakes_a_long_sleep(tmp_path, reject):
    ctx = make_context([SleepTool()], tmp_path)
    task = asyncio.ensure_future(run_tool_use(ToolUseRequest("s", "Sleep", {"seconds": 3600}), ctx, reject))
    for _ in range(5):
        await asyncio.sleep(0)
    ctx.abort_controller.abort()
    out = await asyncio.wait_for(task, 10)
    assert out.is_error and out.text == INTERRUPTED_MESSAGE


async def test_limits(tmp_path, reject):
    ctx = make_context([SleepTool()], tmp_path)
    for seconds in (0, -1, 3601):
        out = await run_tool_use(ToolUseRequest("s", "Sleep", {"seconds": seconds}), ctx, reject)
        assert out.is_error and "seconds" in out.text
