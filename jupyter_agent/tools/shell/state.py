"""Per-session shell state: the working directory that ``cd`` carries from call to call.

It lives in ``app_state.extra["shell"]`` so every context copy of a session sees the same
object: a read-only call that ran in parallel (whose context modifier the orchestrator drops)
still moves the session's directory.  A directory change made by someone else through
``context.cwd`` (a worktree tool, a new session directory) is noticed and followed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.context import ToolUseContext

APP_STATE_KEY = "shell"


@dataclass
class ShellState:
    """The session's shell: where the next command starts, and where the project is."""

    cwd: Path
    project_dir: Path
    seen_context_cwd: Path | None = None
    home: Path | None = None  # where a command that ends outside the working directories leads back to

    def follow_context(self, context_cwd: Path) -> None:
        """Adopt ``context_cwd`` when it changed and the change did not come from this shell
        (``EnterWorktree``): it is also where the shell goes back to from now on."""
        if context_cwd not in (self.cwd, self.seen_context_cwd):
            self.cwd = self.home = context_cwd
        self.seen_context_cwd = context_cwd

    def home_dir(self) -> Path:
        """The directory the shell returns to (``bash.py``): the project's, or the one another
        tool moved the session to."""
        return self.home if self.home is not None else self.project_dir

    def start_dir(self) -> tuple[Path, str | None]:
        """The directory the next command runs in, and a note when it had to fall back."""
        for candidate in (self.cwd, self.project_dir):
            if candidate.is_dir():
                if candidate == self.cwd:
                    return candidate, None
                missing, self.cwd = self.cwd, candidate
                return candidate, (
                    f"The working directory {missing} no longer exists; "
                    f"the command ran in the project directory {candidate} instead."
                )
        home = Path(os.path.expanduser("~"))
        missing, self.cwd = self.cwd, home
        return home, (
            f"Neither the working directory {missing} nor the project directory "
            f"{self.project_dir} exists; the command ran in {home}."
        )


def shell_state(context: ToolUseContext) -> ShellState:
    """The session's shell state (created on first use), synced with ``context.cwd``."""
    context_cwd = Path(os.path.abspath(context.cwd))
    state = context.get_app_state().extra.get(APP_STATE_KEY)
    if not isinstance(state, ShellState):
        state = ShellState(cwd=context_cwd, project_dir=context_cwd)
        new = state
        context.set_app_state(lambda s: replace(s, extra={**s.extra, APP_STATE_KEY: new}))
    state.follow_context(context_cwd)
    return state
