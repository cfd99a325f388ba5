"""EnterWorktree / ExitWorktree: work in an isolated git worktree on a new branch.

``EnterWorktree`` creates ``<repo>/.worktrees/<name>`` on branch ``worktree-<name>``
(from the current HEAD) and makes it the session's working directory: through the result's
``context_modifier`` (``context.cwd``) and ``AppState.extra["worktree"]`` (a
``WorktreeSession``), which the session reads to carry the cwd into later turns.
``ExitWorktree`` goes back to the original directory and either keeps the worktree or removes
it with its branch — refusing while it holds uncommitted changes or new commits unless
``discard_changes`` is true.

With ``WorktreeCreate`` hooks configured, they make the worktree instead (another version
control system, a copy): the path they print is entered, with no git at all, and on
``remove`` the ``WorktreeRemove`` hooks get it to remove (they also run after git removes one
of its own).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.child_process import run_child
from ..core.context import AppState, ToolUseContext
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.hooks import get_hook_runner

STATE_KEY = "worktree"
# Not Claude Code's ``.claude/worktrees``: every write under ``.claude/`` is a protected-path ask
# here, which would make each edit in the worktree ask.  A dot folder is still skipped by pytest
# and (through .git/info/exclude) by git and ripgrep in the main checkout.
WORKTREES_DIR = Path(".worktrees")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class WorktreeSession:
    original_cwd: Path
    repo_root: Path
    path: Path
    branch: str
    base_commit: str
    made_by_hook: bool = False  # by WorktreeCreate hooks (no git): WorktreeRemove hooks remove it


def get_worktree(state: AppState) -> WorktreeSession | None:
    value = state.extra.get(STATE_KEY)
    return value if isinstance(value, WorktreeSession) else None


def _with_worktree(state: AppState, wt: WorktreeSession | None, old: WorktreeSession | None = None) -> AppState:
    """Record the worktree and make it (or stop it being) a working directory for permissions."""
    extra = {k: v for k, v in state.extra.items() if k != STATE_KEY}
    perm = state.tool_permission_context
    dirs = tuple(d for d in perm.additional_directories if old is None or Path(d) != old.path)
    if wt is not None:
        extra[STATE_KEY] = wt
        dirs = (*dirs, wt.path) if wt.path not in dirs else dirs
    return replace(state, extra=extra, tool_permission_context=replace(perm, additional_directories=dirs))


async def git(cwd: Path, *args: str) -> tuple[int, str, str]:
    """Run git without blocking the loop: (exit code, stdout, stderr)."""
    done = await run_child(["git", *args], cwd=str(cwd))
    return done.returncode, done.stdout.decode(errors="replace").strip(), done.stderr.decode(errors="replace").strip()


async def _git_ok(cwd: Path, *args: str) -> str:
    code, out, err = await git(cwd, *args)
    if code != 0:
        raise ToolError(f"git {' '.join(args)} failed: {err or out or f'exit code {code}'}")
    return out


class EnterWorktreeInput(BaseModel):
    name: str | None = Field(None, description="Name of the worktree (letters, digits, . _ -); random if omitted")


class EnterWorktreeTool(Tool[EnterWorktreeInput, WorktreeSession]):
    """Create an isolated git worktree on a new branch and switch the session into it.

    Use it when the user asks to work in a worktree, or for risky changes that should stay
    off the current branch. Files, Bash and notebooks then work inside the worktree until
    ExitWorktree."""

    name = "EnterWorktree"
    input_schema = EnterWorktreeInput

    async def validate_input(self, input: EnterWorktreeInput, context: ToolUseContext) -> ValidationResult:
        if input.name is not None and not _NAME.match(input.name):
            return ValidationError(
                f"Invalid worktree name {input.name!r}: use up to 64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit."
            )
        current = get_worktree(context.get_app_state())
        if current is not None:
            return ValidationError(f"Already in worktree {current.path}. Call ExitWorktree first.")
        return VALID

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        runner = get_hook_runner(context)
        if runner is not None and runner.has_hooks("WorktreeCreate"):  # your command instead of git
            name = input.name or f"wt-{secrets.token_hex(3)}"
            path = await _hooked_worktree(runner, name, context)
            wt = WorktreeSession(Path(context.cwd), Path(context.cwd), path, "", "", made_by_hook=True)
            context.set_app_state(lambda s: _with_worktree(s, wt))
            return ToolResult(wt, context_modifier=lambda ctx: ctx.with_changes(cwd=path))
        code, root, _ = await git(context.cwd, "rev-parse", "--show-toplevel")
        if code != 0:
            raise ToolError(f"{context.cwd} is not inside a git repository; worktrees need one.")
        repo = Path(root)
        code, head, _ = await git(repo, "rev-parse", "--verify", "HEAD")
        if code != 0:
            raise ToolError("The repository has no commits yet; commit something before creating a worktree.")
        name = input.name or f"wt-{secrets.token_hex(3)}"
        path, branch = repo / WORKTREES_DIR / name, f"worktree-{name}"
        if path.exists():
            raise ToolError(f"{path} already exists. Choose another name.")
        await _git_ok(repo, "worktree", "add", "-b", branch, str(path), head)
        await _exclude_worktrees_dir(repo)
        wt = WorktreeSession(Path(context.cwd), repo, path, branch, head)
        context.set_app_state(lambda s: _with_worktree(s, wt))
        target = _same_place(Path(context.cwd), repo, path)
        return ToolResult(wt, context_modifier=lambda ctx: ctx.with_changes(cwd=target))

    def map_result_to_content(self, data: WorktreeSession, tool_use_id: str) -> list[Any]:
        made = "(made by a WorktreeCreate hook)" if data.made_by_hook else f"on branch {data.branch}"
        text = (
            f"Created worktree at {data.path} {made}. The session now works in "
            "the worktree; call ExitWorktree (keep or remove) to leave it."
        )
        return [{"type": "text", "text": text}]


async def _hooked_worktree(runner: Any, name: str, context: ToolUseContext) -> Path:
    """The folder the WorktreeCreate hooks made for ``name``: the path they printed (or gave as
    ``hookSpecificOutput.worktreePath``).  Any failure fails the creation: there is no git
    fallback, as in Claude Code."""
    outcome = await runner.run("WorktreeCreate", {"name": name}, permission_mode=context.permission_context.mode)
    if outcome.blocked or outcome.stop:
        raise ToolError(f"The WorktreeCreate hook refused: {outcome.block_message}")
    if outcome.errors:
        raise ToolError("WorktreeCreate hook failed: " + "; ".join(outcome.errors))
    printed = [line.strip() for text in outcome.additional_context for line in text.splitlines() if line.strip()]
    text = outcome.worktree_path or (printed[-1] if printed else None)
    if not text:
        raise ToolError("The WorktreeCreate hook did not print the path of the worktree it made.")
    path = Path(text)
    if not path.is_absolute():
        raise ToolError(f"The WorktreeCreate hook printed {text!r}, which is not an absolute path.")
    if not path.is_dir():
        raise ToolError(f"The WorktreeCreate hook printed {text}, which is not a folder.")
    return path


async def _run_remove_hooks(context: ToolUseContext, wt: WorktreeSession) -> bool:
    """WorktreeRemove hooks for ``wt`` (they cannot refuse; what fails is reported by the
    runner); True when there were any."""
    runner = get_hook_runner(context)
    if runner is None or not runner.has_hooks("WorktreeRemove"):
        return False
    await runner.run("WorktreeRemove", {"worktree_path": str(wt.path)}, permission_mode=context.permission_context.mode)
    return True


def _same_place(cwd: Path, repo: Path, worktree: Path) -> Path:
    """The worktree's counterpart of ``cwd`` (a subfolder of the repo), else its root."""
    try:
        inside = worktree / cwd.resolve().relative_to(repo.resolve())
    except ValueError:
        return worktree
    return inside if inside.is_dir() else worktree


async def _exclude_worktrees_dir(repo: Path) -> None:
    """Keep ``.worktrees/`` out of the main checkout's ``git status`` (and ripgrep's searches)."""
    common = Path(await _git_ok(repo, "rev-parse", "--git-common-dir"))
    exclude = (common if common.is_absolute() else repo / common) / "info" / "exclude"
    line = f"/{WORKTREES_DIR.as_posix()}/"

    def _add() -> None:
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if line not in text.splitlines():
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a", encoding="utf-8") as fh:
                fh.write(("" if not text or text.endswith("\n") else "\n") + line + "\n")

    await asyncio.to_thread(_add)


class ExitWorktreeInput(BaseModel):
    action: Literal["keep", "remove"] = Field(description="keep the worktree and branch, or remove both")
    discard_changes: bool = Field(
        False, description="With remove: delete even uncommitted changes and commits not on the original branch"
    )


@dataclass(frozen=True)
class ExitWorktreeOutput:
    worktree: WorktreeSession
    action: str
    discarded: str = ""
    remove_hooks: bool = False  # WorktreeRemove hooks ran


class ExitWorktreeTool(Tool[ExitWorktreeInput, ExitWorktreeOutput]):
    """Leave the worktree created by EnterWorktree and return to the original directory.

    `keep` leaves the worktree and its branch on disk; `remove` deletes both, and refuses while
    there are uncommitted changes or new commits unless `discard_changes` is true."""

    name = "ExitWorktree"
    input_schema = ExitWorktreeInput

    def is_destructive(self, input: ExitWorktreeInput) -> bool:
        return input.action == "remove"

    async def validate_input(self, input: ExitWorktreeInput, context: ToolUseContext) -> ValidationResult:
        if get_worktree(context.get_app_state()) is None:
            return ValidationError("Not in a worktree created by EnterWorktree; there is nothing to exit.")
        return VALID

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        wt = get_worktree(context.get_app_state())
        if wt is None:
            raise ToolError("Not in a worktree created by EnterWorktree; there is nothing to exit.")
        discarded, hooked = "", False
        if input.action == "remove" and wt.made_by_hook:
            hooked = await _run_remove_hooks(context, wt)  # they remove it; there is no git to ask
        elif input.action == "remove":
            discarded = await _pending_work(wt)
            if discarded and not input.discard_changes:
                raise ToolError(
                    f"The worktree has {discarded}. Commit and merge them, exit with action "
                    "\"keep\", or call ExitWorktree again with discard_changes: true to delete them."
                )
            await _git_ok(wt.repo_root, "worktree", "remove", "--force", str(wt.path))
            await _git_ok(wt.repo_root, "branch", "-D", wt.branch)
            hooked = await _run_remove_hooks(context, wt)  # clean-up beside git's
        context.set_app_state(lambda s: _with_worktree(s, None, wt))
        back = wt.original_cwd
        return ToolResult(
            ExitWorktreeOutput(wt, input.action, discarded, hooked),
            context_modifier=lambda ctx: ctx.with_changes(cwd=back),
        )

    def map_result_to_content(self, data: ExitWorktreeOutput, tool_use_id: str) -> list[Any]:
        wt = data.worktree
        if data.action == "keep":
            text = f"Left the worktree; it is kept at {wt.path}" + (f" on branch {wt.branch}." if wt.branch else ".")
        elif wt.made_by_hook:
            text = (f"Handed the worktree {wt.path} to the WorktreeRemove hooks to remove." if data.remove_hooks else
                    f"Left the worktree; {wt.path} stays on disk: no WorktreeRemove hook is configured to remove it.")
        else:
            text = f"Removed the worktree {wt.path} and branch {wt.branch}"
            text += f" (discarded {data.discarded})." if data.discarded else "."
        return [{"type": "text", "text": f"{text} Working directory is {wt.original_cwd} again."}]


async def _pending_work(wt: WorktreeSession) -> str:
    """A description of what removing would lose ('' when nothing)."""
    status = await _git_ok(wt.path, "status", "--porcelain")
    count = await _git_ok(wt.path, "rev-list", "--count", f"{wt.base_commit}..HEAD")
    parts = []
    files = len([line for line in status.splitlines() if line.strip()])
    if files:
        parts.append(f"{files} uncommitted file change(s)")
    if int(count or 0):
        parts.append(f"{count} commit(s) not on the original branch")
    return " and ".join(parts)
