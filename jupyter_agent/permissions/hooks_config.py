"""The ``hooks`` block of a settings file (Claude Code's format), validated into values.

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./check.sh", "timeout": 30}]}]}}

Matchers: empty or ``*`` (everything), tool names separated by ``|``, a regular expression
over the tool name (``mcp__.*``), or a rule-style pattern (``Bash(git push:*)``) matched like a
permission rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.permission_types import RuleSource
from ..errors import AgentConfigError
from .rules import RuleSyntaxError, parse_rule

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"})
# Every Claude Code event fires here; any other name is a mistake (an error, so a guard hook
# cannot be silently lost to a typo).
HOOK_EVENTS = TOOL_EVENTS | frozenset(
    {"UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "SessionStart", "SessionEnd", "Notification",
     "PreCompact", "PostCompact", "StopFailure", "TaskCreated", "TaskCompleted", "InstructionsLoaded",
     "CwdChanged", "ConfigChange", "FileChanged", "WorktreeCreate", "WorktreeRemove", "TeammateIdle",
     "Elicitation", "ElicitationResult"}
)
DEFAULT_TIMEOUT = 60.0


PROMPT_TIMEOUT = 30.0
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class CommandHook:
    """A shell command that receives the event as JSON on stdin."""

    command: str
    timeout: float = DEFAULT_TIMEOUT
    background: bool = False  # "async": started, not waited for (its answer cannot decide anything)
    once: bool = False  # "once": runs the first time only, per session

    @property
    def describe(self) -> str:
        return self.command


@dataclass(frozen=True)
class HttpHook:
    """An HTTP endpoint that receives the event as a JSON POST and answers like a command's stdout.
    ``$VAR`` / ``${VAR}`` in a header value is taken from the environment only for the names in
    ``allowed_env_vars`` (others become empty)."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()
    allowed_env_vars: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    background: bool = False
    once: bool = False

    @property
    def describe(self) -> str:
        return f"POST {self.url}"


@dataclass(frozen=True)
class PromptHook:
    """A question to a model about the event (``$ARGUMENTS`` is the event's JSON); the model
    answers ``{"ok": true}`` or ``{"ok": false, "reason": "..."}`` (a block, as exit 2)."""

    prompt: str
    model: str | None = None  # None: the small fast model
    timeout: float = PROMPT_TIMEOUT
    background: bool = False
    once: bool = False

    @property
    def describe(self) -> str:
        text = " ".join(self.prompt.split())
        return f"ask a model: {text[:80]}{'…' if len(text) > 80 else ''}"


Hook = CommandHook | HttpHook | PromptHook


@dataclass(frozen=True)
class HookMatcher:
    event: str
    matcher: str
    hooks: tuple[Hook, ...]
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


def _hook(hook: object, where: str) -> Hook:
    if not isinstance(hook, dict):
        raise AgentConfigError(f"{where} must be an object like {{\"type\": \"command\", \"command\": \"...\"}}.")
    kind = hook.get("type", "command")
    flags: dict[str, Any] = {"background": _bool(hook, "async", where), "once": _bool(hook, "once", where)}
    if kind == "command":
        return CommandHook(_text(hook, "command", where), _timeout(hook, where, DEFAULT_TIMEOUT), **flags)
    if kind == "http":
        return replace(_http(hook, where), **flags)
    if kind == "prompt":
        model = hook.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise AgentConfigError(f"{where}.model must be a model name such as \"haiku\".")
        return PromptHook(_text(hook, "prompt", where), model, _timeout(hook, where, PROMPT_TIMEOUT), **flags)
    raise AgentConfigError(
        f"{where}: hook type {kind!r} is not supported (use \"command\", \"http\" or \"prompt\")."
    )


def _http(hook: dict[str, Any], where: str) -> HttpHook:
    url = _text(hook, "url", where)
    if not url.startswith(("http://", "https://")):
        raise AgentConfigError(f"{where}.url must be an http:// or https:// URL.")
    headers = hook.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise AgentConfigError(f"{where}.headers must be an object of strings.")
    names = hook.get("allowedEnvVars", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and _ENV_NAME.fullmatch(n) for n in names):
        raise AgentConfigError(f"{where}.allowedEnvVars must list environment variable names.")
    return HttpHook(url, tuple(headers.items()), tuple(names), _timeout(hook, where, DEFAULT_TIMEOUT))


def _bool(hook: dict[str, Any], key: str, where: str) -> bool:
    value = hook.get(key, False)
    if not isinstance(value, bool):
        raise AgentConfigError(f"{where}.{key} must be true or false.")
    return value


def _text(hook: dict[str, Any], key: str, where: str) -> str:
    value = hook.get(key)
    if not isinstance(value, str) or not value.strip():
        raise AgentConfigError(f"{where}.{key} must be a non-empty string.")
    return value


def _timeout(hook: dict[str, Any], where: str, default: float) -> float:
    timeout: Any = hook.get("timeout", default)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise AgentConfigError(f"{where}.timeout must be a positive number of seconds.")
    return float(timeout)


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
