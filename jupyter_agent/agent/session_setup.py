"""Building a session's parts from its config: tool context, prompt inputs, subagent runtime."""

from __future__ import annotations

import datetime as _dt
import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..core.context import AppState, AppStateStore, ThinkingConfig, ToolUseContext, ToolUseOptions
from ..core.permission_types import ToolPermissionContext
from ..core.tool import Tool
from ..errors import AgentConfigError
from ..sandbox.settings import FORCE_KEY
from .config import SessionConfig
from .prompts import PromptInputs
from .toolset import select_tools

log = logging.getLogger(__name__)


def new_session_id() -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def check_config(config: SessionConfig) -> None:
    """Misconfigurations the user can fix, raised before anything starts."""
    if not str(config.model or "").strip():
        raise AgentConfigError("No model configured: set SessionConfig.model (e.g. 'claude-sonnet-5-5').")
    if config.thinking_budget and config.max_tokens <= config.thinking_budget:
        raise AgentConfigError(
            f"max_tokens ({config.max_tokens}) must be larger than thinking_budget ({config.thinking_budget})."
        )
    if config.max_turns < 1:
        raise AgentConfigError(f"max_turns must be at least 1 (got {config.max_turns}).")


def make_context(
    config: SessionConfig,
    session_id: str,
    permission_context: ToolPermissionContext,
    tools: Sequence[Tool[Any, Any]] | None,
    messages: list[dict[str, Any]],
) -> tuple[ToolUseContext, list[str]]:
    """The session's ToolUseContext, and the tools that failed to load."""
    selected, broken = select_tools(tools, permission_context)
    thinking = ThinkingConfig("enabled", config.thinking_budget) if config.thinking_budget else ThinkingConfig()
    options = ToolUseOptions(
        tools=tuple(selected),
        commands=_load_commands(config, broken),
        main_loop_model=config.model,
        thinking_config=thinking,
    )
    context = ToolUseContext(
        options=options,
        cwd=Path(config.cwd),
        session_dir=config.resolved_sessions_dir() / session_id,
        app_state_store=AppStateStore(
            AppState(tool_permission_context=permission_context, extra={FORCE_KEY: True} if config.sandbox else {})
        ),
        messages=messages,
    )
    return context, broken


def prompt_inputs(config: SessionConfig) -> PromptInputs:
    return PromptInputs(
        cwd=Path(config.cwd),
        project_dir=config.resolved_project_dir(),
        notebook_path=str(config.notebook_path) if config.notebook_path else None,
        model=config.model,
        home=Path(config.home) if config.home else Path.home(),
        extra=config.system_prompt_extra,
    )


def _load_commands(config: SessionConfig, problems: list[str]) -> tuple[Any, ...]:
    """Skills and custom commands (``.claude/skills``, ``.claude/commands``) for this project."""
    try:
        from ..skills.discover import load_commands

        home = Path(config.home) if config.home else None
        return tuple(load_commands(config.resolved_project_dir(), home=home))
    except Exception as exc:  # a broken skill folder must not stop the session
        problems.append(f"skills and commands: {exc}")
        return ()


def attach_many_hands(session: Any) -> Any:
    """Subagents, checkpoints (``--rewind``), the cron scheduler and teammates, wired in one call."""
    try:
        from ..subagents.attach import attach_many_hands as attach
    except ImportError:
        return None
    return attach(session)


def plain_todos(todos: list[Any]) -> list[dict[str, Any]]:
    out = []
    for todo in todos:
        if isinstance(todo, BaseModel):
            out.append(todo.model_dump(mode="json"))
        elif isinstance(todo, dict):
            out.append(dict(todo))
        else:
            out.append({"content": str(todo)})
    return out


def attach_tool_services(session: Any) -> None:
    """Let CtxInspect see the session, and fired RemoteTriggers start turns in it."""
    from ..tools.ctx_inspect import attach_ctx_inspect
    from ..triggers.store import attach_remote_triggers

    attach_ctx_inspect(session)
    attach_remote_triggers(session)


async def shutdown_tool_services(context: ToolUseContext) -> None:
    """Close language servers, the browser and trigger endpoints — only those that were loaded."""
    import sys

    for module_name, func in (
        ("jupyter_agent.lsp.manager", "shutdown_lsp"),
        ("jupyter_agent.browser.session", "shutdown_browser"),
        ("jupyter_agent.triggers.store", "shutdown_triggers"),
    ):
        module = sys.modules.get(module_name)
        if module is None:
            continue
        try:
            await getattr(module, func)(context)
        except Exception:  # closing one service must not keep the others open
            log.debug("closing %s failed", module_name, exc_info=True)
