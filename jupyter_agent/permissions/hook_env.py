"""``CLAUDE_ENV_FILE``: variables that ``SessionStart``, ``CwdChanged`` and ``FileChanged``
command hooks leave for the Bash commands that follow (Claude Code's way to activate a
virtualenv, load ``nvm`` or run ``direnv export bash`` once for the whole session).

Each such hook gets its own file (``<event>-hook-<n>.sh`` in the session's
``.claude/session-env/`` folder — a protected path, so the agent cannot write into it without
asking) and appends ``export NAME=value`` lines to it.  Once the event's hooks are done, the
files are read the way a shell would — sourced by ``bash`` with ``set -a`` in the hooks'
environment — and only the resulting *variables* are kept: what changed, what is new and what
was unset.  Functions, aliases and shell options are not carried over, and the variables that
change how bash reads a line (``CDPATH``, ``BASH_ENV``, exported functions, …) are dropped again
where every command's environment is built, so the permission check still reads each line as it
will run.  ``CwdChanged`` files start empty at every change of directory (its variables are for
the directory left behind); a ``SessionStart`` or ``FileChanged`` hook's file is rewritten only
when that hook runs again, so a ``compact`` hook does not drop what a ``startup`` hook set.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..core.child_process import run_child
from .path_programs import add_search_path

ENV_FILE_EVENTS = ("SessionStart", "CwdChanged", "FileChanged")  # in the order their variables are laid on
ENV_FILE_VARIABLE = "CLAUDE_ENV_FILE"
_CAPTURE_TIMEOUT = 5.0
_BASH_OWN = frozenset({"_", "SHLVL", "PWD", "OLDPWD"})  # set by bash itself, not by the file
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MARKER = "--jupyter-agent-env-marker--"  # no NAME=value item of env -0 can equal it


class HookEnvironment:
    """The env files of one session and the variables read from them, per event."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder  # None: hooks get no CLAUDE_ENV_FILE
        self._variables: dict[str, dict[str, str | None]] = {}  # event -> name -> value (None: unset)

    def file_for(self, event: str, index: int) -> Path | None:
        """An empty file for the ``index``-th command hook of ``event`` (None: no file for it,
        or none could be made — a link planted in its place is not followed)."""
        if self.folder is None or event not in ENV_FILE_EVENTS:
            return None
        path = self.folder / f"{event.lower()}-hook-{index}.sh"
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600))
        except OSError:
            return None
        return path

    def forget(self, event: str) -> None:
        """Drop ``event``'s files and variables (CwdChanged: a new directory starts afresh)."""
        self._variables.pop(event, None)
        for path in self._files(event):
            with contextlib.suppress(OSError):
                path.unlink()

    def _files(self, event: str) -> list[Path]:
        if self.folder is None or not self.folder.is_dir():
            return []
        prefix = f"{event.lower()}-hook-"
        found = [p for p in self.folder.iterdir()
                 if p.name.startswith(prefix) and p.name.endswith(".sh") and not p.is_symlink()]
        return sorted(found, key=lambda p: int(p.name[len(prefix):-3]) if p.name[len(prefix):-3].isdigit() else -1)

    async def read(self, event: str, base: Mapping[str, str], cwd: str) -> str | None:
        """Read ``event``'s files in ``cwd`` against ``base`` (where and with what the hooks ran),
        with the variables of the events before it laid on, and keep the variables they set or
        unset; a problem to report, or None."""
        files = [p for p in self._files(event) if _size(p) > 0]
        if not files:
            self._variables.pop(event, None)
            return None
        env = dict(base)
        for earlier in ENV_FILE_EVENTS[:ENV_FILE_EVENTS.index(event)]:  # "$PATH" there is theirs already
            for name, value in self._variables.get(earlier, {}).items():
                if value is None:
                    env.pop(name, None)
                else:
                    env[name] = value
        env = {k: v for k, v in env.items() if k not in ("BASH_ENV", "ENV") and not k.startswith("BASH_FUNC_")}
        bash = shutil.which("bash", path=env.get("PATH")) or "/bin/bash"
        try:
            # The environment as this bash has it before the files (bash drops or sets some
            # variables itself: PS1 outside an interactive shell, SHLVL, PWD), a marker, then
            # after them.  set -a: a plain NAME=value is kept too; no variable of ours joins in.
            script = (f"env -0; printf '%s\\0' {_MARKER}; set -a; "
                      + " ".join(f". {shlex.quote(str(p))} >/dev/null;" for p in files) + " env -0")
            done = await run_child([bash, "--noprofile", "--norc", "-c", script], env=env, cwd=cwd,
                                   timeout=_CAPTURE_TIMEOUT)
        except asyncio.TimeoutError:  # first: an OSError too, since Python 3.11
            return f"{ENV_FILE_VARIABLE}: reading the variables took more than {_CAPTURE_TIMEOUT:g} s; none were kept"
        except OSError as exc:
            return f"{ENV_FILE_VARIABLE}: the variables could not be read: {exc}"
        before, _sep, rest = done.stdout.partition(b"\0" + _MARKER.encode() + b"\0")
        after = _parse(rest)
        if done.returncode != 0 or not _sep or after is None:
            return f"{ENV_FILE_VARIABLE}: the variables could not be read (bash exited with {done.returncode})"
        start = _parse(before + b"\0") or {}
        variables: dict[str, str | None] = {
            name: value for name, value in after.items() if name not in _BASH_OWN and start.get(name) != value
        }
        variables.update((name, None) for name in start if name not in after and name not in _BASH_OWN)
        self._variables[event] = variables
        if variables.get("PATH"):  # the programs in the folders it adds are protected like PATH's
            add_search_path(variables["PATH"] or "")
        problem = done.stderr.decode("utf-8", "replace").strip()
        return f"{ENV_FILE_VARIABLE}: {problem[:2000]}" if problem else None

    def overlay(self) -> tuple[dict[str, str], frozenset[str]]:
        """The variables for Bash commands: those set, and the names unset (later events win)."""
        merged: dict[str, str | None] = {}
        for event in ENV_FILE_EVENTS:
            merged.update(self._variables.get(event, {}))
        return ({k: v for k, v in merged.items() if v is not None},
                frozenset(k for k, v in merged.items() if v is None))

    def names(self) -> list[str]:
        """The names of the variables kept (for reports)."""
        kept, removed = self.overlay()
        return sorted(kept) + [f"-{name}" for name in sorted(removed)]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _parse(output: bytes) -> dict[str, str] | None:
    variables = {}
    for item in output.decode("utf-8", "surrogateescape").split("\0"):
        name, sep, value = item.partition("=")
        if sep and _NAME.fullmatch(name):
            variables[name] = value
    return variables or None

