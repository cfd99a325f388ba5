"""SessionConfig: everything that shapes an agent session, with the SDK's usual defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.permission_types import PermissionMode
from .models import CURRENT_SONNET
from .pricing import ModelPrice
from .retry import RetryPolicy

HOME_ENV = "JUPYTER_AGENT_HOME"


def default_sessions_dir() -> Path:
    """``$JUPYTER_AGENT_HOME/sessions`` or ``~/.jupyter-agent/sessions``."""
    base = os.environ.get(HOME_ENV) or os.path.join(os.path.expanduser("~"), ".jupyter-agent")
    return Path(base) / "sessions"


def project_slug(project_dir: Path) -> str:
    """``/home/me/proj`` → ``-home-me-proj`` (one transcript folder per project)."""
    text = str(Path(os.path.abspath(project_dir)))
    return "".join(c if c.isalnum() or c in "._" else "-" for c in text)


@dataclass
class SessionConfig:
    """Options of one agent session.

    ``base_url`` / ``api_key`` default to the SDK's environment variables (``ANTHROPIC_BASE_URL``,
    ``ANTHROPIC_API_KEY``); ``client`` may be any configured ``AsyncAnthropic``,
    ``AsyncAnthropicBedrock`` or ``AsyncAnthropicVertex`` instance and then wins over both.
    ``thinking_budget`` applies to models with manual thinking; adaptive models (Sonnet 5.x,
    Opus 4.7+) always think adaptively and take ``effort`` instead.
    """

    model: str = CURRENT_SONNET
    max_tokens: int = 32_000
    thinking_budget: int | None = None
    cwd: Path = field(default_factory=Path.cwd)
    project_dir: Path | None = None
    sessions_dir: Path | None = None
    mode: PermissionMode | None = None  # None: the settings' defaultMode, else "default"
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    max_turns: int = 100
    base_url: str | None = None
    api_key: str | None = None
    notebook_path: Path | str | None = None
    system_prompt_extra: str = ""
    approval_timeout: float | None = None
    client: Any = None
    # An MCP tool (``mcp__server__tool``) that answers asks instead of a person (``prompt_tool.py``)
    permission_prompt_tool: str | None = None
    # Additions beyond the agreed shape (all optional):
    effort: str | None = None  # "low" | "medium" | "high" | "xhigh" | "max" (adaptive models)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    prices: Mapping[str, ModelPrice] | None = None
    context_window: int | None = None  # None: the model's known window
    compact_threshold: float = 0.8  # share of the context window that triggers compaction
    keep_recent_turns: int = 2  # turns kept verbatim by compaction
    max_continuations: int = 3  # max_tokens continuations per turn
    additional_directories: list[Path] = field(default_factory=list)
    home: Path | None = None  # the user's home for ~/.claude files (tests point it elsewhere)
    load_settings: bool = True  # read .claude/settings*.json
    trust_project: bool = False  # trust the project's .claude settings without asking (and record it)
    sandbox: bool = False  # Bash runs in the sandbox whatever the settings files say (%agent --sandbox)
    load_mcp: bool = True  # MCP servers from ~/.claude.json, ~/.claude/settings.json, approved .mcp.json
    mcp_servers: dict[str, Any] | None = None  # extra servers, as .mcp.json "mcpServers" entries

    def resolved_sessions_dir(self) -> Path:
        """``sessions_dir``, else one folder per project under the default sessions folder."""
        if self.sessions_dir is not None:
            return Path(self.sessions_dir)
        return default_sessions_dir() / project_slug(self.resolved_project_dir())

    def resolved_project_dir(self) -> Path:
        return Path(self.project_dir) if self.project_dir is not None else Path(self.cwd)
