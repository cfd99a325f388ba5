"""The files the shell start-up files run: writing one is writing a start-up file.

``~/.bashrc`` and ``~/.profile`` are protected paths, but they run more than themselves.
rustup adds ``. "$HOME/.cargo/env"`` to them, nvm ``\\. "$NVM_DIR/nvm.sh"``, conda
``'/home/u/miniconda3/bin/conda' 'shell.bash' 'hook'`` and ``. .../etc/profile.d/conda.sh``,
Fedora's ``~/.bashrc`` loops over ``~/.bashrc.d/*``.  Whatever is written into one of those
runs in every new shell, like a line added to ``~/.bashrc`` (and in the login shell whose
environment the Bash tool captures).  So the user's start-up files (``~/.bashrc``,
``~/.profile``, ``~/.zshrc``, … and the system's ``/etc/profile``, ``/etc/bash.bashrc``, …) are
read with tree-sitter-bash, and every file they source (``.`` / ``source``) or run by path
(``/opt/tool/bin/x init``) is protected as they are, following sourced files in turn.

A path is read the way the shell would build it: literal text, ``~``, ``$HOME``, variables
assigned earlier in the files (every value any branch assigns counts), the environment's
variables, ``${VAR:-default}`` (both), and ``$(printf %s X || echo Y)`` (X and Y, nvm's form).
A ``for`` loop's variable takes the loop's words; a glob (``~/.bashrc.d/*``) protects every
name it matches, including files created later.  A folder between home and such a file
(``~/.cargo``) is protected too, since moving a folder there brings a new file along.  What
cannot be read this way (a name computed by a program) is not protected by this module.

The folders ``IPYTHONDIR``, ``JUPYTER_CONFIG_DIR``, ``JUPYTER_DATA_DIR``, ``JUPYTER_PATH`` and
``JUPYTER_CONFIG_PATH`` name are protected whole: kernels and Jupyter run the configuration and
start-up code there (``~/.ipython`` and ``~/.jupyter``, their defaults, are protected by name).
So are the files ``PYTHONSTARTUP`` (IPython runs it in every new kernel), ``BASH_ENV`` (every
non-interactive bash runs it first), ``ENV`` and ``RIPGREP_CONFIG_PATH`` name (the last gives a
read-only ``rg`` its options: ``--pre`` runs a program), and zsh's start-up files in ``ZDOTDIR``.
The folders the files put on ``PATH`` (``PATH="$HOME/.local/bin:$PATH"``, even where that folder
does not exist yet) hold the next shell's programs: ``path_programs`` protects them as ``PATH``'s.

The sources are read again when a start-up file changes, or HOME or one of those variables does (both checked at most
once a second, so that a question costs a clock reading here: ``clear`` forgets them at once).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

# a login shell's and an interactive shell's start-up files, in home and system-wide
HOME_FILES = (".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases", ".bash_logout",
              ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc")
SYSTEM_FILES = ("/etc/profile", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zshrc", "/etc/zshenv",
                "/etc/zprofile", "/etc/zlogin", "/etc/zsh/zshrc", "/etc/zsh/zshenv", "/etc/zsh/zprofile",
                "/etc/zsh/zlogin")
SYSTEM_GLOBS = ("/etc/profile.d/*.sh",)
# variables naming the folders IPython and Jupyter run configuration and start-up code from
# (profile_default/startup/*.py, ipython_kernel_config.py, kernel specs' commands)
FOLDER_VARIABLES = ("IPYTHONDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_PATH", "JUPYTER_CONFIG_PATH")
# variables naming one file that programs run as code at start, and who runs it
FILE_VARIABLES = {
    "PYTHONSTARTUP": "every interactive Python and IPython, so every new kernel, runs at start",
    "BASH_ENV": "every non-interactive bash, so every Bash tool command, runs first",
    "ENV": "sh and interactive POSIX shells run at start",
    "RIPGREP_CONFIG_PATH": "every rg reads its options from (--pre runs a program on each file it searches)",
}
# zsh reads its start-up files from $ZDOTDIR instead of home when that is set
ZSH_FILES = (".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout")
_VARIABLES = (*FOLDER_VARIABLES, *FILE_VARIABLES, "ZDOTDIR")
_MAX_FILES = 64  # start-up files and the files they source, read in all
_MAX_BYTES = 512 * 1024
_MAX_VALUES = 16  # possible values kept per word or variable
_RECHECK = 1.0  # seconds between looks at whether a start-up file changed
_GLOB_CHARS = frozenset("*?[")
_DEVICES = ("/dev/", "/proc/", "/sys/")


@dataclass
class Sources:
    """What the start-up files run: real paths, glob patterns by real folder, and who runs them."""

    # path (lexical and real) -> (the file running it, or for a folder above it below home: that
    # file; whether the path is such a folder)
    files: dict[str, tuple[str, bool]] = field(default_factory=dict)
    patterns: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # folder -> [(pattern, by)]
    read: list[str] = field(default_factory=list)  # the files read (their stamps decide freshness)
    # folders (ending in a separator) a kernel runs configuration from, named by a variable
    below: tuple[str, ...] = ()
    below_why: dict[str, str] = field(default_factory=dict)  # such a folder -> the variable naming it
    named: dict[str, str] = field(default_factory=dict)  # a file (lexical and real) -> the variable naming it
    # the PATH values the files set (``PATH="$HOME/.local/bin:$PATH"``): the next shell's programs
    path_values: tuple[str, ...] = ()


_LOCK = threading.Lock()
_cached: tuple[str | None, float, Any, Sources] | None = None  # (HOME, checked at, stamps, sources)


def clear() -> None:
    """Forget the sources read (the next question reads the start-up files again)."""
    global _cached
    with _LOCK:
        _cached = None


def sourced_reason(form: str) -> str | None:
    """Why writing the absolute path ``form`` is writing what a shell start-up file runs, or None."""
    found = current()
    hit = found.files.get(form)
    if hit is not None:
        by, held = hit
        if not held:
            return f"{form} is run by {_short(by)} in every new shell (a protected file)"
        return f"{form} holds {_short(by)}, which a shell start-up file runs (a protected folder)"
    variable = found.named.get(form)
    if variable is not None:
        return f"{form} is the file ${variable} names, which {FILE_VARIABLES[variable]} (a protected file)"
    if found.below:
        key = form + os.sep  # the folder itself too
        for folder in found.below:
            if key.startswith(folder):
                return (f"{form} is inside {folder[:-1]}, the folder ${found.below_why[folder]} names, whose "
                        "configuration and start-up code kernels and Jupyter run (a protected path)")
    if found.patterns:
        folder, _, name = form.rpartition(os.sep)
        for pattern, by in found.patterns.get(folder or os.sep, ()):
            if fnmatch.fnmatchcase(name, pattern):
                return f"{form} is run by {_short(by)} in every new shell ({pattern} there; a protected file)"
    return None


def current() -> Sources:
    """The sources of the current start-up files (read again when one of them changed)."""
    global _cached
    now = time.monotonic()
    cached = _cached
    if cached is not None and now - cached[1] < _RECHECK:
        return cached[3]
    with _LOCK:
        home = os.environ.get("HOME")
        folder = os.path.expanduser("~")
        cached = _cached
        if cached is not None and cached[0] == home:
            if now - cached[1] < _RECHECK:
                return cached[3]
            stamps = _stamps(cached[3].read, folder)
            if stamps == cached[2]:
                _cached = (home, now, stamps, cached[3])
                return cached[3]
        found = _read_all(folder)
        _cached = (home, now, _stamps(found.read, folder), found)
        return found


def _stamps(paths: list[str], home: str) -> tuple[Any, ...]:
    out: list[Any] = [home]
    for path in [*(os.path.join(home, n) for n in HOME_FILES), *SYSTEM_FILES, *paths]:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_mtime_ns, st.st_size, st.st_ino))
    for pattern in SYSTEM_GLOBS:
        out.append(tuple(sorted(glob.glob(pattern))))
    out.extend(os.environ.get(name) for name in _VARIABLES)
    return tuple(out)


def _short(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != os.sep and path.startswith(home + os.sep) else path


def _read_all(home: str) -> Sources:
    found = Sources()
    reader = _Reader(home, found)
    queue = [os.path.join(home, n) for n in HOME_FILES] + list(SYSTEM_FILES) + _zdotdir_files(found, home)
    for pattern in SYSTEM_GLOBS:
        queue += sorted(glob.glob(pattern))
    seen: set[str] = set()
    while queue and len(found.read) < _MAX_FILES:
        path = queue.pop(0)
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        text = _text(real)
        if text is None:
            continue
        found.read.append(real)
        reader.by = path
        queue += reader.read(text)
    _variable_folders(found, home)
    _variable_files(found)
    found.path_values = tuple(reader.vars.get("PATH", ()))
    return found


def _variable_folders(found: Sources, home: str) -> None:
    """The folders ``FOLDER_VARIABLES`` name (``~/.ipython`` and ``~/.jupyter`` are protected by
    name; ``IPYTHONDIR=/srv/ipython`` is not otherwise): not ``/`` nor home itself."""
    below: list[str] = []
    for name in FOLDER_VARIABLES:
        for entry in (os.environ.get(name) or "").split(os.pathsep):
            if not os.path.isabs(entry):
                continue
            for form in {os.path.normpath(entry), os.path.realpath(entry)}:
                if form not in (os.sep, home) and form + os.sep not in below:
                    below.append(form + os.sep)
                    found.below_why[form + os.sep] = name
    found.below = tuple(below)


def _variable_files(found: Sources) -> None:
    """The files ``FILE_VARIABLES`` name (``PYTHONSTARTUP=~/.startup.py``): absolute paths only."""
    for name in FILE_VARIABLES:
        entry = os.environ.get(name) or ""
        if os.path.isabs(entry):
            for form in (os.path.normpath(entry), os.path.realpath(entry)):
                if form != os.sep and not form.startswith(_DEVICES):
                    found.named.setdefault(form, name)


def _zdotdir_files(found: Sources, home: str) -> list[str]:
    """zsh's start-up files in ``$ZDOTDIR`` (protected here: only home's are protected by name)."""
    folder = os.environ.get("ZDOTDIR") or ""
    if not os.path.isabs(folder) or os.path.normpath(folder) in (os.sep, home):
        return []
    paths = [os.path.join(os.path.normpath(folder), n) for n in ZSH_FILES]
    for path in paths:
        for form in (path, os.path.realpath(path)):
            found.files.setdefault(form, ("zsh (from $ZDOTDIR)", False))
    return paths


def _text(path: str) -> bytes | None:
    from .paths import open_regular  # (paths asks this module about every path it protects)

    try:
        with open_regular(path) as f:
            return f.read(_MAX_BYTES)
    except OSError:
        return None


class _Reader:
    """Walks the parse trees of start-up files, keeping variables across files as a shell would."""

    def __init__(self, home: str, found: Sources) -> None:
        self.home = home
        self.found = found
        self.by = ""
        self.vars: dict[str, list[str]] = {"HOME": [home]}

    def read(self, text: bytes) -> list[str]:
        """The files ``text`` sources that exist (to read next); records everything it runs."""
        from .bash_parse import _parser  # (the thread's parser, as bash_stdin uses it)

        tree = _parser().parse(text)
        more: list[str] = []
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "variable_assignment":
                self._assign(node)
            elif kind == "for_statement":
                self._loop(node)
            elif kind == "command":
                more += self._command(node)
            stack.extend(reversed(node.children))
        return more

    def _assign(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or name.type != "variable_name":
            return
        values = self.values(value) if value is not None else [""]
        if values:
            self._bind(name.text.decode(), values)

    def _bind(self, name: str, values: list[str]) -> None:
        known = self.vars.setdefault(name, [])
        for v in values:
            if v not in known and len(known) < _MAX_VALUES:
                known.append(v)

    def _loop(self, node: Any) -> None:
        variable = node.child_by_field_name("variable")
        if variable is None:
            return
        words: list[str] = []
        for child in node.children_by_field_name("value"):
            words += self.values(child) or []
        if words:
            self._bind(variable.text.decode(), words)

    def _command(self, node: Any) -> list[str]:
        name = node.child_by_field_name("name")
        if name is None or not name.named_children:
            return []
        programs = self.values(name.named_children[0]) or []
        more: list[str] = []
        for program in programs:
            if program in (".", "source"):
                arguments = node.children_by_field_name("argument")
                if arguments:
                    for path in self.values(arguments[0]) or []:
                        more += self._record(path)
            elif os.sep in program:
                self._record(program)
        return more

    def _record(self, path: str) -> list[str]:
        """Protect ``path`` (relative: to home, where a login shell starts); the existing files it names."""
        if not path:
            return []
        path = os.path.normpath(os.path.join(self.home, path))
        if path == os.sep or path.startswith(_DEVICES):  # `. /dev/null`: not a file anyone writes code into
            return []
        name = os.path.basename(path)
        folder = os.path.dirname(path)
        if _GLOB_CHARS.isdisjoint(folder) and not _GLOB_CHARS.isdisjoint(name):
            for form in {folder, os.path.realpath(folder)}:
                self.found.patterns.setdefault(form, []).append((name, self.by))
            return sorted(glob.glob(path))
        if not _GLOB_CHARS.isdisjoint(path):
            return []
        for form in (path, os.path.realpath(path)):
            self.found.files[form] = (self.by, False)
            self._folders(form)
        return [path] if os.path.isfile(path) else []

    def _folders(self, path: str) -> None:
        home = self.home
        folder = os.path.dirname(path)
        while folder.startswith(home + os.sep) and folder != home:
            self.found.files.setdefault(folder, (path, True))
            folder = os.path.dirname(folder)

    def values(self, node: Any) -> list[str] | None:
        """The strings a word node may stand for (None: not known from the text)."""
        kind = node.type
        if kind == "word":
            text = node.text.decode(errors="replace")
            out = _unescape(text)
            if out == "~" or out.startswith("~/"):
                out = self.home + out[1:]
            return [out]
        if kind == "raw_string":
            return [node.text.decode(errors="replace")[1:-1]]
        if kind == "string":
            return self._joined([c for c in node.named_children])
        if kind == "string_content":
            return [node.text.decode(errors="replace")]
        if kind == "concatenation":
            parts = list(node.named_children)
            first = self.values(parts[0]) if parts else None
            if first is None:
                return None
            rest = self._joined(parts[1:])
            return None if rest is None else _product([first, rest])
        if kind == "simple_expansion":
            inner = node.named_children
            return self._variable(inner[0].text.decode()) if inner and inner[0].type == "variable_name" else None
        if kind == "expansion":
            return self._expansion(node)
        if kind == "command_substitution":
            return self._printed(node)
        if kind == "number":
            return [node.text.decode()]
        return None

    def _joined(self, parts: list[Any]) -> list[str] | None:
        pieces: list[list[str]] = []
        for part in parts:
            got = self.values(part)
            if got is None:
                return None
            pieces.append(got)
        return _product(pieces)

    def _variable(self, name: str) -> list[str] | None:
        known = self.vars.get(name)
        if known:
            return list(known)
        value = os.environ.get(name)
        return [value] if value is not None else None

    def _expansion(self, node: Any) -> list[str] | None:
        children = node.named_children
        if not children or children[0].type != "variable_name":
            return None
        value = self._variable(children[0].text.decode())
        operator = node.child_by_field_name("operator")
        if operator is None:
            return value if len(children) == 1 else None
        if operator.type not in (":-", "-", ":=", "="):
            return None
        default: list[str] | None = [""]
        if len(children) > 1:
            default = self._joined(children[1:])
        out = (value or []) + (default or [])
        return out[:_MAX_VALUES] or None

    def _printed(self, node: Any) -> list[str] | None:
        """``$(printf %s X || echo Y)``: X and Y (what such a substitution prints)."""
        out: list[str] = []
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type == "command":
                name = child.child_by_field_name("name")
                arguments = child.children_by_field_name("argument")
                program = name.text.decode() if name is not None else ""
                if program == "printf" and len(arguments) == 2 and arguments[0].text in (b"%s", b"'%s'", b'"%s"'):
                    out += self.values(arguments[1]) or []
                elif program == "echo" and len(arguments) == 1:
                    out += self.values(arguments[0]) or []
            elif child.type != "command_substitution":
                stack.extend(child.named_children)
        return out[:_MAX_VALUES] or None


def _unescape(text: str) -> str:
    out: list[str] = []
    escaped = False
    for ch in text:
        if escaped or ch != "\\":
            out.append(ch)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def _product(pieces: list[list[str]]) -> list[str]:
    out = [""]
    for piece in pieces:
        out = [a + b for a in out for b in piece][:_MAX_VALUES]
    return out


__all__ = ["Sources", "clear", "current", "sourced_reason"]
