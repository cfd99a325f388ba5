"""One shell command as a process group writing to a file: start, wait, kill, read its new cwd.

stdout and stderr both go to one file opened for appending, so they stay in order, a
grandchild that keeps the descriptor open cannot make anyone wait for EOF, and a kernel busy
with a user's cell never stalls the command on a full pipe.  stdin is /dev/null.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.process_start import start_process
from .environment import find_bash
from .process_group import (
    ESCAPE_MARKER,
    group_members,
    kill_escapees,
    kill_escapees_now,
    kill_group,
    kill_group_now,
)

DEFAULT_KILL_GRACE = 2.0


@dataclass(frozen=True)
class ShellFiles:
    """Where a command's output and final working directory go."""

    output: Path
    cwd: Path

    @classmethod
    def under(cls, directory: Path, name: str) -> ShellFiles:
        return cls(output=directory / f"{name}.log", cwd=directory / f"{name}.cwd")


def wrapper_script(cwd_file: Path) -> str:
    """The bash program that runs the command given as ``$1`` and records ``pwd -P`` on exit."""
    on_exit = f"pwd -P >| {shlex.quote(str(cwd_file))} 2>/dev/null"
    return (
        f"trap {shlex.quote(on_exit)} EXIT\n"
        '__jupyter_agent_command=$1; shift\n'
        'eval "$__jupyter_agent_command"\n'
    )


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: a death by signal N reads as 128 + N."""
    return returncode if returncode >= 0 else 128 - returncode


class ShellProcess:
    """A running command: its own session and process group, output in ``files.output``."""

    def __init__(self, proc: asyncio.subprocess.Process, files: ShellFiles, kill_grace: float, marker: str = ""):
        self._proc = proc
        self.marker = marker  # ESCAPE_MARKER's value in this command's environment
        self.files = files
        self.pgid = proc.pid  # start_new_session: the shell leads its own group
        self.kill_grace = kill_grace
        self.killed_by: str | None = None
        self._exit: asyncio.Future[int] | None = None

    @classmethod
    async def start(
        cls,
        command: str,
        *,
        cwd: Path,
        env: dict[str, str],
        files: ShellFiles,
        kill_grace: float = DEFAULT_KILL_GRACE,
        prefix: Sequence[str] = (),
        pass_fds: Sequence[int] = (),
        on_abandon: Callable[[], None] | None = None,
    ) -> ShellProcess:
        """Start ``command``; ``prefix`` (e.g. a sandbox's argv) runs bash inside it; ``pass_fds``
        stay open in it (the sandbox's network link).  Cancelled while it starts, the command is
        killed, with all it began, once the start is over; then ``on_abandon`` runs (to release
        ``pass_fds``, which must stay open until then)."""
        files.output.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            files.cwd.unlink()
        marker = uuid.uuid4().hex
        env = {**env, ESCAPE_MARKER: marker}
        fd = os.open(files.output, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)

        async def spawn() -> asyncio.subprocess.Process:
            try:
                return await asyncio.create_subprocess_exec(
                    *prefix, find_bash(), "-c", wrapper_script(files.cwd), "bash", command,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=fd,
                    stderr=fd,
                    cwd=str(cwd),
                    env=env,
                    start_new_session=True,
                    pass_fds=tuple(pass_fds),
                )
            finally:  # only once the start is over: a cancelled caller must not close it early
                os.close(fd)

        proc = await start_process(spawn(), abandon=lambda started: _abandon(started, marker, on_abandon))
        return cls(proc, files, kill_grace, marker)

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    def exited(self) -> asyncio.Future[int]:
        """Resolves with the shell's exit code once the shell (not its children) has exited."""
        if self._exit is None:
            self._exit = asyncio.ensure_future(self._proc.wait())
        return self._exit

    async def wait(self) -> int:
        """Wait for the shell, then stop anything it left running in its group."""
        code = await asyncio.shield(self.exited())
        await self.kill()
        return exit_code_of(code)

    async def kill(self, reason: str | None = None) -> None:
        """Kill the whole group (SIGTERM, SIGKILL after the grace period) and reap the shell."""
        if reason and self.killed_by is None and self.returncode is None:
            self.killed_by = reason
        await kill_group(self.pgid, self.kill_grace)  # the shell is a member: SIGKILL reached it
        if reason is not None and self.marker:  # timeout, Stop: also what left the group (setsid)
            await asyncio.shield(kill_escapees(self.marker))
        await asyncio.shield(self.exited())

    def kill_now(self) -> None:
        """SIGKILL the group, and what left it, without waiting (interpreter exit)."""
        kill_group_now(self.pgid)
        if self.marker:
            kill_escapees_now(self.marker)

    def alive(self) -> bool:
        return self.returncode is None or bool(group_members(self.pgid))

    def final_cwd(self) -> Path | None:
        """The directory the command ended in, if it got to record one."""
        try:
            text = self.files.cwd.read_text(encoding="utf-8", errors="surrogateescape").strip()
        except OSError:
            return None
        return Path(text) if text else None


def _abandon(proc: asyncio.subprocess.Process | None, marker: str, then: Callable[[], None] | None) -> None:
    """A command whose caller was cancelled while it started: kill all it may have begun."""
    if proc is not None:
        kill_group_now(proc.pid)
        kill_escapees_now(marker)
    if then is not None:
        then()
