"""git commands that overwrite or delete working-tree files no argument names.

``git reset --hard``, ``git checkout .``, ``git restore .``, ``git stash`` and ``git checkout -f``
throw away local changes — to ``.claude/settings.json`` too, where you may just have added a
deny rule — and ``git clean -fdx`` or ``git stash -u`` delete untracked files such as
``.claude/settings.local.json`` (where *Always allow* and the card's choices are saved).  A rule
such as ``Bash(git:*)`` allows git, not undoing your settings by proxy, and bypassPermissions
still asks before protected paths change.  So, whatever rule or mode allows the command:

- discarding changes asks when a protected path it covers (``.claude/``, ``.vscode/``,
  ``.mcp.json``, ``.pre-commit-config.yaml`` … anywhere in the tree) differs from what the index
  recorded — missing, another size or time (git's own test; a file changed in the same instant
  as the index counts as changed) — and for one not tracked when untracked files go too (those
  git ignores only with ``clean -x|-X`` or ``stash -a``: ``.gitignore`` files and
  ``info/exclude`` are read as ``git_staging`` reads them);
- going back to another revision (``git reset --hard HEAD~1``, ``git checkout v1 -- .``,
  ``git restore --source=v1 .``, ``git checkout -f evil``) asks when a protected path it covers
  is tracked or appears in the listed history (``git_history``): its content may be older, or
  another branch's; a commit named by an id no ref reaches asks too;
- ``git clean`` (not ``-n``) asks when it may remove a protected path that is not tracked (and,
  without ``-x``/``-X``, not ignored; with ``-X``, ignored).

Files an ``Edit`` deny or ask rule covers count as protected for all three (``git checkout .``
would undo the changes in ``locked/`` under ``Edit(./locked/**)``, and ``git clean -fd`` delete
the new files there), and so do files a ``Read`` deny rule covers, which it keeps from being
written too (``git checkout evil -- .`` replaced ``.env`` with the branch's).

- switching branches, merging, cherry-picking, rebasing and reverting (``git checkout BRANCH``,
  ``git switch``, ``git merge`` …) bring another revision's files: they ask when a protected
  path — or one an Edit rule covers — is tracked or appears anywhere in the listed history
  (``git_history``; a branch's ``.claude/settings.json`` would replace yours); ``git pull``
  asks always (what it fetches is not known before it runs), and so does a line that fetches
  (``brings_commits``) and writes another revision's files.

- ``git checkout -b|-B|--orphan NEW START`` is a switch to START; ``git switch --orphan``
  removes every tracked file; ``git checkout-index`` without ``-f`` writes only missing files.
- a line that changes the index or HEAD without writing files (``git reset --soft evil``,
  ``read-tree``, ``update-ref`` …: ``changes_basis``) and writes or removes files from them
  (``git reset --hard``, ``checkout -- .``, ``checkout-index -a``, ``clean``) asks, in either
  order, when a guarded path the writer covers is tracked or in the listed history.

Local changes are left to git, which refuses to overwrite them on a switch or merge.  An index
this reader cannot read, and a history not listed (yet), ask.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from .bash_git import git_folder, top_level
from .bash_words import Word, long_option_named
from .compiled import PathScope, first_match
from .git_history import UNLISTED, History, listed_history
from .git_index import git_dir, tracked_paths, tracked_stamps
from .git_objects import unreached_object
from .git_staging import ignored_by_git
from .git_words import git_global_options
from .paths import PROTECTED_BELOW, PROTECTED_DIRS, PROTECTED_FILES

_HEAD = frozenset({"HEAD", "@"})


def protected_name(path: str) -> bool:
    """Does the tracked path ``path`` (``/``-separated) lie in or name a protected folder or file?"""
    parts = path.lower().split("/")
    return (parts[-1] in PROTECTED_FILES or any(part in PROTECTED_DIRS for part in parts)
            or any(parts[i + 1] in PROTECTED_BELOW.get(part, ()) for i, part in enumerate(parts[:-1])))


class _Effect:
    """What a git command does to the working tree: which pathspecs (None: all of it), and
    whether it discards local changes, goes to another revision, or removes untracked files."""

    __slots__ = ("discards", "head", "history", "ignored", "missing", "moves", "pathspecs", "removes", "untracked")

    def __init__(self) -> None:
        self.discards = False
        self.missing = False  # it writes only files that are not there (checkout-index without -f)
        # it writes HEAD's version (reset --hard, stash, checkout -f): staged changes go too
        self.head = False
        # the command, when it deletes the tracked files it covers from the working tree (git rm;
        # git sparse-checkout set: those its patterns leave out, any of them)
        self.removes = ""
        self.history = False
        self.moves = False  # brings another revision's files (a switch, merge, pull …)
        self.untracked = False
        # which untracked files go: "no" (those git ignores stay: clean, stash -u), "only"
        # (clean -X), "too" (clean -x, stash -a)
        self.ignored = "no"
        self.pathspecs: list[str] | None = None


def _moving() -> _Effect:
    effect = _Effect()
    effect.moves = True
    return effect


def _discarding(history: bool) -> _Effect:
    effect = _Effect()
    effect.discards = True
    effect.history = history
    effect.head = not history
    return effect


def _branch_values(options: list[str]) -> int:
    """How many operands the new-branch options among ``options`` take as their values: ``-b
    NEW``, ``-fB NEW`` and ``--orphan NEW`` one each; ``-bNEW`` and ``--orphan=NEW`` none."""
    taken = 0
    for option in options:
        if option[:2] == "--":
            taken += long_option_named(option, ("--orphan",)) == "--orphan"
        else:
            letter = next((i for i, c in enumerate(option[1:], 1) if c in "bB"), None)
            taken += letter == len(option) - 1
    return taken


def worktree_effect(words: Sequence[Word], cwd: str) -> _Effect | str | None:
    """What ``git …`` would do to tracked or untracked files; a reason to ask when that cannot be
    told (a word only known at run time); None when it leaves the working tree alone."""
    _options, i = git_global_options(words)
    if i >= len(words):
        return None
    sub = words[i].literal
    args = list(words[i + 1:])
    if sub not in _SUBCOMMANDS:
        return None
    if any(w.literal is None for w in args):
        return f"git {sub} has a word only known at run time, so the files it overwrites are unknown"
    texts = _listed_pathspecs([w.literal or "" for w in args])
    return _SUBCOMMANDS[sub](texts, cwd)


def _listed_pathspecs(texts: list[str]) -> list[str]:
    """``--pathspec-from-file=F`` (``F``: ``-`` for standard input) names the pathspecs in a file,
    only known at run time: read as ``-- .`` (all of the tree), which covers whatever it lists
    (git refuses pathspecs given beside it)."""
    out: list[str] = []
    found = False
    i = 0
    while i < len(texts):
        text = texts[i]
        i += 1
        if text == "--":
            out.extend(texts[i - 1:])
            break
        key, eq, _value = text.partition("=")
        if key[:2] == "--" and long_option_named(key, _PATHSPEC_OPTIONS) == "--pathspec-from-file":
            found = True
            i += 0 if eq else 1  # its value: the next word
            continue
        out.append(text)
    if found:
        out.extend(("--", ".") if "--" not in out else (".",))
    return out


_PATHSPEC_OPTIONS = ("--pathspec-from-file", "--pathspec-file-nul")


def _split(texts: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``(options, operands before --, operands after --)``."""
    options: list[str] = []
    before: list[str] = []
    after: list[str] = []
    dashed = False
    for text in texts:
        if dashed:
            after.append(text)
        elif text == "--":
            dashed = True
        elif text[:1] == "-" and text != "-":
            options.append(text)
        else:
            before.append(text)
    return options, before, after


def _has(options: list[str], *names: str, letters: str = "") -> bool:
    """Is one of ``names`` (or a short ``letters`` flag) among ``options``?  git takes any unique
    beginning of a long option (``git reset --har`` is ``--hard``): a beginning of one of
    ``names`` counts (were it another option's too, git would refuse the command)."""
    for option in options:
        if long_option_named(option.partition("=")[0], names) is not None:
            return True
        if letters and option[:2] != "--" and any(c in option[1:] for c in letters):
            return True
    return False


def _reset(texts: list[str], cwd: str) -> _Effect | None:
    options, before, after = _split(texts)
    if not _has(options, "--hard", "--merge", "--keep"):
        return None  # the index and HEAD only
    effect = _Effect()
    effect.discards = True
    effect.history = bool(before) and before[0] not in _HEAD
    effect.head = not effect.history
    if after or before[1:]:
        effect.pathspecs = after or before[1:]
    return effect


def _checkout(texts: list[str], cwd: str) -> _Effect | None:
    options, before, after = _split(texts)
    force = _has(options, "--force", letters="f")
    if _has(options, "--orphan", letters="bB") and not after:
        # checkout -b|-B|--orphan NEW [START]: a new branch, here or at START, whose files it
        # checks out as ``checkout START`` would (--orphan too: "as if you had run checkout START")
        start = before[_branch_values(options):]
        if not start or start[0] in _HEAD:
            return None if not force else _discarding(history=False)
        return _moving() if not force else _discarding(history=True)
    effect = _Effect()
    effect.discards = True
    if after or len(before) > 1:  # checkout [REV] -- PATHS, checkout REV PATHS
        revision = before[0] if before and (after or len(before) > 1) else None
        effect.history = revision is not None and revision not in _HEAD
        effect.head = revision is not None and revision in _HEAD
        effect.pathspecs = after or before[1:]
        return effect
    if before and (before[0] == "." or os.path.lexists(os.path.join(cwd, before[0]))):
        effect.pathspecs = before  # checkout PATH: from the index
        return effect
    if force:  # checkout -f [BRANCH]: discards every local change
        effect.history = bool(before) and before[0] not in _HEAD
        effect.head = not effect.history
        return effect
    if _has(options, letters="bB") and not before[1:]:
        return None  # checkout -b NEW: a new branch where HEAD is
    return _moving() if before and before[0] not in _HEAD else None  # checkout BRANCH (or - , the last one)


def _switch(texts: list[str], cwd: str) -> _Effect | None:
    options, before, _after = _split(texts)
    if _has(options, "--orphan"):  # an empty branch: every tracked file leaves the working tree
        effect = _Effect()
        effect.removes = "git switch --orphan"
        return effect
    if not _has(options, "--force", "--discard-changes", letters="f"):
        creates = _has(options, "--create", "--force-create", letters="cC")
        return _moving() if before[creates:] else None  # switch BRANCH, switch -c NEW START
    return _discarding(history=bool(before))


def _restore(texts: list[str], cwd: str) -> _Effect | None:
    options, before, after = _split(texts)
    if _has(options, "--staged", letters="S") and not _has(options, "--worktree", letters="W"):
        return None  # the index only
    effect = _Effect()
    effect.discards = True
    source = [o for o in options if o.startswith("-s") or (o[:3] == "--s" and "--source".startswith(o.partition("=")[0]))]
    effect.history = bool(source) and not any(o.endswith(("=HEAD", "=@")) or o in ("-sHEAD", "-s@") for o in source)
    if "-s" in options or any(o[:3] == "--s" and "=" not in o for o in source):  # the value is the next word
        effect.history = before[0] not in _HEAD if before else True
        before = before[1:]
    effect.head = bool(source) and not effect.history
    effect.pathspecs = (before + after) or None
    return effect


def _stash(texts: list[str], cwd: str) -> _Effect | None:
    action = texts[0] if texts and texts[0][:1] != "-" else "push"
    if action in ("pop", "apply", "branch"):
        return _moving()  # a stash's files (git refuses to overwrite local changes)
    if action not in ("push", "save"):
        return None  # list/show/drop touch nothing
    rest = texts[1:] if texts and texts[0] == action else texts
    options, before, after = _split(rest)
    effect = _Effect()
    effect.discards = True
    effect.head = True
    effect.untracked = _has(options, "--include-untracked", "--all", letters="ua")
    effect.ignored = "too" if _has(options, "--all", letters="a") else "no"
    if action == "push" and (after or before):
        effect.pathspecs = after or before
    return effect


def _rm(texts: list[str], cwd: str) -> _Effect | None:
    """git rm deletes the tracked files its pathspecs cover (``.``, ``*.json``, ``:/`` …) from
    the working tree too (not ``--cached``, not ``-n``)."""
    options, before, after = _split(texts)
    if _has(options, "--cached", "--dry-run", letters="n"):
        return None
    effect = _Effect()
    effect.removes = "git rm"
    effect.pathspecs = (before + after) or None
    return effect


def _clean(texts: list[str], cwd: str) -> _Effect | None:
    options, before, after = _split(texts)
    if _has(options, "--dry-run", letters="n"):
        return None
    effect = _Effect()
    effect.untracked = True
    effect.ignored = "too" if _has(options, letters="x") else "only" if _has(options, letters="X") else "no"
    effect.pathspecs = (before + after) or None
    return effect


def _read_tree(texts: list[str], cwd: str) -> _Effect | None:
    options, before, _after = _split(texts)
    if "-u" not in options:
        return None
    return _discarding(history=any(b not in _HEAD for b in before))


def _checkout_index(texts: list[str], cwd: str) -> _Effect | None:
    """checkout-index writes the index's version of the files it names (or all, ``-a``): with
    ``-f`` over those there, without it only where one is missing."""
    options, before, after = _split(texts)
    effect = _Effect()
    effect.discards = True
    effect.missing = not _has(options, "--force", letters="f")
    effect.pathspecs = None if _has(options, "--all", letters="a") or "--stdin" in options else (before + after)
    return effect


def _brings(texts: list[str], cwd: str) -> _Effect | None:
    """merge, cherry-pick, rebase, revert: another revision's files (not ``--abort``)."""
    options, _before, _after = _split(texts)
    if _has(options, "--abort", "--quit", "-h", "--help"):
        return None
    return _moving()


def _rewrites(texts: list[str], cwd: str) -> _Effect | None:
    """git filter-repo / filter-branch rewrite the history and check the result out (not a dry run)."""
    options, _before, _after = _split(texts)
    if _has(options, "--analyze", "--dry-run", "-h", "--help"):
        return None
    return _moving()


def _bisect(texts: list[str], cwd: str) -> _Effect | None:
    """git bisect start|good|bad|skip|reset|run …: checks out revision after revision."""
    if texts and texts[0] in ("log", "view", "visualize", "terms", "help"):
        return None
    return _moving()


def _sparse_checkout(texts: list[str], cwd: str) -> _Effect | None:
    """git sparse-checkout set|init|reapply removes the tracked files its patterns leave out."""
    if not texts or texts[0] not in ("set", "init", "reapply"):
        return None  # list, add (brings more back), disable, check-rules
    effect = _Effect()
    effect.removes = "git sparse-checkout"
    return effect


def _pull(texts: list[str], cwd: str) -> _Effect | str | None:
    options, before, _after = _split(texts)
    if _has(options, "-h", "--help"):
        return None
    source = before[0] if before else None
    if source is not None and ("/" in source or ":" in source or source.startswith(".")
                               or os.path.isdir(os.path.join(cwd, source))):
        return (f"git pull {source} brings commits from a repository named on the command line, which may "
                "change protected files")
    # from a configured remote too: what it fetches is not listed before it runs (`git pull`
    # brought a remote's .claude/settings.json in bypassPermissions)
    return (f"git pull fetches commits from {source or 'the remote'} that are not known before it runs, and "
            "merges them: they may change protected files (.claude/, .vscode/, .mcp.json …); `git fetch` "
            "first, then `git merge` in a call of its own, is checked against the fetched commits")


_SUBCOMMANDS: dict[str, Callable[[list[str], str], _Effect | str | None]] = {
    "reset": _reset, "checkout": _checkout, "switch": _switch, "restore": _restore, "stash": _stash,
    "clean": _clean, "rm": _rm, "read-tree": _read_tree, "checkout-index": _checkout_index,
    "merge": _brings, "cherry-pick": _brings, "rebase": _brings, "revert": _brings, "pull": _pull,
    "filter-repo": _rewrites, "filter-branch": _rewrites, "sparse-checkout": _sparse_checkout, "bisect": _bisect,
}


# git commands that change the index or what HEAD names and leave the working tree as it is
_BASIS_CHANGERS = frozenset({"reset", "read-tree", "update-index", "update-ref", "symbolic-ref", "replace",
                             "fast-import"})


def changes_basis(words: Sequence[Word]) -> bool:
    """Does ``git …`` change the index or what HEAD names without writing the working tree
    (``git reset --soft REV``, ``read-tree REV``, ``update-ref``, ``symbolic-ref HEAD``,
    ``replace``, ``rm --cached``, ``apply --cached``, ``fetch --update-head-ok`` …)?  Then
    another command of the line that writes files from the index or HEAD (``checkout -- .``,
    ``reset --hard``, ``checkout-index -a``, ``clean``) may write another revision's files."""
    _options, i = git_global_options(words)
    if i >= len(words):
        return False
    sub = words[i].literal
    if sub is None:
        return True
    if sub in _BASIS_CHANGERS:
        return True
    if sub not in ("rm", "apply", "fetch"):
        return False
    options = _split([w.literal or "" for w in words[i + 1:]])[0]
    if sub == "rm" or sub == "apply":
        return _has(options, "--cached", "--index")
    if sub == "fetch":
        return _has(options, "--update-head-ok", letters="u")
    return False


_BRINGERS = frozenset({"fetch", "remote", "bundle", "fast-import", "svn", "p4", "fetch-pack"})


def brings_commits(words: Sequence[Word]) -> bool:
    """Does ``git …`` bring commits the history listing made before the line ran cannot hold
    (``git fetch [REMOTE [SRC:DST]]``, ``git remote update``, ``git remote add -f``,
    ``git bundle unbundle``, ``git fast-import``, ``git svn|p4``)?  A command of the same line
    that writes files from a revision may then write theirs."""
    _options, i = git_global_options(words)
    if i >= len(words):
        return False
    sub = words[i].literal
    if sub is None:
        return True
    if sub not in _BRINGERS:
        return False
    texts = [w.literal or "" for w in words[i + 1:]]
    options = _split(texts)[0]
    if sub == "fetch":
        return not _has(options, "--dry-run", "-h", "--help")
    if sub == "remote":
        action = next((t for t in texts if t[:1] != "-"), "")
        return action == "update" or (action == "add" and _has(options, "--fetch", letters="f"))
    if sub == "bundle":
        return bool(texts) and texts[0] == "unbundle"
    return sub in ("fast-import", "svn", "p4", "fetch-pack")


def writes_worktree(words: Sequence[Word], cwds: Sequence[str]) -> str:
    """Does ``git …`` write or remove working-tree files (run in one of ``cwds``)?  ``"revision"``
    when it writes another revision's (a switch, a merge, ``reset --hard REV``), ``"here"`` when
    the index's or HEAD's, ``""`` when it writes none."""
    _options, i = git_global_options(words)
    if i >= len(words) or (words[i].literal is not None and words[i].literal not in _SUBCOMMANDS):
        return ""  # (most git commands: status, diff, log, add, commit …)
    found = ""
    for cwd in cwds:
        folder = git_folder(words, cwd)[0]
        effect = worktree_effect(words, folder) if folder is not None else None
        if isinstance(effect, _Effect):
            if effect.moves or effect.history:
                return "revision"
            found = "here"
    return found


def worktree_problem(
    words: Sequence[Word], cwd: str, scope: PathScope | None = None, changers: Sequence[Sequence[Word]] = ()
) -> str | None:
    """Why ``git …`` run in the real folder ``cwd`` must ask: it would overwrite or delete a
    protected path, or a file an ``Edit`` deny or ask rule covers (``scope``'s; see the module
    docstring); None when it would not.

    With ``changers`` (other git commands of the line that ``changes_basis``), only what those
    may do to it is checked: the index or HEAD it writes from may be another revision's, so any
    guarded path it covers that is tracked or in the listed history may come back or go, and a
    changer naming an object no ref reaches brings files nobody listed."""
    folder = git_folder(words, cwd)[0]
    if folder is None:
        return None  # (git -C with a folder only known at run time asks already)
    effect = worktree_effect(words, folder)
    if effect is None or isinstance(effect, str):
        return effect
    top = top_level(folder)
    repo = git_dir(top)
    if repo is None:
        return None  # not a repository: git fails
    prefix = os.path.relpath(folder, top).replace(os.sep, "/")
    prefix = "" if prefix == "." else prefix + "/"
    found = [] if effect.pathspecs is None else [_in_repo(prefix, p) for p in effect.pathspecs]
    # a pattern or a path outside (None) covers all of it, as do no pathspecs
    scopes = None if effect.pathspecs is None or None in found else [f for f in found if f is not None]
    covered = _covered(scopes, prefix if effect.pathspecs is None and _limited_to_cwd(words) else "")
    edit = scope.edit_rules if scope is not None else ()
    read = scope.read_deny if scope is not None else ()

    def guarded(path: str) -> str | None:
        """Why overwriting the tracked ``path`` matters: protected, or an Edit rule covers it, or
        a Read deny rule (which blocks writing too: ``git checkout evil -- .`` replaced ``.env``)."""
        if protected_name(path):
            return "a protected path"
        if edit or read:
            full = os.path.join(top, path)
            rule = first_match(edit, full, full) if edit else None
            if rule is not None:
                return f"which the rule {rule} covers"
            rule = first_match(read, full, full) if read else None
            if rule is not None:
                return f"which the rule {rule} denies reading (and so writing)"
        return None

    def held_problem(named: Sequence[Word], does: str, then: str) -> str | None:
        """Why a guarded path the command covers, tracked or in the history (``_guarded_path``),
        makes it ask: what the command ``does``, the path, and what ``then`` may happen to it."""
        held = _guarded_path(repo, lambda p: guarded(p) if covered(p) else None, named)
        if held is None or isinstance(held, str):
            return held
        path, reason = held
        return f"{does}, and {path}, {reason}, is tracked or changed in the history: {then}"

    if changers:
        for changer in changers:
            why = held_problem(changer, f"{spelled(changer)} in the same line changes the index or HEAD it works "
                               "from", "another version of it may be written, or it may be removed")
            if why is not None:
                return why
        return None
    if effect.moves:
        return _moved_problem(repo, guarded, words)
    if effect.removes:
        paths = tracked_paths(repo)
        if paths is None:
            return "git's index cannot be read, so whether this removes a protected path is unknown"
        for path in paths:
            why = guarded(path) if covered(path) else None
            if why is not None:
                return f"{effect.removes} may remove the tracked {path}, {why}, from the working tree"
        return None
    if effect.history:  # any guarded path it covers, tracked here or held by another revision
        why = held_problem(words, "it checks out another revision's files over the ones here",
                           "another version of it may replace the one here (and local changes to it are lost)")
        if why is not None:
            return why
    elif effect.discards:
        ids: dict[str, str] | None = {} if effect.head else None
        stamps = tracked_stamps(repo, lambda p: covered(p) and guarded(p) is not None, ids)
        if stamps is None:
            return "git's index cannot be read, so whether this overwrites a protected path is unknown"
        entries, index_time = stamps
        for path, stamp in entries.items():
            full = os.path.join(top, path)
            if effect.missing and not os.path.lexists(full):
                return f"it writes {path}, {guarded(path)}, back from the index"
            if not effect.missing and _changed(full, stamp, index_time):
                return f"it throws away the changes to {path}, {guarded(path)}"
        staged = _staged_problem(repo, ids, guarded) if ids else None
        if staged is not None:
            return staged
    if effect.untracked:
        return _untracked_problem(top, repo, covered, guarded, effect.ignored)
    return None


def _staged_problem(repo: str, ids: dict[str, str], guarded: Callable[[str], str | None]) -> str | None:
    """Writing HEAD's version (``reset --hard``, ``stash``, ``checkout -f``) also throws away
    what was staged: a guarded path whose index entry is not HEAD's (``git add`` of an edited
    ``.claude/settings.json``; the file then matches the index) asks.  HEAD's ids come with the
    history listing."""
    history = listed_history(repo)
    if history is UNLISTED:
        return f"git's history in {repo} has not been listed yet"
    if not isinstance(history, History):
        return f"git's history in {repo} could not be listed, so whether staged changes are lost is unknown"
    for path, oid in ids.items():
        if history.head.get(path) != oid:
            return f"it throws away the staged changes to {path}, {guarded(path)}"
    return None


def _moved_problem(repo: str, guarded: Callable[[str], str | None], words: Sequence[Word]) -> str | None:
    """A switch, merge or pull brings another revision's files: any guarded path tracked now or
    changed by a commit the history reaches may be replaced by another version (or added)."""
    found = _guarded_path(repo, guarded, words)
    if found is None or isinstance(found, str):
        return found
    path, why = found
    return (f"it brings another revision's files, and {path}, {why}, is tracked or changed in the "
            f"history: another version of it may replace the one here")


def _guarded_path(
    repo: str, guarded: Callable[[str], str | None], words: Sequence[Word]
) -> tuple[str, str] | str | None:
    """The first path tracked now or changed anywhere in the listed history that ``guarded``
    gives a reason for, with that reason; a reason to ask when the index or the history is
    unknown, or when ``words`` name a commit the listing did not reach (fetched without a ref);
    None when no such path exists.  A revision the listing reached (a branch, a tag, an old
    commit, FETCH_HEAD) holds only paths some reached commit added, so a file it would bring is
    among them."""
    paths = tracked_paths(repo)
    if paths is None:
        return "git's index cannot be read, so whether this brings another protected file is unknown"
    history = listed_history(repo)
    if history is UNLISTED:
        return f"git's history in {repo} has not been listed yet"
    if not isinstance(history, History):
        return f"git's history in {repo} could not be listed, so the files another revision holds are unknown"
    for path in (*paths, *history.paths):
        why = guarded(path)
        if why is not None:
            return path, why
    unreached = unreached_object(words, history)
    return None if unreached is None else f"{unreached}, so the files it brings are unknown"


def spelled(words: Sequence[Word]) -> str:
    """A command's words as written, cut to 60 characters."""
    text = " ".join(w.text for w in words)
    return text if len(text) <= 60 else text[:57] + "..."


def _limited_to_cwd(words: Sequence[Word]) -> bool:
    """git clean works below the current folder (not the whole tree) without pathspecs."""
    _options, i = git_global_options(words)
    return i < len(words) and words[i].literal == "clean"


def _in_repo(prefix: str, pathspec: str) -> str | None:
    """A plain pathspec as a path from the top (``""``: the whole tree); None for magic, a
    pattern or a path leading out."""
    if pathspec[:1] == ":" or any(c in pathspec for c in "*?[\\"):
        return None
    joined = os.path.normpath(prefix + pathspec).replace(os.sep, "/")
    if joined == ".":
        return ""
    if joined.startswith("../") or joined == ".." or joined.startswith("/"):
        return None
    return joined


def _covered(scopes: list[str] | None, below: str) -> Callable[[str], bool]:
    def covered(path: str) -> bool:
        if below and not path.startswith(below):
            return False
        if scopes is None:
            return True
        return any(s == "" or path == s or path.startswith(s.rstrip("/") + "/") for s in scopes)

    return covered


def _changed(path: str, stamp: tuple[int, int, int], index_time: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return True  # gone: it would be written back
    seconds, nanoseconds, size = stamp
    if (st.st_size & 0xFFFFFFFF) != size or st.st_mtime_ns // 10**9 != seconds:
        return True
    if st.st_mtime_ns % 10**9 != nanoseconds:
        return True
    return st.st_mtime_ns >= index_time  # racily clean: git would compare contents


def _holds_files(folder: str) -> bool:
    return any(files for _folder, _dirs, files in os.walk(folder))


def _untracked_problem(
    top: str, repo: str, covered: Callable[[str], bool], guarded: Callable[[str], str | None], ignored: str
) -> str | None:
    """Why removing untracked files would touch a guarded path: one in the tree (walked, up to
    20,000 files) that git does not track and that is protected or an Edit rule covers, or a
    protected folder holding none it tracks.  ``ignored`` says which of them go: ``"no"``, those
    git does not ignore (``.gitignore`` files and ``info/exclude``, as ``git add`` is read;
    a file only the user's global excludes ignore counts); ``"only"``, the ignored ones;
    ``"too"``, all."""
    paths = tracked_paths(repo)
    if paths is None:
        return "git's index cannot be read, so whether this removes a protected path is unknown"
    tracked = set(paths)

    def goes(path: str) -> bool:
        if ignored == "too":
            return True
        return ignored_by_git(os.path.join(top, path), top, repo, paths) is (ignored == "only")

    seen = 0
    for folder, dirs, files in os.walk(top):
        rel = os.path.relpath(folder, top).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = rel + name
            seen += 1
            if path not in tracked and covered(path):
                why = guarded(path)
                if why is not None and goes(path):
                    return f"it removes {path}, {why}, and git does not track it"
        for name in dirs:
            path = rel + name
            if (name.lower() in PROTECTED_DIRS and covered(path) and not any(t.startswith(path + "/") for t in tracked)
                    and (ignored == "too" or goes(path) and not _holds_files(os.path.join(folder, name)))):
                # (a folder with files goes only when they do: each is looked at on its own)
                return f"it removes {path}/, a protected path git does not track"
        if seen > 20000:
            return "it may remove a protected path among more than 20,000 files (not all were looked at)"
    return None


__all__ = ["brings_commits", "changes_basis", "protected_name", "spelled", "worktree_effect", "worktree_problem", "writes_worktree"]
