"""Permission rule strings: ``Tool`` or ``Tool(specifier)``, parsed into values."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from ..core.permission_types import RuleBehavior, RuleSource, ToolPermissionContext


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


@lru_cache(maxsize=4096)
def parse_rule_or_none(text: str) -> PermissionRule | None:
    """A cached parse for the hot path; malformed rules were already reported at load time."""
    try:
        return parse_rule(text)
    except RuleSyntaxError:
        return None


def rules_for(
    context: ToolPermissionContext, behavior: RuleBehavior, tool_names: Iterable[str]
) -> list[tuple[RuleSource, PermissionRule, str]]:
    """Rules with a specifier naming one of ``tool_names``: (source, rule, original text)."""
    names = set(tool_names)
    out = []
    for source, text in context.rules(behavior):
        rule = parse_rule_or_none(text)
        if rule is not None and rule.content is not None and rule.tool_name in names:
            out.append((source, rule, text))
    return out


def whole_tool_rule(
    context: ToolPermissionContext, behavior: RuleBehavior, tool_name: str, aliases: Iterable[str] = ()
) -> str | None:
    """The first bare rule (``Bash``, ``mcp__server``) of ``behavior`` that covers the tool."""
    names = (tool_name, *aliases)
    for _source, text in context.rules(behavior):
        rule = parse_rule_or_none(text)
        if rule is not None and any(rule_applies_to_whole_tool(rule, n) for n in names):
            return text
    return None


_OTHER_DOTS = str.maketrans("\u3002\uff0e\uff61", "...")  # the full stops IDNA reads as dots


@lru_cache(maxsize=256)
def ascii_host(host: str) -> str:
    """``host`` lower-cased, without a trailing dot, and in its ASCII (punycode) form, as it is
    looked up: ``Bücher.DE.`` is ``xn--bcher-kva.de``, so a rule written either way matches."""
    host = host.strip().lower().translate(_OTHER_DOTS).rstrip(".")  # `evil.com。` is `evil.com` to IDNA
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii").rstrip(".")
    except UnicodeError:
        return host  # not a name DNS can look up: compared as written


def domain_matches(pattern: str, host: str) -> bool:
    """``example.com`` matches that host exactly; ``*.example.com`` matches subdomains only."""
    pattern, host = pattern.strip().lower().rstrip("."), ascii_host(host)
    pattern = "*." + ascii_host(pattern[2:]) if pattern.startswith("*.") else ascii_host(pattern)
    if not pattern or not host:
        return False
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return pattern == host


def domain_rule_matches(content: str, url: str) -> bool:
    """``domain:example.com`` is that exact host; ``domain:*.example.com`` its subdomains only."""
    if not content.startswith("domain:"):
        return False
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    return domain_matches(content[len("domain:"):], host)


def host_rule_matches(content: str, host: str) -> bool:
    """A ``domain:`` rule specifier against a bare host name."""
    return content.startswith("domain:") and domain_matches(content[len("domain:"):], host)


def skill_rule_matches(content: str, name: str) -> bool:
    """``Skill(name)`` exactly, or ``Skill(prefix:*)`` for every name starting with ``prefix``."""
    name = name.strip().lstrip("/")
    if content.endswith(":*"):
        return name.startswith(content[:-2])
    return content == name


def content_rule_for(
    context: ToolPermissionContext, behavior: RuleBehavior, tool_name: str, matches: Callable[[str], bool]
) -> str | None:
    """The first ``tool_name(specifier)`` rule of ``behavior`` whose specifier ``matches``."""
    for _source, text in context.rules(behavior):
        rule = parse_rule_or_none(text)
        if rule is not None and rule.tool_name == tool_name and rule.content is not None and matches(rule.content):
            return text
    return None


