"""Bash permissions: a whole command line is allowed only if every part of it is.

Per simple command (after env assignments and wrappers are stripped): a ``Bash(...)`` deny rule
on any form denies the line; an ask rule asks (sticky); ``sudo``/``bash -c``/``eval``/``$cmd``
always ask; otherwise an allow rule or the read-only set lets it run.  Redirections are writes
(Edit rules, protected paths, working directories); ``< file`` and the file arguments of
read-only commands are reads (Read deny rules, working directories).  ``cd``/``pushd`` outside
the working directories ask.  Anything the analyzer does not understand asks.
"""

from __future__ import annotations

import glob as globlib
import os
from dataclasses import dataclass, field

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from .bash_analysis import Analysis, CommandInfo, analyze, suggested_prefix
from .bash_recursive import walked_folders
from .bash_rules import BashPattern
from .bash_words import Word
from .compiled import compiled_rules
from .filesystem import (
    READ_RULES,
    check_write_permission,
    matching_rule,
    read_deny_rule_below,
    real_in_working_directories,
)
from .paths import BadPath, protected_reason, resolve_path
from .verdicts import RULE, sticky_ask

TOOL_NAME = "Bash"
_MAX_GLOB_MATCHES = 200


@dataclass
class _Verdict:
    """What the parts of a line want; the strongest one wins (deny > sticky ask > ask)."""

    deny: str | None = None
    sticky: list[str] = field(default_factory=list)
    soft: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    checked: set[tuple[str, str, bool]] = field(default_factory=set)  # (path, cwd, write) done

    def first_time(self, path: str, cwd: str, write: bool) -> bool:
        key = (path, cwd, write)
        if key in self.checked:
            return False
        self.checked.add(key)
        return True


def check_bash_permission(command: str, context: ToolUseContext | None) -> PermissionResult:
    """Allow / deny / ask for a whole command line (see the module docstring)."""
    analysis = analyze(command)
    verdict = _Verdict()
    patterns = {b: _patterns(context, b) for b in ("deny", "ask", "allow")}
    check_rules = bool(patterns["deny"] or patterns["ask"])
    cwds = _cwds(analysis, context)
    for info in analysis.commands if check_rules else ():
        _rule_checks(info, patterns, verdict)
        if verdict.deny:
            return PermissionDeny(verdict.deny)
    _path_checks(analysis, cwds, context, verdict)
    if verdict.deny:
        return PermissionDeny(verdict.deny)
    verdict.soft.extend(f"it could not be fully analyzed: {p}" for p in analysis.problems)
    for info in analysis.commands:
        _command_checks(info, patterns["allow"], cwds, context, verdict)
    return _result(command, verdict, analysis)


def is_read_only_command(command: str, context: ToolUseContext | None = None) -> bool:
    """True only when every part of ``command`` is proven read-only (fail closed)."""
    analysis = analyze(command)
    if analysis.problems or any(r.write for r in analysis.redirects):
        return False
    cwds = _cwds(analysis, context)
    for info in analysis.commands:
        if info.ask_reason:
            return False
        if info.cd_kind:
            if not _cd_inside(info, cwds, context):
                return False
        elif not info.read_only.read_only:
            return False
    return True


def _patterns(context: ToolUseContext | None, behavior: str) -> list[tuple[str, BashPattern]]:
    if context is None:
        return []
    return list(compiled_rules(context.permission_context).bash(behavior))  # type: ignore[arg-type]


def _rule_checks(info: CommandInfo, patterns: dict[str, list[tuple[str, BashPattern]]], v: _Verdict) -> None:
    for text, known, complete in info.form_texts:
        for rule, pattern in patterns["deny"]:
            if pattern.matches(text):
                v.deny = f"Permission to run {text!r} has been denied by the rule {rule}."
                return
            if not complete and pattern.may_match(known):
                v.sticky.append(f"{text!r} may match the deny rule {rule}")
        for rule, pattern in patterns["ask"]:
            if pattern.matches(text) or (not complete and pattern.may_match(known)):
                v.sticky.append(f"{text!r} matches the ask rule {rule}")


def _command_checks(
    info: CommandInfo,
    allow: list[tuple[str, BashPattern]],
    cwds: list[str],
    context: ToolUseContext | None,
    v: _Verdict,
) -> None:
    text = info.text
    if not info.read_only.read_only and not info.cd_kind:
        _protected_arguments(info, cwds, v)
    if info.ask_reason:
        v.soft.append(f"{text or 'the command'}: {info.ask_reason}")
        return
    if info.cd_kind:
        if not _cd_inside(info, cwds, context):
            v.soft.append(f"{text} changes to a directory outside the working directories")
        return
    if info.read_only.read_only:
        return
    if info.innermost and any(p.matches(text) for _r, p in allow):
        return
    v.soft.append(f"{text} needs approval")
    prefix = suggested_prefix(info.innermost)
    if prefix is not None and prefix not in v.prefixes:
        v.prefixes.append(prefix)


def _protected_arguments(info: CommandInfo, cwds: list[str], v: _Verdict) -> None:
    """A writing command naming a protected path (``rm -rf .git``, ``cp x ~/.bashrc``) always asks.

    Any argument may be a destination, so every fixed argument is resolved (symlinks too).
    """
    for word in info.innermost[1:]:
        value = _fixed_path(word)
        if not value or value.startswith("-"):
            continue
        for cwd in cwds:
            try:
                reason = protected_reason(resolve_path(value, cwd, cwd_is_real=True))
            except BadPath:
                continue
            if reason is not None:
                v.sticky.append(f"{info.text} touches {reason}")
                return


def _fixed_path(word: Word) -> str | None:
    """The word's value when it names one fixed path (``~/x`` included, globs excluded)."""
    if word.literal is not None:
        return word.literal
    tilde_only = word.static and word.text.startswith("~") and not any(c in word.text for c in "*?[{")
    return word.text if tilde_only else None


def _cwds(analysis: Analysis, context: ToolUseContext | None) -> list[str]:
    """Every directory a relative path in this line may be resolved against."""
    if context is None:
        start = os.getcwd()
        cwds = [os.path.realpath(start)]
    else:
        start = os.fspath(context.cwd)
        cwds = [compiled_rules(context.permission_context).real_cwd(start)]
    for info in analysis.commands:
        target = _cd_path(info, start)
        if target is not None and target not in cwds:
            cwds.append(target)
    return cwds


def _cd_path(info: CommandInfo, start: str) -> str | None:
    if info.cd_kind not in ("cd", "pushd"):
        return None
    if info.cd_target is None:
        return os.path.realpath(os.path.expanduser("~"))
    if info.cd_target.literal is None:
        return None
    try:
        return resolve_path(info.cd_target.literal, start).real
    except BadPath:
        return None


def _cd_inside(info: CommandInfo, cwds: list[str], context: ToolUseContext | None) -> bool:
    if context is None or info.cd_kind == "popd":
        return False
    target = info.cd_target
    if target is not None and target.literal is None:
        return False
    for cwd in cwds:
        path = _cd_path(info, cwd)
        if path is None or not real_in_working_directories(path, context):
            return False
    return True


def _path_checks(analysis: Analysis, cwds: list[str], context: ToolUseContext | None, v: _Verdict) -> None:
    if context is None:
        return
    for redirect in analysis.redirects:
        if redirect.write:
            _write_check(redirect.target, cwds, context, v)
        else:
            _read_check(redirect.target, cwds, context, v)
    for info in analysis.commands:
        if info.innermost[:1] and info.innermost[0].literal in ("source", ".") and len(info.innermost) > 1:
            _read_check(info.innermost[1], cwds, context, v)  # `source .env` reads it
        if not info.read_only.read_only:
            continue
        for word in info.read_only.paths:
            _read_check(word, cwds, context, v)
        if v.deny:
            return
        _recursive_check(info, cwds, context, v)


def _recursive_check(info: CommandInfo, cwds: list[str], context: ToolUseContext, v: _Verdict) -> None:
    """``grep -r KEY .`` reads every file below ``.``: a Read deny rule there makes it ask."""
    for cwd in cwds:
        for folder in walked_folders(info.innermost, cwd):
            rule = read_deny_rule_below(folder, context)
            if rule is not None:
                v.sticky.append(f"it searches {folder}, where the rule {rule} denies reading")
                return


def _write_check(target: Word, cwds: list[str], context: ToolUseContext, v: _Verdict) -> None:
    if target.literal is None:
        v.sticky.append(f"it writes to {target.text}, a file name only known at run time")
        return
    for cwd in cwds:
        if not v.first_time(target.literal, cwd, True):
            continue
        result = check_write_permission(TOOL_NAME, os.path.join(cwd, target.literal), context)
        if isinstance(result, PermissionDeny):
            v.deny = result.message
            return
        if isinstance(result, PermissionAsk):
            (v.sticky if result.reason else v.soft).append(
                f"it writes to {target.literal}: {result.message}"
            )


def _read_check(word: Word, cwds: list[str], context: ToolUseContext, v: _Verdict) -> None:
    if not word.static:  # `cat $f`, `xargs cat`: the file is only known at run time
        v.soft.append(f"it reads {word.text}, a file only known at run time")
        return
    for cwd in cwds:
        if not v.first_time(word.text, cwd, False):
            continue
        for path in _expand(word, cwd, v):
            try:
                resolved = resolve_path(path, cwd, cwd_is_real=True)
            except BadPath as exc:
                v.deny = str(exc)
                return
            rule = matching_rule(context, "deny", READ_RULES, resolved)
            if rule is not None:
                v.deny = f"Permission to read {path} has been denied by the rule {rule}."
                return
            if not real_in_working_directories(resolved.real, context):
                v.soft.append(f"it reads {path}, outside the working directories")


def _expand(word: Word, cwd: str, v: _Verdict) -> list[str]:
    """The paths a word names: globs expanded like bash would, right now."""
    if word.static and not word.glob:
        return [word.text]
    if not word.static:
        return []  # the program accepts any argument; the value is unknown (checked by cwd)
    pattern = os.path.expanduser(word.text)
    matches = globlib.glob(pattern, root_dir=cwd) if not os.path.isabs(pattern) else globlib.glob(pattern)
    if len(matches) > _MAX_GLOB_MATCHES:
        v.soft.append(f"{word.text} matches too many files to check")
        return []
    return matches or [word.text]


def _result(command: str, v: _Verdict, analysis: Analysis) -> PermissionResult:
    if v.sticky:
        return sticky_ask(f"Run {command!r}? " + "; ".join(v.sticky[:3]), RULE, v.sticky[0])
    if not v.soft:
        return PermissionAllow(reason="every part is allowed or read-only")
    suggestions: tuple[PermissionUpdate, ...] = ()
    only_prefixes = all(s.endswith("needs approval") for s in v.soft)
    if v.prefixes and only_prefixes:
        rules = tuple(f"Bash({p}:*)" for p in v.prefixes)
        suggestions = (PermissionUpdate(rules=rules, destination="localSettings"),)
    return PermissionAsk(f"Run {command!r}? " + "; ".join(v.soft[:3]), suggestions=suggestions)


__all__ = ["check_bash_permission", "is_read_only_command"]
