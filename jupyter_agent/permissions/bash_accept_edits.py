"""acceptEdits for Bash: the common filesystem commands that only make, copy, move or remove
files inside the working directories run without asking, as in Claude Code ("reads, file edits,
and common filesystem commands (mkdir, touch, mv, cp, etc.)").

Only a plain command qualifies: ``mkdir``, ``touch``, ``cp``, ``mv``, ``rmdir`` or ``rm`` with no
wrapper (``xargs rm`` takes its files from stdin), options from a short list per program (no
``rm -r``, no ``cp -L``, nothing unknown), and fixed words only (no ``$var`` or ``~``; a pattern
such as ``*.tmp`` is expanded as bash would now, and asks if it cannot be told exactly or names
a file beginning with ``-``, which the program would read as an option).
Every path it names — sources too — must lead, links followed, inside the working directories,
to no protected path, program on PATH or file a deny / ask rule covers; where ``cp`` / ``mv``
put a file into a folder, the name it lands on is checked as well.  This only replaces the
"needs approval" of such a command: every other check of the line (redirections, protected
names, read-deny rules, copies of folders) still runs and still asks or denies.
"""

from __future__ import annotations

import os

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow
from .bash_analysis import CommandInfo
from .bash_paths import write_result
from .bash_patterns import expanded
from .bash_words import Word
from .compiled import PathScope
from .paths import BadPath, protected_reason_of, resolve_below

# program -> (flags without a value, options taking a value that is not a path, options taking a path)
_OPTIONS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    "mkdir": (frozenset({"-p", "-v", "--parents", "--verbose"}), frozenset({"-m", "--mode"}), frozenset()),
    "touch": (frozenset({"-a", "-c", "-m", "--no-create"}), frozenset({"-d", "--date", "-t"}),
              frozenset({"-r", "--reference"})),
    "cp": (frozenset({"-r", "-R", "--recursive", "-f", "--force", "-n", "--no-clobber", "-u", "--update", "-v",
                      "--verbose", "-p", "-a", "--archive", "-P", "--no-dereference", "-T",
                      "--no-target-directory"}), frozenset(), frozenset({"-t", "--target-directory"})),
    "mv": (frozenset({"-f", "--force", "-n", "--no-clobber", "-u", "--update", "-v", "--verbose", "-T",
                      "--no-target-directory"}), frozenset(), frozenset({"-t", "--target-directory"})),
    "rmdir": (frozenset({"-v", "--verbose", "--ignore-fail-on-non-empty"}), frozenset(), frozenset()),
    "rm": (frozenset({"-f", "--force", "-v", "--verbose"}), frozenset(), frozenset()),
}
FILESYSTEM_COMMANDS = frozenset(_OPTIONS)


def accept_edits_allows(info: CommandInfo, cwds: list[str], scope: PathScope, context: ToolUseContext) -> bool:
    """Does acceptEdits let this command run without asking (see the module docstring)?"""
    words = info.innermost
    if not words or len(info.forms) != 1 or info.forms[0] is not words or info.ask_reason or info.cd_kind:
        return False
    program = words[0].literal
    if program not in _OPTIONS:
        return False
    for cwd in cwds:
        texts = _texts(words[1:], cwd)
        parsed = _paths(program, texts) if texts is not None else None
        if parsed is None:
            return False
        paths, target = parsed
        if not paths:
            return False
        for path in paths:
            if not _writable(path, cwd, scope, context):
                return False
        if program in ("cp", "mv") and not _landings_clear(paths, target, cwd):
            return False
    return True


def _texts(words: tuple[Word, ...], cwd: str) -> list[str | None] | None:
    """The arguments as bash passes them from ``cwd`` (patterns expanded), or None."""
    out: list[str | None] = []
    for word in words:
        if not word.static:
            return None
        if not word.glob:
            out.append(word.literal)
            continue
        found = expanded(word, cwd)
        if found is None or any(name.startswith("-") for name in found):  # `rm *` with a file named -rf
            return None
        out.extend(found)
    return out


def _paths(program: str, texts: list[str | None]) -> tuple[list[str], str | None] | None:
    """The path operands (option values that are paths included) and a ``-t`` folder, or None
    when a word is unknown, not fixed, or an option not on the program's list."""
    flags, valued, path_valued = _OPTIONS[program]
    paths: list[str] = []
    target: str | None = None
    options_done = False
    i = 0
    while i < len(texts):
        text = texts[i]
        i += 1
        if text is None or text.startswith("~") or text in ("", "-"):
            return None
        if options_done or not text.startswith("-"):
            paths.append(text)
            continue
        if text == "--":
            options_done = True
            continue
        name, eq, value = text.partition("=")
        if text in flags:
            continue
        if not text.startswith("--") and len(text) > 2 and all(f"-{c}" in flags for c in text[1:]):
            continue  # bundled short flags: -pv, -rf is refused (-r is not an rm flag)
        if name in valued or name in path_valued:
            if not eq:
                if i >= len(texts) or texts[i] is None:
                    return None
                value = texts[i]  # type: ignore[assignment]
                i += 1
            if name in path_valued:
                if not value or value.startswith("~"):
                    return None
                paths.append(value)
                if name in ("-t", "--target-directory"):
                    target = value
            continue
        if not text.startswith("--") and text[:2] in valued and len(text) > 2:  # -m755
            continue
        return None
    return paths, target


def _writable(path: str, cwd: str, scope: PathScope, context: ToolUseContext) -> bool:
    """Inside the working directories, and a shell write there would be allowed in this mode
    (``bash_paths.write_result``: no deny or ask rule, protected path, program on PATH or hard
    link to a denied file)."""
    try:
        real = resolve_below(path, cwd)[1]
    except BadPath:
        return False
    return scope.inside(real) and isinstance(write_result(path, cwd, scope, context), PermissionAllow)


def _landings_clear(paths: list[str], target: str | None, cwd: str) -> bool:
    """Where ``cp`` / ``mv`` put each source when the target is a folder: no protected name."""
    folder = target if target is not None else paths[-1]
    sources = [p for p in paths if p != folder] if target is not None else paths[:-1]
    try:
        real_folder = resolve_below(folder, cwd)[1]
    except BadPath:
        return False
    if not os.path.isdir(real_folder):
        return True  # a file target: its own name was checked
    for source in sources:
        landing = os.path.join(real_folder, os.path.basename(source.rstrip("/")) or source)
        if protected_reason_of(landing, landing) is not None:
            return False
    return True
