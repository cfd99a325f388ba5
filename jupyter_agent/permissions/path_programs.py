"""Programs on PATH: changing one changes what a command line runs.

The Bash analyzer lets ``rg foo`` run without asking because ``rg`` only reads.  That holds only
while ``rg`` is the program the user installed: a project's virtual environment is usually on
PATH (``.venv/bin/rg`` comes with jupyter-agent itself), and it sits inside the working
directories, where ``acceptEdits`` lets the agent write.  An agent that overwrote
``.venv/bin/rg`` (a rewrite keeps the file's mode, so it stays executable) would run anything
the next time it searched.  So writing an existing executable file in a folder on PATH always
asks, in every mode, like a protected path.  A new file there is not executable, and making it
so (``chmod``) asks anyway.  Folders compare by ``fold_case``: on a case-insensitive disk
``.VENV/bin`` is ``.venv/bin``.  Besides the kernel's PATH, the folders of every other PATH the
agent's commands may run with count: the login shell's and a settings file's ``env.PATH``
(``add_search_path``; the union only grows, so a folder once on a PATH stays protected), and the
folders the shell start-up files put on the next shell's PATH (``~/.local/bin``, which Ubuntu's
``~/.profile`` adds once it exists: ``startup_sources``).

A new file is not executable when the Write tool or a redirection makes it, but a copy is when
its source is: ``cp run.sh .venv/bin/cat`` (``mv``, ``install``, ``ln``, ``rsync``, ``scp``)
puts a command there, so a copy landing in a folder on PATH asks too, and so does ``chmod``
there (``copied_onto_path``), under any allow rule (``bash_arguments.program_write_check``).
"""

from __future__ import annotations

import os
import stat
import sys
from functools import lru_cache

from .path_patterns import fold_case

_EXTRA_PATHS: list[str] = []  # other PATH values commands run with (add_search_path)


def add_search_path(value: str) -> None:
    """Also protect the programs in the folders of ``value``, a PATH some commands run with."""
    if value not in _EXTRA_PATHS:
        _EXTRA_PATHS.append(value)


def program_on_path(real: str, search_path: str | None = None, lexical: str | None = None) -> str | None:
    """Why writing the real path ``real`` must ask (an executable on PATH), or None.

    ``search_path``: the PATH the commands run with (the kernel's ``PATH`` by default).
    ``lexical``: the path as written, when a link leads from it to ``real``: writing
    ``.venv/bin/python3`` rewrites the interpreter it links to, and changes what ``python3`` runs.
    """
    for form in (real,) if lexical is None or lexical == real else (real, lexical):
        folder = os.path.dirname(form)
        if not _on_path(folder, search_path):
            continue
        try:
            mode = os.stat(form).st_mode
        except OSError:
            continue  # a new file: created without the executable bit
        if stat.S_ISREG(mode) and mode & 0o111:
            return f"{form} is a program in {folder}, {_where(folder, search_path)} (replacing it changes what commands run)"
    return None


def copied_onto_path(real: str, search_path: str | None = None, lexical: str | None = None) -> str | None:
    """Why a copy, move or link landing at the real path ``real`` (written as ``lexical``) must
    ask (it lands in a folder on PATH: a copy keeps its source's executable bit), or None."""
    for form in (real,) if lexical is None or lexical == real else (real, lexical):
        folder = os.path.dirname(form)
        if _on_path(folder, search_path):
            return (f"{os.path.basename(form)} would be a command in {folder}, {_where(folder, search_path)} "
                    "(a copy keeps its source's executable bit; chmod sets it)")
    return None


def _where(folder: str, search_path: str | None) -> str:
    if search_path is None and not _on_search_path(folder, None):
        return "a folder of programs that commands on PATH run"
    return "a folder on PATH"


def _on_path(folder: str, search_path: str | None) -> bool:
    return _on_search_path(folder, search_path) or (search_path is None and _behind_path(folder))


def _on_search_path(folder: str, search_path: str | None) -> bool:
    if search_path is None:  # the kernel's PATH, the other PATHs commands run with, the next shell's
        from .startup_sources import current  # (it reads files with paths' helpers)

        values = [*_run_paths(), *current().path_values]
    else:
        values = [search_path]
    key = fold_case(folder)
    return any(key in folders or relative for folders, relative in map(_folders, values))


def _behind_path(folder: str) -> bool:
    """Is ``folder`` one whose programs run when a command on PATH is run, though it is not on
    PATH itself: the kernel's own environment (Jupyter starts the next kernel with its
    ``python``), an interpreter version behind a version manager's shims (``~/.pyenv/versions/
    3.11.7/bin``, run by ``~/.pyenv/shims/python`` when ``shims`` is on PATH; rbenv, nodenv), a
    rustup toolchain (``~/.rustup/toolchains/stable-…/bin``, run by ``~/.cargo/bin``'s proxies)?"""
    if not folder.endswith(os.sep + "bin"):
        return False
    key = fold_case(folder)
    if key in _kernel_folders():
        return True
    parts = folder.split(os.sep)
    if len(parts) >= 5 and parts[-3] == "toolchains":
        rustup = os.sep.join(parts[:-3])
        return parts[-4] == ".rustup" or rustup == os.environ.get("RUSTUP_HOME")
    if len(parts) >= 5 and parts[-3] == "versions":
        return _on_search_path(os.sep.join(parts[:-3]) + os.sep + "shims", None)
    return False


@lru_cache(maxsize=1)
def _kernel_folders() -> frozenset[str]:
    folders = {os.path.dirname(sys.executable), os.path.join(sys.prefix, "bin")}
    return frozenset(fold_case(os.path.realpath(f)) for f in folders if f) | frozenset(map(fold_case, folders))


def _run_paths() -> list[str]:
    """The PATH values the agent's commands may run with: the kernel's and ``add_search_path``'s."""
    return [os.environ.get("PATH", ""), *_EXTRA_PATHS]


def relative_search_path() -> bool:
    """Whether a PATH the commands run with has a folder relative to where they run (``""``,
    ``.``, ``bin``): ``PATH=:/usr/bin`` (left by ``export PATH=$UNSET:$PATH``) runs ``./ls``."""
    return any(_folders(value)[1] for value in _run_paths())


def relative_program(program: str, cwd: str | None) -> str | None:
    """The file a command named ``program`` runs from a relative PATH folder, run in ``cwd``
    (None: a folder only known at run time), when bash finds it there before any fixed folder;
    else None.  That file is one of the working folder's, which the agent may have written."""
    for value in _run_paths():
        if not _folders(value)[1]:
            continue
        for entry in value.split(os.pathsep):
            if entry and os.path.isabs(entry):
                if _is_program(os.path.join(entry, program)):
                    break  # found in a fixed folder first
                continue
            if cwd is None:
                return f"{entry or '.'}/{program} in a folder only known at run time"
            candidate = os.path.join(cwd, entry or ".", program)
            if _is_program(candidate):
                return os.path.normpath(candidate)
    return None


def _is_program(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(mode) and bool(mode & 0o111)


@lru_cache(maxsize=32)
def _folders(search_path: str) -> tuple[frozenset[str], bool]:
    """The real folders of a PATH value (case folded), and whether it has a relative entry ("" or "." = the cwd)."""
    folders: set[str] = set()
    relative = False
    for entry in search_path.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            relative = True  # a folder relative to wherever the command runs: any folder at all
            continue
        folders.add(fold_case(os.path.realpath(entry)))
    return frozenset(folders), relative


__all__ = ["add_search_path", "copied_onto_path", "program_on_path", "relative_program", "relative_search_path"]
