"""Command hook overhead, measured side by side in one run.

A ``PreToolUse`` command hook that reads its event and answers with a JSON decision (the usual
guard hook, as a shell script: ``cat >/dev/null; echo '{…}'``) runs through the whole
``HookRunner.run`` (matching, the event JSON, the environment, the child and its pipes, reading
the answer), next to the cheapest way to run the same command with the same input, folder and
environment and collect its output: a blocking ``subprocess.run``.  For reference, also the way the hooks ran before
(an ``asyncio`` subprocess and ``communicate``).  A hook runs before and after every tool call
that matches it, so this is paid per call.  Figure: ratio of medians, hook / ``subprocess.run``;
goal 1.3x.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.permissions.hooks import HookRunner  # noqa: E402
from jupyter_agent.permissions.hooks_config import parse_hooks  # noqa: E402

ROUNDS = 400
GOAL = 1.3
ANSWER = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
COMMAND = f"cat >/dev/null; echo '{ANSWER}'"
EVENT = {"tool_name": "Bash", "tool_input": {"command": "git status"}}


def _blocking(data: bytes, cwd: str) -> float:
    t0 = time.perf_counter()
    env = {"CLAUDE_PROJECT_DIR": cwd, **os.environ}
    done = subprocess.run(["/bin/sh", "-c", COMMAND], input=data, capture_output=True, start_new_session=True,
                          cwd=cwd, env=env)
    json.loads(done.stdout)
    return time.perf_counter() - t0


async def _asyncio(data: bytes, cwd: str) -> float:
    t0 = time.perf_counter()
    env = {"CLAUDE_PROJECT_DIR": cwd, **os.environ}
    proc = await asyncio.create_subprocess_shell(
        COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True, cwd=cwd, env=env,
    )
    out, _ = await proc.communicate(data)
    json.loads(out)
    return time.perf_counter() - t0


async def _hook(runner: HookRunner) -> float:
    t0 = time.perf_counter()
    outcome = await runner.run("PreToolUse", EVENT)
    assert outcome.permission_decision == "allow" and not outcome.errors, outcome
    return time.perf_counter() - t0


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": COMMAND}]}]}
        runner = HookRunner(parse_hooks(hooks, Path(tmp) / "settings.json", "userSettings"), cwd=tmp,
                            session_id="bench")
        data = json.dumps({"session_id": "bench", "cwd": tmp, "hook_event_name": "PreToolUse", **EVENT}).encode()
        blocking, old, ours = [], [], []
        await _hook(runner)  # warm-up
        for _ in range(ROUNDS):  # interleaved
            blocking.append(_blocking(data, tmp))
            old.append(await _asyncio(data, tmp))
            ours.append(await _hook(runner))
    b, a, h = (statistics.median(x) * 1000 for x in (blocking, old, ours))
    ratio = h / b
    print(f"median of {ROUNDS}: subprocess.run {b:.2f} ms; asyncio subprocess + communicate {a:.2f} ms "
          f"({a / b:.2f}x); hook through HookRunner.run {h:.2f} ms")
    status = "pass" if ratio <= GOAL else "fall short"
    print(f"RESULT hooks hook_vs_subprocess_run ratio={ratio:.2f} goal=<={GOAL} {status}")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    os.environ.pop("CLAUDE_PROJECT_DIR", None)
    raise SystemExit(asyncio.run(main()))
