"""PowerShell with ``run_in_background``: the process writes to a file; TaskOutput reads it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path

from ..core.process_start import start_process
from ..tasks.base import BackgroundTask
from ..tasks.registry import TaskRegistry
from .shell.output import FileFollower


class PowerShellTask(BackgroundTask):
    kind = "local_powershell"
    id_prefix = "pwsh"

    def __init__(self, task_id: str, command: str, description: str, proc: asyncio.subprocess.Process, output: Path):
        super().__init__(task_id, description or command)
        self.command, self.proc, self._output = command, proc, output
        self._follower = FileFollower(output)
        self._stopped = False
        self._runner = asyncio.ensure_future(self._run())

    @property
    def output_path(self) -> Path:
        return self._output

    async def _run(self) -> None:
        code = await self.proc.wait()
        if self._stopped:
            self._finish("killed", code)
        else:
            self._finish("completed" if code == 0 else "failed", code)

    async def read_new(self, max_chars: int) -> str:
        lines, _skipped = await asyncio.to_thread(self._follower.read_new, final=self.done, max_bytes=max(4096, max_chars * 4))
        text = "\n".join(lines)
        return text if len(text) <= max_chars else f"[earlier output not shown; all of it is in {self._output}]\n" + text[-max_chars:]

    async def stop(self) -> None:
        if not self.done:
            self._stopped = True
            self.kill_now()
        await asyncio.shield(self._runner)

    def kill_now(self) -> None:
        self._stopped = True
        kill_powershell(self.proc)


def kill_powershell(proc: asyncio.subprocess.Process | None) -> None:
    """SIGKILL a PowerShell process and (off Windows) its process group; ``None``: nothing."""
    if proc is not None:
        with contextlib.suppress(ProcessLookupError, OSError):
            if sys.platform == "win32":
                proc.kill()
            else:
                os.killpg(proc.pid, signal.SIGKILL)


async def start_powershell_task(
    registry: TaskRegistry, exe: str, command: str, *, description: str, cwd: str, directory: Path,
    env: Mapping[str, str] | None = None,
) -> PowerShellTask:
    task_id = registry.new_id(PowerShellTask.id_prefix)
    directory.mkdir(parents=True, exist_ok=True)
    output = directory / f"{task_id}.output"
    kwargs = {"start_new_session": True} if sys.platform != "win32" else {}
    sink = open(output, "wb")  # noqa: SIM115 - closed once the start is over, cancelled or not

    async def spawn() -> asyncio.subprocess.Process:
        try:
            return await asyncio.create_subprocess_exec(
                exe, "-NoProfile", "-NonInteractive", "-Command", command, cwd=cwd, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=sink, stderr=asyncio.subprocess.STDOUT, **kwargs,
            )
        finally:
            sink.close()

    proc = await start_process(spawn(), abandon=kill_powershell)
    task = PowerShellTask(task_id, command, description, proc, output)
    registry.add(task)
    return task
