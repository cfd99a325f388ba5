r"""Permission analysis for PowerShell commands: read-only detection and ``PowerShell(...)`` rules.

PowerShell is parsed only as far as needed to be safe: statements are split on ``;``, ``|``,
``&&``, ``||`` and newlines outside quotes.  Anything the splitter cannot vouch for (sub-
expressions, script blocks, call operators, redirection, Invoke-Expression) is never read-only.
Rules: ``PowerShell(Get-Process:*)`` is a prefix, ``PowerShell(git status)`` an exact command;
matching is case-insensitive like PowerShell, and a built-in alias or a module-qualified name is
its cmdlet (``PowerShell(Remove-Item:*)`` denies ``rm x``, ``del x``, ``ri x`` and
``Microsoft.PowerShell.Management\Remove-Item x``; ``PowerShell(rm:*)`` denies ``Remove-Item x``).
A deny rule matching any statement denies.  Under a deny or ask rule, code this analysis does not
read — a script block, a sub-expression (also in double quotes), the call or dot-source operator,
``Invoke-Expression``, ``Invoke-Command``, jobs and ``Start-Process``, another shell
(``pwsh -c``, ``cmd /c``, ``bash -c``) — asks in every mode: it may run what the rule names.
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
from ..permissions.verdicts import RULE, SAFETY, sticky_ask
from .powershell_paths import path_problem, write_problem

TOOL_NAME = "PowerShell"
READ_ONLY_CMDLETS = frozenset(s.lower() for s in (
    "Get-ChildItem", "Get-Content", "Get-Item", "Get-ItemProperty", "Get-Location", "Get-Process",
    "Get-Service", "Get-Date", "Get-Command", "Get-Help", "Get-Host", "Get-Variable", "Get-Module",
    "Test-Path", "Resolve-Path", "Split-Path", "Join-Path", "Select-String", "Select-Object",
    "Where-Object", "Sort-Object", "Measure-Object", "Format-Table", "Format-List", "Out-String",
    "Write-Output", "Write-Host", "ConvertTo-Json", "ConvertFrom-Json", "Get-FileHash",
    "ls", "dir", "gci", "cat", "type", "gc", "pwd", "echo", "where", "select", "sort", "measure",
))
# built-in aliases (Windows PowerShell and pwsh on Windows) of the cmdlets a rule may name
_ALIASES = {
    **dict.fromkeys(("rm", "del", "erase", "rd", "ri", "rmdir"), "remove-item"),
    **dict.fromkeys(("cp", "copy", "cpi"), "copy-item"), **dict.fromkeys(("mv", "move", "mi"), "move-item"),
    **dict.fromkeys(("ren", "rni"), "rename-item"), "ni": "new-item", "md": "mkdir", "sc": "set-content",
    "ac": "add-content", "clc": "clear-content", "si": "set-item", "cli": "clear-item", "sp": "set-itemproperty",
    "rp": "remove-itemproperty", **dict.fromkeys(("iwr", "curl", "wget"), "invoke-webrequest"),
    "irm": "invoke-restmethod", "iex": "invoke-expression", "icm": "invoke-command",
    **dict.fromkeys(("saps", "start"), "start-process"), **dict.fromkeys(("kill", "spps"), "stop-process"),
    "sajb": "start-job", **dict.fromkeys(("cd", "chdir", "sl"), "set-location"),
    **dict.fromkeys(("gc", "cat", "type"), "get-content"), **dict.fromkeys(("ls", "dir", "gci"), "get-childitem"),
    **dict.fromkeys(("echo", "write"), "write-output"), **dict.fromkeys(("%", "foreach"), "foreach-object"),
    **dict.fromkeys(("?", "where"), "where-object"), "sls": "select-string", **dict.fromkeys(("set", "sv"),
                                                                                            "set-variable"),
    "epcsv": "export-csv", "ipmo": "import-module", "nal": "new-alias", "sal": "set-alias", "spsv": "stop-service",
    "sasv": "start-service", "ii": "invoke-item", "r": "invoke-history", "ihy": "invoke-history",
}
_MODULE = re.compile(r"^[\w.]+\\", re.A)  # Microsoft.PowerShell.Management\Remove-Item
# code a deny or ask rule may match but this analysis does not read
_RUNS_CODE = re.compile(r"[{}]|\$\(|@\(|^\s*[&.]\s|\]::|\.\w+\(")  # …, [Type]::Method(), $x.Method()
_CODE_RUNNERS = frozenset({"invoke-expression", "invoke-command", "start-job", "start-threadjob", "start-process",
                           "invoke-item", "invoke-history", "new-alias", "set-alias", "import-module",
                           "powershell", "powershell.exe", "pwsh", "pwsh.exe", "cmd", "cmd.exe", "bash", "sh", "wsl",
                           "wsl.exe"})
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


def _canonical(text: str) -> str:
    """``text`` with its command named as its cmdlet: ``rm -r x`` → ``remove-item -r x``."""
    words = text.split()
    if not words:
        return ""
    name = _MODULE.sub("", words[0]).lower()
    return " ".join([_ALIASES.get(name, name), *words[1:]])


def _matches_any_name(content: str, statement: str) -> bool:
    prefix = content.endswith(":*")
    canonical = _canonical(content[:-2] if prefix else content) + (":*" if prefix else "")
    return _matches(content, statement) or _matches(canonical, _canonical(statement))


def _rule(context: ToolUseContext, behavior: str, statements: list[str]) -> str | None:
    for _source, text in context.permission_context.rules(behavior):  # type: ignore[arg-type]
        rule = parse_rule_or_none(text)
        if rule is None or rule.tool_name != TOOL_NAME:
            continue
        if rule.content is None or any(_matches_any_name(rule.content, s) for s in statements):
            return text
    return None


def _has_rules(context: ToolUseContext, behavior: str) -> bool:
    return any((rule := parse_rule_or_none(text)) is not None and rule.tool_name == TOOL_NAME
               for _source, text in context.permission_context.rules(behavior))  # type: ignore[arg-type]


def unread_code(statements: list[str]) -> str | None:
    """The first statement running code this analysis does not read (a script block, a
    sub-expression, ``&``, ``iex``, ``Start-Process``, another shell …), else None."""
    for statement in statements:
        unquoted = re.sub(r"'[^']*'", "''", statement)  # single quotes are literal; double quotes expand $( )
        first = _canonical(statement).split(" ", 1)[0]
        if _RUNS_CODE.search(unquoted) or first in _CODE_RUNNERS or first.startswith("$"):
            return statement
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
    problem = path_problem(statements, context)
    if problem is not None and problem.denied:
        return PermissionDeny(problem.message)
    if rule := _rule(context, "ask", statements):
        return sticky_ask(f"This PowerShell command requires approval (rule {rule}).", RULE, "an ask rule")
    hidden = unread_code(statements)
    if hidden is not None and (_has_rules(context, "deny") or _has_rules(context, "ask")):
        return sticky_ask(f"Run the PowerShell command {command}? {hidden!r} runs code this analysis does not "
                          f"read, so a deny or ask rule may match what it runs.", RULE, "code not read")
    written = write_problem(statements, context)
    if written is not None:  # .claude/, .git/, a denied file, a target only known at run time: every mode asks
        return sticky_ask(f"Run the PowerShell command {command}? {written.message}", SAFETY, "a protected path")
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
