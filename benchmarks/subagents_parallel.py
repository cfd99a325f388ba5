"""Parallel subagents: N Explore agents in one message vs the same agents run one after another.

Each agent streams a reply from the scripted model server (a real HTTP server on 127.0.0.1,
reached by the real anthropic SDK), slowed to ``DELAY`` seconds between SSE events to stand in
for model latency.  Figure: serial time / parallel time (medians, interleaved rounds).

    python benchmarks/subagents_parallel.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anthropic  # noqa: E402

from jupyter_agent.agent.retry import RetryPolicy  # noqa: E402
from jupyter_agent.core.batches import run_tools  # noqa: E402
from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use  # noqa: E402
from jupyter_agent.core.permission_types import PermissionAllow  # noqa: E402
from jupyter_agent.subagents.runtime import RUNTIME_KEY, SubagentRuntime  # noqa: E402
from jupyter_agent.testing import ScriptedServer, reply  # noqa: E402
from jupyter_agent.tools.agent_tool import AgentTool  # noqa: E402

AGENTS = 4
ROUNDS = 5
DELAY = 0.03  # seconds between SSE events of every reply
GOAL = 2.5


async def allow(*_args):
    return PermissionAllow()


def calls(tag: str) -> list[ToolUseRequest]:
    return [
        ToolUseRequest(f"{tag}{i}", "Agent", {"description": f"look {i}", "prompt": f"{tag} question {i}",
                                              "subagent_type": "Explore"})
        for i in range(AGENTS)
    ]


async def main() -> None:
    with ScriptedServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.set_fallback(lambda body: reply("The answer is in src/app.py, line 12.", delay_s=DELAY, chunk_chars=6))
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="bench", max_retries=0)
        ctx = ToolUseContext(options=ToolUseOptions(tools=(AgentTool(),)), cwd=Path(tmp), session_dir=Path(tmp) / "s")
        ctx.extra[RUNTIME_KEY] = SubagentRuntime(client, RetryPolicy(max_retries=0), "claude-sonnet-5-5",
                                                 project_dir=Path(tmp), home=Path(tmp))

        async def parallel() -> None:
            run = await run_tools(calls("p"), ctx, allow)
            assert not any(o.is_error for o in run.outcomes), [o.text for o in run.outcomes]

        async def serial() -> None:
            for req in calls("s"):
                out = await run_tool_use(req, ctx, allow)
                assert not out.is_error, out.text

        par, ser = [], []
        await parallel()  # warm up the connection pool and imports
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            await parallel()
            par.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await serial()
            ser.append(time.perf_counter() - t0)
        await client.close()
    p, s = statistics.median(par), statistics.median(ser)
    ratio = s / p
    print(f"{AGENTS} Explore agents: parallel {p * 1000:.0f} ms, one after another {s * 1000:.0f} ms (median of {ROUNDS})")
    verdict = "pass" if ratio >= GOAL else "fall short"
    print(f"RESULT subagents_parallel speedup={ratio:.2f}x goal=>={GOAL}x {verdict}")


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    asyncio.run(main())
