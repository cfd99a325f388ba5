"""Bash permissions: the files a command line touches (redirects, read arguments, protected paths).

Redirections are writes (Edit rules, protected paths, working directories); ``< file``,
``source file`` and the file arguments of read-only commands are reads (Read deny rules, working
directories); a recursive search asks when a Read deny rule may match below a folder it walks;
any fixed argument of a writing command that lands on a protected path asks.  Every relative
path is checked from every folder the line may ``cd`` to.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionDeny, PermissionResult
from .bash_analysis import Analysis, CommandInfo
from .bash_copies import COPYING_PROGRAMS, copied_sources
from .bash_git import git_read_checks
from .bash_patterns import embedded_paths, expanded
from .bash_readonly import option_values
from .bash_recursive import RECURSIVE_PROGRAMS, walked_folders
from .bash_words import Word, make_word
from .bash_writes import WRITING_PROGRAMS, written_targets
from .compiled import PathScope
from .filesystem import EDIT_RULES, edit_deny_below, read_deny_below, write_verdict
from .git_contents import shows_contents
from .hard_links import link_rule
from .paths import (
    BadPath,
    ResolvedPath,
    local_path,
    protected_inside,
    protected_reason_of,
    relative_below,
    resolve_below,
)

TOOL_NAME = "Bash"


class Verdict:
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


def protected_arguments(info: CommandInfo, cwds: list[str], v: Verdict, scope: PathScope | None = None) -> None:
    """A writing command naming a protected path (``rm -rf .git``, ``cp x ~/.bashrc``) always asks;
    so does one naming a file a ``Read`` deny rule covers (``cp .env /tmp``, ``/bin/cat .env``),
    even in bypassPermissions mode and under an allow rule.

    Any argument may be a destination or a source, so every fixed argument is resolved
    (symlinks too), and so is a path inside an option word (``--output=.git/config``,
    ``-t.git/hooks``: for an option cluster every tail, since any letter may take a value) or
    after ``=`` or ``@`` in another word (``dd if=.env``, ``curl -d @.env``, ``-F f=@.env``).
    A pattern (``rm -rf .gi*``, ``cp {.env,a} /tmp``) names what it expands to now; one whose
    files cannot be listed asks when it could name a protected or denied file.
    """
    read_deny = scope is not None and bool(scope.read_deny)
    for word in info.innermost[1:]:
        if word.static and word.glob and not word.text.startswith("-"):
            for cwd in cwds:
                paths = expanded(word, cwd)
                if paths is None:
                    if read_deny or "." in word.text:  # every protected name has a dot
                        v.sticky.append(f"{info.text} names {word.text}, a pattern whose files cannot be "
                                        f"listed before it runs")
                        return
                    continue
                if _named(info, paths, cwd, scope if read_deny else None, v):
                    return
            continue
        value = word.text if word.static and not word.glob else _tilde_path(word)  # one fixed path
        if not value:
            continue
        if value[0] == "-":
            paths = option_values(value, None)
        elif "=" in value or "@" in value:
            paths = embedded_paths(value)
        else:
            paths = (value,)
        for cwd in cwds:
            if _named(info, paths, cwd, scope if read_deny else None, v):
                return


def _named(info: CommandInfo, paths: Iterable[str], cwd: str, scope: PathScope | None, v: Verdict) -> bool:
    """Record why ``info`` must ask if one of ``paths`` (from ``cwd``) is protected or denied."""
    for path in paths:
        resolved = _resolved(path, cwd, v)
        if resolved is None:
            continue
        reason = protected_reason_of(*resolved)
        if reason is not None:
            v.sticky.append(f"{info.text} touches {reason}")
            return True
        rule = scope.read_denied(*resolved) if scope is not None else None
        if rule is not None:
            v.sticky.append(f"{info.text} names {path}, which the rule {rule} denies reading")
            return True
    return False


def _resolved(value: str, cwd: str, v: Verdict) -> tuple[str, str] | None:
    """``resolve_below(value, cwd)``, once per decision (long lines repeat their arguments)."""
    memo = v.memo if v.memo is not None else _new_memo(v)
    key = ("resolved", value, cwd)
    if key not in memo:
        try:
            memo[key] = resolve_below(value, cwd)
        except BadPath:
            memo[key] = None
    return memo[key]  # type: ignore[return-value]


def _new_memo(v: Verdict) -> dict[tuple[object, ...], object]:
    v.memo = {}
    return v.memo


def _tilde_path(word: Word) -> str | None:
    """A static word with ``~`` expansion only (no glob or brace characters)."""
    tilde_only = word.static and word.text.startswith("~") and not any(c in word.text for c in "*?[{")
    return word.text if tilde_only else None


def path_checks(
    analysis: Analysis, cwds: list[str], scope: PathScope, context: ToolUseContext, v: Verdict
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
            if recursive and program == "git" and shows_contents(inner):
                # allowed by a rule, not read-only (`git -c x=y log -p`, `git archive HEAD`):
                # what it prints or exports is checked all the same
                _git_check(inner, cwds, scope, v)
                if v.deny:
                    return
            elif recursive and program in COPYING_PROGRAMS:  # tar cf - ., cp -r . /tmp/x
                _copy_check(info, cwds, scope, v)
            if program in WRITING_PROGRAMS:  # rm locked/f, cp a.txt locked/, rm -rf .
                _program_write_check(info, cwds, scope, v)
                if v.deny:
                    return
            continue
        for word in read_only.paths:
            _read_check(word, cwds, scope, v)
        if v.deny:
            return
        if recursive and program in RECURSIVE_PROGRAMS:  # walked_folders() walks no other program
            _recursive_check(info, cwds, scope, v)
        elif recursive and program == "git":  # git show HEAD:.env, git grep
            _git_check(inner, cwds, scope, v)
            if v.deny:
                return


def _git_check(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    texts = [w.text for w in words]
    contents = shows_contents(words)
    if "grep" not in texts and not any(":" in t for t in texts) and not contents:
        return  # no REV:path, no grep, no patch or blob printed: nothing to check (most git lines)
    for cwd in cwds:
        deny, ask = git_read_checks(words, cwd, scope, contents)
        if deny is not None:
            v.deny = deny
            return
        if ask is not None:
            v.sticky.append(ask)


def _recursive_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``grep -r KEY .`` reads every file below ``.``: a Read deny rule there makes it ask."""
    memo = v.memo if v.memo is not None else _new_memo(v)
    for cwd in cwds:
        key = ("walked", info.innermost, cwd)
        folders = memo.get(key)
        if folders is None:
            folders = memo[key] = walked_folders(info.innermost, cwd, cwd_is_real=True)
        for folder in folders:  # type: ignore[attr-defined]
            rule = read_deny_below(folder, scope)
            if rule is not None:
                v.sticky.append(f"it searches {folder}, where the rule {rule} denies reading")
                return


def _copy_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """``tar cf - .`` reads every file below ``.``: a Read deny rule there makes it ask, in
    every mode and under a rule that allows the program (``bash_copies.py``)."""
    for source in copied_sources(info.innermost):
        for cwd in cwds:
            resolved = _resolved(source, cwd, v)
            if resolved is None or not os.path.isdir(resolved[1]):
                continue
            rule = read_deny_below(resolved[1], scope)
            if rule is not None:
                v.sticky.append(f"{info.text} reads every file below {source}, where the rule {rule} "
                                f"denies reading")
                return


def _program_write_check(info: CommandInfo, cwds: list[str], scope: PathScope, v: Verdict) -> None:
    """What a writing program writes (``bash_writes.py``): an operand an Edit deny rule covers is
    denied, one an Edit ask rule covers asks; a folder it writes or removes everything below asks
    when a deny rule may match there, or when a protected folder or file is inside it
    (``rm -rf .`` takes ``.git`` along)."""
    edit_deny = bool(scope.rules.paths("deny", EDIT_RULES, scope.project))
    edit_ask = bool(scope.rules.paths("ask", EDIT_RULES, scope.project))
    for cwd in cwds:
        argv = _argv_now(info.innermost, cwd)  # `dd of={a,secret.txt}` is `dd of=a of=secret.txt`
        if argv is None:
            v.sticky.append(f"{info.text} has a pattern whose files cannot be listed before it runs")
            return
        for word, recursive in written_targets(argv, cwd):
            if not word.static or not (edit_deny or edit_ask or recursive or scope.read_deny):
                continue  # known only at run time: a rule allowed the program with any argument
            path = word.text
            resolved = _resolved(path, cwd, v)
            if resolved is None:
                continue
            rule = scope.rule("deny", EDIT_RULES, *resolved) if edit_deny else None
            rule = rule or _write_link_rule(resolved[1], scope)
            if rule is not None:
                v.deny = f"Permission to write {path} ({info.text}) has been denied by the rule {rule}."
                return
            asked = scope.rule("ask", EDIT_RULES, *resolved) if edit_ask else None
            if asked is not None:
                v.sticky.append(f"{info.text} writes {path} (rule {asked})")
                return
            if not recursive:
                continue
            below = edit_deny_below(resolved[1], scope) if edit_deny else None
            if below is not None:
                v.sticky.append(f"{info.text} writes or removes what is below {path}, where the rule "
                                f"{below} denies editing")
                return
            inside = protected_inside(resolved[1], scope.roots)
            if inside is not None:
                v.sticky.append(f"{info.text} writes or removes what is below {path}, which holds {inside}")
                return


def _argv_now(words: tuple[Word, ...], cwd: str) -> list[Word] | None:
    """``words`` with each static pattern replaced by what it expands to now (``bash_patterns``),
    or None when one cannot be listed exactly."""
    if not any(w.glob for w in words):
        return list(words)
    argv = [words[0]]
    for word in words[1:]:
        if not (word.static and word.glob):
            argv.append(word)
            continue
        paths = expanded(word, cwd)
        if paths is None:
            return None
        argv.extend(make_word(p) for p in paths)
    return argv


def _write_check(target: Word, cwds: list[str], scope: PathScope, context: ToolUseContext, v: Verdict) -> None:
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
    verdict = write_verdict(TOOL_NAME, joined, resolved, context, scope)
    if not isinstance(verdict, PermissionDeny):
        rule = _write_link_rule(resolved.real, scope)
        if rule is not None:
            return PermissionDeny(f"Permission to write {literal} has been denied by the rule {rule} "
                                  f"(it is another name of the file the rule names).")
    return verdict


def _write_link_rule(real: str, scope: PathScope) -> str | None:
    """A shell write lands in the file itself: through a hard link (``ln secret.txt notes``) it
    changes the file an Edit (or Read) deny rule names.  That rule, or None."""
    rules = scope.rules.paths("deny", EDIT_RULES, scope.project) + scope.read_deny
    if not rules:
        return None
    try:
        st = os.stat(real)
    except OSError:
        return None  # a new file: no other name
    return link_rule(st, scope, rules)


def _read_check(word: Word, cwds: list[str], scope: PathScope, v: Verdict) -> None:
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
            if rule is None and scope.read_deny:
                rule = _hard_link_rule(real, scope)
            if rule is not None:
                v.deny = f"Permission to read {path} has been denied by the rule {rule}."
                return
            if not scope.inside(real):
                v.soft.append(f"it reads {path}, outside the working directories")


def _hard_link_rule(real: str, scope: PathScope) -> str | None:
    """The Read deny rule of the file ``real`` is another name of (``ln .env notes.txt``)."""
    try:
        st = os.stat(real)
    except OSError:
        return None  # nothing there: nothing to read
    return link_rule(st, scope)


def _expand(word: Word, cwd: str, v: Verdict) -> list[str]:
    """The paths a word names: braces and globs expanded like bash would, right now."""
    if word.static and not word.glob:
        return [word.text]
    if not word.static:
        return []  # the program accepts any argument; the value is unknown (checked by cwd)
    paths = expanded(word, cwd)
    if paths is None:
        v.soft.append(f"{word.text} is a pattern whose files cannot be listed exactly before it runs")
        return []
    return paths
