"""Does a hook matcher apply to this event (and tool call)?"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from ..core.tool import Tool
from .bash_analysis import analyze
from .bash_rules import command_text, compile_bash_pattern
from .path_patterns import compile_pattern, pattern_matches
from .paths import BadPath, resolve_path
from .rules import parse_rule_or_none

_PATH_FIELDS = ("file_path", "notebook_path", "path")


def matcher_applies(
    matcher: str,
    subject: str | None,
    tool: Tool[Any, Any] | None = None,
    tool_input: BaseModel | None = None,
    cwd: str | None = None,
) -> bool:
    """``subject`` is the tool name (tool events) or e.g. the SessionStart source."""
    if matcher in ("", "*"):
        return True
    if subject is None:
        return False
    if "(" in matcher:
        return _rule_style(matcher, subject, tool, tool_input, cwd)
    names = (subject, *(tool.aliases if tool is not None else ()))
    if any(part in names for part in matcher.split("|")):
        return True
    try:
        return any(re.fullmatch(matcher, n) is not None for n in names)
    except re.error:
        return False


def _rule_style(
    matcher: str, subject: str, tool: Tool[Any, Any] | None, tool_input: BaseModel | None, cwd: str | None
) -> bool:
    rule = parse_rule_or_none(matcher)
    if rule is None or tool is None or tool_input is None:
        return False
    if rule.tool_name not in (subject, *tool.aliases):
        return False
    if rule.content is None:
        return True
    command = getattr(tool_input, "command", None)
    if rule.tool_name == "Bash" and isinstance(command, str):
        pattern = compile_bash_pattern(rule.content)
        return any(  # ssh host 'rm x' too: a hook on Bash(rm:*) sees that rm
            pattern.matches(command_text(form)) for info in analyze(command).ruled for form in info.forms
        )
    path = next((getattr(tool_input, f) for f in _PATH_FIELDS if isinstance(getattr(tool_input, f, None), str)), None)
    if path is not None and cwd is not None:
        try:
            resolved = resolve_path(path, cwd)
        except BadPath:
            return True  # fail closed: a hook watching paths sees the odd ones too
        return pattern_matches(compile_pattern(rule.content, cwd, cwd), resolved)
    try:
        return bool(tool.prepare_permission_matcher(tool_input)(matcher))
    except Exception:
        return False
