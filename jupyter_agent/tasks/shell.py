"""A background shell command as a task: output in a file, read incrementally, stoppable."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

from ..tools.shell.output import FileFollower
from ..tools.shell.process import DEFAULT_KILL_GRACE, ShellFiles, ShellProcess
from ..tools.shell.text import looks_binary
from .base import BackgroundTask
from .registry import TaskRegistry


class ShellTask(BackgroundTask):
    """``Bash`` with ``run_in_background``: the process group runs on while the agent works."""

    kind = "local_bash"
    id_prefix = "bash"

    def __init__(
        self,
        task_id: str,
        command: str,
        description: str,
        process: ShellProcess,
        after: Callable[[], str | None] | None = None,
    ):
        super().__init__(task_id, description or command)
        self._after = after  # run in a thread once the command ends; its note ends the output
        self.command = command
        self.process = process
        self._follower = FileFollower(process.files.output)
        self._read_lock = asyncio.Lock()
        self._binary: bool | None = None
        self._stopped = False
        self._runner = asyncio.ensure_future(self._run())

    @property
    def output_path(self) -> Path:
        return self.process.files.output

    async def _run(self) -> None:
        try:
            code = await self.process.wait()
        finally:
            if self._after is not None:
                await asyncio.shield(asyncio.to_thread(self._note_after))
        if self._stopped:
            self._finish("killed", code)
        else:
            self._finish("completed" if code == 0 else "failed", code)

    def _note_after(self) -> None:
        note = self._after() if self._after is not None else None
        if note:
            with contextlib.suppress(OSError), open(self.output_path, "a", encoding="utf-8") as out:
                out.write(f"\n[{note}]\n")

    async def read_new(self, max_chars: int) -> str:
        async with self._read_lock:
            final = self.done
            if self._binary is None:
                self._binary = await asyncio.to_thread(self._sniff_binary)
            if self._binary:
                size = await asyncio.to_thread(_size, self.output_path)
                return (
                    f"(binary output: {size:,} bytes so far, not shown. "
                    f"Raw bytes: {self.output_path})"
                )
            lines, skipped = await asyncio.to_thread(
                self._follower.read_new, final=final, max_bytes=max(4096, max_chars * 4)
            )
        text = "\n".join(lines)
        if len(text) > max_chars:
            skipped_chars = len(text) - max_chars
            text = text[-max_chars:]
            note = f"[{skipped_chars:,} earlier characters not shown"
        elif skipped:
            note = f"[{skipped:,} earlier bytes not shown"
        else:
            return text
        return f"{note}; the full output is in {self.output_path}]\n{text}"

    def _sniff_binary(self) -> bool | None:
        """Binary or not, judged on the first 8 KiB; None while there is too little to judge."""
        try:
            with open(self.output_path, "rb") as fh:
                sample = fh.read(8192)
        except OSError:
            return None
        if len(sample) < 8192 and not self.done:
            return None if not looks_binary(sample) else True
        return looks_binary(sample)

    async def stop(self) -> None:
        if not self.done:
            self._stopped = True
            await self.process.kill("stopped")
        await asyncio.shield(self._runner)

    def kill_now(self) -> None:
        self._stopped = True
        self.process.kill_now()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


async def start_shell_task(
    registry: TaskRegistry,
    command: str,
    *,
    description: str,
    cwd: Path,
    env: dict[str, str],
    directory: Path,
    kill_grace: float = DEFAULT_KILL_GRACE,
    after: Callable[[], str | None] | None = None,
    pass_fds: Sequence[int] = (),
) -> ShellTask:
    """Start ``command`` in the background and register it; returns as soon as it runs."""
    task_id = registry.new_id(ShellTask.id_prefix)
    files = ShellFiles(output=directory / f"{task_id}.output")
    process = await ShellProcess.start(  # a background command does not move the session
        command, cwd=cwd, env=env, files=files, kill_grace=kill_grace, pass_fds=pass_fds,
        track_cwd=False,
    )
    task = ShellTask(task_id, command, description, process, after)
    registry.add(task)
    return task
