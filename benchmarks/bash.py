"""Bash tool overhead, measured side by side in one run.

Each round runs the same command through ``BashTool.call`` (process group, output file, cwd
capture, group clean-up, output summary) and through a bare ``asyncio`` subprocess
(``bash -c`` with a pipe, read to EOF).  Two commands: a trivial ``true`` (per-call overhead)
and ``seq 1 200000`` (1.3 MB of output: reading and cleaning cost).  Figures are the ratio of
medians, tool / bare.  Goals: 1.5x for the trivial command; 2x with big output, where the tool
pays by design for writing the output to a file (no pipe to stall, nothing held in memory),
reading it back, and keeping a cleaned copy.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.tools.bash import BashInput, BashTool  # noqa: E402

ROUNDS = 120
GOALS = {"trivial": 1.5, "seq200k": 2.0}


async def _bare(command: str) -> float:
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    out, _ = await proc.communicate()
    out.decode("utf-8", "replace")
    return time.perf_counter() - t0


async def _tool(tool: BashTool, ctx: ToolUseContext, command: str) -> float:
    t0 = time.perf_counter()
    result = await tool.call(BashInput(command=command), ctx, None, None)
    assert result.data.exit_code == 0, result.data
    return time.perf_counter() - t0


async def _ratio(tool: BashTool, ctx: ToolUseContext, command: str) -> tuple[float, float, float]:
    bare, ours = [], []
    await _tool(tool, ctx, command)  # warm-up (login environment capture happens once)
    for _ in range(ROUNDS):
        bare.append(await _bare(command))
        ours.append(await _tool(tool, ctx, command))
    b, o = statistics.median(bare), statistics.median(ours)
    return b, o, o / b


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ctx = ToolUseContext(
            options=ToolUseOptions(), cwd=Path(tmp), session_dir=Path(tmp) / "session"
        )
        tool = BashTool()
        ok = True
        for label, command in (("trivial", "true"), ("seq200k", "seq 1 200000")):
            bare, ours, ratio = await _ratio(tool, ctx, command)
            goal = GOALS[label]
            passed = ratio <= goal
            ok &= passed
            print(f"{label}: bare {bare * 1000:.2f} ms, Bash tool {ours * 1000:.2f} ms (median of {ROUNDS})")
            print(
                f"RESULT bash_{label}_overhead ratio={ratio:.2f} goal=<={goal} "
                f"{'pass' if passed else 'fall short'}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
