"""Which git invocations print (or export) what tracked files contain.

``git diff`` and ``git show`` print patches unless told to print only names or statistics;
``git log``, ``git reflog`` and ``git stash show`` print them once asked to (``-p``);
``git cat-file`` prints objects; ``git archive``, ``format-patch``, ``fast-export``, ``clone``,
``push`` and the like export them (``_EXPORTS``: a ``.env`` added with ``git add -f .`` and
pushed leaves the machine), and so does any command run with its work tree put
elsewhere (``--work-tree``, ``-c core.worktree=``: ``git --work-tree=sub checkout OLD -- .``
writes OLD's ``.env`` as ``sub/.env``); a pickaxe search (``-S``, ``-G``) tells whether a file
ever contained a text, which is enough to recover a secret piece by piece.  Anything not known
to keep contents out counts as printing them (fail closed): an option outside ``_QUIET``, a
patch option, a ``show`` of a named object (it may be a blob)."""

from __future__ import annotations

from collections.abc import Sequence

from .bash_words import Word
from .git_words import git_global_options

# options that print names, statistics or commit data only, or pick which commits / files
_QUIET_EXACT = frozenset({
    "-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status",
    "--summary", "--dirstat", "--raw", "--quiet", "--exit-code", "--oneline", "--graph",
    "--decorate", "--no-decorate", "--all", "--branches", "--tags", "--remotes", "--reverse",
    "--first-parent", "--no-merges", "--merges", "--abbrev-commit", "--no-abbrev-commit",
    "--relative-date", "--color", "--no-color", "--cached", "--staged", "--follow", "--topo-order",
    "--date-order", "--left-right", "--cherry-pick", "--boundary", "--no-renames", "--full-history",
    "--ancestry-path", "-z", "--walk-reflogs", "-g", "--no-walk", "--source", "--parents",
    "--children", "--compact-summary", "--no-ext-diff", "--no-textconv", "-n", "--max-count",
    "--author", "--committer", "--since", "--until", "--after", "--before", "--skip", "--date",
    "--format", "--pretty", "--abbrev", "-M", "-C", "-B", "--find-renames", "--find-copies",
    "--diff-filter", "--grep", "--invert-grep", "--all-match", "-i", "--regexp-ignore-case",
    "--max-parents", "--min-parents", "--not", "--",
})
_QUIET_PREFIXES = (
    "--stat=", "--dirstat=", "--max-count=", "--author=", "--committer=", "--since=", "--until=",
    "--after=", "--before=", "--skip=", "--date=", "--format=", "--pretty=", "--abbrev=",
    "--decorate=", "--find-renames=", "--find-copies=", "--diff-filter=", "--grep=", "--color=",
    "--max-parents=", "--min-parents=",
)
_NO_PATCH = frozenset({
    "-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only", "--name-status",
    "--summary", "--dirstat", "--raw", "--quiet", "--compact-summary",
})
_PATCH_BY_DEFAULT = frozenset({"diff", "show"})
_CAT_FILE_QUIET = frozenset({"-t", "-s", "-e"})
# print or export tracked contents whatever their options (a patch series, a tar, a stream, a
# bundle, a copy of the files elsewhere); none is read-only, but a rule may allow them
_EXPORTS = frozenset({
    "archive", "fast-export", "format-patch", "bundle", "range-diff", "diff-tree", "diff-index",
    "diff-files", "merge-tree", "unpack-file", "checkout-index", "clone", "worktree", "send-email",
    "request-pull", "notes", "read-tree", "push", "send-pack", "subtree", "svn", "p4",
})
# global options that may put the work tree elsewhere (`--work-tree=sub checkout OLD -- .`
# writes OLD's files into sub/), directly or through configuration (`core.worktree`, includes)
_ELSEWHERE = ("--work-tree", "-c", "--config-env")


def shows_contents(words: Sequence[Word]) -> bool:
    """Might ``git …`` (``words[0]`` is git) print the contents of files it tracks?"""
    options, i = git_global_options(words)
    if i >= len(words):
        return False
    sub, rest = words[i].literal, list(words[i + 1:])
    if sub in _EXPORTS or any(name.startswith(_ELSEWHERE) for name, _value in options):
        return True
    if sub == "reflog":  # `git reflog [show]` is `git log -g`: `-p` prints patches
        if rest and rest[0].literal in ("expire", "delete", "exists"):
            return False
        rest = rest[1:] if rest and rest[0].literal == "show" else rest
        sub = "log"
    if sub == "stash":
        if not rest or rest[0].literal != "show":
            return False
        rest = rest[1:]
    elif sub == "cat-file":
        return not (len(rest) == 2 and rest[0].literal in _CAT_FILE_QUIET)  # -t/-s/-e OBJECT
    elif sub not in ("diff", "show", "log", "whatchanged"):
        return False
    options = [w.literal for w in rest if (w.literal or "-")[:1] == "-"]
    if not all(o is not None and _quiet(o) for o in options):
        return True  # a patch option, a pickaxe search, or one this table does not know
    if sub == "show" and any((w.literal or "-")[:1] != "-" for w in rest):
        return True  # `git show <object>`: the object may be a blob
    return sub in _PATCH_BY_DEFAULT and not any(o in _NO_PATCH or o.startswith("--stat=") for o in options)


def reads_history(words: Sequence[Word]) -> bool:
    """Does a ``git …`` that ``shows_contents`` print from commits (not only the work tree and
    the index)?  Everything but a plain ``git diff`` (no revision, no ``--cached``) does; so does
    a ``git diff`` with any operand before ``--`` (it may be a revision)."""
    _options, i = git_global_options(words)
    if i >= len(words) or words[i].literal != "diff":
        return True
    for word in words[i + 1:]:
        value = word.literal
        if value is None or value[:1] != "-" or value == "-":
            return True  # an operand (or a word only known at run time): may be a revision
        if value == "--":
            return False
        if value == "--no-index":
            return False  # files on disk, not a repository
        if value in ("--cached", "--staged") or value.startswith("--merge-base"):
            return True  # the index against HEAD (or a commit)
    return False


def _quiet(option: str) -> bool:
    if option in _QUIET_EXACT or option.startswith(_QUIET_PREFIXES):
        return True
    return option[1:].isdigit() or (option[:2] in ("-n", "-M", "-C", "-B") and option[2:].isdigit())


__all__ = ["reads_history", "shows_contents"]
