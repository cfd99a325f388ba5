"""Paths for permission checks: resolution, containment and protected paths (rule patterns are in
``path_patterns.py``).

Every path is checked in two forms: as written (made absolute, ``..`` collapsed) and as its
real path (symlinks followed), so a rule or protection that matches either one applies.
Containment compares path components, never string prefixes.
"""

from __future__ import annotations

import errno
import io
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO
from urllib.parse import unquote, urlparse

from . import managed, startup_sources, system_paths

NOT_REGULAR = "it is not a regular file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading when it is a regular file (a link followed); ``OSError``
    otherwise.  A named pipe or a device is never waited on: opening one for reading blocks until
    a writer comes, which would hold the permission check for ever (``mkfifo x.patch``)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, NOT_REGULAR, os.fspath(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def folders_up(start: str) -> list[str]:
    """``start`` and each folder above it, to the root (where tools look for ``node_modules``)."""
    found = [start]
    while True:
        parent = os.path.dirname(found[-1])
        if parent == found[-1]:
            return found
        found.append(parent)


def open_regular_text(path: str | os.PathLike[str], encoding: str = "utf-8", errors: str = "strict") -> TextIO:
    """``open_regular`` for text."""
    return io.TextIOWrapper(open_regular(path), encoding=encoding, errors=errors)


PROTECTED_DIRS = frozenset({".git", ".claude", ".vscode", ".idea", ".ipython", ".jupyter",
                            ".husky",  # its hook scripts run on the next `git commit`
                            # other version control systems' repository settings, which name
                            # commands they run: Mercurial's and Sapling's [hooks], Jujutsu's pager
                            ".hg", ".sl", ".jj",
                            ".devcontainer",  # its postCreateCommand runs when the folder is reopened in a container
                            ".bashrc.d",  # Fedora's and RHEL's ~/.bashrc sources every file in it
                            # programs named in them run unasked (ssh's ProxyCommand, git's and pip's
                            # ~/.config files, credential helpers), or they hold keys: a project in ~
                            ".ssh", ".gnupg", ".config", ".aws", ".kube", ".docker",
                            # code every start of those programs runs: Emacs's init files, sbt's
                            # global plugins, Vim's plugins, Terraform's provider plugins
                            ".emacs.d", ".sbt", ".vim", ".terraform.d"})
PROTECTED_FILES = frozenset(
    {".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
     ".zshenv", ".zprofile", ".zlogin", ".mcp.json", ".gitconfig", ".gitmodules", ".inputrc",
     # Debian's and Ubuntu's ~/.bashrc sources ~/.bash_aliases; the other shells' and the desktop
     # session's start-up files
     ".bash_aliases", ".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc", ".xprofile", ".xsessionrc",
     ".pam_environment", ".juliarc.jl",
     ".vimrc", ".gvimrc", ".exrc", ".tmux.conf", ".screenrc",  # they run commands when you start those programs
     ".claude.json",  # Claude Code's user file: its MCP servers start with every session, its trust records
     # other start-up files (R and Octave kernels run them in the folder they start in), and
     # configuration that changes what a program fetches or sends (package indexes, curl's
     # options, credentials) or what jq reads (~/.jq is sourced into every program)
     ".rprofile", ".renviron", ".octaverc", ".npmrc", ".yarnrc", ".condarc", ".pypirc", ".curlrc",
     ".wgetrc", ".netrc", ".jq",
     ".yarnrc.yml", ".yarnrc.yaml",  # Yarn 2+: yarnPath names the script run as yarn
     # git hook managers' lists of commands, run on the next `git commit` (as .husky/)
     ".pre-commit-config.yaml", ".pre-commit-config.yml", ".lefthook.yml", ".lefthook.yaml",
     # files programs run as commands when they start: Mercurial's hooks, psql's shell escapes,
     # mysql's pager and system commands, sqlite3's .shell, irb's and pry's Ruby, Emacs's Lisp, X's
     # session scripts, debuggers' command files (pdb reads ./.pdbrc too: IPython's %debug runs
     # it in the kernel), GHCi's and OCaml's (also from the current folder), Perl's debugger,
     # Guile's and SBCL's, npm init's script, less's key file (its #env section sets LESSOPEN, a
     # command less runs on every file)
     ".hgrc", ".psqlrc", ".my.cnf", ".mylogin.cnf", ".sqliterc", ".irbrc", ".pryrc", ".emacs", ".emacs.el",
     ".xinitrc", ".xsession", ".pdbrc", ".gdbinit", ".lldbinit", ".ghci", ".ocamlinit", ".perldb", ".guile",
     ".sbclrc", ".npm-init.js", ".lesskey", ".less",
     # where packages and providers come from, and the credentials sent there
     ".gemrc", ".terraformrc", ".git-credentials", ".pgpass"}
)
# files inside a tool's own dot folder that make the tool run commands or fetch elsewhere:
# Cargo's runner, rustc-wrapper and registries (and tokens), Gradle's init scripts and JVM
# arguments, Maven's repositories and mirrors, rustup's toolchain overrides.  Only these: the
# rest of those folders are caches a project may clear.
PROTECTED_BELOW: dict[str, frozenset[str]] = {
    ".cargo": frozenset({"config.toml", "config", "credentials.toml", "credentials"}),
    ".gradle": frozenset({"init.gradle", "init.gradle.kts", "init.d", "gradle.properties"}),
    ".m2": frozenset({"settings.xml", "settings-security.xml"}),
    ".rustup": frozenset({"settings.toml"}),
}
PROTECTED_BELOW_PATTERNS = tuple(f"**/{d}/{n}" for d, names in PROTECTED_BELOW.items() for n in sorted(names))
# run by every Python that starts with them on its path, the kernel included; pip's own
# configuration inside an environment (``.venv/pip.conf`` picks the package index)
STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py", "pip.conf", "pip.ini"})
HOOK_LISTS = frozenset({"lefthook.yml", "lefthook.yaml"})  # lefthook's commands, run on the next `git commit`
# read from the folder the program runs in, and able to make it run shell code (yt-dlp's --exec)
RUN_CONFIGS = frozenset({"yt-dlp.conf"})
_SITE_DIRS = (os.sep + "site-packages", os.sep + "dist-packages")


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


_PROCESS_LINKS = frozenset({"cwd", "root", "exe", "fd", "fdinfo", "map_files", "task"})


def per_process_link(lexical: str) -> bool:
    """``/proc/self/cwd/.env``, ``/proc/$$/root/…``, ``/proc/1/fd/3``: links the kernel resolves
    for the process that opens the path (the command, not this analysis), so where they lead
    is only known at run time."""
    if not lexical.startswith("/proc/"):
        return False
    parts = lexical.split("/", 4)
    return len(parts) > 3 and parts[3] in _PROCESS_LINKS


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
    for form in (lexical,) if lexical == real else (lexical, real):
        reason = _dot_reason(form) if "/." in form else None  # every protected name starts with a dot
        if reason is None:
            reason = _startup_reason(form)
        if reason is not None:
            return reason
    return None


def _dot_reason(form: str) -> str | None:
    # by lower case: on a case-insensitive disk (macOS, Windows) .GIT/config is .git/config
    parts = [p.lower() for p in form.split(os.sep) if p]
    for i, part in enumerate(parts[:-1]):
        if part in PROTECTED_DIRS:
            return f"{form} is inside {part}/, a protected folder"
        inner = PROTECTED_BELOW.get(part)
        if inner is not None and parts[i + 1] in inner:
            where = "is" if i + 2 == len(parts) else "is inside"
            return f"{form} {where} {part}/{parts[i + 1]}, protected (it makes {part[1:]} run commands or fetch)"
    if parts and parts[-1] in PROTECTED_DIRS:
        return f"{form} is the protected folder {parts[-1]}/"
    if parts and parts[-1] in PROTECTED_FILES:
        return f"{form} is a protected file ({parts[-1]})"
    return None


# the system-wide shell start-up files (root may write them: an agent in a container often is)
# folders of ~/.local/share whose files name commands the desktop session runs: a launcher
# entry overrides the system's of the same name (the next click on "Firefox" runs its Exec=),
# systemd user units and D-Bus services start on their own
_DESKTOP_DATA = (("applications", "whose launcher entries' commands the desktop runs when you open them"),
                 ("systemd/user", "whose units the user's systemd starts"),
                 ("dbus-1/services", "whose services D-Bus starts on demand"))
_SYSTEM_STARTUP_DIRS = frozenset({"/etc/profile.d", "/etc/zsh", "/etc/bash_completion.d"})
_SYSTEM_STARTUP_FILES = frozenset({"/etc/profile", "/etc/bash.bashrc", "/etc/bashrc", "/etc/environment",
                                   "/etc/zshrc", "/etc/zshenv", "/etc/zprofile", "/etc/csh.cshrc", "/etc/csh.login"})


def _startup_reason(form: str) -> str | None:
    """Files Python or Jupyter run at start-up: a ``.pth`` file in ``site-packages`` and
    ``sitecustomize.py`` (every interpreter on that path, the kernel included; a model saved as
    ``model.pth`` elsewhere is an ordinary file), a virtual environment's ``pyvenv.cfg`` (its
    ``home`` decides which standard library its Python imports), a conda environment's
    ``etc/conda/activate.d`` scripts and ``conda-meta/state`` variables (every ``conda activate``
    runs and sets them in the user's shell), and Jupyter's data and config folders
    (``share/jupyter``: kernel specs' commands, lab extensions; ``etc/jupyter``: server
    configuration), wherever they are (``~/.local``, a project's ``.venv``)."""
    folded = form.lower()
    reason = managed.managed_reason(form)
    if reason is not None:
        return reason
    folder, _, name = folded.rpartition(os.sep)
    if name in STARTUP_FILES or (name.endswith(".pth") and folder.endswith(_SITE_DIRS)):
        return f"{form} is run or read by Python or pip at start-up (a protected file)"
    if name == "pyvenv.cfg":  # home = a folder whose lib/python3.X the environment's Python then runs
        return (f"{form} tells a virtual environment's Python where its standard library is, which every start "
                "of it runs (a protected file)")
    if "-packages" in folded or _PYTHON_LIB in folded:
        reason = _installed_reason(form, folded)
        if reason is not None:
            return reason
    if folder in _SYSTEM_STARTUP_DIRS or form.lower() in _SYSTEM_STARTUP_FILES:
        return f"{form} is run by every login shell (a protected file)"
    if name == "trusted_folders.json" and folder.endswith(os.sep + ".jupyter-agent"):
        return f"{form} records the folders whose own settings (hooks, allow rules) apply (a protected file)"
    if name in HOOK_LISTS:
        return f"{form} lists commands git runs on the next commit (a protected file)"
    if name in RUN_CONFIGS:
        return f"{form} configures a program run in its folder, which it can make run commands (a protected file)"
    if "/jupyter" in folded:
        parts = folded.split(os.sep)
        for i in range(1, len(parts)):
            if parts[i] == "jupyter" and parts[i - 1] in ("share", "etc"):
                return f"{form} is inside {parts[i - 1]}/jupyter/, Jupyter's protected data or configuration"
    if "/etc/conda/" in folded or folded.endswith("/conda-meta/state"):  # what `conda activate ENV` runs and sets
        parts = folded.split(os.sep)
        for i in range(2, len(parts) - 1):
            if parts[i] in ("activate.d", "deactivate.d") and parts[i - 1] == "conda" and parts[i - 2] == "etc":
                return (f"{form} is inside etc/conda/{parts[i]}/, whose scripts every conda (de)activation of "
                        "that environment runs in the shell (a protected path)")
        if parts[-1] == "state" and parts[-2] == "conda-meta":
            return f"{form} holds the variables every conda activation of that environment sets (a protected file)"
    if "/.local/share/" in folded:  # the desktop's own start-up and launch entries, in home
        for below, what in _DESKTOP_DATA:
            if f"/.local/share/{below}/" in folded:
                return f"{form} is inside ~/.local/share/{below}/, {what} (a protected path)"
    if "/etc/ipython" in folded:  # IPython's and every kernel's configuration: PREFIX/etc/ipython, /etc/ipython
        parts = folded.split(os.sep)
        for i in range(1, len(parts) - 1):
            if parts[i] == "ipython" and parts[i - 1] == "etc":
                return f"{form} is inside etc/ipython/, configuration every IPython kernel runs (a protected path)"
    return system_paths.system_reason(form) or startup_sources.sourced_reason(form)


_PYTHON_LIB = os.sep + "lib" + os.sep + "python"
_PYTHON_VERSION = re.compile(r"python\d+\.\d+t?")  # lib/python3.11, lib/python3.13t (not a project's lib/python3)


def _installed_reason(form: str, folded: str) -> str | None:
    """Code a Python installation imports: anything inside a ``site-packages`` or ``dist-packages``
    folder (installed packages, their ``.pyc`` files: the kernel imports ipykernel from there,
    and ``black --check`` under ``Bash(black:*)`` imports black), or inside ``lib/pythonX.Y`` (the standard
    library: ``site.py`` runs at every start)."""
    parts = folded.split(os.sep)
    for i, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages"):
            where = os.sep.join(form.split(os.sep)[: i + 1])
            return f"{form} is inside {where}, installed Python code that programs and kernels import (a protected path)"
        if (part == "lib" and i + 2 < len(parts) and _PYTHON_VERSION.fullmatch(parts[i + 1])
                and parts[i + 2:] not in (["site-packages"], ["dist-packages"])):  # making the empty folder
            where = os.sep.join(form.split(os.sep)[: i + 2])
            return f"{form} is inside {where}, a Python installation's standard library (a protected path)"
    return None


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


def nearest_holding(folder: str, names: tuple[str, ...], depth: int | None = None) -> str | None:
    """The nearest folder from ``folder`` upwards (itself first, at most ``depth`` levels up)
    holding one of ``names``, as tools find their project (``.git``, ``package.json``,
    ``Pipfile``); None when there is none."""
    level = 0
    while not any(os.path.lexists(os.path.join(folder, name)) for name in names):
        parent = os.path.dirname(folder)
        if parent == folder or (depth is not None and level >= depth):
            return None
        folder, level = parent, level + 1
    return folder


def real_dir(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def home_dir() -> Path:
    return Path(os.path.expanduser("~"))
