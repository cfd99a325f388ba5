"""AgentSession: the conversation, its tools and context, usage and cost; turns run as asyncio tasks.

    session = AgentSession(SessionConfig(cwd=Path.cwd()))
    session.subscribe(print)
    task = session.submit("fix the failing test")   # returns at once
    session.stop()                                   # abort the running turn
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..core.abort import AbortController
from ..core.context import AppState
from ..core.tool import CanUseTool, Tool
from ..errors import AgentError
from ..tools.shell.environment import settings_env, use_settings_env
from ..tools.shell.state import shell_state
from .api_key_helper import PLACEHOLDER_KEY, api_key_helper
from .approval import session_approver
from .auto_mode import AutoModeReviewer
from .cleanup import DEFAULT_DAYS as DEFAULT_CLEANUP_DAYS
from .cleanup import start_cleanup
from .config import SessionConfig
from .events import (
    AgentErrorEvent,
    SessionEvent,
    TodosUpdated,
    TurnEnded,
    TurnStarted,
    Usage,
    UsageUpdated,
)
from .folder_trust import FolderTrustGate, settle_trust
from .history import (
    append_user_blocks,
    close_dangling_tool_uses,
    content_blocks,
    strip_thinking,
    truncate_messages,
)
from .hook_model import session_prompt_model
from .model import ModelClient, ModelRequest, make_client
from .models import model_info
from .permission_setup import build_permission_context, load_session_settings, make_hook_runner
from .pricing import cost_usd
from .prompts import build_system_prompt
from .session_compaction import CompactionMixin
from .session_hooks import SessionHooks
from .session_log import SessionLog
from .session_setup import (
    attach_many_hands,
    attach_tool_services,
    check_config,
    make_context,
    new_session_id,
    plain_todos,
    prompt_inputs,
    shutdown_tool_services,
)
from .settings_watch import REFRESH_KEY, SettingsWatch
from .toolpool import ToolPool, make_mcp_manager
from .transcript import find_transcript, load_transcript, transcript_path
from .turn import TurnOutcome, run_turn

__all__ = ["AgentSession", "SessionConfig", "TurnOutcome"]

log = logging.getLogger(__name__)
Subscriber = Callable[[SessionEvent], None]
HOOKS_KEY = "hooks"  # where run_tool_use finds the HookRunner (permissions.hooks.HOOKS_KEY)


class AgentSession(CompactionMixin):
    """One conversation with the model, run on the current asyncio loop."""

    def __init__(
        self,
        config: SessionConfig | None = None,
        can_use_tool: CanUseTool | None = None,
        tools: Sequence[Tool[Any, Any]] | None = None,
        *,
        session_id: str | None = None,
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        self.config = config = config or SessionConfig()
        check_config(config)
        self.id = session_id or new_session_id()
        self.messages: list[dict[str, Any]] = list(messages or [])
        self.usage = Usage()
        self.cost_usd = 0.0
        self.can_use_tool = can_use_tool
        # Called when a typed prompt's turn starts; each gives a note sent with the prompt (or "").
        self.prompt_notes: list[Callable[[], Awaitable[str]]] = []
        # What the loop calls: the current ``can_use_tool``, else a denial; timeout; Stop withdraws.
        self.auto_mode = AutoModeReviewer(self)  # decides first in auto mode
        self.approver = session_approver(
            lambda: self.can_use_tool, lambda: self.config.approval_timeout, self.auto_mode,
            lambda: self.config.permission_prompt_tool,
        )
        self.settings = settings = load_session_settings(config)
        self.initial_permissions = build_permission_context(config, settings)
        self.context, self.load_errors = make_context(
            config, self.id, self.initial_permissions, tools, self.messages
        )
        self.trust = FolderTrustGate(config, settings)  # held-back project settings: asked on turn 1
        self.settings_watch = SettingsWatch(self) if settings is not None else None  # edits on disk apply
        self.context.extra[REFRESH_KEY] = self.refresh_settings  # subagents' loops look too
        self.transcript_path = transcript_path(config.resolved_sessions_dir(), self.id)
        self.log = SessionLog(self.transcript_path, self.id, config)
        runner = make_hook_runner(settings, config, self.id, self.transcript_path)
        runner.env_files.folder = self.context.session_dir / ".claude" / "session-env"  # CLAUDE_ENV_FILE
        runner.current_dir = lambda: str(shell_state(self.context).cwd)  # hooks run where a `cd` went
        runner.on_notice = lambda text: self.emit(AgentErrorEvent(text, kind="hook"))  # tool hooks' too
        self.context.extra[HOOKS_KEY] = runner
        self.hooks = SessionHooks(
            runner, self.emit, lambda: self.context.permission_context.mode, self._before_turn
        )
        env = settings.env if settings is not None else {}
        if env:
            use_settings_env(self.context, env)
        self.key_helper = api_key_helper(config, settings, env)
        self.model_client = ModelClient(make_client(
            PLACEHOLDER_KEY if self.key_helper else config.api_key or env.get("ANTHROPIC_API_KEY"),
            config.base_url or env.get("ANTHROPIC_BASE_URL"), config.client,
            self.key_helper.http_client() if self.key_helper else None,
        ), config.retry, renews_key=self.key_helper is not None)
        runner.prompt_model = session_prompt_model(self)  # prompt hooks ask the session's client
        self._owns_client = config.client is None
        self._subscribers: list[Subscriber] = []
        self._lock: asyncio.Lock | None = None
        self._abort: AbortController | None = None
        self._generation = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._system: list[dict[str, Any]] | None = None
        self.tool_pool = ToolPool(
            make_mcp_manager(config, self.context.session_dir, lambda: settings_env(self.context), settings),
            self.load_errors,
        )
        self._last_context_tokens = 0
        self._request_model: str | None = None
        self.closed = False
        self._unwatch = self.context.app_state_store.subscribe(self._on_app_state)
        self._todos = list(self.context.get_app_state().todos)
        self.hands = attach_many_hands(self)
        attach_tool_services(self)
        days = getattr(settings, "cleanup_period_days", None)
        self._cleanup = start_cleanup(config, DEFAULT_CLEANUP_DAYS if days is None else days, self.id)

    # -- events ------------------------------------------------------------------------------

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` for every event (on the loop thread); returns an unsubscribe."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: SessionEvent) -> None:
        self.log.on_event(event)
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # a broken subscriber must not break the turn
                log.exception("session subscriber failed on %s", type(event).__name__)

    def _on_app_state(self, state: AppState) -> None:
        todos = list(state.todos)
        if todos != self._todos:
            self._todos = todos
            self.emit(TodosUpdated(plain_todos(todos)))

    # -- turns -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._abort is not None

    def submit(self, prompt: str, *, typed: bool = False) -> asyncio.Task[TurnOutcome]:
        """Schedule a turn on the running loop and return its task at once (queued while busy).

        ``typed=True``: the user wrote ``prompt`` (``%agent`` passes it), so its ``@`` mentions are
        read without asking and ``/mcp__server__prompt`` runs the server's prompt.  Prompts the
        agent's own machinery sends (scheduled jobs, teammates' messages) are plain text: a job
        the model scheduled must not read ``@~/.ssh/id_rsa`` unasked."""
        if self.closed:
            raise AgentError("This agent session is closed; start a new one (or resume it).")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop()
        task = loop.create_task(self._run(prompt, self._generation, typed))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def stop(self) -> None:
        """Abort the running turn and drop queued prompts (call on the loop thread)."""
        self._generation += 1
        if self._abort is not None:
            self._abort.abort("Interrupted by user")

    async def _before_turn(self) -> None:
        """Folder trust on the first turn; then settings files changed on disk are applied."""
        await settle_trust(self, self._abort)
        await self.refresh_settings()

    async def refresh_settings(self) -> None:
        """Before every turn and tool batch: apply the settings files if they changed on disk,
        and run FileChanged hooks for the watched files that changed."""
        if self.settings_watch is not None:
            await self.settings_watch.refresh()
        check_files = getattr(self.context.extra.get(HOOKS_KEY), "check_files", None)
        if check_files is not None:
            await check_files(self.context.permission_context.mode)

    def _the_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def _run(self, prompt: str, generation: int, typed: bool = False) -> TurnOutcome:
        async with self._the_lock():
            if self.hands is not None:  # a resumed session's checkpoints load in a thread
                await self.hands.ready()
            turn_id = uuid.uuid4().hex[:12]
            if generation != self._generation:  # stopped while queued
                self.emit(TurnStarted(turn_id, prompt))
                self.emit(TurnEnded(turn_id, "interrupted", 0.0, Usage()))
                return TurnOutcome(turn_id, "interrupted", "", Usage())
            self._abort = AbortController()
            try:
                return await run_turn(self, turn_id, prompt, self._abort, typed=typed)
            finally:
                self._abort = None

    # -- the loop's host interface (loop.LoopHost) --------------------------------------------

    def record_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.log.write("message", message=message)

    def history_mark(self) -> tuple[int, int | None]:
        """Where the conversation ends now, for :meth:`truncate_history`: the message count and,
        when the last message is the user's, its block count (a new prompt is merged into it)."""
        last = self.messages[-1] if self.messages else None
        tail = len(content_blocks(last)) if last is not None and last.get("role") == "user" else None
        return len(self.messages), tail

    def truncate_history(self, count: int, tail_blocks: int | None = None, turn_ids: Sequence[str] = ()) -> bool:
        """Forget every message after the first ``count`` (rewind) and, with ``tail_blocks``,
        the blocks merged into the last one since; False while a turn runs.

        Recorded in the transcript (with the ``turn_ids`` forgotten), so a resumed session has
        the same history and ``%agent --sessions`` does not count those turns.
        """
        if self.running or not 0 <= count <= len(self.messages):
            return False
        truncate_messages(self.messages, count, tail_blocks)
        self.log.write("rewind", message_count=count, tail_blocks=tail_blocks, turn_ids=list(turn_ids))
        self._last_context_tokens = 0  # measured on the longer history
        return True

    def record_user_blocks(self, blocks: list[dict[str, Any]]) -> None:
        append_user_blocks(self.messages, blocks)
        self.log.write("message", message={"role": "user", "content": blocks})

    def add_usage(self, usage: Usage, turn: Usage) -> None:
        cost = cost_usd(usage, self.config.model, self.config.prices)
        self.usage = self.usage + usage
        self.cost_usd += cost
        self._last_context_tokens = (
            usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
            + usage.output_tokens
        )
        self.log.write("usage", usage=usage.__dict__, cost_usd=cost)
        turn_cost = cost_usd(turn, self.config.model, self.config.prices)
        self.emit(UsageUpdated(turn, self.usage, turn_cost, self.cost_usd, self._last_context_tokens,
                               self.context_window))

    def add_side_usage(self, response: Any, model: str) -> None:
        """The tokens of a request beside the conversation (a prompt hook, auto mode's reviewer):
        counted in the session's totals and cost, not in the context size."""
        raw = getattr(response, "usage", None)
        usage = Usage(*(int(getattr(raw, f, 0) or 0) for f in (
            "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")))
        cost = cost_usd(usage, model, self.config.prices)
        self.usage = self.usage + usage
        self.cost_usd += cost
        self.log.write("usage", usage=usage.__dict__, cost_usd=cost, side=True)

    async def build_request(self) -> ModelRequest:
        self._follow_model_change()
        self.context = await self.tool_pool.ensure(self.context, self.emit)
        if self._system is None:
            inputs = prompt_inputs(self.config)
            system = await asyncio.to_thread(build_system_prompt, inputs)
            self._system = system + _skills_blocks(self.context.options.commands)
            await self.hooks.instructions_loaded(inputs.project_dir, inputs.home)
        tools, system_extra = await self.tool_pool.request_tools(self.context)
        config = self.config
        return ModelRequest(
            model=config.model,
            max_tokens=config.max_tokens,
            system=self._system + [{"type": "text", "text": text} for text in system_extra],
            messages=self.messages,
            tools=tools,
            thinking_budget=config.thinking_budget,
            effort=config.effort,
        )

    def _follow_model_change(self) -> None:
        """``config.model`` may change between requests: thinking blocks of the old model go."""
        model = self.config.model
        if model == self._request_model:
            return
        if self._request_model is not None and strip_thinking(self.messages):
            self.log.write("strip_thinking", model=model)
        self._request_model = model
        self._system = None  # the environment block names the model
        if self.context.options.main_loop_model != model:
            options = dataclasses.replace(self.context.options, main_loop_model=model)
            self.context = self.context.with_changes(options=options)

    @property
    def context_window(self) -> int:
        return self.config.context_window or model_info(self.config.model).context_window

    @classmethod
    def resume(
        cls,
        session_id: str | None = None,
        config: SessionConfig | None = None,
        can_use_tool: CanUseTool | None = None,
        tools: Sequence[Tool[Any, Any]] | None = None,
    ) -> AgentSession:
        """The latest session (or ``session_id``) from its JSONL transcript, ready to continue."""
        config = config or SessionConfig()
        loaded = load_transcript(find_transcript(config.resolved_sessions_dir(), session_id))
        close_dangling_tool_uses(loaded.messages)
        session = cls(config, can_use_tool, tools, session_id=loaded.session_id, messages=loaded.messages)
        session.usage, session.cost_usd = loaded.usage, loaded.cost_usd
        session._request_model = loaded.header.get("model") or None
        session.log.resumed = True
        return session

    async def aclose(self) -> None:
        """Stop everything this session runs and release its resources (idempotent)."""
        if self.closed:
            return
        self.closed = True
        self.stop()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.hooks.session_end()
        runner = self.context.extra.get(HOOKS_KEY)
        if hasattr(runner, "aclose"):  # async hooks still running: a moment, then stopped
            with contextlib.suppress(Exception):
                await runner.aclose()
        with contextlib.suppress(Exception):
            await self.tool_pool.aclose()
        if self.hands is not None:
            with contextlib.suppress(Exception):
                await self.hands.aclose()
        await shutdown_tool_services(self.context)
        with contextlib.suppress(Exception):
            from ..tasks import get_task_registry

            await get_task_registry(self.context).shutdown_all()
        self._unwatch()
        self.log.close()
        if self._owns_client:
            with contextlib.suppress(Exception):
                await self.model_client.client.close()


def _skills_blocks(commands: Sequence[Any]) -> list[dict[str, Any]]:
    """The system block listing the skills the model may invoke (none without skills)."""
    try:
        from ..skills.expand import skills_prompt
    except ImportError:
        return []
    text = skills_prompt(commands)
    return [{"type": "text", "text": text}] if text else []
