"""What enforcing the path rules costs a sandboxed Bash call, measured side by side in one run.

A project of 20,000 files (a virtual environment's worth) with the usual secret rules
(``Read(.env)``, ``Read(.env.*)``, ``Read(./secrets/**)``, ``Read(**/*.pem)``, ``Edit(./.git/**)``)
and the same project with no rules.  Each round takes one ``true`` through the Bash tool's
permission check and call, sandboxed, both ways; the figures are ratios of medians, with
rules / without.  Every sandboxed call also walks the project for protected paths at any depth
(before and after the command: ``sandbox/protected.py``), with rules or without; the unsandboxed
call is printed for reference.  Steady state: folders unchanged since the last command are not read again
(goal: at most 1.5x).  Cold: the remembered folders are dropped before each call, so the project
is walked in full, as for the first command of a session (goal: at most 2x).  Needs
bubblewrap; prints why when it is missing.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.core.permission_types import PermissionAllow, ToolPermissionContext  # noqa: E402
from jupyter_agent.sandbox import walk  # noqa: E402
from jupyter_agent.sandbox.bwrap import probe  # noqa: E402
from jupyter_agent.sandbox.settings import APP_STATE_KEY, SandboxSettings  # noqa: E402
from jupyter_agent.tools.bash import BashInput, BashTool  # noqa: E402

ROUNDS = 30
GOAL, COLD_GOAL = 1.5, 2.0
RULES = ("Read(.env)", "Read(.env.*)", "Read(./secrets/**)", "Read(**/*.pem)", "Edit(./.git/**)")


def _project(root: Path) -> Path:
    work = root / "work"
    for i in range(40):
        for j in range(25):
            folder = work / ".venv" / f"pkg{i}" / f"sub{j}"
            folder.mkdir(parents=True)
            for k in range(20):
                (folder / f"m{k}.py").write_text("")
    (work / ".git").mkdir()
    (work / ".env").write_text("KEY=1\n")
    return work


def _context(work: Path, rules: tuple[str, ...]) -> ToolUseContext:
    ctx = ToolUseContext(options=ToolUseOptions(tools=(BashTool(),)), cwd=work, session_dir=work.parent / "session")
    pc = ToolPermissionContext(deny_rules={"projectSettings": rules}, project_dir=work)
    sandbox = SandboxSettings(enabled=True)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=pc, extra={**s.extra, APP_STATE_KEY: sandbox}))
    return ctx


async def _once(tool: BashTool, ctx: ToolUseContext) -> float:
    command = BashInput(command="python3 -c pass")  # asks without the sandbox: the sandbox allows it
    t0 = time.perf_counter()
    verdict = await tool.check_permissions(command, ctx)
    assert isinstance(verdict, PermissionAllow), verdict
    result = await tool.call(command, ctx, None, None)
    assert result.data.exit_code == 0, result.data
    return time.perf_counter() - t0


async def _call(tool: BashTool, ctx: ToolUseContext) -> float:
    """The call alone, unsandboxed (it would ask: the check is not part of the figure)."""
    t0 = time.perf_counter()
    result = await tool.call(BashInput(command="python3 -c pass"), ctx, None, None)
    assert result.data.exit_code == 0, result.data
    return time.perf_counter() - t0


async def main() -> None:
    available = await probe()
    if not available.ok:
        print(f"bubblewrap cannot sandbox here ({available.reason}): nothing measured")
        print(f"RESULT sandbox_masks ratio=unmeasured goal=<={GOAL} fall short")
        print(f"RESULT sandbox_masks_cold ratio=unmeasured goal=<={COLD_GOAL} fall short")
        return
    root = Path(tempfile.mkdtemp(prefix="sandbox-masks-"))
    try:
        await _measure(_project(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _measure(work: Path) -> None:
    tool = BashTool()
    plain, ruled = _context(work, ()), _context(work, RULES)
    await _once(tool, plain)
    await _once(tool, ruled)
    await asyncio.sleep(2.5)  # the new project's folders settle (see walk._Memo)
    bare = _context(work, ())
    bare.set_app_state(lambda s: replace(s, extra={**s.extra, APP_STATE_KEY: SandboxSettings(enabled=False)}))
    without, with_rules, cold, unsandboxed = [], [], [], []
    for _ in range(ROUNDS):
        unsandboxed.append(await _call(tool, bare))
        without.append(await _once(tool, plain))
        with_rules.append(await _once(tool, ruled))
        walk._MEMOS.clear()
        cold.append(await _once(tool, ruled))
    a, b, c, u = (statistics.median(x) * 1e3 for x in (without, with_rules, cold, unsandboxed))
    print(f"sandboxed call, 20,000-file project: {a:.1f} ms without rules; with {len(RULES)} rules "
          f"{b:.1f} ms ({b / a:.2f}x), walking the whole project {c:.1f} ms ({c / a:.2f}x); "
          f"the same call unsandboxed {u:.1f} ms")
    for name, ratio, goal in (("sandbox_masks", b / a, GOAL), ("sandbox_masks_cold", c / a, COLD_GOAL)):
        print(f"RESULT {name} ratio={ratio:.2f} goal=<={goal} {'pass' if ratio <= goal else 'fall short'}")


if __name__ == "__main__":
    asyncio.run(main())
