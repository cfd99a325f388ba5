"""Deny and ask rules past options: ``Bash(docker rm:*)`` also matches ``docker --context x rm c``.

A rule's words are matched against the command's text from its start, so an option before a
subcommand (``npm --loglevel silent publish``, ``kubectl -n prod delete pod x``,
``aws --profile p s3 rm s3://b``, ``qa -- push``) would slip past a deny rule naming the
subcommand.  For deny and ask rules whose specifier is plain words (a prefix rule such as
``docker rm:*``, or an exact one), the command's words are matched again with options skipped
between them: each option a flag, or an option with one value (its width is not known, so
both readings are tried).  Any reading that matches counts, so this can only deny or ask
more, never allow more; allow rules never skip anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_rules import BashPattern
from .bash_words import Word
from .git_words import git_global_options

_SPECIAL = frozenset("'\"\\*$`")
Skips = dict[str, tuple[tuple[str, tuple[str, ...], bool], ...]]  # program → (rule, words, prefix)
MAYBE = "maybe"


def skip_rules(patterns: Sequence[tuple[str, BashPattern]]) -> Skips:
    """The rules of ``patterns`` worth matching past options, by their program word."""
    found: dict[str, list[tuple[str, tuple[str, ...], bool]]] = {}
    for rule, pattern in patterns:
        if pattern.regex is not None:
            continue
        words = tuple(pattern.head.split(" "))
        if len(words) < 2 or any(not w or _SPECIAL.intersection(w) for w in words):
            continue
        found.setdefault(words[0], []).append((rule, words, pattern.prefix))
    return {program: tuple(rules) for program, rules in found.items()}


def skipping_match(form: tuple[Word, ...], skips: Skips) -> tuple[str, bool] | None:
    """The first rule of ``skips`` that ``form`` matches with options skipped: ``(rule, True)``;
    ``(rule, False)`` when it may match (a word known only at run time); else None."""
    rules = skips.get(form[0].literal or "") if form else None
    if not rules:
        return None
    has_option = _has_option(form)
    maybe = None
    for rule, words, prefix in rules:
        if prefix and any(w[:1] == "-" and w != "-" for w in words[1:]):
            verdict = _option_match(form, words)  # git push origin +main: no option word, a forced push
        elif has_option:
            verdict = _match(form, words, prefix)
        else:
            continue
        if verdict is True:
            return rule, True
        if verdict == MAYBE and maybe is None:
            maybe = rule
    return (maybe, False) if maybe is not None else None


# git's own commands (2.39's builtins and main commands, and later ones); any other word is an
# alias from git's settings or a git-<word> program, which may run what a rule names
GIT_COMMANDS = frozenset(["add", "am", "annotate", "apply", "archimport", "archive", "backfill", "bisect", "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential", "credential-cache", "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help", "hook", "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init", "init-db", "instaweb", "interpret-trailers", "last-modified", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-octopus", "merge-one-file", "merge-ours", "merge-recursive", "merge-recursive-ours", "merge-recursive-theirs", "merge-resolve", "merge-subtree", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects", "pack-redundant", "pack-refs", "patch-id", "pickaxe", "prune", "prune-packed", "pull", "push", "quiltimport", "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs", "remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps", "remote-http", "remote-https", "repack", "replace", "replay", "repo", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "send-pack", "shell", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule", "subtree", "svn", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree", "write-tree"])


def git_alias_rule(form: tuple[Word, ...], skips: Skips) -> str | None:
    """A git rule (``Bash(git push:*)``) that ``git <word>`` may match through an alias: the
    word is no git command, so git runs the alias its settings name, or a ``git-<word>``."""
    rules = skips.get("git")
    if not rules or not form or form[0].literal != "git":
        return None
    _options, i = git_global_options(form)
    word = form[i].literal if i < len(form) else None
    if word is None or word in GIT_COMMANDS:
        return None
    return rules[0][0]


# Options that mean the same to a program: a deny rule naming one (`Bash(git push --force:*)`,
# `Bash(rm -rf:*)`) also matches the others, in any order and cluster (`git push origin main -f`,
# `rm -r -f x`, `rm --recursive --force x`).  "+" stands for an operand starting with `+`: a
# refspec git pushes by force (`git push origin +main`).
_SAME: dict[str, tuple[frozenset[str], ...]] = {
    "rm": (frozenset({"-r", "-R", "--recursive"}), frozenset({"-f", "--force"})),
    "cp": (frozenset({"-r", "-R", "--recursive"}), frozenset({"-f", "--force"})),
    "mv": (frozenset({"-f", "--force"}),),
    "chmod": (frozenset({"-R", "--recursive"}),),
    "chown": (frozenset({"-R", "--recursive"}),),
    "chgrp": (frozenset({"-R", "--recursive"}),),
    "git push": (frozenset({"-f", "--force", "--force-with-lease", "--force-if-includes", "+"}),
                 frozenset({"-d", "--delete"}), frozenset({"--mirror"})),
    "git clean": (frozenset({"-f", "--force"}), frozenset({"-n", "--dry-run"})),
    "git checkout": (frozenset({"-f", "--force"}),),
    "git switch": (frozenset({"-f", "--force", "--discard-changes"}),),
    "git branch": (frozenset({"-d", "--delete", "-D"}), frozenset({"-f", "--force", "-D"})),
    "git commit": (frozenset({"-n", "--no-verify"}), frozenset({"-a", "--all"})),
    "git stash": (frozenset({"-u", "--include-untracked"}), frozenset({"-a", "--all"})),
    "docker rm": (frozenset({"-f", "--force"}),),
    "docker rmi": (frozenset({"-f", "--force"}),),
    "npm install": (frozenset({"-g", "--global"}),),
    "pip install": (frozenset({"-U", "--upgrade"}),),
}
# an option that is two of the others at once: git branch -D is --delete --force
_BOTH = {("git branch", "-D"): ("-d", "-f")}


def _option_match(form: tuple[Word, ...], words: tuple[str, ...]) -> bool | str:
    """A prefix rule with options (``rm -rf``, ``git push --force``): its other words in order
    with options between (as ``_match``), and each of its options anywhere before ``--``, in any
    cluster or spelling ``_SAME`` gives (a long option also by an abbreviation git or getopt
    takes: ``--forc``).  Matching more than the text does can only deny or ask more."""
    path = tuple(w for w in words if w[:1] != "-" or w == "-")
    found = _match(form, path, True) if len(path) > 1 else True  # the program: skipping_match chose by it
    if found is False:
        return False
    same = _SAME.get(" ".join(path), ())
    maybe = found == MAYBE
    for option in (w for w in words[1:] if w[:1] == "-" and w != "-"):
        atoms = [option] if option[:2] == "--" or "=" in option else [f"-{c}" for c in option[1:]]
        atoms = [part for atom in atoms for part in _BOTH.get((" ".join(path), atom), (atom,))]
        for atom in atoms:
            spellings = next((group for group in same if atom in group), frozenset({atom}))
            present = _present(form, spellings)
            if present is False:
                return False
            maybe = maybe or present == MAYBE
    return MAYBE if maybe else True


def _present(form: tuple[Word, ...], spellings: frozenset[str]) -> bool | str:
    """Is one of ``spellings`` among ``form``'s words (before ``--``)?"""
    maybe = False
    for word in form[1:]:
        text = word.literal
        if text is None:
            maybe = True
            continue
        if text == "--":
            break
        for spelling in spellings:
            if spelling == "+":
                if text[:1] == "+" and len(text) > 1:
                    return True
            elif spelling[:2] == "--":
                name = text.partition("=")[0]
                if text == spelling or name == spelling or len(name) > 3 and spelling.startswith(name):
                    return True
            elif text[:1] == "-" and text[1:2] not in ("-", "") and spelling[1] in text[1:]:
                return True  # -rf, -fr, -r -f: a letter of a cluster (or of its value: asks more)
    return MAYBE if maybe else False


def _has_option(form: tuple[Word, ...]) -> bool:
    for word in form[1:]:
        text = word.literal
        if text is None or text[:1] == "-":
            return True
    return False


def _match(form: tuple[Word, ...], words: tuple[str, ...], prefix: bool) -> bool | str:
    """Do ``form``'s words from index 1 read ``words[1:]`` with only options between them?"""
    end = len(form)
    need = len(words)
    maybe = False
    seen: set[tuple[int, int]] = set()
    todo = [(1, 1)]  # (index in form, index in words)
    while todo:
        j, i = todo.pop()
        if i == need:
            if prefix or j == end:
                return True
            continue
        if j >= end or (j, i) in seen:
            continue
        seen.add((j, i))
        text = form[j].literal
        if text is None:  # only known at run time: it may be the word, or an option
            maybe = True
            continue
        if text == words[i]:
            todo.append((j + 1, i + 1))
        if text[:1] == "-" and text != "-":
            todo.append((j + 1, i))
            if "=" not in text and text != "--":
                todo.append((j + 2, i))
    return MAYBE if maybe else False
