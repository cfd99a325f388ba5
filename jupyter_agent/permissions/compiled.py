"""Rules of one ``ToolPermissionContext``, parsed and compiled once.

The permission context is immutable (changes replace it through ``set_app_state``), so its
compiled form is cached by identity; the cached entry keeps the context alive, which makes the
identity check sound.  This keeps rule parsing and pattern compilation off the hot path.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.permission_types import RuleBehavior, RuleSource, ToolPermissionContext
from .bash_rule_skips import Skips, skip_rules
from .bash_rules import BashPattern, compile_bash_pattern
from .bash_synonyms import canonical_rule
from .path_patterns import PathPattern, compile_pattern, fold_case, rule_root
from .rules import PermissionRule, parse_rule_or_none, rule_applies_to_whole_tool

_MAX_ENTRIES = 16
PathRules = tuple[tuple[str, tuple[PathPattern, ...]], ...]  # (rule text, its patterns) in order
READ_RULES = ("Read",)
EDIT_RULES = ("Edit", "Write", "NotebookEdit")


@dataclass(frozen=True)
class ToolRules:
    """For one tool: the first whole-tool rule per behavior, and where content rules must be scanned.

    ``scan`` holds the behaviors with no whole-tool rule but some ``Tool(specifier)`` rule for
    the tool (never for tools that match their specifiers themselves).
    """

    deny: str | None
    ask: str | None
    allow: str | None
    scan: frozenset[str]
    aliases: tuple[str, ...] = ()


@dataclass
class CompiledRules:
    context: ToolPermissionContext
    parsed: dict[str, tuple[tuple[RuleSource, str, PermissionRule], ...]]
    _bash: dict[str, tuple[tuple[str, BashPattern], ...]] = field(default_factory=dict)
    _paths: dict[tuple[str, tuple[str, ...], str], tuple[tuple[str, tuple[PathPattern, ...]], ...]] = field(
        default_factory=dict
    )
    _roots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _real_cwd: dict[str, str] = field(default_factory=dict)
    _whole: dict[tuple[str, tuple[str, ...]], str | None] = field(default_factory=dict)
    _has_content: dict[tuple[str, tuple[str, ...]], bool] = field(default_factory=dict)
    _bash_any: dict[str, re.Pattern[str] | None] = field(default_factory=dict)
    _scopes: dict[str, PathScope] = field(default_factory=dict)
    _tools: dict[str, ToolRules] = field(default_factory=dict)
    _last_cwd: tuple[object, PathScope] | None = None
    # Bash rules, ready for the hot path: patterns per behavior and one combined first test each.
    bash_deny: tuple[tuple[str, BashPattern], ...] = ()
    bash_ask: tuple[tuple[str, BashPattern], ...] = ()
    bash_allow: tuple[tuple[str, BashPattern], ...] = ()
    deny_any: re.Pattern[str] | None = None
    ask_any: re.Pattern[str] | None = None
    allow_any: re.Pattern[str] | None = None
    deny_skips: Skips = field(default_factory=dict)  # deny/ask rules also matched past options
    ask_skips: Skips = field(default_factory=dict)
    skip_programs: frozenset[str] = frozenset()
    # the program words deny and ask rules begin with (``rm`` of ``Bash(rm:*)``), and beginnings
    # of such words (``rm`` of ``Bash(rm*)``): bash._argument_commands looks for them
    rule_programs: frozenset[str] = frozenset()
    rule_program_starts: tuple[str, ...] = ()
    # a code file's version (path, inode, time, size) -> what of its strings the deny or ask rules
    # name (bash._code_file_checks: a project's modules are read by many decisions), or None
    file_hits: dict[tuple[str, int, int, int], str | None] = field(default_factory=dict)
    # a program's version in a folder a script puts on PATH -> what the rules find in it
    # (bash._gained_program_findings: a venv's bin is looked through by each activation)
    program_hits: dict[tuple[str, int, int, int, str], tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.bash_deny, self.bash_ask, self.bash_allow = self.bash("deny"), self.bash("ask"), self.bash("allow")
        self.deny_skips, self.ask_skips = skip_rules(self.bash_deny), skip_rules(self.bash_ask)
        self.skip_programs = frozenset(self.deny_skips) | frozenset(self.ask_skips)
        whole, starts = set(), set()
        for _text, pattern in (*self.bash_deny, *self.bash_ask):
            first, space, _rest = pattern.head.partition(" ")
            if space or (pattern.regex is None and first):
                whole.add(first)  # rm of `rm:*`, `rm -rf *`, `rm`
            elif first:
                starts.add(first)  # rm of `rm*`: a word beginning so
        self.rule_programs, self.rule_program_starts = frozenset(whole), tuple(sorted(starts))
        self.deny_any, self.ask_any, self.allow_any = (
            self.bash_any("deny"), self.bash_any("ask"), self.bash_any("allow")
        )

    def whole_tool(self, behavior: RuleBehavior, names: tuple[str, ...]) -> str | None:
        """The first bare rule of ``behavior`` covering one of ``names`` (memoised per names)."""
        key = (behavior, names)
        try:
            return self._whole[key]
        except KeyError:
            pass
        found = None
        for _source, text, rule in self.parsed[behavior]:
            if rule.content is None and any(rule_applies_to_whole_tool(rule, n) for n in names):
                found = text
                break
        self._whole[key] = found
        return found

    def for_tool(self, name: str, aliases: tuple[str, ...] = (), self_matching: bool = False) -> ToolRules:
        """The whole-tool rules of one tool and where to scan content rules, looked up once.

        ``self_matching`` must be a function of ``name`` (entries are kept per name).
        """
        found = self._tools.get(name)
        if found is None or found.aliases != aliases:
            names = (name, *aliases)
            deny, ask, allow = (self.whole_tool(b, names) for b in ("deny", "ask", "allow"))
            scan = frozenset(
                b for b, whole in (("deny", deny), ("ask", ask), ("allow", allow))
                if whole is None and not self_matching and self.has_content_rules(b, names)  # type: ignore[arg-type]
            )
            found = ToolRules(deny, ask, allow, scan, aliases)
            self._tools[name] = found
        return found

    def has_content_rules(self, behavior: RuleBehavior, names: tuple[str, ...]) -> bool:
        """Is there any ``Tool(specifier)`` rule of ``behavior`` for one of ``names``?"""
        key = (behavior, names)
        found = self._has_content.get(key)
        if found is None:
            found = any(r.content is not None and r.tool_name in names for _s, _t, r in self.parsed[behavior])
            self._has_content[key] = found
        return found

    def bash_any(self, behavior: RuleBehavior) -> re.Pattern[str] | None:
        """One regex whose ``fullmatch`` is true exactly when some Bash pattern ``matches``."""
        if behavior not in self._bash_any:
            self._bash_any[behavior] = combined_regex(p for _t, p in self.bash(behavior))
        return self._bash_any[behavior]

    def scope(self, cwd: str) -> PathScope:
        """What path checks from ``cwd`` need, computed once per (context, cwd)."""
        found = self._scopes.get(cwd)
        if found is None:
            if len(self._scopes) >= _MAX_ENTRIES:
                self._scopes.clear()
            project = os.fspath(self.context.project_dir or cwd)
            found = PathScope(self, self.real_cwd(cwd), project, self.working_roots(cwd),
                              self.paths("deny", READ_RULES, project))
            self._scopes[cwd] = found
        return found

    def scope_of(self, cwd: str | os.PathLike[str]) -> PathScope:
        """``scope(os.fspath(cwd))``, remembered per ``cwd`` object (a context's cwd rarely changes)."""
        last = self._last_cwd
        if last is not None and last[0] is cwd:
            return last[1]
        found = self.scope(os.fspath(cwd))
        self._last_cwd = (cwd, found)  # keeps cwd alive, so the identity test is sound
        return found

    def bash(self, behavior: RuleBehavior) -> tuple[tuple[str, BashPattern], ...]:
        found = self._bash.get(behavior)
        if found is None:
            found = tuple(
                (text, compile_bash_pattern(rule.content))
                for _s, text, rule in self.parsed[behavior]
                if rule.tool_name == "Bash" and rule.content is not None
            )
            if behavior != "allow":  # deny and ask rules also in their canonical spelling
                found = _with_synonyms(found)
            self._bash[behavior] = found
        return found

    def paths(
        self, behavior: RuleBehavior, names: tuple[str, ...], project: str
    ) -> tuple[tuple[str, tuple[PathPattern, ...]], ...]:
        key = (behavior, names, project)
        found = self._paths.get(key)
        if found is None:
            found = tuple(
                (text, compile_pattern(rule.content, rule_root(source, project), project, fold=behavior != "allow"))
                for source, text, rule in self.parsed[behavior]
                if rule.tool_name in names and rule.content is not None
            )
            self._paths[key] = found
        return found

    def working_roots(self, cwd: str) -> tuple[str, ...]:
        """Real paths of the project (or ``cwd``) and the additional directories."""
        found = self._roots.get(cwd)
        if found is None:
            pc = self.context
            roots = [pc.project_dir or Path(cwd), *pc.additional_directories]
            found = tuple(os.path.realpath(os.path.expanduser(os.fspath(r))) for r in roots)
            self._roots[cwd] = found
        return found

    def real_cwd(self, cwd: str) -> str:
        found = self._real_cwd.get(cwd)
        if found is None:
            found = self._real_cwd[cwd] = os.path.realpath(cwd)
        return found


@dataclass
class PathScope:
    """Rules and working directories as seen from one cwd (``real_cwd`` is resolved)."""

    rules: CompiledRules
    real_cwd: str
    project: str
    roots: tuple[str, ...]
    read_deny: tuple[tuple[str, tuple[PathPattern, ...]], ...]
    root_texts: tuple[str, ...] = ()  # the roots as str(Path(root)) spells them (rule suggestions)
    root_prefixes: tuple[str, ...] = ()  # each root with one trailing "/"
    edit_deny: PathRules = ()  # the Edit deny rules, then the Edit ask rules, as seen from here
    edit_ask: PathRules = ()
    edit_rules: PathRules = ()  # both: a file either covers may not be written without a question

    def __post_init__(self) -> None:
        self.root_texts = tuple(str(Path(r)) for r in self.roots)
        self.root_prefixes = tuple(r if r.endswith("/") else r + "/" for r in self.roots)
        self.edit_deny = self.rules.paths("deny", EDIT_RULES, self.project)
        self.edit_ask = self.rules.paths("ask", EDIT_RULES, self.project)
        self.edit_rules = self.edit_deny + self.edit_ask

    def inside(self, real: str) -> bool:
        """Is the absolute real path ``real`` in one of the working directories (by components)?"""
        return (real + "/").startswith(self.root_prefixes)  # real == root, or below it

    def read_denied(self, lexical: str, real: str) -> str | None:
        """The first Read deny rule matching either form of a path."""
        return first_match(self.read_deny, lexical, real)

    def rule(
        self, behavior: RuleBehavior, names: tuple[str, ...], lexical: str, real: str
    ) -> str | None:
        """The first ``behavior`` path rule among ``names`` matching either form of a path."""
        if behavior == "deny" and names == READ_RULES:
            return first_match(self.read_deny, lexical, real)
        if names == EDIT_RULES and behavior != "allow":
            return first_match(self.edit_deny if behavior == "deny" else self.edit_ask, lexical, real)
        return first_match(self.rules.paths(behavior, names, self.project), lexical, real)


def first_match(rules: PathRules, lexical: str, real: str) -> str | None:
    """The first of ``rules`` matching either form of a path."""
    folded: tuple[str, str] | None = None
    for text, patterns in rules:
        for p in patterns:
            prefix = p.prefix  # every match starts with it: most paths are ruled out here
            lex, rl = lexical, real
            if p.fold:  # deny and ask rules compare names as a case-insensitive disk does
                if folded is None:  # (ASCII, the common case, inline)
                    folded = (lexical.lower() if lexical.isascii() else fold_case(lexical),
                              real.lower() if real.isascii() else fold_case(real))
                lex, rl = folded
            if (lex.startswith(prefix) and p.matches(lexical)) or (
                rl != lex and rl.startswith(prefix) and p.matches(real)
            ):
                return text
    return None


def _with_synonyms(patterns: tuple[tuple[str, BashPattern], ...]) -> tuple[tuple[str, BashPattern], ...]:
    """Deny and ask rules, each also in its subcommand's canonical spelling (``npm i`` → install)."""
    extra = []
    for rule, pattern in patterns:
        if pattern.regex is None:
            head = canonical_rule(pattern.head)
            if head is not None:
                extra.append((rule, BashPattern(head, prefix=pattern.prefix)))
    return patterns + tuple(extra) if extra else patterns


def combined_regex(patterns: Iterable[BashPattern]) -> re.Pattern[str] | None:
    """A first test for ``any(p.matches(text))``: its ``fullmatch`` is true whenever that is.

    ``None`` when there are no patterns; callers confirm a hit with the patterns themselves.
    A pattern whose ``matches`` disagrees with its translation on a few probes (the pattern
    type changed shape) is translated to "anything", which only costs the confirmation.
    """
    parts = [_translated(p) for p in patterns]
    return re.compile("|".join(parts), re.DOTALL) if parts else None


def _translated(p: BashPattern) -> str:
    if p.regex is not None:
        same_flags = isinstance(p.regex.pattern, str) and p.regex.flags == _DOTALL_FLAGS
        part = f"(?:{p.regex.pattern})" if same_flags else "(?:.*)"
    elif p.prefix:
        part = f"(?:{re.escape(p.head)}(?: .*)?)"
    else:
        part = f"(?:{re.escape(p.head)})"
    alone = re.compile(part, re.DOTALL)
    probes = (p.head, p.head + " x", p.head + "x", p.head[:-1], p.head + "\n", "", "x " + p.head)
    if any(bool(alone.fullmatch(t)) != p.matches(t) for t in probes):
        return "(?:.*)"
    return part


_DOTALL_FLAGS = re.compile("", re.DOTALL).flags
_CACHE: dict[int, CompiledRules] = {}
_CACHE_LOCK = threading.Lock()


def compiled_rules(pc: ToolPermissionContext) -> CompiledRules:
    entry = _CACHE.get(id(pc))
    if entry is not None and entry.context is pc:
        return entry
    parsed = {}
    for behavior in ("allow", "deny", "ask"):
        items = []
        for source, text in pc.rules(behavior):  # type: ignore[arg-type]
            rule = parse_rule_or_none(text)
            if rule is not None:
                items.append((source, text, rule))
        parsed[behavior] = tuple(items)
    entry = CompiledRules(pc, parsed)
    with _CACHE_LOCK:  # the loop and the permission thread both compile
        if len(_CACHE) >= _MAX_ENTRIES:
            _CACHE.pop(next(iter(_CACHE)), None)
        _CACHE[id(pc)] = entry
    return entry
