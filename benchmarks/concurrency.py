"""Concurrency of the tool orchestrator, measured side by side in one run.

1. Ten concurrency-safe calls that each wait 100 ms on I/O, through ``run_tools`` vs. the same
   ten one by one: the speed-up (goal > 8x).
2. Ten unsafe calls through ``run_tools``: the largest number running at once (must be 1).
3. Per-call overhead of ``run_tool_use`` for a trivial tool (median µs) vs. a bare
   ``await tool.call(...)``.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.batches import run_tools  # noqa: E402
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use  # noqa: E402
from jupyter_agent.core.permission_types import PermissionAllow  # noqa: E402
from tests.support.tools import SleepTool, Tracker, WaitIOTool, WriteStepTool, make_context  # noqa: E402


async def _allow(*_args):
    return PermissionAllow()


async def _parallel_speedup(tmp: Path, rounds: int = 5) -> float:
    ctx = make_context([WaitIOTool(safe=True)], tmp)
    calls = [ToolUseRequest(f"t{i}", "WaitIO", {"seconds": 0.1}) for i in range(10)]
    ratios = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await run_tools(calls, ctx, _allow)
        parallel = time.perf_counter() - t0
        t0 = time.perf_counter()
        for c in calls:
            await run_tool_use(c, ctx, _allow)
        serial = time.perf_counter() - t0
        ratios.append(serial / parallel)
    return statistics.median(ratios)


async def _unsafe_peak(tmp: Path) -> int:
    tracker = Tracker()
    ctx = make_context([WriteStepTool(tracker)], tmp)
    calls = [ToolUseRequest(f"w{i}", "WriteStep", {"label": str(i), "seconds": 0.01}) for i in range(10)]
    await run_tools(calls, ctx, _allow)
    return tracker.peak


async def _overhead(tmp: Path, n: int = 3000) -> tuple[float, float]:
    tool = SleepTool()
    ctx = make_context([tool], tmp)
    req = ToolUseRequest("t", "Sleep", {"label": "x"})
    parsed = tool.input_schema.model_validate({"label": "x"})
    full, bare = [], []
    for _ in range(n):  # interleaved so both see the same machine noise
        t0 = time.perf_counter_ns()
        await run_tool_use(req, ctx, _allow)
        full.append(time.perf_counter_ns() - t0)
        t0 = time.perf_counter_ns()
        await tool.call(parsed, ctx, _allow, None)
        bare.append(time.perf_counter_ns() - t0)
    return statistics.median(full) / 1000, statistics.median(bare) / 1000


async def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        speedup = await _parallel_speedup(tmp)
        peak = await _unsafe_peak(tmp)
        full_us, bare_us = await _overhead(tmp)
    print(f"parallel speed-up, 10 safe calls x 100 ms: {speedup:.2f}x (goal > 8x)")
    print(f"unsafe calls running at once, at most: {peak} (goal 1)")
    print(
        f"run_tool_use median {full_us:.1f} us vs bare call {bare_us:.1f} us "
        f"(overhead {full_us - bare_us:.1f} us, ratio {full_us / bare_us:.1f}x)"
    )
    ok = speedup > 8 and peak == 1
    print(f"RESULT concurrency speedup={speedup:.2f} goal=>8 {'pass' if ok else 'fall short'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
