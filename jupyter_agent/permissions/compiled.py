"""Rules of one ``ToolPermissionContext``, parsed and compiled once.

The permission context is immutable (changes replace it through ``set_app_state``), so its
compiled form is cached by identity; the cached entry keeps the context alive, which makes the
identity check sound.  This keeps rule parsing and pattern compilation off the hot path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..core.permission_types import RuleBehavior, RuleSource, ToolPermissionContext
from .bash_rules import BashPattern, compile_bash_pattern
from .paths import PathPattern, compile_pattern, rule_root
from .rules import PermissionRule, parse_rule_or_none, rule_applies_to_whole_tool

_MAX_ENTRIES = 16


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

    def whole_tool(self, behavior: RuleBehavior, names: tuple[str, ...]) -> str | None:
        for _source, text, rule in self.parsed[behavior]:
            if rule.content is None and any(rule_applies_to_whole_tool(rule, n) for n in names):
                return text
        return None

    def bash(self, behavior: RuleBehavior) -> tuple[tuple[str, BashPattern], ...]:
        found = self._bash.get(behavior)
        if found is None:
            found = tuple(
                (text, compile_bash_pattern(rule.content))
                for _s, text, rule in self.parsed[behavior]
                if rule.tool_name == "Bash" and rule.content is not None
            )
            self._bash[behavior] = found
        return found

    def paths(
        self, behavior: RuleBehavior, names: tuple[str, ...], project: str
    ) -> tuple[tuple[str, tuple[PathPattern, ...]], ...]:
        key = (behavior, names, project)
        found = self._paths.get(key)
        if found is None:
            found = tuple(
                (text, compile_pattern(rule.content, rule_root(source, project), project))
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


_CACHE: dict[int, CompiledRules] = {}


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
    if len(_CACHE) >= _MAX_ENTRIES:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(pc)] = entry
    return entry
