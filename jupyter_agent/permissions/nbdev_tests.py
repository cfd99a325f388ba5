"""The notebooks ``nbdev-test`` (``nbdev_test``, ``nbdev-prepare``) runs.

nbdev runs each notebook's cells in an IPython shell of its own (execnb), so a cell's ``!rm -rf x``
runs a shell.  As a real nbdev 3 showed: without a path, every ``.ipynb`` below the project's
``nbs_path`` (``[tool.nbdev]`` of the nearest ``pyproject.toml``, or nbdev 2's ``settings.ini``;
default ``nbs``), whatever folder of the project it runs from, except files and folders whose name
starts with ``_`` or ``.`` and folders holding a ``.notest`` file; with one, that notebook or the
notebooks below that folder.  A notebook whose front matter (its first cell, raw or markdown)
says ``skip_exec: true`` does not run, nor a cell whose ``#| eval: false`` directive says so, nor
one carrying a test flag of ``tst_flags`` unless ``--flags`` names it.  Each notebook runs in its
own folder; its cells are read as IPython reads them.  A file filter nbdev is given
(``--file-glob``, ``--path-re`` …) is not narrowed to, except a ``--file-glob`` for another kind of
file, which is code only known at run time, as is a configuration that cannot be read.
"""

from __future__ import annotations

import configparser
import os
import re

from .bash_analysis import CommandInfo
from .bash_words import Word
from .notebook_runs import _code_in, json_cells, source_text
from .script_files import (
    NotKnown,
    Script,
    front_matter,
    ini_of,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    toml_of,
    walk_bounded,
)

NBDEVS = frozenset({"nbdev-test", "nbdev_test", "nbdev-prepare", "nbdev_prepare"})
_MAX_NOTEBOOKS = 500
_DIRECTIVE = re.compile(r"^\s*#\s*\|\s*(.*?)\s*$")
_VALUES = frozenset({"--flags", "--n-workers", "--n_workers", "--pause", "--ignore-fname", "--ignore_fname",
                     "--cell-timeout", "--cell-timing-min", "--file-glob", "--file_glob", "--file-re", "--file_re",
                     "--path-glob", "--path-re", "--folder-re", "--folder_re", "--skip-file-glob",
                     "--skip_file_glob", "--skip-file-re", "--skip_file_re", "--skip-folder-re",
                     "--skip_folder_re", "--path"})
_FLAGS = frozenset({"--timing", "--do-print", "--do_print", "--verbose", "--save", "--symlinks", "-h", "--help"})


def nbdev_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The notebooks the ``nbdev-test`` of this command runs."""
    return scripts_of_forms(info, cwds, memo, NBDEVS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    values: dict[str, str] = {}
    flags: set[str] = set()
    path: str | None = None
    for option, value, word in options_of(form[1:], _VALUES, "nbdev"):
        if not option:
            if word.literal is None:
                raise NotKnown(f"{word.text} is only known at run time")
            path = word.literal
        elif option in _VALUES:
            values[option.replace("_", "-")] = value or ""
        elif option in _FLAGS:
            flags.add(option)
        else:
            raise NotKnown(f"nbdev {option} is an option this does not know")
    if flags & {"-h", "--help"}:
        return []
    path = values.get("--path", path)
    glob = values.get("--file-glob", "*.ipynb")
    if glob != "*.ipynb":
        raise NotKnown(f"nbdev tests the files {glob} matches")
    if cwd_unknown:
        raise NotKnown("nbdev runs in a folder only known at run time")
    settings = _settings(cwd)
    if path is not None:
        target = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    elif settings is None:
        return []  # no nbdev project: nbdev fails
    else:
        target = settings[0]
    skip = not values.keys() & {"--skip-file-re", "--skip-folder-re", "--skip-file-glob"}
    ignore = values.get("--ignore-fname", ".notest")
    enabled = set(values.get("--flags", "").split())
    test_flags = (settings[1] if settings else set()) - enabled
    paths = [target] if os.path.isfile(target) else _notebooks_below(target, skip, ignore) if os.path.isdir(target) else []
    found = []
    for notebook in paths:
        sources, why = parsed_file(notebook, _sources)
        if sources is None:
            if why:
                found.append(Script(notebook, None, f"{notebook} could not be read as a notebook ({why})"))
            continue
        run = [source for source, directives in sources if not _skipped(directives, test_flags)]
        code = _code_in("python", run) if run else None
        if code:
            found.append(Script(notebook, notebook, code=code, cwd=os.path.dirname(notebook)))
    return found


_READ = per_form("the notebooks nbdev tests", _of_form)


def _settings(cwd: str) -> tuple[str, set[str]] | None:
    """The project's notebook folder and test flags: ``[tool.nbdev]`` of the nearest
    ``pyproject.toml`` that has it, or nbdev 2's ``settings.ini``."""
    folder = cwd
    while True:
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject):
            loaded, why = parsed_file(pyproject, toml_of)
            if not isinstance(loaded, dict):
                raise NotKnown(f"{pyproject}: {why or 'it is not TOML'}")
            tool = loaded.get("tool")
            nbdev = tool.get("nbdev") if isinstance(tool, dict) else None
            if isinstance(nbdev, dict):
                return _folder_and_flags(folder, nbdev.get("nbs_path", "nbs"), nbdev.get("tst_flags", ""))
        ini = os.path.join(folder, "settings.ini")
        if os.path.isfile(ini):
            parser, why = parsed_file(ini, ini_of)
            if not isinstance(parser, configparser.RawConfigParser):
                raise NotKnown(f"{ini}: {why or 'it is not an INI file'}")
            defaults = parser.defaults()
            return _folder_and_flags(folder, defaults.get("nbs_path", "nbs"), defaults.get("tst_flags", ""))
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _folder_and_flags(root: str, nbs: object, flags: object) -> tuple[str, set[str]]:
    if not isinstance(nbs, str) or not isinstance(flags, (str, list)):
        raise NotKnown("nbdev's nbs_path or tst_flags is not text")
    names = flags.split() if isinstance(flags, str) else [str(f) for f in flags]
    return os.path.realpath(os.path.join(root, nbs)), set(names)


def _notebooks_below(folder: str, skip: bool, ignore: str) -> list[str]:
    found: list[str] = []
    for where, dirs, files in walk_bounded(folder, "the notebooks nbdev tests"):
        if ignore in files:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not (skip and d.startswith(("_", "."))))
        found += [os.path.join(where, f) for f in sorted(files)
                  if f.endswith(".ipynb") and not (skip and f.startswith(("_", ".")))]
        if len(found) > _MAX_NOTEBOOKS:
            raise NotKnown(f"{folder} has more than {_MAX_NOTEBOOKS} notebooks")
    return found


def _sources(data: bytes) -> list[tuple[str, dict[str, str]]] | None:
    """Each code cell's source and ``#|`` directives; [] when the front matter says
    ``skip_exec: true``; None when the file is not a notebook."""
    cells = json_cells(data)
    if cells is None:
        return None
    texts = [(c.get("cell_type"), source_text(c.get("source", ""))) for c in cells if isinstance(c, dict)]
    if texts and texts[0][0] in ("raw", "markdown") and _skips_execution(texts[0][1]):
        return []
    out = []
    for kind, text in texts:
        if kind != "code":
            continue
        directives: dict[str, str] = {}
        for line in text.split("\n"):
            match = _DIRECTIVE.match(line)
            if match is None:
                break
            name, _, value = match.group(1).partition(":")
            directives[name.strip()] = value.strip()
        out.append((text, directives))
    return out


def _skips_execution(text: str) -> bool:
    try:
        meta = front_matter(text)
    except ValueError:
        return False
    return meta is not None and meta.get("skip_exec") is True


def _skipped(directives: dict[str, str], test_flags: set[str]) -> bool:
    if directives.get("eval", "").lower() == "false":
        return True
    return any(flag in directives for flag in test_flags)


__all__ = ["NBDEVS", "nbdev_scripts"]
