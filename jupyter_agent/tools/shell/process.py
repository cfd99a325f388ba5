"""One shell command as a process group writing to a file: start, wait, kill, read its new cwd.

stdout and stderr both go to one file opened for appending, so they stay in order, a
grandchild that keeps the descriptor open cannot make anyone wait for EOF, and a kernel busy
with a user's cell never stalls the command on a full pipe.  stdin is /dev/null.

The directory a command ends in comes back through a pipe the shell alone holds: its EXIT trap
prints ``pwd -P`` there, and the command itself runs with that descriptor closed, so nothing it
starts inherits it (nor can keep it open).  A pipe, not a file: creating, reading and removing a
file per command cost about half a millisecond more, a third of the tool's overhead on a
trivial command.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.child_process import ChildProcess, kill_group_now, start_child
from .environment import find_bash
from .process_group import (
    ESCAPE_MARKER,
    group_members,
    kill_escapees,
    kill_escapees_now,
    kill_group,
)

DEFAULT_KILL_GRACE = 2.0


@dataclass(frozen=True)
class ShellFiles:
    """Where a command's output goes."""

    output: Path

    @classmethod
    def under(cls, directory: Path, name: str) -> ShellFiles:
        return cls(output=directory / f"{name}.log")


def wrapper_script(cwd_fd: int | None) -> str:
    """The bash program that runs the command given as ``$1``; with ``cwd_fd``, it prints
    ``pwd -P`` to that descriptor on exit, and the command runs with the descriptor closed."""
    if cwd_fd is None:
        return '__jupyter_agent_command=$1; shift\neval "$__jupyter_agent_command"\n'
    on_exit = f"pwd -P 2>/dev/null >&{cwd_fd}"  # stderr first: a shell killed mid-command runs the trap with the pipe shut, quietly
    return (
        f"trap {shlex.quote(on_exit)} EXIT\n"
        '__jupyter_agent_command=$1; shift\n'
        f'eval "$__jupyter_agent_command" {cwd_fd}>&-\n'
    )


def exit_code_of(returncode: int) -> int:
    """A shell-style exit code: a death by signal N reads as 128 + N."""
    return returncode if returncode >= 0 else 128 - returncode


class ShellProcess:
    """A running command: its own session and process group, output in ``files.output``."""

    def __init__(
        self, proc: ChildProcess, files: ShellFiles, kill_grace: float, marker: str = "",
        cwd_reader: int | None = None,
    ):
        self._proc = proc
        self._cwd_reader = cwd_reader  # the read end of the pipe the EXIT trap prints to
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
        track_cwd: bool = True,
    ) -> ShellProcess:
        """Start ``command``; ``prefix`` (e.g. a sandbox's argv) runs bash inside it; ``pass_fds``
        stay open in it (the sandbox's network link).  ``track_cwd``: have ``final_cwd``.  The
        start does not wait on anything (``child_process.py``): a cancelled caller cannot leave
        a process nobody owns."""
        files.output.parent.mkdir(parents=True, exist_ok=True)
        marker = uuid.uuid4().hex
        env = {**env, ESCAPE_MARKER: marker}
        fd = os.open(files.output, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        reader, writer = os.pipe() if track_cwd else (None, None)
        if reader is not None:
            os.set_blocking(reader, False)  # read once the shell is gone: what is there, or nothing
        try:
            proc = start_child(
                [*prefix, find_bash(), "-c", wrapper_script(writer), "bash", command],
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=fd,
                cwd=str(cwd),
                env=env,
                start_new_session=True,
                pass_fds=(*pass_fds, *([writer] if writer is not None else [])),
            )
        except BaseException:
            if reader is not None:
                os.close(reader)
            raise
        finally:
            os.close(fd)
            if writer is not None:
                os.close(writer)
        return cls(proc, files, kill_grace, marker, reader)

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
        """The directory the command ended in, if it got to record one (read once, after the
        shell has exited; later calls, and a process started without ``track_cwd``, give None)."""
        reader, self._cwd_reader = self._cwd_reader, None
        if reader is None:
            return None
        try:
            data = os.read(reader, 1 << 16)
        except OSError:  # nothing written (killed, or ended by exec)
            return None
        finally:
            os.close(reader)
        text = os.fsdecode(data[:-1] if data.endswith(b"\n") else data)
        return Path(text) if text.startswith("/") else None

    def close(self) -> None:
        """Release the directory pipe without reading it (the caller gave up on the command)."""
        reader, self._cwd_reader = self._cwd_reader, None
        if reader is not None:
            os.close(reader)

