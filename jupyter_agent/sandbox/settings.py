"""The ``sandbox`` block of the Claude Code settings files, merged (later sources win per key;
lists are joined across files).

    {"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true,
                 "allowUnsandboxedCommands": true, "excludedCommands": ["docker", "git push"],
                 "network": {"allowAllUnixSockets": false, "allowedDomains": ["pypi.org"],
                             "deniedDomains": ["*.evil.example", "localhost:6379"]},
                 "filesystem": {"denyRead": ["~/"], "allowRead": ["~/.cache/pip"],
                                "denyWrite": ["./deploy/"], "allowWrite": ["~/.cache/matplotlib"]},
                 "credentials": {"files": [{"path": "~/.netrc", "mode": "deny"}],
                                 "envVars": [{"name": "AWS_SECRET_ACCESS_KEY", "mode": "deny"}]}}}

Paths are written as in ``Read(...)`` rules (``//abs``, ``~/x``, ``/x`` from the settings root,
``./x`` and ``x`` from the project); ``allowWrite`` names folders and ``allowRead`` paths (no
patterns): ``allowRead`` shows again what ``denyRead`` alone hides there.  An untrusted
project's files cannot add to ``allowWrite``, ``allowRead``, ``network.allowedDomains`` (hosts
reached through the kernel's proxy without asking; ``network.py``) nor ``excludedCommands``
(command prefixes, as in ``Bash`` rules, that run outside the sandbox and are asked about as
without it).  A credential
variable in ``deny`` mode is removed from a sandboxed command's environment; in ``mask`` mode it
is there with a placeholder value.

A session (or a test) may set a ``SandboxSettings`` in ``app_state.extra["sandbox"]``; it then
wins over the files.  A malformed block raises ``AgentConfigError`` naming the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.permission_types import RuleSource
from ..errors import AgentConfigError
from ..permissions.managed import managed_dir as managed_folder
from ..permissions.managed import read_managed
from ..permissions.settings import (
    FILE_SOURCES,
    POLICY,
    SettingsNotJson,
    read_settings_file,
    settings_files,
    settings_path,
)
from ..permissions.trust import CLAUDE_CODE_FILE, is_trusted, trust_file
from ..permissions.updates import file_signature
from .network import parse_host_entry

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

APP_STATE_KEY = "sandbox"
FORCE_KEY = "sandbox_on"  # app_state.extra: True turns the sandbox on for the session
_KEYS = {
    "enabled": "enabled",
    "autoAllowBashIfSandboxed": "auto_allow",
    "allowUnsandboxedCommands": "allow_unsandboxed",
}


@dataclass(frozen=True)
class SandboxSettings:
    """Whether Bash runs sandboxed, and what may skip asking or leave the sandbox."""

    enabled: bool = False
    auto_allow: bool = True  # sandboxed commands run without asking (ask rules still ask)
    allow_unsandboxed: bool = True  # dangerouslyDisableSandbox may re-run outside (after asking)
    allow_unix_sockets: bool = False  # network.allowAllUnixSockets: no seccomp filter, the host's /run
    deny_read: tuple[tuple[RuleSource, str], ...] = ()  # (settings source, path pattern)
    allow_read: tuple[tuple[RuleSource, str], ...] = ()  # filesystem.allowRead: shown again within denyRead
    credential_files: tuple[tuple[RuleSource, str], ...] = ()  # credentials.files: hidden, never shown again
    deny_write: tuple[tuple[RuleSource, str], ...] = ()
    env_deny: tuple[str, ...] = ()  # variable names
    env_mask: tuple[str, ...] = ()
    allow_write: tuple[tuple[RuleSource, str], ...] = ()  # filesystem.allowWrite: more writable folders
    excluded: tuple[str, ...] = ()  # excludedCommands: command prefixes that run outside the sandbox
    allowed_domains: tuple[str, ...] = ()  # network.allowedDomains: reached through the kernel's proxy
    denied_domains: tuple[str, ...] = ()  # network.deniedDomains: refused without asking (``network.py``)
    # network.allowManagedDomainsOnly in the managed settings: only the administrator's
    # allowedDomains and WebFetch allow rules reach anything; the rest is refused unasked
    managed_domains_only: bool = False


def load_sandbox_settings(
    project_dir: str | os.PathLike[str],
    home: str | os.PathLike[str] | None = None,
    trusted: bool | None = None,
    managed_dir: str | os.PathLike[str] | None = None,
) -> SandboxSettings:
    """The merged ``sandbox`` blocks of the user, project and local settings files, and above
    them the managed settings' (``permissions/managed.py``; always trusted, their switches win).

    In a folder the user has not trusted (``permissions.trust``; ``trusted=None`` looks it up) the
    project's and local files only restrict: their ``true`` for ``autoAllowBashIfSandboxed`` or
    ``allowUnsandboxedCommands`` is held back, and a sandbox they turn on asks as before unless
    the user's own file says sandboxed commands may run unasked.

    Every Bash call asks, so the last result is kept and the files are read again only when one
    of them, the managed ones or the trust records changed (by their ``stat`` signatures).

    A file that is no JSON any more (an editor saving as you type) leaves the last settings read
    for the same folders in force until it parses again, as the permission rules do (the
    session reports the file once).  With nothing read before, or a file that parses but says
    something invalid, ``AgentConfigError`` (the sandbox then refuses to run commands, naming
    the mistake: it fails closed).
    """
    project = Path(os.path.abspath(os.fspath(project_dir)))
    where, signatures = _inputs(project, home, trusted, managed_dir)
    last = _last_loaded.get(where)
    if last is not None and last[0] == signatures:
        return last[1]
    try:
        loaded = _load(project, home, trusted, managed_dir)
    except SettingsNotJson:
        if last is None:
            raise
        return last[1]
    _last_loaded[where] = (signatures, loaded)
    return loaded


# the last settings read for each set of folders, with the signatures of the files they were
# read from: every Bash call asks for them, and reading and parsing the files costs ~150 µs
# where comparing their signatures costs ~15 µs
_last_loaded: dict[object, tuple[object, SandboxSettings]] = {}


def _inputs(project: Path, home: str | os.PathLike[str] | None, trusted: bool | None,
            managed_dir: str | os.PathLike[str] | None) -> tuple[object, object]:
    """Everything the settings depend on: the folders, and each file's signature (times, size,
    inode) — the three settings files, the managed ones, and the folder-trust records."""
    home_path = Path(os.fspath(home)) if home is not None else Path(os.path.expanduser("~"))
    folder = Path(os.fspath(managed_dir)) if managed_dir is not None else managed_folder()
    paths = [path for _source, path in settings_files(project, home_path, folder)]
    paths += [trust_file(home_path), home_path / CLAUDE_CODE_FILE]
    return ((project, os.path.realpath(project), home_path, trusted, folder),
            tuple((p, file_signature(p)) for p in paths))


def _load(
    project: Path, home: str | os.PathLike[str] | None, trusted: bool | None,
    managed_dir: str | os.PathLike[str] | None,
) -> SandboxSettings:
    home_path = Path(os.fspath(home)) if home is not None else None
    values: dict[str, bool] = {}
    user: dict[str, bool] = {}
    lists: dict[str, tuple[Any, ...]] = {}
    managed, managed_path = read_managed(managed_dir)
    blocks: list[tuple[RuleSource, Path, Any]] = []
    for source in FILE_SOURCES:
        path = settings_path(source, project, home_path)
        blocks.append((source, path, read_settings_file(path).get("sandbox")))
    if managed_path is not None:
        blocks.append((POLICY, managed_path, managed.get("sandbox")))
    domains_only = False
    for source, path, block in blocks:
        if block is None:
            continue
        parsed = _parse_block(block, path)
        if source == POLICY:
            domains_only = _managed_domains_only(block, path)
            if domains_only:  # only the administrator's hosts: the other files' are dropped
                lists.pop("allowed_domains", None)
        trusted_here = source in ("userSettings", POLICY) or (
            is_trusted(project, home_path) if trusted is None else trusted
        )
        for key, items in _parse_lists(block, path, source).items():  # they restrict: always kept …
            if key not in _LOOSENING or trusted_here:  # … but allowWrite and excludedCommands loosen
                lists[key] = lists.get(key, ()) + items
        if source == "userSettings":
            user = parsed
        elif not trusted_here:
            parsed = {k: v for k, v in parsed.items() if k == "enabled" or not v}  # only what restricts
            if parsed.get("enabled") and "auto_allow" not in user:
                parsed["auto_allow"] = False
        values.update(parsed)
    fields: dict[str, Any] = {**values, **{k: tuple(dict.fromkeys(v)) for k, v in lists.items()}}
    return SandboxSettings(**fields, managed_domains_only=domains_only)


def _managed_domains_only(block: dict[str, Any], path: Path) -> bool:
    value = _object(block, "network", path).get("allowManagedDomainsOnly", False)
    if not isinstance(value, bool):
        raise AgentConfigError(f"Settings file {path}: sandbox.network.allowManagedDomainsOnly must be true or false.")
    return value


def _parse_block(block: Any, path: Path) -> dict[str, bool]:
    if not isinstance(block, dict):
        raise AgentConfigError(f"Settings file {path}: 'sandbox' must be an object.")
    parsed: dict[str, bool] = {}
    for key, attr in _KEYS.items():
        if key not in block:
            continue
        if not isinstance(block[key], bool):
            raise AgentConfigError(f"Settings file {path}: sandbox.{key} must be true or false.")
        parsed[attr] = block[key]
    network = _object(block, "network", path)
    if "allowAllUnixSockets" in network:
        if not isinstance(network["allowAllUnixSockets"], bool):
            raise AgentConfigError(f"Settings file {path}: sandbox.network.allowAllUnixSockets must be true or false.")
        parsed["allow_unix_sockets"] = network["allowAllUnixSockets"]
    return parsed


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOOSENING = frozenset({"allow_write", "allow_read", "excluded", "allowed_domains"})
_MODES = ("deny", "mask")


def _parse_lists(block: dict[str, Any], path: Path, source: RuleSource) -> dict[str, tuple[Any, ...]]:
    """``excludedCommands``, ``filesystem.denyRead`` / ``denyWrite`` / ``allowWrite`` / ``allowRead`` and
    ``credentials.files`` / ``envVars``, by ``SandboxSettings`` field."""
    lists: dict[str, list[Any]] = {
        "deny_read": [], "deny_write": [], "env_deny": [], "env_mask": [], "allow_write": [], "excluded": [],
        "allowed_domains": [], "denied_domains": [], "allow_read": [], "credential_files": [],
    }
    _parse_domains(_object(block, "network", path), path, lists)
    for item in _list(block, "excludedCommands", "sandbox.excludedCommands", path):
        if not isinstance(item, str) or not item.strip():
            raise AgentConfigError(f"Settings file {path}: sandbox.excludedCommands must list commands.")
        lists["excluded"].append(item.strip())
    filesystem = _object(block, "filesystem", path)
    for key, attr in (("denyRead", "deny_read"), ("denyWrite", "deny_write"), ("allowWrite", "allow_write"),
                      ("allowRead", "allow_read")):
        for item in _list(filesystem, key, f"sandbox.filesystem.{key}", path):
            if not isinstance(item, str) or not item.strip() or "\x00" in item:
                raise AgentConfigError(f"Settings file {path}: sandbox.filesystem.{key} must list paths.")
            text = item.strip()
            if key == "allowRead":
                text = text.removesuffix("/**") or text
                if any(c in text for c in "*?["):
                    raise AgentConfigError(f"Settings file {path}: sandbox.filesystem.allowRead names paths, not patterns ({item!r}).")
            lists[attr].append((source, text))
    credentials = _object(block, "credentials", path)
    for item in _list(credentials, "files", "sandbox.credentials.files", path):
        where = _entry(item, "path", path, "sandbox.credentials.files")
        if not where.strip() or "\x00" in where:
            raise AgentConfigError(f"Settings file {path}: sandbox.credentials.files needs a path.")
        lists["credential_files"].append((source, where.strip()))  # deny and mask: hidden either way
    for item in _list(credentials, "envVars", "sandbox.credentials.envVars", path):
        name = _entry(item, "name", path, "sandbox.credentials.envVars")
        if not _NAME.fullmatch(name):
            raise AgentConfigError(f"Settings file {path}: {name!r} in sandbox.credentials.envVars is not a variable name.")
        lists["env_deny" if item["mode"] == "deny" else "env_mask"].append(name)
    return {k: tuple(v) for k, v in lists.items() if v}


def _parse_domains(network: dict[str, Any], path: Path, lists: dict[str, list[Any]]) -> None:
    """``network.allowedDomains`` / ``deniedDomains``: host names, each with an optional ``:port``."""
    for key, attr in (("allowedDomains", "allowed_domains"), ("deniedDomains", "denied_domains")):
        for item in _list(network, key, f"sandbox.network.{key}", path):
            try:
                parse_host_entry(item if isinstance(item, str) else "")
            except ValueError as exc:
                raise AgentConfigError(f"Settings file {path}: sandbox.network.{key} must list host names: {exc}.") from None
            lists[attr].append(item.strip().lower())


def _object(block: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = block.get(key, {})
    if not isinstance(value, dict):
        raise AgentConfigError(f"Settings file {path}: sandbox.{key} must be an object.")
    return value


def _list(block: dict[str, Any], key: str, where: str, path: Path) -> list[Any]:
    value = block.get(key, [])
    if not isinstance(value, list):
        raise AgentConfigError(f"Settings file {path}: {where} must be a list.")
    return value


def _entry(item: Any, key: str, path: Path, where: str) -> str:
    """The ``key`` of one credentials entry, after checking its ``mode``."""
    if not isinstance(item, dict) or not isinstance(item.get(key), str):
        raise AgentConfigError(f"Settings file {path}: each entry of {where} needs a {key!r} string.")
    if item.get("mode") not in _MODES:
        raise AgentConfigError(f"Settings file {path}: the mode of {item[key]!r} in {where} must be 'deny' or 'mask'.")
    return str(item[key])


def turn_on(context: ToolUseContext) -> None:
    """Run the session's Bash commands in the sandbox from now on, whatever the files say."""
    context.set_app_state(lambda s: replace(s, extra={**s.extra, FORCE_KEY: True}))


def sandbox_settings(context: ToolUseContext) -> SandboxSettings:
    """This session's sandbox settings: the app-state override, else the settings files (with
    the sandbox on when the session says so: ``FORCE_KEY``, ``%agent --sandbox``)."""
    extra = context.get_app_state().extra
    override = extra.get(APP_STATE_KEY)
    if isinstance(override, SandboxSettings):
        return override
    project = context.permission_context.project_dir or context.cwd
    loaded = load_sandbox_settings(project)
    return replace(loaded, enabled=True) if extra.get(FORCE_KEY) and not loaded.enabled else loaded
