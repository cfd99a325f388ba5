"""The notebooks a Jupyter Book (or MyST) build runs.

``jupyter-book build BOOK`` (``jb``; Jupyter Book 1, a ``_config.yml`` book or no configuration)
executes, as a real Jupyter Book 1 showed, every notebook below the book's folder — those out of
the table of contents, in ``_folders`` and in hidden folders too, not those in ``_build`` — and
every MyST text notebook (a ``.md`` with ``{code-cell}`` directives), each in its own folder, as
``execute.execute_notebooks`` says: ``auto`` (the default) a notebook one of whose code cells has no
outputs, ``force``/``cache``/``inline`` every one, ``off`` none; ``execute.exclude_patterns`` (and
``sphinx.config`` ``nb_execution_*``) are honoured, ``--config`` names another file.  Building one
page (``jupyter-book build book/page.ipynb``) runs that page, and the notebooks of hidden folders
beside it (Jupyter Book's exclusion misses them).  Jupyter Book 2 and mystmd (``jupyter book
build``, ``myst build``; a ``myst.yml`` project) execute only with ``--execute``: every notebook of
the project.  ``mkdocs build``/``serve``/``gh-deploy`` with the ``mkdocs-jupyter`` plugin set to
``execute: true`` executes, as a real mkdocs-jupyter showed, each notebook below ``docs_dir`` (not
hidden ones, nor those its ``ignore`` or ``execute_ignore`` patterns match): a ``.ipynb`` in its own
folder, a ``.py`` script or a ``.md`` whose jupytext front matter names a Python kernel (read with
jupytext, so a commented ``# !rm -rf x`` magic runs) in the folder mkdocs runs in.  The cells are
read as ``notebook_runs`` reads a notebook's; a configuration that cannot be read is code only
known at run time.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import PurePath
from typing import Any

import yaml

from .bash_analysis import CommandInfo
from .bash_words import Word
from .notebook_runs import _code_in, _language_of, _notebooks, _text, json_cells
from .script_files import (
    NotKnown,
    Script,
    front_matter,
    mapping_file,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    walk_bounded,
)

BOOK_BUILDERS = frozenset({"jupyter-book", "jb", "myst", "jupyter", "mkdocs"})
_MAX_NOTEBOOKS = 500
_CODE_CELL = re.compile(r"^([ \t]*)(`{3,}|~{3,}|:{3,})\{code-cell\}[^\n]*$")
_VALUES = frozenset({"--path-output", "--config", "--toc", "--builder", "--custom-builder", "--port", "--server-port",
                     "--template", "--output", "-o", "--cd", "--config-file", "--ci"})


def book_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The notebooks the book build of this command runs (``jupyter-book build``, ``myst build``)."""
    return scripts_of_forms(info, cwds, memo, BOOK_BUILDERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    program, words = form[0].literal, list(form[1:])
    if program == "mkdocs":
        return _mkdocs(words, cwd, cwd_unknown)
    if program == "jupyter":  # jupyter book build: Jupyter Book 2
        if not words or words[0].literal != "book":
            return []
        words, program = words[1:], "jupyter book"
    if not words or words[0].literal not in ("build", "start"):
        if words and words[0].literal is None:
            raise NotKnown(f"the {program} command is only known at run time")
        return []  # jupyter-book create, clean, toc …
    flags, values, operands = _options(words[1:])
    if flags & {"-h", "--help"}:
        return []
    if cwd_unknown:
        raise NotKnown(f"{program} runs in a folder only known at run time")
    if operands:
        if operands[0].literal is None:
            raise NotKnown(f"{operands[0].text} is a book only known at run time")
        source = os.path.realpath(os.path.join(cwd, os.path.expanduser(operands[0].literal)))
    else:
        source = cwd  # Jupyter Book 2 and mystmd build the project of the current folder
    execute = "--execute" in flags
    folder = source if os.path.isdir(source) else os.path.dirname(source)
    given = values.get("--config")
    config_path = os.path.realpath(os.path.join(cwd, given)) if given else os.path.join(folder, "_config.yml")
    book_one = program in ("jupyter-book", "jb") and (given is not None or os.path.isfile(config_path)
                                                      or not os.path.isfile(os.path.join(folder, "myst.yml")))
    if book_one and not execute:
        mode, excluded = _book_one_settings(config_path)
    elif execute:
        mode, excluded = "force", []
    else:
        return []  # Jupyter Book 2 and mystmd execute nothing without --execute
    if mode == "off":
        return []
    if not os.path.exists(source):
        return []  # the build fails: nothing runs
    if os.path.isdir(source):
        paths = _notebook_files(source, hidden_only=False)
    else:
        paths = [source, *_notebook_files(folder, hidden_only=True)]
    found: list[Script] = []
    for path in paths:
        relative = os.path.relpath(path, folder)
        if any(fnmatch.fnmatch(relative, pattern) for pattern in excluded):
            continue
        found += _run(path, mode)
    return found


_READ = per_form("the notebooks the book build runs", _of_form)


_MKDOCS_VALUES = frozenset({"-f", "--config-file", "-a", "--dev-addr", "-d", "--site-dir", "-t", "--theme",
                            "-r", "--remote-branch", "-n", "--remote-name", "-m", "--message"})


def _mkdocs(words: list[Word], cwd: str, cwd_unknown: bool) -> list[Script]:
    if not words or words[0].literal not in ("build", "serve", "gh-deploy"):
        if words and words[0].literal is None:
            raise NotKnown("the mkdocs command is only known at run time")
        return []
    given = None
    for option, value, _word in options_of(words[1:], _MKDOCS_VALUES, "mkdocs"):
        if option in ("-h", "--help"):
            return []
        if option in ("-f", "--config-file"):
            given = value
    if cwd_unknown:
        raise NotKnown("mkdocs runs in a folder only known at run time")
    if given is not None:
        config_path = os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))
    else:
        names = [os.path.join(cwd, n) for n in ("mkdocs.yml", "mkdocs.yaml")]
        config_path = next((n for n in names if os.path.isfile(n)), names[0])
    loaded = mapping_file(config_path, _mkdocs_yaml)
    if loaded is None:
        return []  # no configuration: mkdocs fails
    if "INHERIT" in loaded:
        raise NotKnown(f"{config_path} inherits another configuration, not read here")
    options = _plugin_options(loaded.get("plugins"), "mkdocs-jupyter")
    if options is None or options.get("execute") is not True:
        return []
    docs = loaded.get("docs_dir", "docs")
    if not isinstance(docs, str):
        raise NotKnown(f"{config_path}: its docs_dir is not a folder name")
    patterns = {key: options.get(key, default) for key, default in
                (("include", ["*.py", "*.ipynb", "*.md"]), ("ignore", []), ("execute_ignore", []))}
    if not all(isinstance(v, list) and all(isinstance(p, str) for p in v) for v in patterns.values()):
        raise NotKnown(f"{config_path}: a pattern list of mkdocs-jupyter is not a list of strings")
    kernel = options.get("kernel_name") or None
    if kernel is not None and not isinstance(kernel, str):
        raise NotKnown(f"{config_path}: mkdocs-jupyter's kernel_name is not a name")
    found: list[Script] = []
    folder = os.path.join(os.path.dirname(config_path), docs)
    for where, dirs, files in walk_bounded(folder, "the notebooks mkdocs builds"):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".") and f.endswith((".ipynb", ".py", ".md"))):
            path = PurePath(os.path.join(where, name))
            if any(path.match(p) for p in patterns["ignore"]) or not any(path.match(p) for p in patterns["include"]):
                continue
            if any(path.match(p) for p in patterns["execute_ignore"]):
                continue
            if name.endswith(".ipynb"):
                found += _notebooks(Word(text=str(path)), where, False, None,
                                    kernel=Word(text=kernel) if kernel else None)
            else:
                found += _jupytext_notebook(str(path), kernel, cwd)
        if len(found) > _MAX_NOTEBOOKS:
            raise NotKnown(f"{folder} has more than {_MAX_NOTEBOOKS} notebooks")
    return found


def _plugin_options(plugins: object, name: str) -> dict[str, Any] | None:
    """A plugin's options from mkdocs' ``plugins`` (a list of names or one-key mappings, or a
    mapping); None when the plugin is not there."""
    if isinstance(plugins, dict):
        entries = list(plugins.items())
    elif isinstance(plugins, list):
        entries = [next(iter(p.items())) if isinstance(p, dict) and len(p) == 1 else (p, {}) for p in plugins]
    else:
        return None
    for key, options in entries:
        if key == name:
            return options if isinstance(options, dict) else {}
    return None


class _TolerantLoader(yaml.SafeLoader):
    """mkdocs.yml may hold ``!!python/name:…`` and ``!ENV`` tags: their values are not needed here."""


_TolerantLoader.add_multi_constructor("", lambda _loader, _suffix, _node: None)


def _mkdocs_yaml(data: bytes) -> Any:
    try:
        return yaml.load(data, Loader=_TolerantLoader)  # noqa: S506 - a SafeLoader that ignores tags
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not YAML ({type(exc).__name__})") from None


def _jupytext_notebook(path: str, kernel: str | None, cwd: str) -> list[Script]:
    """A ``.py`` or ``.md`` mkdocs-jupyter reads with jupytext (a ``.md`` only with a Python
    kernel in its front matter): its cells, run in the folder mkdocs runs in."""
    try:
        import jupytext  # type: ignore[import-untyped]
    except ImportError:
        return [Script(path, None, f"{path} is read with jupytext, which is not installed here")]
    try:
        nb = jupytext.read(path)
    except Exception as exc:
        return [Script(path, None, f"{path} could not be read with jupytext ({type(exc).__name__})")]
    spec = nb.get("metadata", {}).get("kernelspec") or {}
    if path.endswith(".md") and spec.get("language") != "python":
        return []  # a page, not a notebook
    sources = [c.get("source", "") for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    language = _language_of(Word(text=kernel) if kernel else None, spec.get("name", ""))
    code = None if language is None else _code_in(language, sources)
    return [Script(path, path, code=code, cwd=cwd)] if code else []


def _options(words: list[Word]) -> tuple[set[str], dict[str, str], list[Word]]:
    flags: set[str] = set()
    values: dict[str, str] = {}
    operands: list[Word] = []
    for option, value, word in options_of(words, _VALUES, "the book build"):
        if not option:
            operands.append(word)
        elif value is not None:
            values[option] = value
        else:  # the builds' flags (-W, -n, --all, --execute, --html …) take no value
            flags.add(option)
    return flags, values, operands


def _book_one_settings(config_path: str) -> tuple[str, list[str]]:
    """Jupyter Book 1's execution mode and excluded patterns, from its configuration."""
    loaded = mapping_file(config_path) or {}
    execute = loaded.get("execute") or {}
    sphinx = loaded.get("sphinx") or {}
    overrides = sphinx.get("config") if isinstance(sphinx, dict) else None
    if not isinstance(execute, dict) or (overrides is not None and not isinstance(overrides, dict)):
        raise NotKnown(f"{config_path}: its execute or sphinx settings are not mappings")
    overrides = overrides or {}
    mode = overrides.get("nb_execution_mode", overrides.get("jupyter_execute_notebooks",
                                                             execute.get("execute_notebooks", "auto")))
    if mode is False:
        mode = "off"
    if not isinstance(mode, str):
        raise NotKnown(f"{config_path}: its execution mode is not a word")
    excluded = [*(execute.get("exclude_patterns") or []), *(overrides.get("nb_execution_excludepatterns") or [])]
    if not all(isinstance(p, str) for p in excluded):
        raise NotKnown(f"{config_path}: its excluded patterns are not text")
    return mode.lower(), excluded


def _notebook_files(folder: str, hidden_only: bool) -> list[str]:
    """The notebooks (``.ipynb``, ``.md``) below ``folder``, not in ``_build`` (or only those in
    hidden folders)."""
    found: list[str] = []
    for where, dirs, files in walk_bounded(folder, "the notebooks a build runs"):
        top = where == folder
        dirs[:] = sorted(d for d in dirs if not (top and d == "_build") and d != ".ipynb_checkpoints"
                         and (not hidden_only or not top or d.startswith(".")))
        if hidden_only and top:
            continue
        found += [os.path.join(where, f) for f in sorted(files) if f.endswith((".ipynb", ".md"))]
        if len(found) > _MAX_NOTEBOOKS:
            raise NotKnown(f"{folder} has more than {_MAX_NOTEBOOKS} notebooks")
    return found


def _run(path: str, mode: str) -> list[Script]:
    if path.endswith(".md"):
        return _text_notebook(path)
    if mode == "auto":
        missing, _why = parsed_file(path, _missing_outputs)
        if missing is False:
            return []  # every code cell has its outputs: auto mode skips it
    return _notebooks(Word(text=path), os.path.dirname(path), False, None)


def _missing_outputs(data: bytes) -> bool | None:
    """Whether some code cell of the notebook has no outputs (None: not a notebook)."""
    cells = json_cells(data)
    if cells is None:
        return None
    return any(isinstance(c, dict) and c.get("cell_type") == "code" and not c.get("outputs") for c in cells)


def _text_notebook(path: str) -> list[Script]:
    """A MyST text notebook: its ``{code-cell}`` directives, in the kernel its front matter names."""
    loaded, why = parsed_file(path, _text)
    if loaded is None:
        return [Script(path, None, f"{path} could not be read ({why})")] if why else []
    text = str(loaded)
    if "{code-cell}" not in text:
        return []  # a page, not a notebook
    try:
        meta = front_matter(text) or {}
    except ValueError:
        meta = {}
    spec = meta.get("kernelspec")
    kernel = spec.get("name", "") if isinstance(spec, dict) else ""
    lines = text.split("\n")
    sources, i = [], 0
    while i < len(lines):
        match = _CODE_CELL.match(lines[i])
        i += 1
        if match is None:
            continue
        fence, body = match.group(2), []
        while i < len(lines) and not re.fullmatch(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        sources.append("\n".join(_cell_body(body)))
    language = _language_of(None, kernel if isinstance(kernel, str) else "")
    code = None if language is None else _code_in(language, sources)
    return [Script(path, path, code=code, cwd=os.path.dirname(path))] if code else []


def _cell_body(body: list[str]) -> list[str]:
    """A code cell's source without its options (``:tags: [x]`` lines, or a ``---`` YAML block)."""
    if body and body[0].strip() == "---" and "---" in (line.strip() for line in body[1:]):
        return body[[line.strip() for line in body[1:]].index("---") + 2:]
    i = 0
    while i < len(body) and re.match(r"^:[\w-]+:", body[i]):
        i += 1
    return body[i:]


__all__ = ["BOOK_BUILDERS", "book_scripts"]
