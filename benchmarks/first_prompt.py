"""The first ``%agent`` of a kernel: how long until the request reaches the model, with the SDK
preloaded at ``%load_ext`` (the default) against without (``AgentMagics.preload = False``).

Each round starts two fresh kernels in turn (alternating which goes first), runs ``%load_ext``,
leaves the user 4 s to type the prompt, then times ``%agent`` from the execute request to the
moment the scripted model server receives the request.  Medians; the ratio preload / none.

    python benchmarks/first_prompt.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.testing import ScriptedServer, reply, text  # noqa: E402
from tests.ui.kernel_harness import KernelHarness  # noqa: E402

GOAL = 0.7
TYPING_SECONDS = 4.0


def first_prompt_seconds(server: ScriptedServer, preload: bool) -> float:
    server.push(reply(text("hello")))
    before = len(server.message_requests)
    with tempfile.TemporaryDirectory() as tmp:
        kernel = KernelHarness(Path(tmp), {"ANTHROPIC_API_KEY": "k", "JUPYTER_AGENT_MODEL": None})
        try:
            kernel.run(
                f"get_ipython().config.AgentMagics.preload = {preload}\n"
                "%load_ext jupyter_agent\n"
                f"%config AgentMagics.base_url = {json.dumps(server.url)}",
                timeout=120,
            )
            time.sleep(TYPING_SECONDS)
            t0 = time.monotonic()
            kernel.execute("%agent say hello")
            while len(server.message_requests) == before:
                if time.monotonic() - t0 > 120:
                    raise RuntimeError("the request never reached the model")
                time.sleep(0.005)
            return time.monotonic() - t0
        finally:
            kernel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    times: dict[bool, list[float]] = {True: [], False: []}
    with ScriptedServer() as server:
        for i in range(args.rounds):
            for preload in ((True, False) if i % 2 == 0 else (False, True)):
                times[preload].append(first_prompt_seconds(server, preload))
    with_, without = statistics.median(times[True]), statistics.median(times[False])
    ratio = with_ / without
    print(f"first %agent until the model is asked: preloaded {with_:.2f} s, not preloaded {without:.2f} s "
          f"(medians of {args.rounds}; 4 s between %load_ext and %agent)")
    print(f"RESULT first_prompt ratio={ratio:.2f} goal=<={GOAL:g} {'pass' if ratio <= GOAL else 'fall short'}")


if __name__ == "__main__":
    main()
