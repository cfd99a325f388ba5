"""git's command line: its global options (``-C DIR``, ``--no-pager`` …) before the subcommand.

The rule matcher (``git -C x push`` is also ``git push``), the git read checks (which folder,
which subcommand) and ``git_contents`` (does it print contents) all walk them the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_words import Word

GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                    "--config-env", "--super-prefix"})


# git commands none of whose options names a file it writes or a program it runs: words xargs
# hands them (`… | xargs git status`) cannot make them do more (a `-c` there is an error)
GIT_QUIET_OPTIONS = frozenset({"status", "add", "rm", "mv", "ls-files", "ls-tree", "check-ignore", "check-attr",
                               "blame", "restore", "checkout", "reset", "cat-file", "rev-parse", "hash-object",
                               "update-index", "stage"})


def options_may_write(words: Sequence[Word]) -> bool:
    """May words handed to ``git …`` (``words``: git first) after its fixed ones be options that
    write a file or run a program: no subcommand yet, or one not in ``GIT_QUIET_OPTIONS``?"""
    _options, i = git_global_options(words)
    return i >= len(words) or words[i].literal not in GIT_QUIET_OPTIONS


def git_global_options(words: Sequence[Word]) -> tuple[list[tuple[str, Word | None]], int]:
    """``git``'s global options (each name with its value word, if it takes one) and the index
    of the subcommand after them; past the end when there is none (``git -C``: ``len + 1``)."""
    options: list[tuple[str, Word | None]] = []
    i = 1
    while i < len(words) and (words[i].literal or "")[:1] == "-":
        name = words[i].literal or ""
        if name in GIT_GLOBAL_WITH_VALUE:  # --git-dir=x is one word: not in the set
            options.append((name, words[i + 1] if i + 1 < len(words) else None))
            i += 2
        else:
            options.append((name, None))
            i += 1
    return options, i


__all__ = ["GIT_QUIET_OPTIONS", "options_may_write", "GIT_GLOBAL_WITH_VALUE", "git_global_options"]
