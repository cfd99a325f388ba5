"""``sed`` as a read-only command: only line addresses and ``p``/``d``/``q``/``=`` in the script.

Anything else (``s///e``, ``w file``, ``r file``, ``-i``) can write, run or read more, so the
command is not read-only.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_words import Word

_SED_SCRIPT_CHARS = frozenset("0123456789,$;pdq=! \n")
_SED_OPTIONS = frozenset({"-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended", "-s",
                          "--separate", "-u", "--unbuffered", "-z", "--null-data"})


def sed_files(args: Sequence[Word], appends_args: bool) -> tuple[Word, ...] | None:
    """The files ``sed -n '1,20p' file`` reads, or None when the script can do more than print lines."""
    scripts: list[str] = []
    files: list[Word] = []
    expect_script = False
    for word in args:
        value = word.literal
        if value is None:
            return None
        if expect_script:
            scripts.append(value)
            expect_script = False
        elif value in ("-e", "--expression"):
            expect_script = True
        elif value.startswith("--expression="):
            scripts.append(value.split("=", 1)[1])
        elif value.startswith("-") and value != "-":
            if value not in _SED_OPTIONS:
                return None
        elif not scripts:
            scripts.append(value)
        else:
            files.append(word)
    if expect_script or not scripts or appends_args:
        return None
    if not all(set(s) <= _SED_SCRIPT_CHARS for s in scripts):
        return None
    return tuple(files)
