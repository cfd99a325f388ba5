"""Paths for permission checks: resolution, containment, protected paths and rule patterns.

Every path is checked in two forms: as written (made absolute, ``..`` collapsed) and as its
real path (symlinks followed), so a rule or protection that matches either one applies.
Containment compares path components, never string prefixes.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

import pathspec

from ..core.permission_types import RuleSource

PROTECTED_DIRS = frozenset({".git", ".claude", ".vscode", ".idea", ".ipython", ".jupyter"})
PROTECTED_FILES = frozenset(
    {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
     ".zshenv", ".zprofile", ".zlogin", ".mcp.json", ".gitconfig", ".gitmodules", ".inputrc"}
)


class BadPath(ValueError):
    """A path that is refused outright (NUL byte, non-file URL)."""


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    """``lexical``: absolute with ``..`` collapsed; ``real``: symlinks followed."""

    lexical: str
    real: str

    @property
    def forms(self) -> tuple[str, ...]:
        return (self.lexical,) if self.lexical == self.real else (self.lexical, self.real)


def resolve_path(path: str, cwd: str | os.PathLike[str], *, cwd_is_real: bool = False) -> ResolvedPath:
    """Both forms of ``path`` relative to ``cwd``; raises BadPath for NUL bytes and URLs.

    ``cwd_is_real`` (the caller already resolved it) lets a relative path be resolved from
    there, component by component, instead of from ``/``.
    """
    if cwd_is_real:
        base = os.fspath(cwd)
        return ResolvedPath(*resolve_below(path, base.rstrip(os.sep) or os.sep))
    path = local_path(path)
    expanded = os.path.expanduser(path) if path[:1] == "~" else path
    joined = os.path.join(os.fspath(cwd), expanded)
    return ResolvedPath(os.path.normpath(joined), os.path.realpath(joined))


def resolve_below(path: str, base: str) -> tuple[str, str]:
    """(lexical, real) of ``path`` against ``base``, a real, normalized, absolute folder.

    The hot-path form of ``resolve_path(path, base, cwd_is_real=True)``: plain string work
    instead of ``os.path`` helpers, and only the components below ``base`` are looked at.
    """
    if not path or ":" in path or "\x00" in path or path[0] == "~" or path[0] == "/":
        return _resolve_other(path, base)
    parts = path.split("/")
    if "" in parts or "." in parts or ".." in parts:
        return relative_below(path, base)
    return _clean_below(path, parts, base)


def _resolve_other(path: str, base: str) -> tuple[str, str]:
    """``resolve_below`` for URLs, ``~`` and absolute paths (and the errors)."""
    path = local_path(path)
    if path[:1] == "~":
        path = os.path.expanduser(path)
    if path[:1] == "/":
        lexical = os.path.normpath(path)
        return lexical, os.path.realpath(path)
    return relative_below(path, base)


def _clean_below(path: str, parts: list[str], base: str) -> tuple[str, str]:
    """A relative path without empty, ``.`` or ``..`` components (``src/app.py``, ``main``).

    Its lexical form is ``base/path``, and so is its real form unless one of its components
    is a link: every component that exists is looked at (the last first with ``access``, which
    costs no exception when it is missing); a missing one ends the walk (nothing below it can
    be a link).
    """
    current = "" if base == "/" else base
    lexical = current + "/" + path
    for part in parts[:-1]:
        current = current + "/" + part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return lexical, lexical
        if stat.S_ISLNK(mode):
            return lexical, os.path.realpath(lexical)
    if not os.access(lexical, os.F_OK, follow_symlinks=False):
        return lexical, lexical
    try:
        mode = os.lstat(lexical).st_mode
    except OSError:
        return lexical, lexical
    return lexical, os.path.realpath(lexical) if stat.S_ISLNK(mode) else lexical


def relative_below(path: str, base: str) -> tuple[str, str]:
    """(lexical, real) of the relative ``path`` as written (no ``~``, URL or NUL handling)."""
    parts = path.split("/")
    if _clean(parts):
        return _clean_below(path, parts, base)
    lexical = os.path.normpath(base + "/" + path)
    # The real path resolves symlinks *before* applying "..", like the kernel does:
    # link/../x is beside the link's target, not beside the link.
    return lexical, _real_below(base, parts)


def local_path(path: str) -> str:
    """``path`` itself, or the path of a ``file:`` URL; BadPath for NUL bytes and other URLs."""
    if "\x00" in path:
        raise BadPath("The path contains a NUL byte.")
    if "://" in path or path.startswith("file:"):
        parsed = urlparse(path)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            raise BadPath(f"{path!r} is not a local file path. Use a file path, not a URL.")
        path = unquote(parsed.path)
    return path


def _clean(parts: list[str]) -> bool:
    """No empty, ``.`` or ``..`` component: joining needs no normalization."""
    return "" not in parts and "." not in parts and ".." not in parts


def _real_below(base: str, parts: list[str]) -> str:
    """``realpath(base/parts…)`` for a ``base`` that is already real: only new components are checked.

    A component that does not exist ends the walk (nothing below it can be a link) unless a
    ``..`` follows, which may climb back to existing links: then ``os.path.realpath`` decides.
    The last component is first probed with ``access`` (no exception when it is missing).
    """
    current = base
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if part == "" or part == ".":
            continue
        if part == "..":
            current = current.rsplit("/", 1)[0] or "/"
            continue
        step = "/" + part if current == "/" else current + "/" + part
        if i == last and not os.access(step, os.F_OK, follow_symlinks=False):
            return step
        try:
            mode = os.lstat(step).st_mode
        except OSError:  # does not exist (yet): nothing below it can be a link
            return _rest(step, parts[i + 1:], linked=False)
        if stat.S_ISLNK(mode):
            return _rest(step, parts[i + 1:], linked=True)
        current = step
    return current


def _rest(step: str, rest: list[str], *, linked: bool) -> str:
    if not rest:
        return os.path.realpath(step) if linked else step
    if linked or ".." in rest:
        return os.path.realpath(step + "/" + "/".join(rest))
    if _clean(rest):
        return step + "/" + "/".join(rest)
    return os.path.normpath(step + "/" + "/".join(rest))


def is_within(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it, by components (``/w/proj-evil`` ∉ ``/w/proj``)."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def protected_reason(resolved: ResolvedPath) -> str | None:
    """Why writing this path always needs the user's approval, or None."""
    return protected_reason_of(resolved.lexical, resolved.real)


def protected_reason_of(lexical: str, real: str) -> str | None:
    """``protected_reason`` for the two forms of a path."""
    if "/." not in lexical and "/." not in real:  # every protected name starts with a dot
        return None
    for form in (lexical,) if lexical == real else (lexical, real):
        if "/." not in form:  # every protected name starts with a dot
            continue
        # by lower case: on a case-insensitive disk (macOS, Windows) .GIT/config is .git/config
        parts = [p.lower() for p in form.split(os.sep) if p]
        for part in parts[:-1]:
            if part in PROTECTED_DIRS:
                return f"{form} is inside {part}/, a protected folder"
        if parts and parts[-1] in PROTECTED_DIRS:
            return f"{form} is the protected folder {parts[-1]}/"
        if parts and parts[-1] in PROTECTED_FILES:
            return f"{form} is a protected file ({parts[-1]})"
    return None


def fold_case(text: str) -> str:
    """``text`` compared as a case-insensitive disk compares names (macOS APFS/HFS+, Windows NTFS):
    case folded, and Unicode spelled one way (decomposed, as HFS+ stores it)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).casefold())


def protected_inside(folder: str, roots: tuple[str, ...] = ()) -> str | None:
    """A protected folder or file inside the real folder ``folder``, if one is found: among its
    entries, and among those of each working directory (``roots``) or home below it
    (``rm -rf /`` takes the project's ``.git`` along).  Deeper ones (a nested repository) are
    not looked for."""
    home = os.path.expanduser("~")
    for base in (folder, *(r for r in roots if is_within(r, folder)), *((home,) if is_within(home, folder) else ())):
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            if name.lower() in PROTECTED_DIRS or name.lower() in PROTECTED_FILES:
                return os.path.join(base, name)
    return None


@dataclass(frozen=True)
class PathPattern:
    """A Read(...)/Edit(...) rule pattern bound to its root folder.

    ``root`` and ``anchor`` are as written (walks start there).  A folded pattern (deny and ask
    rules) matches paths by ``fold_case``: on a case-insensitive disk ``.ENV`` *is* ``.env``,
    so a rule that refuses must not depend on how the model spells a name.  ``prefix`` and the
    compiled ``spec`` are then in folded form.
    """

    root: str
    spec: pathspec.PathSpec
    text: str
    anchor: str = "/"  # every match starts with root + anchor (the literal head of the pattern)
    prefix: str = ""  # a cheap first test: every match starts with it ("" tests nothing)
    fold: bool = False
    folded_root: str = ""  # fold_case(root), when ``fold``

    def may_match_below(self, folder: str) -> bool:
        """Could a file somewhere below ``folder`` match?  (For recursive reads like ``grep -r``.)"""
        base = self.root.rstrip(os.sep) + self.anchor
        inside = folder.rstrip(os.sep) + os.sep
        if self.fold:
            base, inside, folder = fold_case(base), fold_case(inside), fold_case(folder)
        return base.startswith(inside) or inside.startswith(base) or base == folder

    def matches(self, path: str) -> bool:
        """``path``: absolute and normalized; a folded pattern folds it (folding twice is harmless)."""
        root = self.root
        if self.fold:
            path, root = path.lower() if path.isascii() else fold_case(path), self.folded_root
        if not path.startswith(self.prefix) or path == root or not is_within(path, root):
            return False
        # both are absolute and normalized, and path is below root: slicing is the relpath
        rel = path[len(root):].lstrip(os.sep)
        return self.spec.match_file(rel)


def rule_root(source: RuleSource, project_dir: str) -> str:
    """The folder ``/x`` patterns are relative to: home for user settings, else the project."""
    if source == "userSettings":
        return os.path.expanduser("~")
    return project_dir


def compile_pattern(
    text: str, source_root: str, project_dir: str, *, fold: bool = False
) -> tuple[PathPattern, ...]:
    """``//abs``, ``~/x``, ``/x`` (settings root), ``./x`` / ``x`` (project) → patterns.

    Both the root as given and its real path are used, so a symlinked project still matches.
    ``fold``: match by ``fold_case`` (deny and ask rules; see ``PathPattern``).
    """
    return _compile(text, source_root, project_dir, os.path.expanduser("~"), fold)


@lru_cache(maxsize=1024)
def _compile(text: str, source_root: str, project_dir: str, home: str, fold: bool) -> tuple[PathPattern, ...]:
    if text.startswith("//"):
        root, pattern = "/", text[1:]
    elif text == "~" or text.startswith("~/"):
        root, pattern = home, "/" + text[2:]
    elif text.startswith("/"):
        root, pattern = source_root, text
    elif text.startswith("./"):
        root, pattern = project_dir, "/" + text[2:]
    else:
        root, pattern = project_dir, text
    if pattern in ("/", ""):
        pattern = "/**"
    spec = pathspec.GitIgnoreSpec.from_lines([fold_case(pattern) if fold else pattern])
    roots = {os.path.normpath(root), os.path.realpath(root)}
    anchor = _anchor(pattern)
    head = "/" if pattern.startswith(("!", "#")) else anchor.rstrip()  # gitignore drops trailing blanks
    if not fold:
        return tuple(PathPattern(r, spec, text, anchor, r.rstrip(os.sep) + head) for r in sorted(roots))
    return tuple(
        PathPattern(r, spec, text, anchor, fold_case(r.rstrip(os.sep) + head), True, fold_case(r))
        for r in sorted(roots)
    )


def _anchor(pattern: str) -> str:
    """The literal head every match starts with: ``/secrets/**`` → ``/secrets/``; ``*.key`` → ``/``."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    if not anchored:
        return "/"
    head = pattern if pattern.startswith("/") else "/" + pattern
    for i, ch in enumerate(head):
        if ch in "*?[\\":
            return head[:i]
    return head


def pattern_matches(patterns: tuple[PathPattern, ...], resolved: ResolvedPath) -> bool:
    return any(p.matches(form) for p in patterns for form in resolved.forms)


def real_dir(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def home_dir() -> Path:
    return Path(os.path.expanduser("~"))
