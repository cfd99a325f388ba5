"""The ``hooks`` block of a settings file (Claude Code's format), validated into values.

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./check.sh", "timeout": 30}]}]}}

Matchers: empty or ``*`` (everything), tool names separated by ``|``, a regular expression
over the tool name (``mcp__.*``), or a rule-style pattern (``Bash(git push:*)``) matched like a
permission rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.permission_types import RuleSource
from ..errors import AgentConfigError
from .rules import RuleSyntaxError, parse_rule

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})
HOOK_EVENTS = TOOL_EVENTS | frozenset(
    {"UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "Notification",
     "PreCompact"}
)
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class CommandHook:
    """A shell command that receives the event as JSON on stdin."""

    command: str
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class HookMatcher:
    event: str
    matcher: str
    hooks: tuple[CommandHook, ...]
    source: RuleSource = "session"
    path: Path | None = None


def parse_hooks(block: object, path: Path | None, source: RuleSource) -> list[HookMatcher]:
    """Validate one settings file's ``hooks`` block; AgentConfigError names the file."""
    where = f"Settings file {path}" if path else "Hooks"
    if not isinstance(block, dict):
        raise AgentConfigError(f"{where}: 'hooks' must be an object keyed by event name.")
    out: list[HookMatcher] = []
    for event, groups in block.items():
        if event not in HOOK_EVENTS:
            raise AgentConfigError(
                f"{where}: unknown hook event {event!r}. Known: {', '.join(sorted(HOOK_EVENTS))}."
            )
        if not isinstance(groups, list):
            raise AgentConfigError(f"{where}: hooks.{event} must be a list of matcher groups.")
        for i, group in enumerate(groups):
            out.append(_group(group, event, f"{where}: hooks.{event}[{i}]", path, source))
    return out


def _group(group: object, event: str, where: str, path: Path | None, source: RuleSource) -> HookMatcher:
    if not isinstance(group, dict):
        raise AgentConfigError(f"{where} must be an object with 'matcher' and 'hooks'.")
    matcher = group.get("matcher", "")
    if not isinstance(matcher, str):
        raise AgentConfigError(f"{where}.matcher must be a string.")
    validate_matcher(matcher, where)
    hooks = group.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        raise AgentConfigError(f"{where}.hooks must be a non-empty list of hooks.")
    return HookMatcher(event, matcher, tuple(_hook(h, f"{where}.hooks[{j}]") for j, h in enumerate(hooks)), source, path)


def _hook(hook: object, where: str) -> CommandHook:
    if not isinstance(hook, dict):
        raise AgentConfigError(f"{where} must be an object like {{\"type\": \"command\", \"command\": \"...\"}}.")
    if hook.get("type", "command") != "command":
        raise AgentConfigError(f"{where}: hook type {hook.get('type')!r} is not supported (use \"command\").")
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        raise AgentConfigError(f"{where}.command must be a non-empty string.")
    timeout: Any = hook.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise AgentConfigError(f"{where}.timeout must be a positive number of seconds.")
    return CommandHook(command, float(timeout))


def validate_matcher(matcher: str, where: str) -> None:
    if "(" in matcher:
        try:
            parse_rule(matcher)
        except RuleSyntaxError as exc:
            raise AgentConfigError(f"{where}: invalid matcher {matcher!r}: {exc}.") from exc
        return
    if matcher in ("", "*"):
        return
    try:
        re.compile(matcher)
    except re.error as exc:
        raise AgentConfigError(f"{where}: invalid matcher {matcher!r}: {exc}.") from exc
