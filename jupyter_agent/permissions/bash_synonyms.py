"""Subcommands and programs spelled another way: ``npm pub`` is ``npm publish``, ``docker
container rm`` is ``docker rm``, ``python3.12`` is ``python`` and ``pip3`` is ``pip``.

A deny rule names a subcommand one way (``Bash(npm publish:*)``); the program accepts others:
npm takes aliases (``npm rm`` → uninstall, ``npm run-script`` → run) and any unambiguous
abbreviation of a command or alias (``npm publ``), and docker's management commands repeat the
top-level ones (``docker container rm`` = ``docker rm``, ``docker image rm`` = ``docker rmi``).
``canonical_forms`` gives a command again with its subcommand in the canonical spelling, and
``canonical_rule`` does the same to a rule's words, so deny and ask rules meet on one
spelling.  Allow rules are left as written: a synonym only ever adds a deny or an ask.

git has other commands that push (``git subtree push``, ``git send-pack``, ``git http-push``,
``git svn dcommit``, ``git p4 submit``): ``git_push_forms`` gives them as ``git push`` too, so
``Bash(git push:*)`` in deny holds for them (one way: a rule naming them is not widened).
"""

from __future__ import annotations

from functools import lru_cache

from .bash_words import Word

# npm 11's commands and aliases (lib/utils/cmd-list.js); a unique prefix of either is accepted.
_NPM_COMMANDS = frozenset(["access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe", "deny-scripts", "deprecate", "diff", "dist-tag", "docs", "doctor", "edit", "exec", "explain", "explore", "find-dupes", "fund", "get", "help", "help-search", "init", "install", "install-ci-test", "install-scripts", "install-test", "link", "ll", "login", "logout", "ls", "org", "outdated", "owner", "pack", "ping", "pkg", "prefix", "profile", "prune", "publish", "query", "rebuild", "repo", "restart", "root", "run", "sbom", "search", "set", "shrinkwrap", "stage", "star", "stars", "start", "stop", "team", "test", "token", "trust", "undeprecate", "uninstall", "unpublish", "unstar", "update", "version", "view", "whoami"])
_NPM_ALIASES = {
    "author": "owner", "home": "docs", "issues": "bugs", "info": "view", "show": "view", "find": "search",
    "add": "install", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall", "r": "uninstall",
    "un": "uninstall", "rb": "rebuild", "list": "ls", "ln": "link", "create": "init", "i": "install",
    "it": "install-test", "cit": "install-ci-test", "u": "update", "up": "update", "c": "config",
    "s": "search", "se": "search", "tst": "test", "t": "test", "ddp": "dedupe", "v": "view",
    "run-script": "run", "clean-install": "ci", "clean-install-test": "install-ci-test", "x": "exec",
    "why": "explain", "la": "ll", "verison": "version", "ic": "ci", "innit": "init", "in": "install",
    "ins": "install", "inst": "install", "insta": "install", "instal": "install", "isnt": "install",
    "isnta": "install", "isntal": "install", "isntall": "install", "install-clean": "ci",
    "isntall-clean": "ci", "hlep": "help", "dist-tags": "dist-tag", "upgrade": "update", "udpate": "update",
    "rum": "run", "sit": "install-ci-test", "urn": "run", "ogr": "org", "add-user": "adduser",
}
_NPM_NAMES = tuple(sorted(_NPM_COMMANDS | set(_NPM_ALIASES)))

_DOCKER_CONTAINER = ["attach", "commit", "cp", "create", "diff", "exec", "export", "inspect", "kill", "logs", "pause", "port", "rename", "restart", "rm", "run", "start", "stats", "stop", "top", "unpause", "update", "wait"]
_DOCKER_IMAGE = ["build", "history", "import", "load", "pull", "push", "save", "tag"]
# docker: a management spelling → the top-level one
_DOCKER = {
    **{("container", name): (name,) for name in _DOCKER_CONTAINER},
    **{("image", name): (name,) for name in _DOCKER_IMAGE},
    ("container", "remove"): ("rm",), ("container", "ls"): ("ps",), ("container", "list"): ("ps",),
    ("container", "ps"): ("ps",), ("image", "rm"): ("rmi",), ("image", "remove"): ("rmi",),
    ("image", "ls"): ("images",), ("image", "list"): ("images",), ("builder", "build"): ("build",),
}
# program names for one program: python3.12 and python3 are python, pip3 is pip, nodejs is node,
# jlpm (JupyterLab's own yarn) and yarnpkg are yarn
_VERSIONS = ("3", *(f"3.{minor}" for minor in range(6, 16)))
# GNU tools installed beside a system's own under a g prefix (Homebrew's coreutils, findutils, gnu-sed,
# gnu-tar, make, grep: grm, gtimeout, gxargs, gfind, gmake)
_GNU = ("rm", "cp", "mv", "ln", "install", "chmod", "chown", "chgrp", "dd", "tee", "touch", "truncate", "shred",
        "mkdir", "rmdir", "mknod", "mkfifo", "split", "csplit", "unlink", "link", "kill", "mktemp", "timeout",
        "nice", "nohup", "stdbuf", "env", "chroot", "xargs", "find", "tar", "make", "grep", "egrep", "fgrep",
        "cat", "head", "tail", "sort", "uniq", "wc", "cut", "tr", "ls", "du", "df", "stat", "date", "base64",
        "readlink", "realpath", "od", "paste", "join", "comm", "tac", "shuf", "sha256sum", "md5sum", "printenv")
_PROGRAM_NAMES = {**{f"python{v}": "python" for v in _VERSIONS}, **{f"pip{v}": "pip" for v in _VERSIONS},
                  "nodejs": "node", "jlpm": "yarn", "yarnpkg": "yarn", **{f"g{name}": name for name in _GNU}}
SYNONYM_PROGRAMS = frozenset({"npm", "docker", "podman"}) | frozenset(_PROGRAM_NAMES)
_MANAGEMENT = frozenset(first for first, _second in _DOCKER)


# git commands that push commits to another repository, as git push does
_GIT_PUSHES = frozenset({("send-pack",), ("http-push",), ("subtree", "push"), ("svn", "dcommit"),
                         ("svn", "set-tree"), ("p4", "submit")})
_GIT_PUSH_FIRST = frozenset(path[0] for path in _GIT_PUSHES)


def git_push_forms(bare: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``git subtree push --prefix=x origin main`` as ``git push --prefix=x origin main``;
    ``bare``: a git command without global options."""
    if len(bare) < 2 or bare[1].literal not in _GIT_PUSH_FIRST:
        return []
    for path in _GIT_PUSHES:
        if tuple(w.literal for w in bare[1:1 + len(path)]) == path:
            return [(bare[0], Word("push"), *bare[1 + len(path):])]
    return []


@lru_cache(maxsize=512)
def npm_command(word: str) -> str | None:
    """The npm command ``word`` runs (``pub`` → ``publish``), or None when npm knows none."""
    if any(c.isupper() for c in word):  # npm reads camelCase as kebab-case: installTest
        word = "".join("-" + c.lower() if c.isupper() else c for c in word)
    if word in _NPM_COMMANDS:
        return word
    if word in _NPM_ALIASES:
        return _NPM_ALIASES[word]
    matches = [name for name in _NPM_NAMES if name.startswith(word)] if word else []
    if len(matches) != 1:
        return None
    found = matches[0]
    return _NPM_ALIASES.get(found, found)


def canonical_words(program: str, words: tuple[str, ...]) -> tuple[str, ...] | None:
    """``words`` (the subcommand and what follows) in the canonical spelling; None if already."""
    if not words:
        return None
    if program == "npm":
        command = npm_command(words[0])
        return (command, *words[1:]) if command is not None and command != words[0] else None
    if program in ("docker", "podman") and len(words) >= 2:
        top = _DOCKER.get((words[0], words[1]))
        return (*top, *words[2:]) if top is not None else None
    return None


def canonical_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``form`` with its subcommand spelled canonically, at each place options may end."""
    program = form[0].literal or ""
    if program in _PROGRAM_NAMES:  # python3 x.py is python x.py to a rule naming python
        return [(Word(_PROGRAM_NAMES[program]), *form[1:])]
    if program == "npm" and len(form) > 1 and form[1].literal in _NPM_COMMANDS:
        return []  # the common case: npm install, npm run test
    if program != "npm" and not any(w.literal in _MANAGEMENT or w.literal is None for w in form[1:]):
        return []  # docker build: no management command
    out: list[tuple[Word, ...]] = []
    for j in _subcommand_places(form):
        texts = tuple(w.literal for w in form[j:j + 2])
        if None in texts:
            continue
        canonical = canonical_words(program, texts)  # type: ignore[arg-type]
        if canonical is not None:
            out.append((*form[:j], *(Word(t) for t in canonical), *form[j + len(texts):]))
    return out


def canonical_rule(head: str) -> str | None:
    """A rule's plain words with the subcommand spelled canonically (``npm i`` → ``npm install``)."""
    words = head.split(" ")
    if words[0] in _PROGRAM_NAMES:  # Bash(python3:*) names python too
        return " ".join((_PROGRAM_NAMES[words[0]], *words[1:]))
    if len(words) < 2 or words[0] not in SYNONYM_PROGRAMS or words[1].startswith("-"):
        return None
    canonical = canonical_words(words[0], tuple(words[1:3]))
    if canonical is None:
        return None
    return " ".join((words[0], *canonical, *words[3:]))


def _subcommand_places(form: tuple[Word, ...]) -> list[int]:
    """Where the subcommand may be: the first word after options (each a flag or with a value)."""
    places, todo, seen = [], [1], set()
    while todo:
        j = todo.pop()
        if j in seen or j >= len(form):
            continue
        seen.add(j)
        text = form[j].literal
        if text is not None and text[:1] == "-" and text != "-":
            todo.extend((j + 1,) if "=" in text or text == "--" else (j + 1, j + 2))
        else:
            places.append(j)
    return sorted(places)
