"""Options that move a program into another folder, as ``cd`` would: ``git -C DIR``,
``git --work-tree=DIR``, ``make -C DIR``, ``npm --prefix DIR``, ``uv --directory DIR`` …

``cd /tmp && git reset --hard`` asks because the ``cd`` leaves the working directories;
``git -C /tmp reset --hard`` is the same command in one word, so a rule allowing the program
(``Bash(git:*)``) does not let it work outside them either: the folder is checked like a ``cd``
target (``bash.py``).  Read-only forms (``git -C /tmp log``) are checked as reads already.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_readonly import option_arguments
from .bash_words import Word, make_word
from .git_words import git_global_options

# program → (short letter or "", long option) pairs whose value is the folder it works in
_FOLDER_OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "make": (("C", "--directory"),),
    "gmake": (("C", "--directory"),),
    "ninja": (("C", ""),),
    "npm": (("C", "--prefix"),),
    "pnpm": (("C", "--dir"), ("", "--prefix")),
    "yarn": (("", "--cwd"),),
    "uv": (("", "--directory"), ("", "--project")),
    "poetry": (("C", "--directory"), ("P", "--project")),
    "go": (("C", ""),),
    "cargo": (("C", ""), ("", "--manifest-path")),
    "gradle": (("p", "--project-dir"),),
    "just": (("d", "--working-directory"),),
    "task": (("d", "--dir"),),
    "cmake": (("S", ""), ("B", "")),
}
_GIT_FOLDERS = frozenset({"-C", "--work-tree", "--git-dir"})
CHDIR_PROGRAMS = frozenset(_FOLDER_OPTIONS) | {"git"}


def working_folders(words: Sequence[Word]) -> list[Word]:
    """The folders (or, for ``--manifest-path``/``--git-dir``, paths in them) ``words`` (program
    first) is told to work in; [] when it works in the current one."""
    program = words[0].literal if words else None
    if program == "git":
        options, _at = git_global_options(words)
        found = []
        for name, value in options:
            option, equals, attached = name.partition("=")
            if option not in _GIT_FOLDERS:
                continue
            if equals:  # --work-tree=DIR: one word
                found.append(make_word(attached))
            elif value is not None:  # -C DIR
                found.append(value)
        return found
    pairs = _FOLDER_OPTIONS.get(program or "")
    if not pairs:
        return []
    args = words[1:]
    return [w for letter, long in pairs for w in option_arguments(args, letter, long)]


__all__ = ["CHDIR_PROGRAMS", "working_folders"]
