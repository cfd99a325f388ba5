"""Database shells whose scripts do more than query: ``sqlite3 x.db ".shell rm -rf y"``.

A rule such as ``Bash(sqlite3:*)``, ``Bash(psql:*)`` or ``Bash(duckdb:*)`` reads as "let it query
databases", but their command languages run shell commands (sqlite3's and duckdb's ``.shell``,
``.system``, ``.once |cmd``; psql's ``\\!``, ``\\o |cmd``, ``COPY … PROGRAM``; mysql's
``system``, ``\\!``, ``pager``), write files (``.output f``, ``.backup f``, ``VACUUM INTO``,
``writefile()``, ``\\o f``, ``tee f``, ``INTO OUTFILE``), load code (``.load``,
``load_extension()``) and read files (``.import f``, ``readfile()``, ``read_csv('f')``,
``pg_read_file()``, ``LOAD_FILE()``, ``source f``).  Under such a rule these walked past deny
rules (``Bash(rm:*)``), Edit deny rules and protected paths, and read Read-denied files.

So, whatever rule or mode allows the program: a script (its arguments, and ``-c``/``-e``/
``-cmd`` text) that may run, write or load asks; one that may read files asks when there are
``Read`` deny rules; and a script this decision cannot read — from standard input, ``-f FILE``,
``-init FILE``, ``.read FILE`` — asks as a program that may do any of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .bash_words import Word

DB_SHELLS = frozenset({"sqlite3", "duckdb", "psql", "mysql", "mariadb"})
_DOT = r"^[ \t]*\."  # a dot-command starts its line
_SQLITE_RUNS = (_DOT + r"(?:sh|shell|system|load|output|once|save|backup|clone|excel|open|log|trace|cd|archive|"
                r"ar|restore|iotrace|read)\b|\b(?:writefile|edit|load_extension|fts3_tokenizer)\s*\(|"
                r"\battach\b|\bvacuum\b[\s\S]*\binto\b")
_SQLITE_READS = _DOT + r"import\b|\breadfile\s*\("
# what may run, write or load: asks in every mode
_RUNS = {
    "sqlite3": re.compile(_SQLITE_RUNS, re.IGNORECASE | re.MULTILINE),
    "duckdb": re.compile(_SQLITE_RUNS + r"|\bcopy\b|\bexport\s+database\b|\binstall\b|\bload\b", re.IGNORECASE | re.MULTILINE),
    "psql": re.compile(r"\\(?:!|o|out|g|gx|w|write|copy|i|include|ir|include_relative|e|edit|ef|ev|setenv|"
                       r"lo_export|cd)(?![A-Za-z_])|\bprogram\b|\bcopy\b[\s\S]*\bto\b|\blo_export\s*\(|"
                       r"\bdblink", re.IGNORECASE | re.MULTILINE),
    "mysql": re.compile(r"\\[!.TPtp]|^[ \t]*(?:system|tee|pager|source)\b|\binto\s+(?:outfile|dumpfile)\b|"
                        r"\bsystem\b", re.IGNORECASE | re.MULTILINE),
}
_RUNS["mariadb"] = _RUNS["mysql"]
# what may read files a Read deny rule covers: asks when there are such rules
_READS = {
    "sqlite3": re.compile(_SQLITE_READS, re.IGNORECASE | re.MULTILINE),
    "duckdb": re.compile(_SQLITE_READS + r"|\bread_\w+\s*\(|\bglob\s*\(|'[^']*[./][^']*'", re.IGNORECASE | re.MULTILINE),
    "psql": re.compile(r"\\lo_import\b|\bpg_(?:read|ls)_|\blo_import\s*\(", re.IGNORECASE | re.MULTILINE),
    "mysql": re.compile(r"\bload\s+data\b|\bload_file\s*\(", re.IGNORECASE | re.MULTILINE),
}
_READS["mariadb"] = _READS["mysql"]
# options whose value is script text, and options whose value names a script file
_TEXT = {"sqlite3": ("-cmd",), "duckdb": ("-c", "-cmd", "-s"), "psql": ("-c", "--command"),
         "mysql": ("-e", "--execute"), "mariadb": ("-e", "--execute")}
_FILES = {"sqlite3": ("-init",), "duckdb": ("-init", "-f"), "psql": ("-f", "--file"),
          "mysql": ("--init-command",), "mariadb": ("--init-command",)}


def script_problem(words: Sequence[Word], stdin_script: bool, read_deny: bool) -> str | None:
    """Why this database shell's script needs a question, or None.  ``stdin_script``: its
    standard input may carry commands (a redirect, a heredoc, a pipe: the caller tells);
    ``read_deny``: there are Read deny rules."""
    program = words[0].literal
    if program not in DB_SHELLS:
        return None
    inline: list[str] = []  # -c/-e/-cmd text
    positional: list[str] = []  # sqlite3/duckdb: the database, then commands; psql/mysql: names
    options = _TEXT[program]
    previous = None
    for word in words[1:]:
        text = word.literal
        if text is None:
            return f"{program} has a word only known at run time, which may be a command that runs or writes"
        name, equals, value = text.partition("=")
        if name in _FILES[program] or (program == "psql" and text.startswith("-f") and len(text) > 2):
            return f"{program} runs the script in a file ({text}), which may run shell commands or write files"
        if previous in options:
            inline.append(text)
        elif name in options and equals:
            inline.append(value)
        elif text[:1] == "-" and text != "-":
            inline.append(text)  # an option's value may be glued on (-c'…'): read it too
        else:
            positional.append(text)
        previous = text
    script = "\n".join(inline + positional)
    if _RUNS[program].search(script):
        return (f"{program}'s script may run shell commands, write files or load code "
                f"(.shell, .output, \\!, COPY … PROGRAM, …), which the rules cannot see")
    if read_deny and _READS[program].search(script):
        return f"{program}'s script reads files (.import, readfile(), read_csv(), …) a Read deny rule may cover"
    has_commands = any(part[:1] != "-" for part in inline) or (
        program in ("sqlite3", "duckdb") and len(positional) > 1)
    if stdin_script and not has_commands:
        return f"{program} reads its commands from standard input, which may run shell commands or write files"
    return None


__all__ = ["DB_SHELLS", "script_problem"]
