"""Typed permission decisions and the permission context every tool call sees.

The pipeline that produces these lives in ``jupyter_agent.permissions``; the types live in the
core so that tools can return them without importing the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

# auto: what would ask the user is decided by a model first (``agent/auto_mode.py``)
PermissionMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = (
    "default",
    "acceptEdits",
    "plan",
    "dontAsk",
    "bypassPermissions",
    "auto",
)

# Where a rule came from, lowest precedence first (``session`` = magic flags / Python API;
# ``policySettings`` = the administrator's managed-settings.json, which nothing overrides).
RuleSource = Literal["userSettings", "projectSettings", "localSettings", "cliArg", "session", "policySettings"]
RULE_SOURCES: tuple[RuleSource, ...] = (
    "userSettings",
    "projectSettings",
    "localSettings",
    "cliArg",
    "session",
    "policySettings",
)
_HIGHEST_FIRST = tuple(reversed(RULE_SOURCES))
RuleBehavior = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class PermissionUpdate:
    """A suggested change, offered by an "Always allow" button: add ``rules`` to ``destination``."""

    rules: tuple[str, ...]
    behavior: RuleBehavior = "allow"
    destination: RuleSource = "localSettings"


@dataclass(frozen=True)
class PermissionAllow:
    updated_input: dict[str, Any] | None = None
    reason: str | None = None
    behavior: Literal["allow"] = "allow"


@dataclass(frozen=True)
class PermissionDeny:
    message: str
    reason: str | None = None
    behavior: Literal["deny"] = "deny"


@dataclass(frozen=True)
class PermissionAsk:
    message: str
    suggestions: tuple[PermissionUpdate, ...] = ()
    reason: str | None = None
    behavior: Literal["ask"] = "ask"


ELICITATION_REASON = "mcp elicitation"  # an MCP server's form: only the user answers it


@dataclass(frozen=True)
class PermissionPassthrough:
    """A tool's ``check_permissions`` has no opinion; the mode and the rules decide."""

    message: str = ""
    suggestions: tuple[PermissionUpdate, ...] = ()
    behavior: Literal["passthrough"] = "passthrough"


PermissionResult = Union[PermissionAllow, PermissionDeny, PermissionAsk, PermissionPassthrough]
PermissionDecision = Union[PermissionAllow, PermissionDeny, PermissionAsk]
UserDecision = Union[PermissionAllow, PermissionDeny]


def _empty_rules() -> dict[RuleSource, tuple[str, ...]]:
    return {}


@dataclass(frozen=True)
class ToolPermissionContext:
    """Mode, rules by source and the working directories (project + additional)."""

    mode: PermissionMode = "default"
    allow_rules: dict[RuleSource, tuple[str, ...]] = field(default_factory=_empty_rules)
    deny_rules: dict[RuleSource, tuple[str, ...]] = field(default_factory=_empty_rules)
    ask_rules: dict[RuleSource, tuple[str, ...]] = field(default_factory=_empty_rules)
    additional_directories: tuple[Path, ...] = ()
    project_dir: Path | None = None
    # permissions.blockReadsOutsideWorkingDirectories: the file tools refuse reads outside the
    # working directories in every mode; Bash asks about them in every mode
    block_outside_reads: bool = False
    # permissions.blockWritesOutsideWorkingDirectories: Write, Edit, NotebookEdit (and
    # NotebookExecute) refuse paths outside the working directories in every mode; Bash asks
    # about writing there in every mode
    block_outside_writes: bool = False
    # permissions.denyInsteadOfPrompting (the file that says so): a call that would wait for a
    # person is denied at once (hooks, auto mode's reviewer and a prompt tool still answer first)
    prompts_off_by: str | None = None
    # allowManagedPermissionRulesOnly in the managed settings: only their allow rules count (deny
    # and ask rules of every source still do: they only restrict) and nothing offers "Always allow"
    managed_rules_only: bool = False
    # permissions.disableBypassPermissionsMode: "disable" (the file that says so): no context in
    # bypassPermissions mode can be made, whichever way the mode is changed during the session
    bypass_disabled_by: str | None = None
    auto_disabled_by: str | None = None  # permissions.disableAutoMode: "disable", likewise

    def __post_init__(self) -> None:
        for mode, by, key in (("bypassPermissions", self.bypass_disabled_by, "disableBypassPermissionsMode"),
                              ("auto", self.auto_disabled_by, "disableAutoMode")):
            if self.mode == mode and by is not None:
                from ..errors import AgentConfigError

                raise AgentConfigError(f"{mode} mode is disabled by {by} (permissions.{key}). Use another mode.")

    def rules(self, behavior: RuleBehavior) -> list[tuple[RuleSource, str]]:
        """All rules of one behaviour as (source, rule) pairs, highest precedence first."""
        table = {"allow": self.allow_rules, "deny": self.deny_rules, "ask": self.ask_rules}[behavior]
        sources: tuple[RuleSource, ...] = (
            ("policySettings",) if self.managed_rules_only and behavior == "allow" else _HIGHEST_FIRST
        )
        out: list[tuple[RuleSource, str]] = []
        for source in sources:
            out.extend((source, rule) for rule in table.get(source, ()))
        return out
