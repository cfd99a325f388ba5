"""The kernel's loop while a Bash permission decision reads a large project.

A first decision under a rule naming a program (``Bash(rm:*)``) reads the code files the line
runs and what they import: ``pytest tests`` in a project of 400 modules and 120 test files
reads them all.  Side by side in one run, each round in a new project (so every decision is a
first one): the longest time the loop could not run anything (a 1 ms ticker's longest gap)
while the decision is made on the loop (``check_bash_permission`` in a coroutine, as before
the permission thread) and while it is made in the permission thread
(``check_bash_permission_async``).  Then what the thread adds to a decision that reads nothing
new (``git status``, warm: through the thread minus on the loop), next to the least the Bash
tool's run then costs anyway (starting ``bash -c true`` from the loop; the tool starts bash).  Medians; run
``python benchmarks/permission_loop.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import AppState, ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.core.permission_types import ToolPermissionContext  # noqa: E402
from jupyter_agent.permissions.bash import check_bash_permission, check_bash_permission_async  # noqa: E402

ROUNDS = 7
MODULES, TESTS = 400, 120
STALL_GOAL = 0.1  # the loop's longest stall with the thread, as a share of the one without
HOP_GOAL = 0.1  # what the thread adds to a warm decision, as a share of starting bash
COMMAND = "pytest tests"


def _project(root: Path) -> ToolUseContext:
    pkg = root / "src" / "app"
    pkg.mkdir(parents=True)
    (root / "tests").mkdir()
    (pkg / "__init__.py").write_text("")
    for i in range(MODULES):
        imports = "".join(f"from app import m{j}\n" for j in (i * 7 % MODULES, i * 13 % MODULES) if j != i)
        body = "".join(f"def f{n}(x):\n    return x + {n}  # {'padding ' * 6}\n" for n in range(40))
        (pkg / f"m{i}.py").write_text(f'"""Module {i}."""\nimport os\n{imports}\n{body}')
    for i in range(TESTS):
        (root / "tests" / f"test_m{i}.py").write_text(
            f"from app import m{i}\n\n\ndef test_f():\n    assert m{i}.f1(1) == 2\n")
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    pc = ToolPermissionContext(deny_rules={"localSettings": ("Bash(rm:*)", "Read(./.env)")},
                               allow_rules={"localSettings": ("Bash(pytest:*)",)}, project_dir=root)
    ctx = ToolUseContext(options=ToolUseOptions(), cwd=root, session_dir=root.parent / f"{root.name}-session")
    ctx.set_app_state(lambda s: AppState(tool_permission_context=pc))
    return ctx


async def _stall_while(decision) -> tuple[float, float]:
    """(longest loop gap, the decision's own time) in seconds."""
    done = False
    longest = 0.0

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    tick = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.01)  # the ticker runs
    longest = 0.0
    start = time.perf_counter()
    verdict = await decision
    took = time.perf_counter() - start
    done = True
    await tick
    assert type(verdict).__name__ in ("PermissionAllow", "PermissionPassthrough", "PermissionAsk"), verdict
    return longest, took


async def _on_loop(command: str, ctx: ToolUseContext):
    return check_bash_permission(command, ctx)


async def main() -> None:
    stalls: dict[str, list[float]] = {"loop": [], "thread": []}
    times: dict[str, list[float]] = {"loop": [], "thread": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(ROUNDS):
            for way in ("loop", "thread") if n % 2 == 0 else ("thread", "loop"):  # alternate who goes first
                ctx = _project(Path(tmp) / f"{way}{n}")
                how = _on_loop if way == "loop" else check_bash_permission_async
                stall, took = await _stall_while(how(COMMAND, ctx))
                stalls[way].append(stall)
                times[way].append(took)
        warm = _project(Path(tmp) / "warm")
        hop: dict[str, list[float]] = {"loop": [], "thread": [], "spawn": []}
        for _ in range(3):
            await check_bash_permission_async("git status", warm)
        for n in range(400):
            for way in ("loop", "thread", "spawn") if n % 4 == 0 else ("loop", "thread"):
                start = time.perf_counter()
                if way == "loop":
                    await _on_loop("git status", warm)
                elif way == "thread":
                    await check_bash_permission_async("git status", warm)
                else:
                    child = await asyncio.create_subprocess_exec("bash", "-c", "true")
                    await child.wait()
                hop[way].append(time.perf_counter() - start)
    med = {way: statistics.median(v) for way, v in stalls.items()}
    took = {way: statistics.median(v) for way, v in times.items()}
    warm_med = {way: statistics.median(v) for way, v in hop.items()}
    share = med["thread"] / med["loop"]
    hop_ratio = (warm_med["thread"] - warm_med["loop"]) / warm_med["spawn"]
    print(f"first decision of `{COMMAND}` ({MODULES} modules, {TESTS} test files), medians of {ROUNDS}:")
    for way in ("loop", "thread"):
        print(f"  on the {way:<6}: decision {took[way] * 1000:7.1f} ms, loop's longest stall {med[way] * 1000:7.1f} ms")
    print(f"  stall with the thread / without: {share:.3f} (goal <= {STALL_GOAL})")
    print(f"warm `git status` decision: loop {warm_med['loop'] * 1e6:.0f} us, thread "
          f"{warm_med['thread'] * 1e6:.0f} us; starting `bash -c true`: {warm_med['spawn'] * 1e6:.0f} us")
    print(f"  added by the thread / starting bash: {hop_ratio:.3f} (goal <= {HOP_GOAL})")
    print(f"RESULT permission_loop_stall share={share:.3f} goal<={STALL_GOAL} "
          f"{'pass' if share <= STALL_GOAL else 'fall short'}")
    print(f"RESULT permission_thread_hop share={hop_ratio:.3f} goal<={HOP_GOAL} "
          f"{'pass' if hop_ratio <= HOP_GOAL else 'fall short'}")


if __name__ == "__main__":
    asyncio.run(main())
