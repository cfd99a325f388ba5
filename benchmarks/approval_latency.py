"""Approval latency and streaming update rate of the %agent transcript, in a real kernel.

1. Click → tool start: the model (the scripted server) asks for ``--approvals`` Bash calls in
   one turn; for each, the Approve button is clicked by ``comm_msg`` and the time until the
   card's "running" update arrives on iopub is measured.  Goal: median at most 50 ms.
2. Widget updates while streaming: a ~5,000-token Markdown answer is streamed in small deltas
   over a few seconds; every widget ``update`` message the kernel sends during the stream is
   counted and divided by the stream's duration.  Goal: at most 10 per second.

    python benchmarks/approval_latency.py [--approvals 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use  # noqa: E402
from tests.ui.kernel_harness import KernelHarness  # noqa: E402

GOAL_MS = 50.0
GOAL_UPDATES_PER_S = 10.0


def _value(msg: dict) -> str:
    value = msg["content"].get("data", {}).get("state", {}).get("value")
    return value if isinstance(value, str) else ""


def _is_update(msg: dict) -> bool:
    return msg["msg_type"] == "comm_msg" and msg["content"].get("data", {}).get("method") == "update"


def measure_clicks(h: KernelHarness, server: ScriptedServer, n: int) -> list[float]:
    for i in range(n):
        server.push(reply(tool_use("Bash", {"command": f"echo {i} > approved_{i}.txt"})))
    server.push(reply(text("All approved.")))
    start = len(h.messages)
    h.execute("%agent run the ten commands", cell_id="bench-approve")
    latencies = []
    for _ in range(n):
        approve = h.wait_widget("ButtonModel", after=start, description="Approve")
        start = len(h.messages)
        sent = time.monotonic()
        h.click(approve)
        index = h.wait_index(lambda m: _is_update(m) and "running" in _value(m), start=start)
        latencies.append(h.arrivals[index] - sent)
        start = index + 1
    h.wait_for(lambda m: _is_update(m) and "All approved." in _value(m), start=start)
    return latencies


def _long_answer(tokens: int) -> str:
    paragraphs = []
    words = 0
    i = 0
    while words < tokens * 0.75:  # ~0.75 words per token
        i += 1
        para = (
            f"## Step {i}\n\nThe analysis of **part {i}** shows that the `frame_{i}` column "
            f"needs cleaning before the model is fit; see the table below.\n\n"
            f"| metric | value |\n|---|---|\n| rows | {i * 100} |\n| nulls | {i} |\n\n"
        )
        words += len(para.split())
        paragraphs.append(para)
    return "".join(paragraphs) + "That is the whole report: END-OF-REPORT."


def measure_stream(h: KernelHarness, server: ScriptedServer, tokens: int) -> tuple[int, float, int]:
    answer = _long_answer(tokens)
    server.push(reply(text(answer), chunk_chars=16, delay_s=0.002))
    start = len(h.messages)
    h.execute("%agent write a long report", cell_id="bench-stream")
    # the last words arrive in an update, or in a new widget when the text before them was frozen
    end = h.wait_index(lambda m: m["msg_type"] in ("comm_msg", "comm_open") and "END-OF-REPORT" in _value(m),
                       start=start, timeout=120)
    first = next(i for i in range(start, end + 1) if _is_update(h.messages[i]) and "Step 1" in _value(h.messages[i]))
    updates = sum(1 for i in range(first, end + 1) if _is_update(h.messages[i]))
    duration = h.arrivals[end] - h.arrivals[first]
    return updates, duration, len(answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approvals", type=int, default=10)
    parser.add_argument("--tokens", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        work, home = Path(tmp) / "work", Path(tmp) / "home"
        work.mkdir()
        home.mkdir()
        env = {"ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": server.url,
               "JUPYTER_AGENT_HOME": str(home / ".jupyter-agent"), "HOME": str(home)}
        h = KernelHarness(work, env)
        try:
            h.run("%load_ext jupyter_agent")
            h.run("import jupyter_agent.agent.session, jupyter_agent.ui.transcript", timeout=300)
            latencies = measure_clicks(h, server, args.approvals)
            updates, duration, chars = measure_stream(h, server, args.tokens)
        finally:
            h.close()
    median_ms = statistics.median(latencies) * 1000
    rate = updates / duration if duration > 0 else float("inf")
    print(f"click → tool start: median {median_ms:.1f} ms, max {max(latencies) * 1000:.1f} ms over {len(latencies)} approvals")
    print(f"streaming {chars} chars (~{args.tokens} tokens) over {duration:.2f} s: {updates} widget updates = {rate:.1f}/s")
    ok_latency = median_ms <= GOAL_MS
    ok_rate = rate <= GOAL_UPDATES_PER_S
    print(f"RESULT approval_latency median_ms={median_ms:.1f} goal=<={GOAL_MS:g}ms {'pass' if ok_latency else 'fall short'}")
    print(f"RESULT stream_updates per_second={rate:.1f} goal=<={GOAL_UPDATES_PER_S:g}/s {'pass' if ok_rate else 'fall short'}")


if __name__ == "__main__":
    main()
