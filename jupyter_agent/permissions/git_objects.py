"""Objects a git command names by id: ``git cat-file -p 65ec267``, ``git show v1-3-g65ec267``.

The history listing (``git_history``) knows every path that commits a ref or reflog reaches
hold.  An object outside them (a blob staged once and unstaged, a dropped stash, a tree) can
still hold a denied file's contents, and its id can be read off ``.git/objects``.  So a command
that prints from commits may name objects by ref, by ``HEAD~2`` and the like, or by the id of
a commit the listing reached; an id of anything else, objects named on standard input
(``--stdin``, ``cat-file --batch``) or a revision only known at run time make it ask.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .bash_words import Word
from .git_history import History
from .git_words import git_global_options

_ID = re.compile(r"(?:^|-g)([0-9a-fA-F]{4,64})$")  # a bare id, or `git describe`'s NAME-N-gID
_RANGE = re.compile(r"\.\.\.?")
_SUFFIX = re.compile(r"[~^@]")
# revision options whose value is the next word (`-n 1000`, `--author dead`): not a revision
_WITH_VALUE = frozenset({
    "-n", "--max-count", "--skip", "--author", "--committer", "--grep", "--since", "--until", "--after",
    "--before", "--max-age", "--min-age",
})
_NAMES_ELSEWHERE = ("--stdin", "--batch", "--alternate-refs")


def unreached_object(words: Sequence[Word], history: History) -> str | None:
    """Why ``git …`` may print an object the listing did not reach, or None."""
    _options, i = git_global_options(words)
    takes_value = False
    for word in words[i + 1:]:
        value = word.literal
        if value is None:
            return f"{word.text} names a revision only known at run time"
        if takes_value:
            takes_value = False
            continue
        if value == "--":
            return None
        if value[:1] == "-" and value != "-":
            if value.startswith(_NAMES_ELSEWHERE):
                return f"{value} names objects the command line does not show"
            takes_value = value in _WITH_VALUE
            continue
        for name in object_ids(value):
            if not history.reaches(name):
                return f"{value} names an object that no branch, tag or reflog reaches"
    return None


def object_ids(value: str) -> Iterator[str]:
    """The hex object ids a revision argument names (``a1b2c3d..HEAD``, ``^a1b2``, ``ID:path``)."""
    revision = value.partition(":")[0]
    for part in _RANGE.split(revision):
        base = _SUFFIX.split(part.lstrip("^"), maxsplit=1)[0]
        found = _ID.search(base)
        if found is not None:
            yield found.group(1)


__all__ = ["object_ids", "unreached_object"]
