"""Shared helpers for the sandbox benchmarks: a session context, a timed Bash call, the probe."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions  # noqa: E402
from jupyter_agent.core.permission_types import PermissionAllow, ToolPermissionContext  # noqa: E402
from jupyter_agent.sandbox.bwrap import probe  # noqa: E402
from jupyter_agent.sandbox.settings import APP_STATE_KEY, SandboxSettings  # noqa: E402
from jupyter_agent.tools.bash import BashInput, BashTool  # noqa: E402


def sandbox_context(work: Path, sandbox: SandboxSettings, deny: tuple[str, ...] = ()) -> ToolUseContext:
    """A session in ``work`` (the project) with these sandbox settings and deny rules."""
    ctx = ToolUseContext(options=ToolUseOptions(tools=(BashTool(),)), cwd=work, session_dir=work.parent / "session")
    pc = ToolPermissionContext(deny_rules={"projectSettings": deny}, project_dir=work)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=pc, extra={**s.extra, APP_STATE_KEY: sandbox}))
    return ctx


async def timed_call(tool: BashTool, ctx: ToolUseContext, command: str, *, checked: bool = False) -> float:
    """Seconds for one Bash call that must succeed; ``checked``: its permission check (which
    must allow it) is part of the time."""
    given = BashInput(command=command)
    t0 = time.perf_counter()
    if checked:
        verdict = await tool.check_permissions(given, ctx)
        assert isinstance(verdict, PermissionAllow), verdict
    result = await tool.call(given, ctx, None, None)
    assert result.data.exit_code == 0, result.data
    return time.perf_counter() - t0


async def sandbox_available(figures: Sequence[tuple[str, float]]) -> bool:
    """Whether bwrap can sandbox here; if not, say why and print each figure as unmeasured."""
    available = await probe()
    if not available.ok:
        print(f"bubblewrap cannot sandbox here ({available.reason}): nothing measured")
        for name, goal in figures:
            print(f"RESULT {name} ratio=unmeasured goal=<={goal} fall short")
    return available.ok
