"""What enforcing the path rules costs a sandboxed Bash call, measured side by side in one run.

A project of 20,000 files (a virtual environment's worth) with the usual secret rules
(``Read(.env)``, ``Read(.env.*)``, ``Read(./secrets/**)``, ``Read(**/*.pem)``, ``Edit(./.git/**)``)
and the same project with no rules.  Each round takes one ``python3 -c pass`` through the Bash
tool's permission check and call, sandboxed, both ways; the figures are ratios of medians, with
rules / without.  Every sandboxed call also walks the project for protected paths at any depth
(before and after the command: ``sandbox/protected.py``), with rules or without; the unsandboxed
call is printed for reference.  Steady state: folders unchanged since the last command are not
read again (goal: at most 1.5x).  Cold: the remembered folders are dropped before each call, so the project
is walked in full, as for the first command of a session (goal: at most 2x).  Needs
bubblewrap; prints why when it is missing.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _sandbox_common import sandbox_available, sandbox_context, timed_call  # noqa: E402

from jupyter_agent.sandbox import walk  # noqa: E402
from jupyter_agent.sandbox.settings import SandboxSettings  # noqa: E402
from jupyter_agent.tools.bash import BashTool  # noqa: E402

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


ON, OFF = SandboxSettings(enabled=True), SandboxSettings(enabled=False)
COMMAND = "python3 -c pass"  # asks without the sandbox: the sandbox allows it


async def main() -> None:
    if not await sandbox_available((("sandbox_masks", GOAL), ("sandbox_masks_cold", COLD_GOAL))):
        return
    root = Path(tempfile.mkdtemp(prefix="sandbox-masks-"))
    try:
        await _measure(_project(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _measure(work: Path) -> None:
    tool = BashTool()
    plain, ruled, bare = sandbox_context(work, ON), sandbox_context(work, ON, RULES), sandbox_context(work, OFF)
    await timed_call(tool, plain, COMMAND, checked=True)
    await timed_call(tool, ruled, COMMAND, checked=True)
    await asyncio.sleep(2.5)  # the new project's folders settle (see walk._Memo)
    without, with_rules, cold, unsandboxed = [], [], [], []
    for _ in range(ROUNDS):
        unsandboxed.append(await timed_call(tool, bare, COMMAND))  # it would ask: the check is left out
        without.append(await timed_call(tool, plain, COMMAND, checked=True))
        with_rules.append(await timed_call(tool, ruled, COMMAND, checked=True))
        walk._MEMOS.clear()
        cold.append(await timed_call(tool, ruled, COMMAND, checked=True))
    a, b, c, u = (statistics.median(x) * 1e3 for x in (without, with_rules, cold, unsandboxed))
    print(f"sandboxed call, 20,000-file project: {a:.1f} ms without rules; with {len(RULES)} rules "
          f"{b:.1f} ms ({b / a:.2f}x), walking the whole project {c:.1f} ms ({c / a:.2f}x); "
          f"the same call unsandboxed {u:.1f} ms")
    for name, ratio, goal in (("sandbox_masks", b / a, GOAL), ("sandbox_masks_cold", c / a, COLD_GOAL)):
        print(f"RESULT {name} ratio={ratio:.2f} goal=<={goal} {'pass' if ratio <= goal else 'fall short'}")


if __name__ == "__main__":
    asyncio.run(main())
