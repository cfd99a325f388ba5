"""Permission analysis for PowerShell commands: read-only detection and ``PowerShell(...)`` rules.

PowerShell is parsed only as far as needed to be safe: statements are split on ``;``, ``|``,
``&&``, ``||`` and newlines outside quotes.  Anything the splitter cannot vouch for (sub-
expressions, script blocks, call operators, redirection, Invoke-Expression) is never read-only.
Rules: ``PowerShell(Get-Process:*)`` is a prefix, ``PowerShell(git status)`` an exact command;
matching is case-insensitive like PowerShell.  A deny rule matching any statement denies.
"""

from __future__ import annotations

import re

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from ..permissions.rules import parse_rule_or_none
from .powershell_paths import path_problem

TOOL_NAME = "PowerShell"
READ_ONLY_CMDLETS = frozenset(s.lower() for s in (
    "Get-ChildItem", "Get-Content", "Get-Item", "Get-ItemProperty", "Get-Location", "Get-Process",
    "Get-Service", "Get-Date", "Get-Command", "Get-Help", "Get-Host", "Get-Variable", "Get-Module",
    "Test-Path", "Resolve-Path", "Split-Path", "Join-Path", "Select-String", "Select-Object",
    "Where-Object", "Sort-Object", "Measure-Object", "Format-Table", "Format-List", "Out-String",
    "Write-Output", "Write-Host", "ConvertTo-Json", "ConvertFrom-Json", "Get-FileHash",
    "ls", "dir", "gci", "cat", "type", "gc", "pwd", "echo", "where", "select", "sort", "measure",
))
_UNSAFE = re.compile(r"[>`{}]|\$\(|@\(|^\s*[&.]\s|invoke-expression|\biex\b|-command|-encodedcommand", re.I)


def split_statements(command: str) -> list[str] | None:
    """Statements and pipeline elements, or None when quotes do not close."""
    parts, buf, quote, i = [], [], None, 0
    while i < len(command):
        c = command[i]
        if quote:
            buf.append(c)
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
            buf.append(c)
        elif command.startswith(("&&", "||"), i):
            parts.append("".join(buf))
            buf, i = [], i + 2
            continue
        elif c in ";|\n":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(c)
        i += 1
    if quote:
        return None
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


def is_read_only_command(command: str) -> bool:
    parts = split_statements(command)
    if not parts:
        return False
    for part in parts:
        unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "''", part)
        if _UNSAFE.search(unquoted) or '"' in part and "$" in part:
            return False
        if part.split()[0].lower() not in READ_ONLY_CMDLETS:
            return False
    return True


def _matches(content: str, statement: str) -> bool:
    norm = " ".join(statement.split()).lower()
    pattern = " ".join(content.split()).lower()
    if pattern.endswith(":*"):
        prefix = pattern[:-2]
        return norm == prefix or norm.startswith(prefix + " ")
    return norm == pattern


def _rule(context: ToolUseContext, behavior: str, statements: list[str]) -> str | None:
    for _source, text in context.permission_context.rules(behavior):  # type: ignore[arg-type]
        rule = parse_rule_or_none(text)
        if rule is None or rule.tool_name != TOOL_NAME or rule.content is None:
            continue
        if any(_matches(rule.content, s) for s in statements):
            return text
    return None


def _all_allowed(context: ToolUseContext, statements: list[str]) -> bool:
    """Every statement matches an allow rule, and none hides redirection or sub-expressions."""
    contents = []
    for _source, text in context.permission_context.rules("allow"):
        rule = parse_rule_or_none(text)
        if rule is not None and rule.tool_name == TOOL_NAME and rule.content:
            contents.append(rule.content)
    return bool(statements) and all(
        not _UNSAFE.search(re.sub(r"'[^']*'", "''", s)) and any(_matches(c, s) for c in contents)
        for s in statements
    )


def check_powershell_permission(command: str, context: ToolUseContext) -> PermissionResult:
    statements = split_statements(command)
    if statements is None:
        return PermissionAsk("The PowerShell command has an unclosed quote; it needs approval.")
    if rule := _rule(context, "deny", statements):
        return PermissionDeny(f"Permission to use PowerShell with command {command} has been denied by rule {rule}.")
    if rule := _rule(context, "ask", statements):
        return PermissionAsk(f"This PowerShell command requires approval (rule {rule}).")
    problem = path_problem(statements, context)
    if problem is not None and problem.denied:
        return PermissionDeny(problem.message)
    if _all_allowed(context, statements):
        return PermissionAllow(reason="allow rules")
    if is_read_only_command(command):
        if problem is not None:
            return PermissionAsk(f"Run the PowerShell command {command}? {problem.message}")
        return PermissionAllow(reason="read-only command")
    first = statements[0].split()[0] if statements and statements[0].split() else command
    return PermissionAsk(
        f"Claude wants to run the PowerShell command: {command}",
        suggestions=(PermissionUpdate(rules=(f"{TOOL_NAME}({first}:*)",)),),
    )
