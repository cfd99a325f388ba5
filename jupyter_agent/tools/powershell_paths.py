"""The files a read-only PowerShell statement reads, checked like the Bash tool's.

``Get-Content .env`` only reads, but ``Read(./.env)`` denies it; ``Get-Content C:\\Users\\me\\x``
reads outside the working directories; ``Get-ChildItem -Recurse | Select-String KEY`` reads every
file below the folder.  For the cmdlets that read files, every argument that is not a parameter
name counts as a path (a parameter's value such as a pattern is then a harmless extra check),
and must be a plain relative path: a drive, a root, ``~``, ``..``, a provider (``env:``), a UNC
share or a wildcard makes the statement ask.  A named file a rule denies is denied; a file
outside the working directories, a recursive read or ``Select-String`` fed by the pipeline over
a folder where a deny rule may match, asks.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..core.context import ToolUseContext
from ..permissions.compiled import PathScope, first_match
from ..permissions.filesystem import path_scope, read_deny_below, read_rule_of
from ..permissions.paths import BadPath, protected_reason_of, resolve_path

FILE_READERS = frozenset({
    "get-content", "gc", "cat", "type", "select-string", "sls", "get-filehash", "get-item", "gi",
    "get-itemproperty", "gp", "get-childitem", "gci", "ls", "dir", "test-path", "resolve-path", "rvpa",
    "split-path",
})
_PIPELINE_READERS = frozenset({"select-string", "sls", "get-filehash", "get-content", "gc", "cat", "type"})
_PATH_PARAMETERS = frozenset({"-path", "-literalpath", "-pspath", "-lp"})
_PLAIN = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_. /\\+@=,-]*")
_WORD = re.compile(r"'[^']*'|\"[^\"]*\"|\S+")


@dataclass(frozen=True)
class PathProblem:
    message: str
    denied: bool = False  # a rule denies the file (else: ask)


def path_problem(statements: list[str], context: ToolUseContext) -> PathProblem | None:
    """The first reason the files these statements read stop them from running unasked."""
    scope = path_scope(context)
    cwd = str(context.cwd)
    for index, statement in enumerate(statements):
        words = [_unquoted(w) for w in _WORD.findall(statement)]
        if not words or words[0].lower() not in FILE_READERS:
            continue
        options = [w.lower() for w in words[1:] if w.startswith("-")]
        recurse = any("-recurse".startswith(o) and len(o) > 2 for o in options)
        paths = [w for w in words[1:] if not w.startswith("-")]
        for path in paths:
            problem = _check_path(path, cwd, scope, recurse)
            if problem is not None:
                return problem
        if (recurse and not paths) or (index > 0 and _reads_the_pipe(words[0].lower(), options, paths)):
            rule = read_deny_below(cwd, scope)
            if rule is not None:
                return PathProblem(f"{statement} reads the files below {cwd}, where the rule {rule} denies reading")
    return None


def _unquoted(word: str) -> str:
    """A word without the quotes around it: ``'a b'`` → ``a b``."""
    return word[1:-1] if word[:1] in "'\"" else word


def _reads_the_pipe(name: str, options: list[str], paths: list[str]) -> bool:
    """``gci -r | sls KEY``, ``gci -r | gc``: the files come from the statement before."""
    if name in ("select-string", "sls"):
        return not any(o in _PATH_PARAMETERS for o in options)  # its positional is the pattern
    return name in _PIPELINE_READERS and not paths


def _check_path(path: str, cwd: str, scope: PathScope, recurse: bool) -> PathProblem | None:
    parts = re.split(r"[/\\]", path)
    if not _PLAIN.fullmatch(path) or ".." in parts or path[:1] in "/\\":
        return PathProblem(f"{path} is not a plain path inside the working directories")
    try:
        resolved = resolve_path(path, cwd)
    except BadPath as exc:
        return PathProblem(str(exc), denied=True)
    rule = read_rule_of(resolved.lexical, resolved.real, scope)
    if rule is not None:
        return PathProblem(f"Permission to read {path} has been denied by the rule {rule}.", denied=True)
    if not scope.inside(resolved.real):
        return PathProblem(f"it reads {path}, outside the working directories")
    if recurse:
        below = read_deny_below(resolved.real, scope)
        if below is not None:
            return PathProblem(f"it reads the files below {path}, where the rule {below} denies reading")
    return None


# cmdlets (and aliases) that write, move, remove or create the paths they name
FILE_WRITERS = frozenset({
    "set-content", "sc", "add-content", "ac", "out-file", "new-item", "ni", "copy-item", "cp", "copy", "cpi",
    "move-item", "mv", "move", "mi", "rename-item", "ren", "rni", "remove-item", "rm", "del", "erase", "rd", "ri",
    "rmdir", "set-item", "si", "clear-content", "clc", "clear-item", "cli", "tee-object", "tee", "export-csv",
    "epcsv", "export-clixml", "expand-archive", "compress-archive", "mkdir", "md", "set-itemproperty", "sp",
    "new-itemproperty", "remove-itemproperty", "rp", "invoke-webrequest", "iwr", "curl", "wget",
    "invoke-restmethod", "irm", "start-bitstransfer", "set-acl", "new-symlink",
})
_DOTNET_IO = re.compile(r"\[(?:system\.)?io\.\w+\]::", re.I)  # [System.IO.File]::…, [IO.Directory]::…
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_VARIABLE = re.compile(r"\$[\w:]+")
_METHOD = re.compile(r"\.\w+\(")  # $x.Method(…), (Get-Item x).Delete()
_REDIRECT = re.compile(r"(?:^|\s)(?:\d|\*)?>>?(?!&)\s*('[^']*'|\"[^\"]*\"|[^\s;|]+)")
_HOME = re.compile(r"^(?:~|\$home|\$env:userprofile|\$env:home)(?=$|[/\\])", re.I)


def write_problem(statements: list[str], context: ToolUseContext) -> PathProblem | None:
    """What every mode asks about in statements that may write: a protected path (``.git``,
    ``.claude``, ``.vscode``, ``.mcp.json``, shell start-up files …) or one a ``Read``/``Edit``
    deny rule names, among a writer's arguments or a redirection's target (``'x' > .claude/x``);
    a writer's or redirection's target only known at run time (``$f``, ``$(…)``) asks too.
    A statement of any other command naming such a path asks as well (its effect is not read)."""
    scope = path_scope(context)
    cwd = str(context.cwd)
    for statement in statements:
        words = [_unquoted(w) for w in _WORD.findall(statement)]
        if not words:
            continue
        targets = [_unquoted(m.group(1)) for m in _REDIRECT.finditer(statement)]
        name = words[0].lower().rpartition("\\")[2]
        dotnet = _DOTNET_IO.search(statement) is not None  # [IO.File]::WriteAllText('.claude/x', …)
        if name in FILE_READERS and not targets and not dotnet:
            continue  # path_problem's
        writer = name in FILE_WRITERS or dotnet
        candidates = [*targets, *(w for w in words[1:] if not w.startswith("-") and w not in (">", ">>"))]
        if dotnet:  # the call's arguments: its quoted strings and variables (paths only known at run time)
            unquoted = re.sub(r"'[^']*'", "''", statement)
            candidates += [_unquoted(q) for q in _QUOTED.findall(statement)] + _VARIABLE.findall(unquoted)
        elif _METHOD.search(statement):  # (Get-Item .git).Delete(): every word, its brackets and quotes off
            candidates += [t.strip("'\"") for t in re.split(r"[\s(),]+", statement) if t.strip("'\"")]
        for word in candidates:
            problem = _write_check(word, cwd, scope, writer or word in targets)
            if problem is not None:
                return problem
    return None


def _write_check(word: str, cwd: str, scope: PathScope, writes: bool) -> PathProblem | None:
    if word.lower() == "$null":  # > $null, 2> $null: the output thrown away
        return None
    path = _HOME.sub(lambda _m: os.path.expanduser("~"), word)
    if any(c in path for c in "$`(@"):
        if writes:
            return PathProblem(f"it writes to {word}, a path only known at run time")
        return None
    try:
        resolved = resolve_path(path.replace("\\", "/") if os.sep == "/" else path, cwd)
    except BadPath:
        return None  # not a path (a value): nothing to check
    reason = protected_reason_of(resolved.lexical, resolved.real)
    if reason is not None:
        return PathProblem(f"it names {word}: {reason}")
    rule = read_rule_of(resolved.lexical, resolved.real, scope)
    if rule is None and writes:
        rule = first_match(scope.edit_deny, resolved.lexical, resolved.real)
    if rule is not None:
        return PathProblem(f"it names {word}, which the rule {rule} denies")
    return None


__all__ = ["FILE_READERS", "FILE_WRITERS", "PathProblem", "path_problem", "write_problem"]
