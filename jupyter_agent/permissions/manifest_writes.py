"""The project files package managers rewrite though no argument names them.

``npm pkg set scripts.test=…``, ``npm install x``, ``poetry add x``, ``uv lock``, ``cargo add x``
and ``go mod tidy`` write the project's manifest, its lock file and the folder packages go to
(``package.json``, ``uv.lock``, ``node_modules/``).  A rule that allows the manager allows
managing packages, not rewriting a file an ``Edit`` deny rule closes: each such file is a write
``bash_arguments.program_write_check`` checks like any other (deny and ask rules, protected
paths, the working directories; a folder such as ``node_modules/`` as everything below it).

Which project: as the managers find it, the nearest folder from where it runs (or from the
folder a location option names: ``uv --directory DIR``, ``cargo --manifest-path F``) upwards
that holds the manager's marker (``package.json``; for npm also ``node_modules``), else that
folder itself; ``npm --prefix DIR`` is the project's folder itself.  A file the project shares with a workspace above it
(a lock file at a workspace's root) is found the same way: the nearest one upwards is written
too.  ``init`` writes the manifest only; a global install (``npm -g``) writes no project file.
A subcommand known only at run time (``npm "$CMD"``) may be any of them: its files are
written, a path only known at run time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .bash_words import Word, make_word
from .paths import nearest_holding

Target = tuple[Word, bool]
_ANY = "*"  # any word after the subcommand (`npm version patch`; bare `npm version` prints)


@dataclass(frozen=True)
class _Manager:
    markers: tuple[str, ...]  # what marks the project's folder, nearest upwards
    # first subcommand word -> (the subcommand's words, what it writes (name/: a folder))
    subs: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]
    locations: frozenset[str] = frozenset()  # options naming the folder it works in (as after a cd)
    exact: bool = False  # that folder is the project's itself (npm --prefix), not found upwards
    manifest_location: frozenset[str] = frozenset()  # options naming the manifest (its folder)
    values: frozenset[str] = frozenset()  # other options before the subcommand that take a value
    nowhere: frozenset[str] = frozenset()  # options that make it write no project file (-g)
    bare: tuple[str, ...] = ()  # what it writes with no subcommand (`yarn`, `bundle`)


def _subs(*groups: tuple[str, tuple[str, ...]]) -> dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]]:
    """``("install|i|pkg set", FILES)`` -> one entry per spelling (a spelling may be two words),
    under its first word."""
    table: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for spellings, files in groups:
        for spelling in spellings.split("|"):
            sub = tuple(spelling.split())
            table.setdefault(sub[0], []).append((sub, files))
    return table


# ?name: written only where it exists (npm keeps npm-shrinkwrap.json only if there is one)
_NPM = ("package.json", "package-lock.json", "?npm-shrinkwrap.json", "node_modules/")
_NPM_INSTALLS = ("install|i|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|add|uninstall|un|unlink|remove|rm|r|"
                 "update|up|upgrade|udpate|dedupe|ddp|prune|link|ln|install-test|it|audit fix|shrinkwrap")
_YARN = ("package.json", "yarn.lock", "?.pnp.cjs", "?.pnp.loader.mjs", "node_modules/", "?.yarn/")
_PNPM = ("package.json", "pnpm-lock.yaml", "node_modules/")
_BUN = ("package.json", "bun.lock", "?bun.lockb", "node_modules/")
_POETRY = ("pyproject.toml", "poetry.lock", ".venv/")
_UV = ("pyproject.toml", "uv.lock", ".venv/")
_PDM = ("pyproject.toml", "pdm.lock", ".venv/", "?.pdm-python")
_CARGO = ("Cargo.toml", "Cargo.lock", "target/")
_GO = ("go.mod", "go.sum")
_GEMS = ("Gemfile", "Gemfile.lock")
_COMPOSER = ("composer.json", "composer.lock", "vendor/")
MANAGERS: dict[str, _Manager] = {
    "npm": _Manager(("package.json", "node_modules"), _subs(
        (_NPM_INSTALLS, _NPM), ("ci|clean-install|ic|install-clean|isntall-clean|install-ci-test|cit|rebuild|rb",
                                ("node_modules/",)),
        ("pkg set|pkg delete|pkg fix|set-script|init|create|innit", ("package.json",)),
        (f"version {_ANY}|verison {_ANY}", _NPM[:3])),
        locations=frozenset({"--prefix", "-C"}), exact=True, nowhere=frozenset({"-g", "--global", "--location=global"}),
        values=frozenset({"--loglevel", "--registry", "--cache", "--userconfig", "-w", "--workspace", "--location"})),
    "yarn": _Manager(("package.json",), _subs(
        ("add|remove|install|upgrade|up|upgrade-interactive|dedupe|link|unlink|import", _YARN),
        ("version|init", ("package.json",))), locations=frozenset({"--cwd"}),
        bare=_YARN),
    "pnpm": _Manager(("package.json",), _subs(
        ("add|remove|rm|uninstall|un|install|i|update|up|upgrade|dedupe|link|ln|unlink|import|install-test|it", _PNPM),
        ("prune|rebuild|rb", ("node_modules/",)), ("init", ("package.json",))),
        locations=frozenset({"-C", "--dir"}), nowhere=frozenset({"-g", "--global"}),
        values=frozenset({"--filter", "-F", "--reporter", "--loglevel"})),
    "bun": _Manager(("package.json",), _subs(("add|a|remove|rm|install|i|update|link|unlink", _BUN),
                                             ("init", ("package.json",))),
                    locations=frozenset({"--cwd"}), nowhere=frozenset({"-g", "--global"})),
    "poetry": _Manager(("pyproject.toml",), _subs(
        ("add|remove|rm|update|install|sync", _POETRY), ("lock", _POETRY[1:2]),
        (f"version {_ANY}", ("pyproject.toml",)), ("init", ("pyproject.toml",))),
        locations=frozenset({"-C", "--directory", "-P", "--project"})),
    "uv": _Manager(("pyproject.toml",), _subs(
        ("add|remove", _UV), ("lock|tree", _UV[1:2]), ("sync|run", _UV[1:]),
        (f"version {_ANY}", ("pyproject.toml", "uv.lock")), ("init", ("pyproject.toml",))),
        locations=frozenset({"--directory", "--project"}),
        values=frozenset({"--python", "-p", "--cache-dir", "--config-file", "--color"})),
    "pdm": _Manager(("pyproject.toml",), _subs(
        ("add|remove|update|install|sync", _PDM), ("lock", ("pdm.lock",)), ("use", (".pdm-python",)),
        ("init", ("pyproject.toml",))), locations=frozenset({"-p", "--project"}), nowhere=frozenset({"-g", "--global"})),
    "pipenv": _Manager(("Pipfile",), _subs(("install|uninstall|lock|update|upgrade", ("Pipfile", "Pipfile.lock")))),
    "cargo": _Manager(("Cargo.toml",), _subs(
        ("add|remove|rm", _CARGO), ("update|generate-lockfile", _CARGO[1:2]),
        ("build|b|check|c|test|t|run|r|bench|doc|d|clippy|rustc|rustdoc", _CARGO[1:]), ("init", ("Cargo.toml",))),
        manifest_location=frozenset({"--manifest-path"}),
        values=frozenset({"--config", "-Z", "--color", "--target-dir"})),
    "go": _Manager(("go.mod",), _subs(
        ("get|mod tidy|mod edit|mod init", _GO), ("mod vendor", ("go.mod", "vendor/")),
        ("work init|work use|work edit|work sync", ("go.work", "go.work.sum"))), locations=frozenset({"-C"})),
    "bundle": _Manager(("Gemfile",), _subs(("install|add|remove|update|lock", _GEMS)),
                       manifest_location=frozenset({"--gemfile"}), bare=_GEMS),
    "composer": _Manager(("composer.json",), _subs(("require|remove|update|u|upgrade|install|i|bump", _COMPOSER)),
                         locations=frozenset({"-d", "--working-dir"})),
}
MANIFEST_PROGRAMS = frozenset(MANAGERS)
# a dry run, help, a version; not --frozen/--locked (the lock stays, the packages' folder is written)
_DRY = frozenset({"--dry-run", "--help", "-h", "--version", "-V", "--no-sync", "--check"})
_UNKNOWN = "<a project file>"


def manifest_written(words: Sequence[Word], cwd: str | None) -> list[Target]:
    """``(file, recursive)`` for each project file ``words`` (program first) has its package
    manager write, as absolute paths; [] when it writes none."""
    manager = MANAGERS.get(words[0].literal or "") if words else None
    if manager is None:
        return []
    args = list(words[1:])
    start: Word | None = None  # the folder it is told to work in
    plain: list[Word] = []
    skippable: list[bool] = []  # the word follows an option that may take it as its value
    i, after_option = 0, False
    while i < len(args):
        word, text = args[i], args[i].literal
        if text is None or text[:1] != "-":
            plain.append(word)
            skippable.append(after_option)
            after_option = False
        elif text in manager.nowhere or text.partition("=")[0] in _DRY:
            return []  # a global install, a dry run
        else:
            name, equals, value = text.partition("=")
            located = name in manager.locations or name in manager.manifest_location
            after_option = not equals and not located and name not in manager.values
            if located or name in manager.values:
                given = make_word(value) if equals else (args[i + 1] if i + 1 < len(args) else None)
                i += 0 if equals else 1
                if given is not None and f"{name}={given.literal}" in manager.nowhere:
                    return []  # npm --location global
                if located and given is not None:
                    start = _folder(given, name in manager.manifest_location)
        i += 1
    files = _files(manager, plain, skippable)
    if files is None:
        return []
    if files == (_UNKNOWN,):
        return [(Word(_UNKNOWN, static=False), False)]
    if start is not None and not start.static:
        return [(start, True)]  # `npm --prefix "$D" install`: where, only known at run time
    if start is None:
        return _found(manager, os.path.abspath(cwd or "."), files)
    here = os.path.abspath(os.path.join(cwd or ".", start.text))
    if manager.exact:
        paths = [(os.path.join(here, _bare(name)), name) for name in files]
        return [(make_word(p), name.endswith("/")) for p, name in paths if name[0] != "?" or os.path.lexists(p)]
    return _found(manager, here, files)


def _folder(given: Word, manifest: bool) -> Word:
    """The folder an option names (``--manifest-path x/Cargo.toml``: ``x``)."""
    if not manifest or not given.static:
        return given
    return make_word(os.path.dirname(given.text) or ".")


def _files(manager: _Manager, plain: list[Word], skippable: list[bool]) -> tuple[str, ...] | None:
    """What the subcommand in ``plain`` (the words that are no option) writes: None for none,
    ``(_UNKNOWN,)`` when a word it depends on is only known at run time.  A word right after an
    option this table does not know may be that option's value (``npm --foo bar install``): when
    it is no subcommand, the next word is tried."""
    if not plain:
        return manager.bare or None
    texts = [w.literal for w in plain]
    found = _matched(manager, texts)
    while found is None and skippable[0] and len(texts) > 1:
        texts, skippable = texts[1:], skippable[1:]
        found = _matched(manager, texts)
    return found


def _matched(manager: _Manager, texts: list[str | None]) -> tuple[str, ...] | None:
    if texts[0] is None:
        return (_UNKNOWN,)  # npm "$CMD": any subcommand
    for sub, files in manager.subs.get(texts[0], ()):
        n = len(sub)
        if len(texts) < n:
            continue
        pairs = list(zip(sub, texts[:n], strict=True))
        if any(t is None and s != _ANY for s, t in pairs):
            return (_UNKNOWN,)  # npm pkg "$VERB"
        if all(s in (_ANY, t) for s, t in pairs):
            return files
    return None


def _bare(name: str) -> str:
    """A table's file name as a path part (``?x``: x, written only where it exists; ``d/``: d)."""
    return name.strip("?/")


def _found(manager: _Manager, here: str, files: tuple[str, ...]) -> list[Target]:
    """Each file in the project ``here`` belongs to (its marker's nearest folder upwards, else
    ``here``), and the nearest existing one upwards where that is another (a workspace's; looked
    for from ``here``, below the project too: more files checked, none missed)."""
    root = nearest_holding(here, manager.markers) or here
    found: list[Target] = []
    for name in files:
        bare = _bare(name)
        above = nearest_holding(here, (bare,))
        paths = {os.path.join(root, bare) if name[0] != "?" else None, os.path.join(above, bare) if above else None}
        found.extend((make_word(p), name.endswith("/")) for p in sorted(p for p in paths if p))
    return found


__all__ = ["MANAGERS", "MANIFEST_PROGRAMS", "manifest_written"]
