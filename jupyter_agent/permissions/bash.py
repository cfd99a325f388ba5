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

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from .bash_analysis import Analysis, CommandInfo, analyze, suggested_prefix
from .bash_recursive import _ALWAYS_RECURSIVE, _RECURSIVE_FLAGS, walked_folders
from .bash_words import Word
from .compiled import CompiledRules, PathScope, compiled_rules
from .filesystem import read_deny_below, write_verdict
from .paths import BadPath, ResolvedPath, local_path, protected_reason_of, relative_below, resolve_below
from .verdicts import RULE, new_ask, new_update, sticky_ask

TOOL_NAME = "Bash"
RECURSIVE_PROGRAMS = frozenset(_RECURSIVE_FLAGS) | _ALWAYS_RECURSIVE  # the only ones walked_folders walks
_MAX_GLOB_MATCHES = 200


class _Verdict:
    """What the parts of a line want; the strongest one wins (deny > sticky ask > ask)."""

    __slots__ = ("deny", "sticky", "soft", "prefixes", "checked", "memo")

    def __init__(self) -> None:
        self.deny: str | None = None
        self.sticky: list[str] = []
        self.soft: list[str] = []
        self.prefixes: list[str] = []
        self.checked: set[tuple[str, str, bool]] | None = None  # (path, cwd, write) done
        self.memo: dict[tuple[object, ...], object] | None = None  # filesystem answers, this decision only

    def first_time(self, path: str, cwd: str, write: bool) -> bool:
        key = (path, cwd, write)
        if self.checked is None:
            self.checked = {key}
            return True
        if key in self.checked:
            return False
        self.checked.add(key)
        return True


_ALLOWED = PermissionAllow(reason="every part is allowed or read-only")


def check_bash_permission(command: str, context: ToolUseContext | None) -> PermissionResult:
    """Allow / deny / ask for a whole command line (see the module docstring)."""
    analysis = analyze(command)
    verdict = _Verdict()
    if context is None:
        rules, scope = None, None
        cwds = _cwds(analysis, os.path.realpath(os.getcwd()))
    else:
        rules = compiled_rules(context.permission_context)
        scope = rules.scope_of(context.cwd)
        cwds = _cwds(analysis, scope.real_cwd)
        if rules.deny_any is not None or rules.ask_any is not None:
            _rule_checks(analysis.commands, rules, verdict)
            if verdict.deny:
                return PermissionDeny(verdict.deny)
        _path_checks(analysis, cwds, scope, context, verdict)
        if verdict.deny:
            return PermissionDeny(verdict.deny)
    if analysis.problems:
        verdict.soft.extend(f"it could not be fully analyzed: {p}" for p in analysis.problems)
    for info in analysis.commands:
        if not info.read_only.read_only or info.ask_reason or info.cd_kind:
            _command_checks(info, rules, cwds, scope, verdict)
    return _result(command, verdict, analysis)


def is_read_only_command(command: str, context: ToolUseContext | None = None) -> bool:
    """True only when every part of ``command`` is proven read-only (fail closed)."""
    analysis = analyze(command)
    if analysis.problems or any(r.write for r in analysis.redirects):
        return False
    changes_dir = False
    for info in analysis.commands:
        if info.ask_reason:
            return False
        if info.cd_kind:
            changes_dir = True
        elif not info.read_only.read_only:
            return False
    if not changes_dir:
        return True
    if context is None:
        return False  # a cd is inside the working directories only when there are some
    scope = compiled_rules(context.permission_context).scope_of(context.cwd)
    cwds = _cwds(analysis, scope.real_cwd)
    return all(_cd_inside(info, cwds, scope) for info in analysis.commands if info.cd_kind)


def _rule_checks(commands: list[CommandInfo], rules: CompiledRules, v: _Verdict) -> None:
    """Deny and ask rules on every form; one combined regex first skips forms no rule matches."""
    deny_any, ask_any = rules.deny_any, rules.ask_any
    for info in commands:
        for text, known, complete in info.form_texts:
            if deny_any is not None and (not complete or deny_any.fullmatch(text)):
                for rule, pattern in rules.bash_deny:
                    if pattern.matches(text):
                        v.deny = f"Permission to run {text!r} has been denied by the rule {rule}."
                        return
                    if not complete and pattern.may_match(known):
                        v.sticky.append(f"{text!r} may match the deny rule {rule}")
            if ask_any is not None and (not complete or ask_any.fullmatch(text)):
                for rule, pattern in rules.bash_ask:
                    if pattern.matches(text) or (not complete and pattern.may_match(known)):
                        v.sticky.append(f"{text!r} matches the ask rule {rule}")


def _command_checks(
    info: CommandInfo, rules: CompiledRules | None, cwds: list[str], scope: PathScope | None, v: _Verdict
) -> None:
    read_only = info.read_only.read_only
    if read_only and not info.ask_reason and not info.cd_kind:
        return  # the common case: nothing to add (its paths were checked in _path_checks)
    if not read_only and not info.cd_kind:
        _protected_arguments(info, cwds, v)
    text = info.text
    if info.ask_reason:
        v.soft.append(f"{text or 'the command'}: {info.ask_reason}")
        return
    if info.cd_kind:
        if not _cd_inside(info, cwds, scope):
            v.soft.append(f"{text} changes to a directory outside the working directories")
        return
    if info.innermost and rules is not None and _allowed(rules, text):
        return
    v.soft.append(f"{text} needs approval")
    prefix = suggested_prefix(info.innermost)
    if prefix is not None and prefix not in v.prefixes:
        v.prefixes.append(prefix)


def _allowed(rules: CompiledRules, text: str) -> bool:
    allow_any = rules.allow_any
    if allow_any is None or not allow_any.fullmatch(text):
        return False
    return any(p.matches(text) for _r, p in rules.bash_allow)


def _protected_arguments(info: CommandInfo, cwds: list[str], v: _Verdict) -> None:
    """A writing command naming a protected path (``rm -rf .git``, ``cp x ~/.bashrc``) always asks.

    Any argument may be a destination, so every fixed argument is resolved (symlinks too).
    """
    for word in info.innermost[1:]:
        value = word.text if word.static and not word.glob else _tilde_path(word)  # one fixed path
        if not value or value[0] == "-":
            continue
        for cwd in cwds:
            reason = _protected(value, cwd, v)
            if reason is not None:
                v.sticky.append(f"{info.text} touches {reason}")
                return


def _protected(value: str, cwd: str, v: _Verdict) -> str | None:
    """``protected_reason_of`` the path ``value`` from ``cwd``, once per decision (long lines repeat)."""
    memo = v.memo if v.memo is not None else _new_memo(v)
    key = ("protected", value, cwd)
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    try:
        reason = protected_reason_of(*resolve_below(value, cwd))
    except BadPath:
        reason = None
    memo[key] = reason
    return reason


def _new_memo(v: _Verdict) -> dict[tuple[object, ...], object]:
    v.memo = {}
    return v.memo


def _tilde_path(word: Word) -> str | None:
    """A static word with ``~`` expansion only (no glob or brace characters)."""
    tilde_only = word.static and word.text.startswith("~") and not any(c in word.text for c in "*?[{")
    return word.text if tilde_only else None


class _Cwds(list[str]):
    """The folders a relative path may be resolved against; the first is the real cwd.

    Remembers where each ``cd`` leads from there (for this decision only).
    """

    __slots__ = ("from_base",)

    def cd_path(self, info: CommandInfo, cwd: str) -> str | None:
        if cwd == self[0] and id(info) in self.from_base:
            return self.from_base[id(info)]
        return _cd_path(info, cwd)


def _cwds(analysis: Analysis, base: str) -> list[str]:
    """Every directory a relative path in this line may be resolved against (``base``: the real cwd)."""
    for info in analysis.commands:
        if info.cd_kind is not None:
            break
    else:
        return [base]
    cwds = _Cwds((base,))
    cwds.from_base = {}
    for info in analysis.commands:
        if info.cd_kind != "cd" and info.cd_kind != "pushd":
            continue
        target = cwds.from_base[id(info)] = _cd_path(info, base)
        if target is not None and target not in cwds:
            cwds.append(target)
    return cwds


def _cd_path(info: CommandInfo, cwd: str) -> str | None:
    """The real folder ``cd``/``pushd`` changes to from the real folder ``cwd``."""
    if info.cd_kind not in ("cd", "pushd"):
        return None
    if info.cd_target is None:
        return os.path.realpath(os.path.expanduser("~"))
    if info.cd_target.literal is None:
        return None
    try:
        return resolve_below(info.cd_target.literal, cwd)[1]
    except BadPath:
        return None


def _cd_inside(info: CommandInfo, cwds: list[str], scope: PathScope | None) -> bool:
    if scope is None or info.cd_kind == "popd":
        return False
    target = info.cd_target
    if target is not None and target.literal is None:
        return False
    for cwd in cwds:
        path = cwds.cd_path(info, cwd) if isinstance(cwds, _Cwds) else _cd_path(info, cwd)
        if path is None or not scope.inside(path):
            return False
    return True


def _path_checks(
    analysis: Analysis, cwds: list[str], scope: PathScope, context: ToolUseContext, v: _Verdict
) -> None:
    for redirect in analysis.redirects:
        if redirect.write:
            _write_check(redirect.target, cwds, scope, context, v)
        else:
            _read_check(redirect.target, cwds, scope, v)
    recursive = bool(scope.read_deny)  # without Read deny rules a recursive search finds nothing
    for info in analysis.commands:
        inner = info.innermost
        program = inner[0].literal if inner else None
        if len(inner) > 1 and program in ("source", "."):
            _read_check(inner[1], cwds, scope, v)  # `source .env` reads it
        read_only = info.read_only
        if not read_only.read_only:
            continue
        for word in read_only.paths:
            _read_check(word, cwds, scope, v)
        if v.deny:
            return
        if recursive and program in RECURSIVE_PROGRAMS:  # walked_folders() walks no other program
            _recursive_check(info, cwds, scope, v)


def _recursive_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: _Verdict) -> None:
    """``grep -r KEY .`` reads every file below ``.``: a Read deny rule there makes it ask."""
    memo = v.memo if v.memo is not None else _new_memo(v)
    for cwd in cwds:
        key = ("walked", info.innermost, cwd)
        folders = memo.get(key)
        if folders is None:
            folders = memo[key] = walked_folders(info.innermost, cwd)
        for folder in folders:  # type: ignore[attr-defined]
            rule = read_deny_below(folder, scope)
            if rule is not None:
                v.sticky.append(f"it searches {folder}, where the rule {rule} denies reading")
                return


def _write_check(target: Word, cwds: list[str], scope: PathScope, context: ToolUseContext, v: _Verdict) -> None:
    literal = target.literal
    if literal is None:
        v.sticky.append(f"it writes to {target.text}, a file name only known at run time")
        return
    for cwd in cwds:
        if not v.first_time(literal, cwd, True):
            continue
        result = _write_result(literal, cwd, scope, context)
        if isinstance(result, PermissionDeny):
            v.deny = result.message
            return
        if isinstance(result, PermissionAsk):
            (v.sticky if result.reason else v.soft).append(f"it writes to {literal}: {result.message}")


def _write_result(literal: str, cwd: str, scope: PathScope, context: ToolUseContext) -> PermissionResult:
    """``check_write_permission`` of ``cwd/literal`` (a redirect target is never ``~``-expanded)."""
    joined = literal if literal[:1] == "/" else ("" if cwd == "/" else cwd) + "/" + literal
    try:
        local_path(joined)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    if literal[:1] == "/":
        resolved = ResolvedPath(os.path.normpath(literal), os.path.realpath(literal))
    else:
        resolved = ResolvedPath(*relative_below(literal, cwd))
    return write_verdict(TOOL_NAME, joined, resolved, context, scope)


def _read_check(word: Word, cwds: list[str], scope: PathScope, v: _Verdict) -> None:
    if not word.static:  # `cat $f`, `xargs cat`: the file is only known at run time
        v.soft.append(f"it reads {word.text}, a file only known at run time")
        return
    text = word.text
    for cwd in cwds:
        if not v.first_time(text, cwd, False):
            continue
        for path in (text,) if not word.glob else _expand(word, cwd, v):
            try:
                lexical, real = resolve_below(path, cwd)
            except BadPath as exc:
                v.deny = str(exc)
                return
            rule = scope.read_denied(lexical, real)
            if rule is not None:
                v.deny = f"Permission to read {path} has been denied by the rule {rule}."
                return
            if not scope.inside(real):
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
        return _ALLOWED
    suggestions: tuple[PermissionUpdate, ...] = ()
    if v.prefixes and all(s.endswith("needs approval") for s in v.soft):
        rules = tuple([f"Bash({p}:*)" for p in v.prefixes])
        suggestions = (new_update(rules, "localSettings"),)
    return new_ask(f"Run {command!r}? " + "; ".join(v.soft[:3]), suggestions)


__all__ = ["check_bash_permission", "is_read_only_command"]
