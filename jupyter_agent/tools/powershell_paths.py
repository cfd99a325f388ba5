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

import re
from dataclasses import dataclass

from ..core.context import ToolUseContext
from ..permissions.compiled import PathScope
from ..permissions.filesystem import path_scope, read_deny_below, read_rule_of
from ..permissions.paths import BadPath, resolve_path

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
        words = [w[1:-1] if w[:1] in "'\"" else w for w in _WORD.findall(statement)]
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


__all__ = ["FILE_READERS", "PathProblem", "path_problem"]
