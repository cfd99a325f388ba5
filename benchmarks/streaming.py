"""Streaming overhead of the agent session, and the prompt-cache read share of a 10-turn session.

1. A 20,000-token scripted reply (20,000 text deltas, from a scripted server in its own process)
   consumed through ``AgentSession`` events vs. the same stream consumed with the bare SDK
   (``messages.create(stream=True)``), interleaved, medians of several runs; the larger of the
   wall-clock and this process's CPU-time ratios.  Goal: ratio <= 1.3.
2. A scripted 10-turn session (each turn: one Read call, then an answer) with the real tool
   registry; the scripted server accounts the cache honestly from the ``cache_control`` prefixes
   it saw.  Share of input tokens read from the cache.  Goal: >= 90%.

Run: ``python benchmarks/streaming.py``
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import anthropic

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.agent.config import SessionConfig  # noqa: E402
from jupyter_agent.agent.events import TextDelta  # noqa: E402
from jupyter_agent.agent.retry import RetryPolicy  # noqa: E402
from jupyter_agent.agent.session import AgentSession  # noqa: E402
from jupyter_agent.testing import ScriptedServer, reply, tool_use  # noqa: E402  (cache part)

TOKENS = 20_000
RUNS = 9
MODEL = "claude-sonnet-5-5"


_SERVER_CODE = """
import sys, time
sys.path.insert(0, {root!r})
from jupyter_agent.testing import ScriptedServer, reply
server = ScriptedServer()
server.set_fallback(lambda body: reply("word" * {tokens}, chunk_chars=4))
server.start()
print(server.url, flush=True)
sys.stdin.read()  # serve until the parent closes our stdin
"""


async def _bare_sdk(client: anthropic.AsyncAnthropic) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    stream = await client.messages.create(
        model=MODEL, max_tokens=32_000, messages=[{"role": "user", "content": "go"}], stream=True
    )
    parts = []
    async for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            parts.append(event.delta.text)
    elapsed = time.perf_counter() - t0, time.process_time() - c0
    assert len("".join(parts)) == 4 * TOKENS
    return elapsed


async def _session(client: anthropic.AsyncAnthropic, tmp: Path) -> tuple[float, float]:
    config = SessionConfig(
        model=MODEL, cwd=tmp, sessions_dir=tmp / "sessions", home=tmp, client=client,
        retry=RetryPolicy(max_retries=0),
    )
    session = AgentSession(config, tools=[])
    parts: list[str] = []
    session.subscribe(lambda e: parts.append(e.text) if isinstance(e, TextDelta) else None)
    t0, c0 = time.perf_counter(), time.process_time()
    outcome = await session.submit("go")
    elapsed = time.perf_counter() - t0, time.process_time() - c0
    assert outcome.stop_reason == "end_turn" and len("".join(parts)) == 4 * TOKENS
    await session.aclose()
    return elapsed


async def streaming_ratio(tmp: Path) -> tuple[float, float, float, float]:
    """Medians (wall s, cpu s) of both paths; the server runs in its own process."""
    code = _SERVER_CODE.format(root=str(Path(__file__).resolve().parents[1]), tokens=TOKENS)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        # One client for both paths, so both reuse the same warm connection pool.
        client = anthropic.AsyncAnthropic(base_url=url, api_key="bench", max_retries=0)
        await _bare_sdk(client)  # warm up both paths (imports, connections)
        await _session(client, tmp)
        bare, full = [], []
        for run in range(RUNS):  # interleaved, order alternating, so both see the same noise
            pair = [_bare_sdk(client), _session(client, tmp)]
            first, second = (1, 0) if run % 2 else (0, 1)
            results = {first: await pair[first], second: await pair[second]}
            bare.append(results[0])
            full.append(results[1])
        await client.close()
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=10)
    med = statistics.median
    return med(b[0] for b in bare), med(f[0] for f in full), med(b[1] for b in bare), med(f[1] for f in full)


async def cache_share(tmp: Path) -> tuple[float, int, int]:
    notes = tmp / "notes.txt"
    notes.write_text("".join(f"line {i}: some project notes\n" for i in range(40)))
    with ScriptedServer() as server:  # min_cacheable_tokens=1024, as the API
        config = SessionConfig(
            model=MODEL, cwd=tmp, sessions_dir=tmp / "sessions", home=tmp, base_url=server.url, api_key="bench",
            retry=RetryPolicy(max_retries=0),
        )
        session = AgentSession(config)  # the real tool registry
        for turn in range(10):
            server.push(
                reply(f"Reading the notes for question {turn}.", tool_use("Read", {"file_path": str(notes)})),
                reply(f"Answer {turn}: the notes have 40 lines."),
            )
            outcome = await session.submit(f"Question {turn}: how many lines do the notes have?")
            assert outcome.stop_reason == "end_turn", outcome
        usage = session.usage
        tools = len(server.message_requests[0].body.get("tools", []))
        await session.aclose()
    total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    return usage.cache_read_input_tokens / total, total, tools


async def main() -> int:
    warnings.simplefilter("ignore", DeprecationWarning)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        bare, full, bare_cpu, full_cpu = await streaming_ratio(tmp)
        share, total, tools = await cache_share(tmp)
    # The conservative figure: the larger of the wall-clock and the consumer-CPU ratios.
    ratio = max(full / bare, full_cpu / bare_cpu)
    print(
        f"{TOKENS:,}-token stream (server in another process), medians of {RUNS}: "
        f"bare SDK {bare * 1000:.0f} ms wall / {bare_cpu * 1000:.0f} ms CPU, "
        f"through session events {full * 1000:.0f} ms wall / {full_cpu * 1000:.0f} ms CPU "
        f"(wall ratio {full / bare:.2f}, CPU ratio {full_cpu / bare_cpu:.2f})"
    )
    print(f"10-turn session with {tools} tools: {total:,} input tokens, {share:.1%} read from cache")
    ok_ratio, ok_share = ratio <= 1.3, share >= 0.9
    print(f"RESULT streaming_overhead ratio={ratio:.2f} goal=<=1.3 {'pass' if ok_ratio else 'fall short'}")
    print(f"RESULT cache_read_share share={share:.3f} goal=>=0.9 {'pass' if ok_share else 'fall short'}")
    return 0 if ok_ratio and ok_share else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
