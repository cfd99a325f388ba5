"""Path permissions for the file tools (Read, Write, Edit, NotebookEdit, Glob, Grep).

The file tools call ``check_read_permission`` / ``check_write_permission`` from their
``check_permissions``.  Order for reads: deny → ask → allow rules → inside the working
directories → ask.  Writes: deny (Edit *or* Read deny) → ask rules → protected paths (ask in
every mode) → Edit allow rules (on the real path) → acceptEdits inside the working
directories → ask.  Both the path as written and its real path are checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
    RuleBehavior,
)
from .compiled import EDIT_RULES, READ_RULES, PathScope, compiled_rules, first_match
from .hard_links import denied_links, link_rule, path_link_rule
from .path_patterns import PathPattern
from .path_programs import program_on_path
from .paths import BadPath, ResolvedPath, is_within, protected_reason_of, resolve_path
from .verdicts import RULE, SAFETY, new_ask, new_update, sticky_ask


def project_dir(context: ToolUseContext) -> Path:
    return context.permission_context.project_dir or context.cwd


def working_directories(context: ToolUseContext | None) -> list[Path]:
    """The project directory (or cwd) plus ``additionalDirectories``, as real paths."""
    if context is None:
        return []
    return [Path(r) for r in _roots(context)]


def _roots(context: ToolUseContext) -> tuple[str, ...]:
    return compiled_rules(context.permission_context).working_roots(os.fspath(context.cwd))


def path_scope(context: ToolUseContext) -> PathScope:
    """The context's rules and working directories as seen from its cwd (cached per context)."""
    return compiled_rules(context.permission_context).scope_of(context.cwd)


def is_in_working_directories(path: str | os.PathLike[str], context: ToolUseContext | None) -> bool:
    """Compare by path components after resolving symlinks (``/w/proj-evil`` ∉ ``/w/proj``)."""
    if context is None:
        return False
    try:
        real = resolve_path(os.fspath(path), context.cwd).real
    except BadPath:
        return False
    return real_in_working_directories(real, context)


def real_in_working_directories(real: str, context: ToolUseContext) -> bool:
    return path_scope(context).inside(real)


def matching_rule(
    context: ToolUseContext,
    behavior: RuleBehavior,
    rule_names: tuple[str, ...],
    resolved: ResolvedPath,
    *,
    real_only: bool = False,
) -> str | None:
    """The text of the first ``behavior`` rule among ``rule_names`` matching the path."""
    real = resolved.real
    return path_scope(context).rule(behavior, rule_names, real if real_only else resolved.lexical, real)


def read_deny_rule_below(folder: str, context: ToolUseContext) -> str | None:
    """A Read deny rule that may match some file below ``folder`` (for recursive searches)."""
    return read_deny_below(folder, path_scope(context))


def read_deny_below(folder: str, scope: PathScope) -> str | None:
    """A Read deny rule that may match some file below ``folder`` (``grep -r``, ``tar cf - .``)."""
    return _deny_below(scope.read_deny, folder)


FOLDER_LOOK = 5_000  # entries ``read_deny_in`` looks at before it counts a folder as holding a denied file


def read_deny_in(folder: str, scope: PathScope, links: bool = False) -> str | None:
    """For a command that reads (or removes, or changes the mode of) the files below ``folder``
    as they are now (``grep -r``, ``tar cf - src``, ``cp -r src``, ``rm -rf build``): the Read
    deny rule of a file there — not one that merely may match, as ``read_deny_below`` answers
    (``Read(**/.env)`` may match below every folder).  The folder is looked at, up to
    ``FOLDER_LOOK`` entries: a denied file or a hard link to one counts.  With ``links`` (the
    command follows symbolic links: ``grep -R``, ``zip -r``, ``tar -h``), a link to a denied
    file counts too, and a link to a folder is followed — whatever the rules' patterns, since a
    link in ``src`` may lead to ``.env``.  A folder that is not there yet (made earlier in the
    line), one that cannot be read, or one with more entries gives a rule: fail closed."""
    rule = read_deny_below(folder, scope)
    if rule is None and not (links and scope.read_deny):
        return None
    return _denied_in(folder, scope.read_deny, rule if rule is not None else scope.read_deny[0][0], scope,
                      links=links, hard_links=rule is not None)


def read_deny_listed(folder: str, scope: PathScope, recursive: bool, listed: Callable[[str], bool]) -> str | None:
    """For code that lists the real folder ``folder`` (and below it, ``recursive``) and reads
    what it lists (``python_folders``): the Read deny rule of an entry whose name ``listed``
    accepts, following links as ``open`` does; the first rule when the folder cannot be looked
    at whole."""
    if not scope.read_deny:
        return None
    return _denied_in(folder, scope.read_deny, scope.read_deny[0][0], scope, links=True, hard_links=True,
                      recursive=recursive, listed=listed)


def _denied_in(
    folder: str, rules: tuple[tuple[str, tuple[PathPattern, ...]], ...], fallback: str, scope: PathScope,
    links: bool = False, hard_links: bool = False, recursive: bool = True,
    listed: Callable[[str], bool] | None = None,
) -> str | None:
    """The first of ``rules`` matching an entry below ``folder`` (looked at up to ``FOLDER_LOOK``
    entries), else None; ``fallback`` when the folder is not there, cannot be read or has more
    entries.  ``links``: symbolic links are followed (a file's Read deny rule, a folder walked
    too); ``hard_links``: another name of a denied file counts (``hard_links.denied_links``);
    ``recursive`` False: the folder's own entries only; ``listed``: only entries whose name it
    accepts count (folders are walked all the same)."""
    if os.path.islink(folder) or not os.path.isdir(folder):
        return fallback
    linked: list[os.stat_result] = []
    budget = FOLDER_LOOK
    stack = [folder]
    seen = {folder}
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    budget -= 1
                    if budget < 0:
                        return fallback
                    path = entry.path
                    named = listed is None or listed(entry.name)
                    found = first_match(rules, path, path) if named else None
                    if found is not None:
                        return found
                    if entry.is_symlink():
                        if not links:
                            continue  # (not followed: the link itself is read or removed)
                        real = os.path.realpath(path)
                        if os.path.isdir(real):
                            if recursive and real not in seen:
                                seen.add(real)
                                stack.append(real)
                            continue
                        found = read_rule_of(real, real, scope) if named else None
                        if found is not None:
                            return found
                    elif entry.is_dir(follow_symlinks=False):
                        if recursive:
                            stack.append(path)
                    elif hard_links and named:  # (another name of a denied file: only where one may be)
                        st = entry.stat(follow_symlinks=False)
                        if st.st_nlink > 1:
                            linked.append(st)
        except OSError:
            return fallback
    if linked:
        found_links = denied_links(linked, scope, rules)
        if found_links:
            return next(iter(found_links.values()))
    return None


def edit_deny_below(folder: str, scope: PathScope) -> str | None:
    """An Edit deny rule that may match some file below ``folder`` (``rm -r``, ``tar x``)."""
    return _deny_below(scope.edit_deny, folder)


def edit_deny_in(folder: str, scope: PathScope) -> str | None:
    """For a command that only removes what is below ``folder`` (``rm -rf build``): the Edit
    deny rule of a file or folder there now — not one that merely may match, as
    ``edit_deny_below`` answers (``Edit(**/*.lock)`` may match below every folder).  Up to
    ``FOLDER_LOOK`` entries are looked at (links are removed, not followed); a folder that is
    not there yet, cannot be read or has more entries gives the rule that may match."""
    rule = edit_deny_below(folder, scope)
    return None if rule is None else _denied_in(folder, scope.edit_deny, rule, scope)


def _deny_below(rules: tuple[tuple[str, tuple[PathPattern, ...]], ...], folder: str) -> str | None:
    for text, patterns in rules:
        if any(p.may_match_below(folder) for p in patterns):
            return text
    return None


def read_rule_of(lexical: str, real: str, scope: PathScope) -> str | None:
    """The Read deny rule covering a file, by either form of its path or as another name of a
    denied file (a hard link: ``ln .env notes.txt``), or None."""
    rule = scope.read_denied(lexical, real)
    if rule is None and scope.read_deny:
        rule = path_link_rule(real, scope)
    return rule


def read_denied(path: str, context: ToolUseContext) -> bool:
    """For search tools filtering results: is reading ``path`` denied by a rule?"""
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath:
        return True
    return matching_rule(context, "deny", READ_RULES, resolved) is not None


def hard_link_rule(st: os.stat_result, context: ToolUseContext) -> str | None:
    """The Read deny rule naming another link of the inode ``st`` describes (a hard link to a
    denied file), or None."""
    return link_rule(st, path_scope(context))


def opened_denial(fd: int, path: str, context: ToolUseContext) -> str | None:
    """Why the file open as ``fd`` (opened through ``path``) must not be used, or None.

    The permission check ran on the path before the call; a symlink swapped since, or a hard
    link, would make the open file a denied one.  The file's real path is read from the open
    descriptor where the system tells it (``/proc/self/fd``), else resolved again and required
    to be the same file (same device and inode) as the one open.
    """
    st = os.fstat(fd)
    real = _fd_real_path(fd, path, st)
    if real is None:
        return f"Cannot read {path}: it changed while it was being opened. Try again."
    lexical = os.path.normpath(path)
    scope = path_scope(context)
    rule = scope.rule("deny", READ_RULES, lexical, real)
    if rule is None and scope.read_deny:
        rule = hard_link_rule(st, context)
        if rule is not None:
            return f"Permission to read {path} has been denied by the rule {rule}: it is a hard link to a denied file."
    if rule is None:
        return None
    return f"Permission to read {path} has been denied by the rule {rule}."


def _fd_real_path(fd: int, path: str, st: os.stat_result) -> str | None:
    """The real path of the open ``fd``; None when it cannot be told (fail closed)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    real = os.path.realpath(path)
    try:
        now = os.stat(real)
    except OSError:
        return None
    return real if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino) else None


def path_denial(path: str, real: str, context: ToolUseContext) -> str | None:
    """Why writing ``path`` (really ``real``, resolved right before the write) is denied, or None."""
    lexical = os.path.normpath(path)
    scope = path_scope(context)
    rule = scope.rule("deny", EDIT_RULES, lexical, real) or scope.rule("deny", READ_RULES, lexical, real)
    if rule is None:
        return BLOCKED_WRITE.format(path=path) if write_blocked(real, context) else None
    return f"Permission to write {path} has been denied by the rule {rule}."


# What the machine is, readable by everyone and holding no secret: reading one outside the
# working directories needs no question (`cat /proc/meminfo`, `cat /etc/os-release`) unless the
# settings block outside reads or a Read deny rule covers it.  Exact real paths only: not
# /proc/self/environ, /proc/<pid>/cmdline or anything else under /proc.
SYSTEM_INFO = frozenset({
    "/proc/cpuinfo", "/proc/meminfo", "/proc/loadavg", "/proc/uptime", "/proc/version", "/proc/stat",
    "/proc/swaps", "/proc/driver/nvidia/version", "/etc/os-release", "/usr/lib/os-release", "/etc/lsb-release",
    "/etc/debian_version", "/etc/redhat-release", "/etc/alpine-release", "/etc/timezone",
    "/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current",
    "/sys/fs/cgroup/memory.high",
})


def check_read_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    denied = matching_rule(context, "deny", READ_RULES, resolved)
    if denied is not None:
        return PermissionDeny(f"Permission to read {path} has been denied by the rule {denied}.")
    if context.permission_context.block_outside_reads and not _readable_when_blocked(resolved.real, context):
        return PermissionDeny(BLOCKED_READ.format(path=path))
    asked = matching_rule(context, "ask", READ_RULES, resolved)
    if asked is not None:
        return sticky_ask(f"{_name(tool)} wants to read {path} (rule {asked}).", RULE, asked)
    allowed = matching_rule(context, "allow", READ_RULES, resolved, real_only=True)
    if allowed is not None:
        return PermissionAllow(reason=f"rule {allowed}")
    if real_in_working_directories(resolved.real, context):
        return PermissionAllow(reason="inside the working directories")
    if resolved.real in SYSTEM_INFO:
        return PermissionAllow(reason="what the machine is (readable by everyone, no secret)")
    folder = os.path.dirname(resolved.real) or "/"
    return PermissionAsk(
        f"{_name(tool)} wants to read {path}, outside the working directories.",
        suggestions=(PermissionUpdate(rules=(f"Read(/{folder}/**)",), destination="session"),),
    )


BLOCKED_READ = (
    "Reading {path} is blocked: it is outside the working directories, and the settings say "
    "permissions.blockReadsOutsideWorkingDirectories. Work inside the working directories, or ask the "
    "user to add that folder to them (permissions.additionalDirectories, or %agent --add-dir)."
)


BLOCKED_WRITE = (
    "Writing {path} is blocked: it is outside the working directories, and the settings say "
    "permissions.blockWritesOutsideWorkingDirectories. Write inside the working directories, or ask the "
    "user to add that folder to them (permissions.additionalDirectories, or %agent --add-dir)."
)


def _readable_when_blocked(real: str, context: ToolUseContext) -> bool:
    """Inside the working directories, or the session's own folder (saved outputs, plans)."""
    return real_in_working_directories(real, context) or is_within(real, os.path.realpath(context.session_dir))


def write_blocked(real: str, context: ToolUseContext) -> bool:
    """Does blockWritesOutsideWorkingDirectories refuse writing ``real`` (a real path)?  The
    working directories and the session's own folder stay writable."""
    return context.permission_context.block_outside_writes and not _readable_when_blocked(real, context)


def write_outside(real: str, context: ToolUseContext, scope: PathScope) -> bool:
    """Is ``real`` (a real path) outside the working directories and the session's own folder,
    with no ``Edit`` allow rule covering it?  A shell program's write there asks even when a
    rule allows the program, as a redirection there does (``bash_arguments.program_write_check``)."""
    if scope.inside(real) or is_within(real, os.path.realpath(context.session_dir)):
        return False
    return scope.rule("allow", EDIT_RULES, real, real) is None


def check_write_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    """The file tools' write check: deny rules, then (when the settings say so) the block on
    writing outside the working directories — in every mode — then ``write_verdict``'s asks."""
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    remember_write_target(resolved.lexical, context)
    verdict = write_verdict(tool, path, resolved, context)
    if not isinstance(verdict, PermissionDeny) and write_blocked(resolved.real, context):
        return PermissionDeny(BLOCKED_WRITE.format(path=path))
    return verdict


ACCEPT_EDITS_MODES = ("acceptEdits", "auto")  # auto: what acceptEdits allows needs no review
CHECKED_WRITES = "checked_write_targets"  # context.extra: {lexical path: real path when checked}
_MAX_CHECKED = 256


def remember_write_target(lexical: str, context: ToolUseContext) -> None:
    """Where a write to ``lexical`` leads as its permission is checked; the tool compares it right
    before writing (``checked_write_target``): a link re-pointed in between must not carry an
    allowed write to a protected or outside file."""
    checked = context.extra.setdefault(CHECKED_WRITES, {})
    checked.pop(lexical, None)
    checked[lexical] = os.path.realpath(lexical)
    while len(checked) > _MAX_CHECKED:
        del checked[next(iter(checked))]


def checked_write_target(lexical: str, context: ToolUseContext) -> str | None:
    """The real path ``lexical`` led to when its permission was checked (None: not recorded)."""
    return context.extra.get(CHECKED_WRITES, {}).get(lexical)


def write_verdict(
    tool: Any, path: str, resolved: ResolvedPath, context: ToolUseContext, scope: PathScope | None = None
) -> PermissionResult:
    """``check_write_permission`` for a path already resolved (``scope``: the context's, if known)."""
    scope = scope or path_scope(context)
    lexical, real = resolved.lexical, resolved.real
    denied = scope.rule("deny", EDIT_RULES, lexical, real) or scope.rule("deny", READ_RULES, lexical, real)
    if denied is not None:
        return PermissionDeny(f"Permission to write {path} has been denied by the rule {denied}.")
    asked = scope.rule("ask", EDIT_RULES, lexical, real)
    if asked is not None:
        return sticky_ask(f"{_name(tool)} wants to write {path} (rule {asked}).", RULE, asked)
    protected = protected_reason_of(lexical, real) or program_on_path(real, lexical=lexical)
    if protected is not None:
        return sticky_ask(f"{_name(tool)} wants to write {path}: {protected}.", SAFETY, protected)
    allowed = scope.rule("allow", EDIT_RULES, real, real)
    if allowed is not None:
        return PermissionAllow(reason=f"rule {allowed}")
    inside = scope.inside(real)
    if inside and scope.rules.context.mode in ACCEPT_EDITS_MODES:
        return PermissionAllow(reason=f"{scope.rules.context.mode} mode")
    rule = edit_rule_for(real, scope)
    return new_ask(_write_message(tool, path, resolved, inside), (new_update((rule,), "session"),))


def _write_message(tool: Any, path: str, resolved: ResolvedPath, inside: bool) -> str:
    if inside:
        return f"{_name(tool)} wants to write {path}."
    where = f" (really {resolved.real})" if resolved.real != resolved.lexical else ""
    return f"{_name(tool)} wants to write {path}{where}, outside the working directories."


def too_broad(folder: str) -> bool:
    """A folder never offered as a whole by *Always allow*: the root, the home folder, or one of
    the kernel's device and process folders (``rm -f /dev/null`` would offer every device)."""
    return folder in ("/", os.path.realpath(os.path.expanduser("~"))) or any(
        is_within(folder, system) for system in ("/dev", "/proc", "/sys"))


def edit_rule_for(real: str, scope: PathScope) -> str:
    """The ``Edit(…)`` rule offered for writing ``real``: its working directory, else its folder."""
    for root in scope.root_texts:  # the working directories, as str(Path(root)) spells them
        if is_within(real, root):
            return f"Edit(/{root}/**)"
    return f"Edit(/{os.path.dirname(real)}/**)"


def _name(tool: Any) -> str:
    return getattr(tool, "name", None) or str(tool)
