"""ToolUseContext: what every tool call receives (seed section "ToolUseContext")."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from anthropic.types import MessageParam

from .abort import AbortController
from .file_state import FileStateCache
from .permission_types import ToolPermissionContext

if TYPE_CHECKING:
    from .tool import Tool

DEFAULT_MODEL = "claude-sonnet-5-5"


@dataclass(frozen=True)
class ThinkingConfig:
    """Extended thinking: ``enabled`` with a token budget, or ``disabled``."""

    type: Literal["enabled", "disabled"] = "disabled"
    budget_tokens: int = 0


@dataclass(frozen=True)
class ToolUseOptions:
    """The seed's ``options``: what is available to this turn."""

    tools: tuple[Tool[Any, Any], ...] = ()
    commands: tuple[Any, ...] = ()
    main_loop_model: str = DEFAULT_MODEL
    mcp_clients: tuple[Any, ...] = ()
    thinking_config: ThinkingConfig = field(default_factory=ThinkingConfig)
    max_concurrency: int = 10
    is_non_interactive: bool = False
    feature_flags: frozenset[str] = frozenset()
    debug: bool = False


@dataclass
class AppState:
    """Session-wide mutable state, changed only through ``set_app_state``."""

    tool_permission_context: ToolPermissionContext = field(default_factory=ToolPermissionContext)
    todos: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


class AppStateStore:
    """Holds the session's ``AppState``; shared by every context copy of a session."""

    def __init__(self, state: AppState | None = None) -> None:
        self._state = state or AppState()
        self._listeners: list[Callable[[AppState], None]] = []

    def get(self) -> AppState:
        return self._state

    def set(self, update: Callable[[AppState], AppState]) -> None:
        self._state = update(self._state)
        for listener in list(self._listeners):
            listener(self._state)

    def subscribe(self, listener: Callable[[AppState], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)


def _default_session_dir() -> Path:
    base = os.environ.get("JUPYTER_AGENT_HOME") or os.path.join(
        os.path.expanduser("~"), ".jupyter-agent"
    )
    return Path(base) / "sessions" / "default"


@dataclass
class ToolUseContext:
    """Per-call runtime: options, abort signal, file-state cache, messages and app state."""

    options: ToolUseOptions = field(default_factory=ToolUseOptions)
    abort_controller: AbortController = field(default_factory=AbortController)
    read_file_state: FileStateCache = field(default_factory=FileStateCache)
    messages: list[MessageParam] = field(default_factory=list)
    cwd: Path = field(default_factory=lambda: Path.cwd())
    session_dir: Path = field(default_factory=_default_session_dir)
    agent_id: str | None = None
    app_state_store: AppStateStore = field(default_factory=AppStateStore)
    extra: dict[str, Any] = field(default_factory=dict)

    def get_app_state(self) -> AppState:
        return self.app_state_store.get()

    def set_app_state(self, update: Callable[[AppState], AppState]) -> None:
        """Apply ``update`` to the shared app state and notify listeners (the UI, transcripts)."""
        self.app_state_store.set(update)

    @property
    def permission_context(self) -> ToolPermissionContext:
        # same as get_app_state().tool_permission_context, one call less (read on every decision)
        return self.app_state_store.get().tool_permission_context

    def find_tool(self, name: str) -> Tool[Any, Any] | None:
        """A tool by name or alias among ``options.tools``."""
        for tool in self.options.tools:
            if tool.name == name or name in tool.aliases:
                return tool
        return None

    def with_changes(self, **changes: Any) -> ToolUseContext:
        """A copy with some fields replaced; the app state store stays shared."""
        return replace(self, **changes)
