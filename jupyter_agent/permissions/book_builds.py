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

``sphinx-build [-M BUILDER] SOURCE OUT`` (``python -m sphinx``, ``sphinx-autobuild``; ``make html``
reaches it through the Makefile) executes notebooks when ``conf.py`` (``-c`` names its folder)
lists the ``nbsphinx`` or ``myst_nb`` extension: every ``.ipynb`` below SOURCE (hidden folders, the
output folder and checkpoints too, as Sphinx finds them; not what ``exclude_patterns`` or
``nb_execution_excludepatterns`` match), and with myst-nb every MyST text notebook, each in its own
folder.  ``nbsphinx_execute`` (``auto``: a notebook none of whose code cells has outputs; a
notebook's ``nbsphinx.execute`` metadata overrides it) and ``nb_execution_mode`` (``auto``: one
missing an output) say which, ``-D NAME=VALUE`` overriding ``conf.py``.  ``conf.py`` is Python: it
is read for plain assignments only, and a value it computes counts as executing every notebook
(more is read, never less).  ``jupyter_sphinx`` and custom notebook formats are code only known at
run time; sphinx-autobuild's ``--pre-build``/``--post-build`` commands are shell code.
"""

from __future__ import annotations

import ast
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

BOOK_BUILDERS = frozenset({"jupyter-book", "jb", "myst", "jupyter", "mkdocs", "sphinx-build", "sphinx",
                           "sphinx-autobuild"})
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
    if program in ("sphinx-build", "sphinx", "sphinx-autobuild"):
        return _sphinx(program, words, cwd, cwd_unknown)
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


_SPHINX_VALUES = frozenset({"-b", "--builder", "-M", "-d", "--doctree-dir", "-j", "--jobs", "-c", "--conf-dir",
                            "-D", "--define", "-A", "--html-define", "-t", "--tag", "-w", "--warning-file",
                            "--port", "--host", "--re-ignore", "--ignore", "--watch", "--pre-build",
                            "--post-build", "--delay", "--open-browser-delay"})
_SPHINX_FLAGS = frozenset({"-a", "--write-all", "-E", "--fresh-env", "-C", "--isolated", "-q", "--quiet", "-Q",
                           "--silent", "-W", "--fail-on-warning", "-n", "--nitpicky", "-N", "--no-color", "--color",
                           "-v", "--verbose", "-T", "--show-traceback", "-P", "--pdb", "--keep-going",
                           "--exception-on-warning", "--open-browser", "--no-initial", "--version", "-h", "--help"})
_EXECUTING = ("nbsphinx", "myst_nb")
_SETTINGS = ("extensions", "nbsphinx_execute", "nb_execution_mode", "jupyter_execute_notebooks", "exclude_patterns",
             "nb_execution_excludepatterns", "nbsphinx_custom_formats", "nb_custom_formats")


def _sphinx(program: str, words: list[Word], cwd: str, cwd_unknown: bool) -> list[Script]:
    """The notebooks a Sphinx build executes through nbsphinx or myst-nb, and sphinx-autobuild's commands."""
    options: dict[str, list[str]] = {}
    operands: list[Word] = []
    # make's `$(SPHINXBUILD) -M $@ …`: a builder only known at run time builds (only clean does not)
    words = [Word(text="html") if w.literal is None and k and words[k - 1].literal == "-M" else w
             for k, w in enumerate(words)]
    for option, value, word in options_of(words, _SPHINX_VALUES, program):
        if not option:
            operands.append(word)
        elif option in _SPHINX_VALUES or option in _SPHINX_FLAGS:
            options.setdefault(option, []).append(value or "")
        else:
            raise NotKnown(f"{program} {option} is an option this does not know")
    if options.keys() & {"-h", "--help", "--version"}:
        return []
    if program == "sphinx":  # python -m sphinx: sphinx-build
        program = "sphinx-build"
    if any(w.literal is None for w in operands[:2]):
        raise NotKnown("the Sphinx source or output folder is only known at run time")
    if options.get("-M", [""])[0] == "clean" or len(operands) < 2:
        return []  # sphinx-build -M clean removes the output; without two folders it fails
    if cwd_unknown:
        raise NotKnown(f"{program} runs in a folder only known at run time")
    found = [Script(f"the {option} command of {program}", None, code=value, cwd=cwd)
             for option in ("--pre-build", "--post-build") for value in options.get(option, [])]
    source = os.path.realpath(os.path.join(cwd, os.path.expanduser(operands[0].literal or "")))
    if not os.path.isdir(source):
        return found
    given = [*options.get("-c", []), *options.get("--conf-dir", [])]
    confdir = os.path.realpath(os.path.join(cwd, os.path.expanduser(given[-1]))) if given else source
    settings = {} if "-C" in options or "--isolated" in options else _conf_py(os.path.join(confdir, "conf.py"))
    for define in [*options.get("-D", []), *options.get("--define", [])]:
        name, _eq, value = define.partition("=")
        settings[name] = value.split(",") if name == "extensions" else value
    extensions = settings.get("extensions", [])
    if extensions is None:  # computed: either may be on
        extensions = list(_EXECUTING)
    if not isinstance(extensions, list):
        raise NotKnown("the Sphinx extensions are not a list")
    if "jupyter_sphinx" in extensions:
        raise NotKnown("jupyter_sphinx runs the code of the documents' jupyter-execute directives")
    used = [e for e in _EXECUTING if e in extensions]
    if not used:
        return found
    if any(settings.get(name) for name in ("nbsphinx_custom_formats", "nb_custom_formats")):
        raise NotKnown("the build executes notebooks of custom formats")
    modes = {"nbsphinx": _mode(settings.get("nbsphinx_execute", "auto"), "always"),
             "myst_nb": _mode(settings.get("nb_execution_mode", settings.get("jupyter_execute_notebooks", "auto")),
                              "force")}
    excluded = [*_patterns(settings.get("exclude_patterns")), *_patterns(settings.get("nb_execution_excludepatterns"))]
    for path in _sphinx_notebooks(source, excluded):
        for extension in used:
            if path.endswith(".md") and extension != "myst_nb":
                continue
            mode = modes[extension]
            if extension == "nbsphinx":
                mode = _nbsphinx_mode(path, mode)
            if mode not in ("off", "never"):
                found += _run(path, mode)
    return list(dict.fromkeys(found))


def _mode(value: object, everything: str) -> str:
    if value is False:
        return "off"
    return value.lower() if isinstance(value, str) else everything  # computed: every notebook


def _patterns(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(p, str) for p in value):
        return value
    return []  # computed: nothing excluded (more is read)


def _nbsphinx_mode(path: str, mode: str) -> str:
    """nbsphinx's mode for one notebook: its ``nbsphinx.execute`` metadata, else ``mode``, whose
    ``auto`` runs only a notebook none of whose code cells has outputs or a prompt number."""
    loaded, _why = parsed_file(path, _nbsphinx_facts)
    if not isinstance(loaded, tuple):
        return mode
    own, untouched = loaded
    mode = own if isinstance(own, str) else mode
    return "force" if mode == "always" or (mode == "auto" and untouched) else "off" if mode in ("auto", "never") else mode


def _nbsphinx_facts(data: bytes) -> tuple[object, bool] | None:
    import json

    try:
        loaded = json.loads(data)
    except ValueError:
        return None
    cells = json_cells(data)
    if not isinstance(loaded, dict) or cells is None:
        return None
    meta = loaded.get("metadata")
    own = meta.get("nbsphinx", {}).get("execute") if isinstance(meta, dict) and isinstance(
        meta.get("nbsphinx"), dict) else None
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    untouched = not any(c.get("outputs") or c.get("execution_count") for c in code)
    return own, untouched


def _conf_py(path: str) -> dict[str, Any]:
    """The plain settings of a ``conf.py`` that say which notebooks execute: a literal value, or
    None when the file computes it (``extensions.append("x")`` and ``+= [...]`` followed)."""
    loaded, why = parsed_file(path, _conf_settings)
    if loaded is None and why:
        raise NotKnown(f"{path} could not be read ({why})")
    return dict(loaded or {})


def _conf_settings(data: bytes) -> dict[str, Any] | None:
    """Each setting of ``_SETTINGS`` the module's own statements set (``if``/``try`` bodies
    included), as a literal; None where it is computed, set twice to different values, or may be
    set some other way (``app.setup_extension``, ``globals()``, ``from x import *``).  Extensions
    set twice are the union."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return {"extensions": None}  # Sphinx fails on it; read as much as may run
    settings: dict[str, Any] = {}

    def literal(node: ast.AST | None) -> Any:
        try:
            return ast.literal_eval(node) if node is not None else None
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    def put(name: str, value: Any, adding: bool = False) -> None:
        old = settings.get(name, [] if adding else value)
        if name == "extensions" or adding:
            both = isinstance(old, list) and isinstance(value, list)
            settings[name] = list(dict.fromkeys([*old, *value])) if both else None
        else:
            settings[name] = value if name not in settings or old == value else None

    def module_level(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in _SETTINGS:
                        put(target.id, literal(node.value))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                    and node.target.id in _SETTINGS:
                put(node.target.id, literal(node.value), adding=isinstance(node, ast.AugAssign))
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                    and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) \
                    and node.value.func.value.id in _SETTINGS:
                call, args = node.value, [literal(a) for a in node.value.args]
                name = call.func.value.id  # type: ignore[attr-defined]
                if call.func.attr == "append" and args and isinstance(args[0], str):  # type: ignore[attr-defined]
                    put(name, [args[0]], adding=True)
                elif call.func.attr == "extend" and args and isinstance(args[0], list):  # type: ignore[attr-defined]
                    put(name, args[0], adding=True)
                else:
                    settings[name] = None
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for part in ("body", "orelse", "finalbody"):
                    module_level(getattr(node, part, []))
                for handler in getattr(node, "handlers", []):
                    module_level(handler.body)

    module_level(tree.body)
    for node in ast.walk(tree):  # what may set them some other way
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setup_extension":
            settings["extensions"] = None
        elif isinstance(node, ast.Attribute) and node.attr in _SETTINGS and isinstance(node.ctx, ast.Store):
            settings[node.attr] = None  # app.config.nbsphinx_execute = …
        elif isinstance(node, ast.Name) and node.id in ("globals", "exec", "setattr", "vars"):
            settings["extensions"] = None
            settings.update((name, None) for name in _SETTINGS if name not in ("extensions",))
        elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            settings.update((name, None) for name in _SETTINGS)
    return settings


def _sphinx_notebooks(source: str, excluded: list[str]) -> list[str]:
    """The ``.ipynb`` and ``.md`` files Sphinx finds below ``source``: hidden folders, checkpoints and
    the output folder too (Sphinx leaves out only what a pattern matches: ``*`` within a folder,
    ``**`` across, and its own ``**/_sources`` and ``.#*``)."""
    matchers = [re.compile(_sphinx_pattern(p)) for p in [*excluded, "**/_sources", ".#*", "**/.#*"]]
    found: list[str] = []
    for where, dirs, files in walk_bounded(source, "the notebooks a build runs"):
        relative = os.path.relpath(where, source)
        dirs[:] = sorted(d for d in dirs
                         if not any(m.fullmatch(os.path.normpath(os.path.join(relative, d))) for m in matchers))
        for name in sorted(files):
            path = os.path.normpath(os.path.join(relative, name))
            if name.endswith((".ipynb", ".md")) and not any(m.fullmatch(path) for m in matchers):
                found.append(os.path.join(where, name))
        if len(found) > _MAX_NOTEBOOKS:
            raise NotKnown(f"{source} has more than {_MAX_NOTEBOOKS} notebooks")
    return found


def _sphinx_pattern(pattern: str) -> str:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


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
