"""Claude Code settings files → the session's ``ToolPermissionContext`` and hook config.

Sources, lowest to highest precedence: ``~/.claude/settings.json``,
``<project>/.claude/settings.json``, ``<project>/.claude/settings.local.json``, then the
session's own options, and above everything the administrator's managed settings
(``managed.py``: ``/etc/claude-code/managed-settings.json`` and ``managed-settings.d/``).
Rules of every source are kept (a deny anywhere wins); the mode comes from the highest source
that sets one; the ``env`` blocks merge per variable, the higher source winning; the
``autoMode`` sections of the user, local and managed files are joined (the committed project
file's is never read).  A malformed file or rule raises ``AgentConfigError`` naming the file
and the problem.  In a folder the user has not trusted (``trust.py``), the project and local
files' widening parts are held back and listed in ``Settings.held_back``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.permission_types import (
    PERMISSION_MODES,
    PermissionMode,
    RuleSource,
    ToolPermissionContext,
)
from ..errors import AgentConfigError
from .hook_remote import HttpHookPolicy
from .hooks_config import HookMatcher, parse_hooks
from .mcp_lists import ListEntry, SettingsLists, parse_server_list
from .rules import RuleSyntaxError, parse_rule

FILE_SOURCES: tuple[RuleSource, ...] = ("userSettings", "projectSettings", "localSettings")
POLICY: RuleSource = "policySettings"
_BEHAVIORS = ("allow", "ask", "deny")
WIDENING_MODES = ("acceptEdits", "bypassPermissions", "auto")  # default / plan / dontAsk only restrict
# autoMode is read from these only: a committed .claude/settings.json could write the reviewer's rules
AUTO_MODE_SOURCES: tuple[RuleSource, ...] = ("userSettings", "localSettings", POLICY)
AUTO_MODE_SECTIONS = ("environment", "allow", "soft_deny", "hard_deny")


def settings_path(source: RuleSource, project_dir: Path, home: Path | None = None) -> Path:
    """Where a settings source lives on disk."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    if source == "userSettings":
        return home / ".claude" / "settings.json"
    if source == "projectSettings":
        return project_dir / ".claude" / "settings.json"
    if source == "localSettings":
        return project_dir / ".claude" / "settings.local.json"
    raise ValueError(f"{source} is not stored in a file")


def settings_files(
    project_dir: Path, home: Path | None = None, managed: str | os.PathLike[str] | None = None
) -> list[tuple[RuleSource, Path]]:
    """Every file the settings are read from, by source, to notice that one changed: the user,
    project and local files, the managed file, its drop-in folder (a drop-in added or removed
    changes it) and each drop-in read (``managed``: its folder, default the platform's)."""
    from .managed import DROP_INS, MANAGED_FILE, managed_dir, managed_files

    folder = Path(os.fspath(managed)) if managed is not None else managed_dir()
    files = [(source, settings_path(source, project_dir, home)) for source in FILE_SOURCES]
    files += [(POLICY, folder / MANAGED_FILE), (POLICY, folder / DROP_INS)]
    with contextlib.suppress(AgentConfigError):  # an unreadable folder: reading the settings says why
        files += [(POLICY, path) for path in managed_files(folder) if path.parent == folder / DROP_INS]
    return files


@dataclass(frozen=True)
class FileSettings:
    """What one settings file says, validated."""

    source: RuleSource
    path: Path
    rules: dict[str, tuple[str, ...]]
    mode: PermissionMode | None = None
    directories: tuple[Path, ...] = ()
    hooks: tuple[HookMatcher, ...] = ()
    bypass_off: bool = False
    cleanup_days: int | None = None
    block_reads: bool = False  # permissions.blockReadsOutsideWorkingDirectories (restricts: always kept)
    hooks_off: bool = False  # disableAllHooks
    # managed settings only: allowManagedPermissionRulesOnly / allowManagedHooksOnly
    managed_rules_only: bool = False
    managed_hooks_only: bool = False
    auto_off: bool = False  # permissions.disableAutoMode: "disable"
    env: tuple[tuple[str, str], ...] = ()  # the ``env`` block: variables for every process the agent starts
    # the ``autoMode`` block: prose rules for auto mode's reviewer, (section, entries) pairs
    auto_rules: tuple[tuple[str, tuple[str, ...]], ...] = ()
    http_hook_urls: tuple[str, ...] | None = None  # allowedHttpHookUrls (None: not set here)
    http_hook_env: tuple[str, ...] | None = None  # httpHookAllowedEnvVars (None: not set here)
    # allowedMcpServers / deniedMcpServers (not the managed file's: mcp/policy.py reads those)
    mcp_allowed: tuple[ListEntry, ...] | None = None
    mcp_denied: tuple[ListEntry, ...] = ()
    block_writes: bool = False  # permissions.blockWritesOutsideWorkingDirectories (restricts: always kept)
    no_prompts: bool = False  # permissions.denyInsteadOfPrompting (restricts: always kept)
    api_key_helper: str | None = None  # apiKeyHelper: a shell command whose output is the API key

    def widening(self) -> list[str]:
        """The parts that let the agent do more, in plain words (empty when none)."""
        parts = []
        if self.rules.get("allow"):
            parts.append("allow rules " + ", ".join(self.rules["allow"]))
        if self.mode in WIDENING_MODES:
            parts.append(f"defaultMode {self.mode}")
        if self.directories:
            parts.append("additionalDirectories " + ", ".join(str(d) for d in self.directories))
        if self.hooks:
            parts.append("hooks " + ", ".join(dict.fromkeys(m.event for m in self.hooks)))
        if self.env:  # PATH=./bin would make `ls` run the project's own program
            parts.append("env " + ", ".join(name for name, _ in self.env))
        if self.auto_rules:  # "allow: anything" would let auto mode's reviewer wave everything through
            parts.append("autoMode " + ", ".join(section for section, _ in self.auto_rules))
        if self.http_hook_urls:  # the lists of every file are joined: entries widen another file's list
            parts.append("allowedHttpHookUrls " + ", ".join(self.http_hook_urls))
        if self.http_hook_env:
            parts.append("httpHookAllowedEnvVars " + ", ".join(self.http_hook_env))
        if self.mcp_allowed:  # the files' allow lists are joined: entries widen another file's list
            parts.append("allowedMcpServers " + ", ".join(str(i.value) for i in self.mcp_allowed))
        if self.api_key_helper:  # a command the kernel runs, and where the model's key comes from
            parts.append(f"apiKeyHelper {self.api_key_helper}")
        return parts

    def restricted(self) -> FileSettings:
        """Only the parts that restrict (deny / ask rules, restricting modes, bypass switch-off)."""
        mode = None if self.mode in WIDENING_MODES else self.mode
        return replace(self, rules={**self.rules, "allow": ()}, mode=mode, directories=(), hooks=(), env=(),
                       auto_rules=(), http_hook_urls=None, http_hook_env=None, mcp_allowed=None,
                       api_key_helper=None)

    def label(self, project: Path) -> str:
        try:
            return str(self.path.relative_to(project))
        except ValueError:
            return str(self.path)


@dataclass(frozen=True)
class Settings:
    """Everything the permission system reads from the settings files."""

    project_dir: Path
    home: Path
    rules: dict[str, dict[RuleSource, tuple[str, ...]]] = field(default_factory=dict)
    default_mode: PermissionMode | None = None
    additional_directories: tuple[Path, ...] = ()
    hooks: tuple[HookMatcher, ...] = ()
    files: tuple[Path, ...] = ()
    bypass_disabled_by: Path | None = None  # permissions.disableBypassPermissionsMode: "disable"
    cleanup_period_days: int | None = None  # cleanupPeriodDays (the highest-precedence file's)
    # The project / local files' widening parts, held back because the folder is not trusted:
    withheld: tuple[FileSettings, ...] = ()
    trust_problems: tuple[str, ...] = ()  # a malformed trust record (then nothing is trusted)
    block_reads_by: Path | None = None  # the file setting permissions.blockReadsOutsideWorkingDirectories
    managed: FileSettings | None = None  # the administrator's managed settings (all files merged)
    # allow rules of the other files that allowManagedPermissionRulesOnly leaves out, by file
    ignored_allow: tuple[tuple[Path, tuple[str, ...]], ...] = ()
    auto_disabled_by: Path | None = None  # permissions.disableAutoMode: "disable"
    block_writes_by: Path | None = None  # the file setting permissions.blockWritesOutsideWorkingDirectories
    prompts_off_by: Path | None = None  # the file setting permissions.denyInsteadOfPrompting
    env: dict[str, str] = field(default_factory=dict)  # the files' ``env`` blocks, merged (later files win)
    # the ``autoMode`` sections of the user, local and managed files, each list joined in that order
    auto_mode: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ignored_auto_mode: Path | None = None  # the shared project file's autoMode: never read (``AUTO_MODE_SOURCES``)
    http_hook_policy: HttpHookPolicy = field(default_factory=HttpHookPolicy)  # the files' lists, joined
    # the user / project / local files' allowedMcpServers / deniedMcpServers (``mcp/policy.py``)
    mcp_lists: tuple[SettingsLists, ...] = ()
    # apiKeyHelper of the highest source that sets it, and that file
    api_key_helper: tuple[str, Path] | None = None

    @property
    def managed_rules_only(self) -> bool:
        return self.managed is not None and self.managed.managed_rules_only

    @property
    def held_back(self) -> tuple[str, ...]:
        """``.claude/settings.json: allow rules Bash; hooks SessionStart`` per file (empty: none)."""
        return tuple(f"{f.label(self.project_dir)}: {'; '.join(f.widening())}" for f in self.withheld)


class SettingsNotJson(AgentConfigError):
    """A settings file that is not JSON (an editor caught saving it half-way)."""


def read_settings_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when absent or empty); ``SettingsNotJson`` when it does not
    parse, AgentConfigError when it cannot be read or holds no object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AgentConfigError(f"Cannot read settings file {path}: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsNotJson(
            f"Settings file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from exc
    if not isinstance(data, dict):
        raise AgentConfigError(f"Settings file {path} must contain a JSON object, not {type(data).__name__}.")
    return data


def parse_settings_file(source: RuleSource, path: Path, data: dict[str, Any], base: Path) -> FileSettings:
    """Validate one file's permissions, hooks and cleanup period (AgentConfigError names the file)."""
    perms = _permissions_block(data, path)
    rules = {b: validate_rules(perms.get(b, []), f"{path}: permissions.{b}") for b in _BEHAVIORS}
    cleanup = _cleanup_days(data["cleanupPeriodDays"], path) if "cleanupPeriodDays" in data else None
    managed = source == POLICY  # the allowManaged* keys count only there, as in Claude Code
    return FileSettings(
        source, path, rules, _mode(perms.get("defaultMode"), path),
        tuple(_directories(perms.get("additionalDirectories", []), base, path)),
        tuple(parse_hooks(data.get("hooks", {}), path, source)),
        perms.get("disableBypassPermissionsMode") == "disable", cleanup,
        _flag(perms, "blockReadsOutsideWorkingDirectories", path, "permissions."),
        _flag(data, "disableAllHooks", path),
        managed and _flag(perms, "allowManagedPermissionRulesOnly", path, "permissions."),
        managed and _flag(data, "allowManagedHooksOnly", path),
        perms.get("disableAutoMode") == "disable",
        _environment(data.get("env", {}), path),
        _auto_rules(data.get("autoMode", {}), path),
        _names(data, "allowedHttpHookUrls", path),
        _names(data, "httpHookAllowedEnvVars", path),
        *(_mcp_lists(data, str(path)) if not managed else (None, ())),
        block_writes=_flag(perms, "blockWritesOutsideWorkingDirectories", path, "permissions."),
        no_prompts=_flag(perms, "denyInsteadOfPrompting", path, "permissions."),
        api_key_helper=_command(data, "apiKeyHelper", path),
    )


def load_settings(
    project_dir: str | os.PathLike[str],
    home: str | os.PathLike[str] | None = None,
    trusted: bool | None = None,
    managed_dir: str | os.PathLike[str] | None = None,
    contents: Mapping[Path, dict[str, Any]] | None = None,
) -> Settings:
    """Read and validate the three settings files of ``project_dir`` and the managed settings
    (``contents``: a user, project or local file's JSON as already read, in place of the disk's).

    The project and local files' widening parts (allow rules, acceptEdits / bypassPermissions,
    additionalDirectories, hooks) apply only when the folder is trusted: ``trusted`` None asks
    the trust store (only when there is something to hold back).  The user file and the managed
    settings (``managed_dir``, default: the platform's folder) always apply.
    """
    from .managed import load_managed_settings

    project = Path(os.path.abspath(os.fspath(project_dir)))
    home_path = Path(os.fspath(home)) if home is not None else Path(os.path.expanduser("~"))
    managed = load_managed_settings(project, managed_dir)
    parsed: list[FileSettings] = []
    ignored: list[tuple[Path, tuple[str, ...]]] = []
    ignored_auto: Path | None = None
    for source in FILE_SOURCES:
        path = settings_path(source, project, home_path)
        data = contents[path] if contents is not None and path in contents else read_settings_file(path)
        if data:
            base = home_path if source == "userSettings" else project
            f = parse_settings_file(source, path, data, base)
            if f.auto_rules and source not in AUTO_MODE_SOURCES:
                ignored_auto, f = path, replace(f, auto_rules=())
            parsed.append(_under_policy(f, managed, ignored))
    widening = [f for f in parsed if f.source != "userSettings" and f.widening()]
    problems: tuple[str, ...] = ()
    if widening and trusted is None:
        from .trust import load_trust_records

        records = load_trust_records(home_path)
        trusted, problems = records.covers(project), records.problems
    withheld = tuple(widening) if widening and not trusted else ()
    applied = [f.restricted() if f in withheld else f for f in parsed]
    combined = _combine(project, home_path, applied, withheld, problems, managed)
    return replace(combined, ignored_allow=tuple(ignored), ignored_auto_mode=ignored_auto)


def _under_policy(
    f: FileSettings, managed: FileSettings | None, ignored: list[tuple[Path, tuple[str, ...]]]
) -> FileSettings:
    """``f`` without what the managed settings shut out (allowManagedPermissionRulesOnly: its allow
    rules, listed in ``ignored``; allowManagedHooksOnly / disableAllHooks: its hooks), so that
    what never applies is not offered for folder trust either."""
    if managed is None:
        return f
    if managed.managed_rules_only and f.rules["allow"]:
        ignored.append((f.path, f.rules["allow"]))
        f = replace(f, rules={**f.rules, "allow": ()})
    if managed.managed_hooks_only or managed.hooks_off:
        f = replace(f, hooks=())
    return f


def _combine(
    project: Path, home: Path, parsed: list[FileSettings], withheld: tuple[FileSettings, ...],
    problems: tuple[str, ...], managed: FileSettings | None = None,
) -> Settings:
    if managed is not None:
        parsed = [*parsed, managed]  # the highest source: its mode and cleanup period win
    hooks = _live_hooks(parsed, managed)
    rules: dict[str, dict[RuleSource, tuple[str, ...]]] = {b: {} for b in _BEHAVIORS}
    mode: PermissionMode | None = None
    cleanup_days: int | None = None
    env: dict[str, str] = {}
    auto_mode: dict[str, tuple[str, ...]] = {}
    urls: tuple[str, ...] | None = None
    env_vars: tuple[str, ...] | None = None
    helper: tuple[str, Path] | None = None
    for f in parsed:
        env.update(f.env)
        if f.api_key_helper:
            helper = (f.api_key_helper, f.path)
        for section, entries in f.auto_rules:
            auto_mode[section] = auto_mode.get(section, ()) + entries
        if f.http_hook_urls is not None:
            urls = (urls or ()) + f.http_hook_urls
        if f.http_hook_env is not None:
            env_vars = (env_vars or ()) + f.http_hook_env
        for behavior in _BEHAVIORS:
            rules[behavior][f.source] = f.rules[behavior]
        mode = f.mode or mode
        if f.cleanup_days is not None:
            cleanup_days = f.cleanup_days

    mcp_lists = tuple(  # a deny entry's unset ${VAR} may come from the user's own env block
        SettingsLists(str(f.path), f.mcp_allowed, f.mcp_denied, f.env if f.source == "userSettings" else ())
        for f in parsed if f is not managed and (f.mcp_allowed is not None or f.mcp_denied)
    )

    def first(flag: str) -> Path | None:  # a switch that only restricts: any file's true holds
        return next((f.path for f in parsed if getattr(f, flag)), None)

    return Settings(
        project, home, rules, mode,
        tuple(d for f in parsed for d in f.directories), hooks,
        tuple(f.path for f in parsed), first("bypass_off"), cleanup_days, withheld, problems,
        first("block_reads"), managed, auto_disabled_by=first("auto_off"), env=env, auto_mode=auto_mode,
        http_hook_policy=HttpHookPolicy(urls, env_vars), mcp_lists=mcp_lists,
        block_writes_by=first("block_writes"), prompts_off_by=first("no_prompts"), api_key_helper=helper,
    )


def _live_hooks(parsed: list[FileSettings], managed: FileSettings | None) -> tuple[HookMatcher, ...]:
    """The hooks that run: ``disableAllHooks`` in a user / project / local file turns off those
    files' hooks, in the managed settings every file's; ``allowManagedHooksOnly`` keeps only the
    managed ones.  (Hooks registered from Python are the session's own and always run.)"""
    if managed is not None and managed.hooks_off:
        return ()
    if any(f.hooks_off for f in parsed if f is not managed):
        return managed.hooks if managed is not None else ()
    return tuple(h for f in parsed for h in f.hooks)  # allowManagedHooksOnly: the others have none


def _mcp_lists(data: dict[str, Any], where: str) -> tuple[tuple[ListEntry, ...] | None, tuple[ListEntry, ...]]:
    allowed = parse_server_list(data["allowedMcpServers"], "allowedMcpServers", where) \
        if "allowedMcpServers" in data else None
    return allowed, parse_server_list(data.get("deniedMcpServers", []), "deniedMcpServers", where)


def _flag(block: dict[str, Any], key: str, path: Path, prefix: str = "") -> bool:
    value = block.get(key, False)
    if not isinstance(value, bool):
        raise AgentConfigError(f"{path}: {prefix}{key} must be true or false")
    return value


def _cleanup_days(value: Any, path: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AgentConfigError(f"{path}: cleanupPeriodDays must be a whole number of days (0 keeps every "
                               f"session), not {value!r}")
    return value


def _environment(value: object, path: Path) -> tuple[tuple[str, str], ...]:
    """The ``env`` block as (name, value) pairs: names without ``=`` or NUL, string values (a
    number is taken as its digits, as a shell would read it)."""
    if not isinstance(value, dict):
        raise AgentConfigError(f"Settings file {path}: 'env' must be an object of variable names and string values.")
    pairs = []
    for name, raw in value.items():
        if not name or "=" in name or "\0" in name:
            raise AgentConfigError(f"Settings file {path}: env has an invalid variable name {name!r}.")
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = str(raw)
        if not isinstance(raw, str) or "\0" in raw:
            raise AgentConfigError(f"Settings file {path}: env.{name} must be a string, not {json.dumps(raw)}.")
        pairs.append((name, raw))
    return tuple(pairs)


def _auto_rules(value: object, path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The ``autoMode`` block: each known section a list of prose rules (blank entries dropped;
    other keys, which newer Claude Code versions may add, are left alone)."""
    if not isinstance(value, dict):
        raise AgentConfigError(f"Settings file {path}: 'autoMode' must be an object with lists of rules "
                               f"({', '.join(AUTO_MODE_SECTIONS)}).")
    sections = []
    for section in AUTO_MODE_SECTIONS:
        if section not in value:
            continue
        entries = value[section]
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise AgentConfigError(f"Settings file {path}: autoMode.{section} must be a list of strings.")
        sections.append((section, tuple(e.strip() for e in entries if e.strip())))
    return tuple(sections)


def _command(data: dict[str, Any], key: str, path: Path) -> str | None:
    """A top-level shell command (``apiKeyHelper``), or None when the file does not set it."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise AgentConfigError(f"Settings file {path}: {key} must be a shell command (a non-empty string).")
    return value.strip()


def _names(data: dict[str, Any], key: str, path: Path) -> tuple[str, ...] | None:
    """A top-level list of strings (``allowedHttpHookUrls``), or None when the file does not set it."""
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise AgentConfigError(f"Settings file {path}: {key} must be a list of non-empty strings.")
    return tuple(v.strip() for v in value)


def _permissions_block(data: dict[str, Any], path: Path) -> dict[str, Any]:
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise AgentConfigError(f"Settings file {path}: 'permissions' must be an object.")
    return perms


def validate_rules(rules: object, where: str) -> tuple[str, ...]:
    """Rules as a tuple of strings, each one parsed; AgentConfigError names ``where``."""
    if not isinstance(rules, list | tuple) or not all(isinstance(r, str) for r in rules):
        raise AgentConfigError(f"{where} must be a list of rule strings like \"Bash(git diff:*)\".")
    for text in rules:
        try:
            rule = parse_rule(text)
        except RuleSyntaxError as exc:
            raise AgentConfigError(f"{where}: invalid rule {text!r}: {exc}.") from exc
        content = rule.content or ""
        meant = _meant_tool(rule.tool_name)
        if meant is not None:  # `bash(rm:*)` in deny would hold nothing back: it names no tool
            raise AgentConfigError(f"{where}: invalid rule {text!r}: tool names are case-sensitive; "
                                   f"did you mean {meant}?")
        if rule.tool_name == "Bash" and ":*" in content[:-2]:
            raise AgentConfigError(f"{where}: invalid rule {text!r}: ':*' is only allowed at the end.")
        if rule.tool_name == "WebFetch" and rule.content is not None and not content.startswith("domain:"):
            raise AgentConfigError(f"{where}: invalid rule {text!r}: use WebFetch(domain:example.com).")
    return tuple(rules)


_RULE_ALIASES = ("Task", "MultiEdit", "LS", "NotebookRead")  # names Claude Code's rules also use


def _meant_tool(name: str) -> str | None:
    """The built-in tool ``name`` spells in another case (``bash`` → ``Bash``), or None."""
    from ..core.registry import TOOL_TARGETS

    folded = name.casefold()
    for known in (*TOOL_TARGETS, *_RULE_ALIASES):
        if known.casefold() == folded and known != name:
            return known
    return None


def _mode(value: object, path: Path) -> PermissionMode | None:
    if value is None:
        return None
    if value not in PERMISSION_MODES:
        raise AgentConfigError(
            f"Settings file {path}: defaultMode {value!r} is not one of {', '.join(PERMISSION_MODES)}."
        )
    return value  # type: ignore[return-value]


def _directories(value: object, base: Path, where: object) -> list[Path]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str | os.PathLike) for v in value):
        raise AgentConfigError(f"{where}: additionalDirectories must be a list of folder paths.")
    return [Path(os.path.normpath(base / os.path.expanduser(os.fspath(v)))) for v in value]


def build_permission_context(
    settings: Settings,
    *,
    mode: PermissionMode | None = None,
    allow: Iterable[str] = (),
    ask: Iterable[str] = (),
    deny: Iterable[str] = (),
    additional_directories: Iterable[str | os.PathLike[str]] = (),
    source: RuleSource = "cliArg",
) -> ToolPermissionContext:
    """Settings plus the session's options (magic flags / API) as the permission context."""
    if mode is not None and mode not in PERMISSION_MODES:
        raise AgentConfigError(f"Permission mode {mode!r} is not one of {', '.join(PERMISSION_MODES)}.")
    session = {
        "allow": validate_rules(list(allow), "allow rule option"),
        "ask": validate_rules(list(ask), "ask rule option"),
        "deny": validate_rules(list(deny), "deny rule option"),
    }
    tables = {b: dict(settings.rules.get(b, {})) for b in _BEHAVIORS}
    for behavior, extra in session.items():
        if extra:
            tables[behavior][source] = tables[behavior].get(source, ()) + extra
    extra_dirs = _directories(list(additional_directories), settings.project_dir, "additional directories option")
    if session["allow"] and settings.managed_rules_only:
        raise AgentConfigError(managed_only_message(settings, session["allow"]))
    final_mode = mode or settings.default_mode or "default"
    bypass_off, auto_off = settings.bypass_disabled_by, settings.auto_disabled_by
    return ToolPermissionContext(
        mode=final_mode,
        allow_rules=tables["allow"],
        deny_rules=tables["deny"],
        ask_rules=tables["ask"],
        additional_directories=settings.additional_directories + tuple(extra_dirs),
        project_dir=settings.project_dir,
        block_outside_reads=settings.block_reads_by is not None,
        block_outside_writes=settings.block_writes_by is not None,
        prompts_off_by=os.fspath(settings.prompts_off_by) if settings.prompts_off_by is not None else None,
        managed_rules_only=settings.managed_rules_only,
        # AgentConfigError now if the mode is one of them
        bypass_disabled_by=os.fspath(bypass_off) if bypass_off is not None else None,
        auto_disabled_by=os.fspath(auto_off) if auto_off is not None else None,
    )


def managed_only_message(settings: Settings | None, rules: Iterable[str]) -> str:
    """Why allow rules given for the session cannot be used."""
    where = settings.managed.path if settings is not None and settings.managed is not None else "the managed settings"
    return (f"Allow rules {', '.join(rules)} cannot be added: {where} sets allowManagedPermissionRulesOnly, "
            "so only the administrator's allow rules apply. Approve the calls one at a time instead.")


def apply_permission_update(update: Any, context: Any, project_dir: Any = None, **kwargs: Any) -> Any:
    """Re-export of ``updates.apply_permission_update`` (imported lazily: updates imports this module)."""
    from .updates import apply_permission_update as apply

    return apply(update, context, project_dir, **kwargs)
