"""Permission rule strings: ``Tool`` or ``Tool(specifier)``, parsed into values."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PermissionRule:
    """A parsed rule: the tool name and the optional specifier inside the parentheses."""

    tool_name: str
    content: str | None = None

    def __str__(self) -> str:
        if self.content is None:
            return self.tool_name
        escaped = self.content.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        return f"{self.tool_name}({escaped})"


class RuleSyntaxError(ValueError):
    """A rule string that does not parse; settings loading reports it to the user."""


def parse_rule(text: str) -> PermissionRule:
    """Parse ``Bash(npm run test:*)`` → PermissionRule("Bash", "npm run test:*").

    Parentheses inside the specifier may be escaped with a backslash.  ``Tool()`` and
    ``Tool(*)`` mean the whole tool, like a bare ``Tool``.
    """
    text = text.strip()
    if not text:
        raise RuleSyntaxError("empty permission rule")
    open_at = _first_unescaped(text, "(")
    if open_at == -1:
        if ")" in text:
            raise RuleSyntaxError(f"unbalanced ')' in rule {text!r}")
        return PermissionRule(text)
    if not text.endswith(")") or text.endswith("\\)"):
        raise RuleSyntaxError(f"rule {text!r} must end with ')'")
    name = text[:open_at].strip()
    if not name:
        raise RuleSyntaxError(f"rule {text!r} has no tool name")
    content = _unescape(text[open_at + 1 : -1])
    if content in ("", "*"):
        return PermissionRule(name)
    return PermissionRule(name, content)


def rule_applies_to_whole_tool(rule: PermissionRule, tool_name: str) -> bool:
    """True when ``rule`` (without specifier) names ``tool_name`` — directly or as an MCP prefix.

    ``mcp__server`` and ``mcp__server__*`` cover every tool of that server.
    """
    if rule.content is not None:
        return False
    if rule.tool_name == tool_name:
        return True
    if rule.tool_name.startswith("mcp__") and tool_name.startswith("mcp__"):
        server_rule = rule.tool_name.removesuffix("__*")
        parts = server_rule.split("__")
        if len(parts) == 2:  # mcp__server
            return tool_name.startswith(server_rule + "__")
    return False


def _first_unescaped(text: str, char: str) -> int:
    escaped = False
    for i, c in enumerate(text):
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == char:
            return i
    return -1


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "()\\":
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
