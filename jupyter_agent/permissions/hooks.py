"""Hooks: settings hooks (command, http, prompt) and Python callables, run for agent and tool events.

    runner = HookRunner.from_settings(settings, session_id="abc")
    runner.register("PreToolUse", my_async_check, matcher="Bash")
    context.extra[HOOKS_KEY] = runner            # run_tool_use picks it up
    outcome = await runner.run("UserPromptSubmit", {"prompt": text})

Matching hooks of one event run concurrently; their answers merge into one ``HookOutcome``.
A Python hook is ``async def hook(payload: dict) -> HookResponse | dict | None`` (a dict uses
the same JSON fields as a command hook's output).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..core.tool import Tool
from ..errors import AgentConfigError
from .hook_commands import run_command_hook
from .hook_env import ENV_FILE_EVENTS, ENV_FILE_VARIABLE, HookEnvironment
from .hook_match import matcher_applies
from .hook_remote import HttpHookPolicy, PromptModel, run_http_hook, run_prompt_hook
from .hook_response import HookOutcome, HookResponse, response_from_json
from .hooks_config import (
    DEFAULT_TIMEOUT,
    HOOK_EVENTS,
    TOOL_EVENTS,
    CommandHook,
    Hook,
    HookMatcher,
    HttpHook,
    validate_matcher,
)
from .updates import file_signature

if TYPE_CHECKING:
    from ..core.context import ToolUseContext
    from .settings import Settings

HOOKS_KEY = "hooks"
PythonHook = Callable[[dict[str, Any]], Awaitable["HookResponse | dict[str, Any] | None"]]


@dataclass(frozen=True)
class _Registered:
    event: str
    matcher: str
    callback: PythonHook
    timeout: float


class HookRunner:
    """Runs the hooks of one session; put it in ``context.extra[HOOKS_KEY]``.  ``env``: variables
    hooks get over the kernel's environment, which is read afresh for every hook."""

    def __init__(
        self,
        matchers: Sequence[HookMatcher] = (),
        *,
        cwd: str | os.PathLike[str] | None = None,
        session_id: str = "",
        transcript_path: str = "",
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._matchers = list(matchers)
        self._python: list[_Registered] = []
        self.cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.extra_env = dict(env or {})  # set over the kernel's environment (a settings file's ``env``)
        self.env_files = HookEnvironment()  # CLAUDE_ENV_FILE (the session sets its folder)
        # where the session is now (the folder a Bash ``cd`` moved to): hooks run there and say
        # so in ``cwd``; ``cwd`` above stays the project (CLAUDE_PROJECT_DIR, rule matchers)
        self.current_dir: Callable[[], str] | None = None
        self.watch_paths: set[str] = set()  # absolute paths SessionStart / CwdChanged hooks asked to watch
        self._watched: dict[str, object] | None = None  # FileChanged: each watched path's file signature
        self.prompt_model: PromptModel | None = None  # the session's model, for prompt hooks
        self.http_policy = HttpHookPolicy()  # allowedHttpHookUrls / httpHookAllowedEnvVars
        # tells the user what hooks say to them (systemMessage) and how they failed; set by the session
        self.on_notice: Callable[[str], None] | None = None
        self._ran_once: set[int] = set()  # ids of "once" hooks that have run
        self._background: set[asyncio.Task[HookResponse]] = set()
        self._finished: list[str] = []  # what finished async hooks said, for the model's next step

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> HookRunner:
        kwargs.setdefault("cwd", settings.project_dir)
        runner = cls(settings.hooks, **kwargs)
        runner.http_policy = settings.http_hook_policy
        return runner

    def register(
        self, event: str, callback: PythonHook, matcher: str = "", timeout: float = DEFAULT_TIMEOUT
    ) -> Callable[[], None]:
        """Add an async Python hook; returns a function that removes it."""
        if event not in HOOK_EVENTS:
            raise AgentConfigError(f"Unknown hook event {event!r}. Known: {', '.join(sorted(HOOK_EVENTS))}.")
        validate_matcher(matcher, "register()")
        entry = _Registered(event, matcher, callback, timeout)
        self._python.append(entry)
        return lambda: self._python.remove(entry) if entry in self._python else None

    def describe(self, project: str | os.PathLike[str] | None = None) -> list[str]:
        """One line per hook: event, matcher, what it runs and where it was configured."""
        lines: list[str] = []
        for m in self._matchers:
            where = _relative(m.path, project) if m.path is not None else "session"
            on = f"{m.event} ({m.matcher})" if m.matcher not in ("", "*") else m.event
            lines.extend(f"{on}: {h.describe} — {where}" for h in m.hooks)
        for p in self._python:
            on = f"{p.event} ({p.matcher})" if p.matcher not in ("", "*") else p.event
            lines.append(f"{on}: {getattr(p.callback, '__name__', 'python hook')}() — Python")
        return lines

    def has_hooks(self, event: str) -> bool:
        return any(m.event == event for m in self._matchers) or any(p.event == event for p in self._python)

    async def run(
        self,
        event: str,
        payload: Mapping[str, Any],
        *,
        tool: Tool[Any, Any] | None = None,
        tool_input: BaseModel | None = None,
        permission_mode: str = "default",
    ) -> HookOutcome:
        """Run every hook of ``event`` that matches; never raises for a misbehaving hook."""
        full = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self._here(),
            "permission_mode": permission_mode,
            "hook_event_name": event,
            **payload,
        }
        subject = _subject(event, full)
        env_files = event in ENV_FILE_EVENTS and self.env_files.folder is not None
        if env_files and event == "CwdChanged":
            self.env_files.forget(event)  # the variables were for the directory left behind
        jobs: list[Awaitable[HookResponse]] = []
        index = 0  # a command hook's place among the event's: its CLAUDE_ENV_FILE
        for m in self._matchers:
            if m.event != event:
                continue
            applies = (_names_file(m.matcher, str(full.get("file_path"))) if event == "FileChanged"
                       else matcher_applies(m.matcher, subject, tool, tool_input, self.cwd))
            for h in m.hooks:
                index += isinstance(h, CommandHook)
                if applies and self._now(h, full):
                    env_file = self.env_files.file_for(event, index) if isinstance(h, CommandHook) else None
                    jobs.append(self._job(h, full, env_file))
        for p in list(self._python):
            if p.event == event and matcher_applies(p.matcher, subject, tool, tool_input, self.cwd):
                jobs.append(_run_python(p, dict(full)))
        if not jobs:
            return HookOutcome()
        outcome = HookOutcome.merge(list(await asyncio.gather(*jobs)))
        if outcome.watch_paths and event in ("SessionStart", "CwdChanged"):
            self.watch_paths.update(outcome.watch_paths)
        problem = await self.env_files.read(event, self._environment(), full["cwd"]) if env_files else None
        self._tell(event, (*outcome.errors, *((problem,) if problem else ()), *outcome.system_messages))
        return outcome

    async def check_files(self, permission_mode: str = "default") -> list[str]:
        """FileChanged: run its hooks for each watched file that was created, changed or deleted
        since the last look (the first look only records them).  Watched: the file names its
        matchers list (``.envrc|.env``), in the session's current folder, and the ``watchPaths``
        SessionStart and CwdChanged hooks gave.  Returns the paths that changed."""
        if not self.has_hooks("FileChanged"):
            return []
        here = self._here()
        names = {n for m in self._matchers if m.event == "FileChanged" for n in m.matcher.split("|") if n not in ("", "*")}
        paths = {os.path.join(here, n) for n in names if "/" not in n} | {n for n in names if os.path.isabs(n)}
        now = {path: file_signature(Path(path)) for path in sorted(paths | self.watch_paths)}
        before, self._watched = self._watched, now
        if before is None:
            return []
        changed = []
        for path, signature in now.items():
            if path not in before or before[path] == signature:
                continue  # newly watched (another folder), or unchanged
            old = before[path]
            event, kind = (("add", "created") if old is None else ("unlink", "deleted") if signature is None
                           else ("change", "modified"))
            changed.append(path)
            await self.run("FileChanged", {"file_path": path, "event": event, "change_type": kind},
                           permission_mode=permission_mode)
        return changed

    def notify(self, event: str, text: str) -> None:
        """Tell the user something about ``event``'s hooks (the session's notice line)."""
        self._tell(event, (text,))

    def _tell(self, event: str, texts: Sequence[str]) -> None:
        if self.on_notice is not None:
            for text in texts:
                self.on_notice(f"{event} hook: {text}")


    def _now(self, hook: Hook, payload: dict[str, Any]) -> bool:
        """Whether ``hook`` is waited for now: a spent ``once`` hook does not run; an ``async``
        one is started in the background: its ``additionalContext`` / ``systemMessage`` (or plain
        output) reach the model with its next step (``take_finished``); nothing else it says counts."""
        if hook.once:
            if id(hook) in self._ran_once:
                return False
            self._ran_once.add(id(hook))
        if not hook.background:
            return True
        task: asyncio.Task[HookResponse] = asyncio.ensure_future(self._job(hook, payload))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(lambda done: self._keep_answer(str(payload.get("hook_event_name")), done))
        return False

    def _keep_answer(self, event: str, task: asyncio.Task[HookResponse]) -> None:
        if task.cancelled() or task.exception() is not None:
            return  # run_*_hook turn failures into an error response; this is only a safety net
        response = task.result()
        self._tell(event, [response.error] if response.error else [])  # its systemMessage goes to the model
        for text in (response.additional_context, response.system_message):
            if text and text.strip():
                self._finished.append(f"An async {event} hook finished: {text.strip()}")

    def take_finished(self) -> list[str]:
        """What async hooks that finished since the last call said (each once)."""
        finished, self._finished = self._finished, []
        return finished

    async def wait_background(self, timeout: float | None = None) -> None:
        """Wait until the async hooks started so far have finished (at most ``timeout`` seconds)."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=timeout)

    async def aclose(self, grace: float = 1.0) -> None:
        """The session ends: async hooks still running get ``grace`` seconds, then are stopped
        (a command hook's process group is killed)."""
        await self.wait_background(grace)
        running = set(self._background)
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running)

    def _here(self) -> str:
        """The session's current folder (the project when it is unknown or gone)."""
        here = self.current_dir() if self.current_dir is not None else None
        return here if here and os.path.isdir(here) else self.cwd

    def _environment(self) -> dict[str, str]:
        """The environment a hook gets: the kernel's as it is now (a cell may have changed it
        since the session began) with ``extra_env`` over it, and ``CLAUDE_PROJECT_DIR`` unless
        one of them sets it."""
        return {"CLAUDE_PROJECT_DIR": self.cwd, **os.environ, **self.extra_env}

    def _job(self, hook: Hook, payload: dict[str, Any], env_file: Path | None = None) -> Awaitable[HookResponse]:
        if isinstance(hook, CommandHook):
            env = self._environment()
            if env_file is not None:
                env[ENV_FILE_VARIABLE] = str(env_file)
            return run_command_hook(hook, payload, str(payload.get("cwd") or self.cwd), env)
        if isinstance(hook, HttpHook):
            return run_http_hook(hook, payload, self._environment(), self.http_policy)
        return run_prompt_hook(hook, payload, self.prompt_model)


def _names_file(matcher: str, path: str) -> bool:
    """A FileChanged matcher lists file names (or absolute paths), literally: ``.envrc|.env``."""
    if matcher in ("", "*"):
        return True
    return any(name in (path, os.path.basename(path)) for name in matcher.split("|"))


def _relative(path: os.PathLike[str], project: str | os.PathLike[str] | None) -> str:
    if project is not None:
        with contextlib.suppress(ValueError):
            return os.fspath(Path(path).relative_to(project))
    return os.fspath(path)


def _subject(event: str, payload: Mapping[str, Any]) -> str | None:
    if event in TOOL_EVENTS:
        return payload.get("tool_name")
    if event in ("Elicitation", "ElicitationResult"):
        return payload.get("mcp_server_name")
    value = (payload.get("source") or payload.get("trigger") or payload.get("reason")
             or payload.get("notification_type") or payload.get("agent_type") or payload.get("load_reason"))
    return value if isinstance(value, str) else None


async def _run_python(entry: _Registered, payload: dict[str, Any]) -> HookResponse:
    name = getattr(entry.callback, "__name__", "python hook")
    try:
        result = await asyncio.wait_for(entry.callback(payload), entry.timeout)
    except asyncio.TimeoutError:
        return HookResponse(error=f"hook {name} timed out after {entry.timeout:g}s")
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return HookResponse(error=f"hook {name} raised {type(exc).__name__}: {exc}")
    if result is None:
        return HookResponse()
    if isinstance(result, HookResponse):
        return result
    return response_from_json(result, name)


def get_hook_runner(context: ToolUseContext) -> HookRunner | None:
    runner = context.extra.get(HOOKS_KEY)
    return runner if isinstance(runner, HookRunner) else None


async def gate(
    context: ToolUseContext, event: str, payload: Mapping[str, Any],
    tool: Tool[Any, Any] | None = None, tool_input: BaseModel | None = None,
) -> str | None:
    """Run ``event``'s hooks for a step a hook may refuse (TaskCreated, TaskCompleted): the
    reason when one blocks (exit 2 or ``decision: "block"``), else None.  A hook that fails
    is not a refusal (as for every hook's errors)."""
    runner = get_hook_runner(context)
    if runner is None or not runner.has_hooks(event):
        return None
    outcome = await runner.run(event, payload, tool=tool, tool_input=tool_input,
                               permission_mode=context.permission_context.mode)
    return outcome.block_message if outcome.blocked else None
