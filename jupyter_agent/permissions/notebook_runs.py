"""The notebooks and IPython files a Bash line runs, and the shell code they run.

``jupyter nbconvert --execute nb.ipynb`` with a cell ``!rm -rf build`` ran ``rm`` under a rule that
allows ``jupyter`` and denies ``rm`` (and in bypassPermissions), though NotebookExecute, running the
same cell, is held to the Bash rules (``notebook_shell.py``).  Now each notebook such a command
runs is a script of the line: the shell code of its code cells (read as IPython reads them) meets
the deny and ask rules and the safety checks, from the folder its kernel starts in:

- ``jupyter nbconvert`` (``jupyter-nbconvert``, ``python -m nbconvert``) with ``--execute`` (or an
  ``--ExecutePreprocessor.*`` setting, or a ``--config`` file): each notebook it is given, in the
  notebook's folder; ``jupyter execute`` (``jupyter-execute``): each notebook, in its folder;
- ``papermill IN OUT``: IN, in the current folder or ``--cwd``;
- ``jupytext --execute`` / ``--run-path``: each notebook, in the output's folder (else the
  notebook's, else ``--run-path``);
- ``ipython FILE.ipynb|FILE.ipy`` (``python -m IPython``), ``ipython -c CODE`` and ``jupyter run
  FILE``: IPython code, in the current folder;
- ``pytest --nbmake`` / ``--nbval`` (on the line, in ``addopts`` or ``PYTEST_ADDOPTS``): each
  notebook it collects, in its folder;
- ``treon [PATH]…``: each notebook below the paths (the current folder), in its folder;
- ``voila NOTEBOOK`` (``jupyter voila``): the notebook, in its folder, when its page is opened (the
  browser voila opens, or anyone's), so its commands *may* run: a deny rule matching one asks;
  ``voila [FOLDER]`` serves each notebook below the folder (not hidden ones) the same way.

What the real programs do was checked by running them (``tests/permissions/test_notebook_runs.py``).
A notebook read from standard input, a URL, a text notebook jupytext converts, a folder IPython is
told to take start-up files from, or a kernel already running (``jupyter run --existing``) is code
only known at run time; so is ``ipython`` reading its input.  The cells run in the kernel an
option names (``papermill -k``, ``--ExecutePreprocessor.kernel_name``) or the notebook's metadata
does: a Python kernel's are read as IPython reads them, a shell kernel's (bash_kernel) are shell
code, another language's are a program, as a ``.py`` file's is (the language is the kernel spec's).
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import shlex
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache, partial
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word
from .notebook_shell import notebook_shell_code
from .paths import BadPath, resolve_below
from .script_files import (
    NotKnown,
    Script,
    ini_of,
    located,
    options_of,
    parsed_file,
    per_form,
    read_bounded,
    scripts_of_forms,
    toml_of,
)

_PYTESTS = frozenset({"pytest", "py.test"})
NOTEBOOK_RUNNERS = frozenset({"jupyter", "jupyter-nbconvert", "jupyter-execute", "jupyter-run", "nbconvert",
                              "papermill", "ipython", "ipython3", "IPython", "jupytext", "treon", "voila",
                              "jupyter-voila", "jupyter-console"}) | _PYTESTS
_MAX_NOTEBOOK = 64 * 1024 * 1024
_MAX_GLOB = 200
# options that take the next word as their value (a traitlets option may also be written --x=v)
_NBCONVERT_VALUES = frozenset({"--to", "--template", "--template-file", "--output", "--output-dir", "--writer",
                               "--post", "--reveal-prefix", "--nbformat", "--log-level", "--config", "--theme",
                               "--sanitize_html", "--embed-images", "--kernel_name", "--timeout",
                               "--startup_timeout"})
_PAPERMILL_VALUES = frozenset({"-p", "--parameters", "-r", "--parameters_raw", "-f", "--parameters_file", "-y",
                               "--parameters_yaml", "-b", "--parameters_base64", "--engine", "--cwd", "-k",
                               "--kernel", "-l", "--language", "--execution-timeout", "--start-timeout",
                               "--log-level", "--inject-paths"})
_PAPERMILL_PAIRS = frozenset({"-p", "--parameters", "-r", "--parameters_raw"})
_JUPYTEXT_VALUES = frozenset({"--to", "--format", "--from", "-o", "--output", "--format-options", "--opt",
                              "--set-formats", "--update-metadata", "--pipe", "--check", "--pipe-fmt",
                              "--run-path", "--set-kernel", "-k", "--diff-format"})
_IPYTHON_VALUES = frozenset({"-c", "-m", "--profile", "--profile-dir", "--ipython-dir", "--log-level", "--colors",
                             "--logfile", "--logappend", "--autocall", "--ext", "--gui", "--matplotlib",
                             "--cache-size", "--editor", "--config", "--term-title", "--theme"})
# IPython options that make it run code named elsewhere: start-up files, lines, extensions
_IPYTHON_ELSEWHERE = ("--profile-dir", "--ipython-dir", "--ext", "--InteractiveShellApp.", "--TerminalIPythonApp.",
                      "--config")
_IPYTHON_SUBCOMMANDS = frozenset({"profile", "kernel", "locate", "history", "notebook", "console", "qtconsole",
                                  "kernelspec", "nbconvert"})


def notebook_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The notebooks and IPython code this command runs (every form: ``uv run papermill a b``)."""
    return scripts_of_forms(info, cwds, memo, NOTEBOOK_RUNNERS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    program = form[0].literal or ""
    args = form[1:]
    if program == "jupyter" and args:  # jupyter SUBCOMMAND: jupyter-SUBCOMMAND
        if args[0].literal is None:
            raise NotKnown("the jupyter subcommand is only known at run time")
        program, args = f"jupyter-{args[0].literal}", args[1:]
    if program in ("jupyter-nbconvert", "nbconvert"):
        return _nbconvert(args, cwd, cwd_unknown)
    if program == "jupyter-execute":
        kernel = _option(args, ("--kernel_name",))
        return [s for word in _operands(args, _NBCONVERT_VALUES)
                for s in _notebooks(word, cwd, cwd_unknown, None, kernel=kernel)]
    if program == "jupyter-run":
        return _jupyter_run(args, cwd, cwd_unknown)
    if program == "papermill":
        return _papermill(args, cwd, cwd_unknown)
    if program == "jupytext":
        return _jupytext(args, cwd, cwd_unknown)
    if program in ("ipython", "ipython3", "IPython"):
        return _ipython(args, cwd, cwd_unknown)
    if program in _PYTESTS:
        return _pytest(args, cwd, cwd_unknown)
    if program == "treon":
        return _treon(args, cwd, cwd_unknown)
    if program in ("voila", "jupyter-voila"):
        return _voila(args, cwd, cwd_unknown)
    if program == "jupyter-console":  # echo '!rm x' | jupyter console: each line read is a cell
        if any(w.literal is not None and w.literal.startswith(("--version", "-h", "--help")) for w in args):
            return []
        raise NotKnown("jupyter console runs what it reads from its input in a kernel (--existing: a running one)")
    return []


_READ = per_form("IPython code", _of_form)


_TREON_VALUES = frozenset({"-e", "--exclude", "--threads"})


def _treon(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``treon [PATH]… [--exclude=PREFIX]…``: each notebook a path is or holds (``**/*.ipynb``, hidden
    names not matched), in the ``python3`` kernel, in its own folder, minus the excluded prefixes."""
    excluded: list[str] = []
    paths: list[Word] = []
    for option, value, word in options_of(args, _TREON_VALUES, "treon"):
        if not option:
            if word.literal is None:
                raise NotKnown(f"{word.text} is only known at run time")
            paths.append(word)
        elif option in ("-h", "--help", "--version"):
            return []
        elif option in ("-e", "--exclude"):
            excluded.append(value or "")
        elif option not in _TREON_VALUES and option not in ("-v", "--verbose"):
            raise NotKnown(f"treon {option} is an option this does not know")
    if cwd_unknown:
        raise NotKnown("treon runs in a folder only known at run time")
    prefixes = []
    for given in excluded:
        absolute = os.path.abspath(os.path.join(cwd, os.path.expanduser(given)))
        prefixes.append(absolute + os.sep if os.path.isdir(absolute) else absolute)
    found: list[Script] = []
    for word in paths or [Word(text=cwd)]:
        target = os.path.join(cwd, os.path.expanduser(word.literal or ""))
        if os.path.isdir(target):
            names = sorted(glob.glob(os.path.join(target, "**", "*.ipynb"), recursive=True))
            if len(names) > _MAX_GLOB:
                raise NotKnown(f"{word.text} holds more than {_MAX_GLOB} notebooks")
        else:
            names = [target] if target.lower().endswith(".ipynb") and os.path.isfile(target) else []
        for name in names:
            if not any(os.path.abspath(name).startswith(p) for p in prefixes):
                found += _notebooks(Word(text=name), cwd, False, None, kernel=Word(text="python3"))
    return found


_VOILA_VALUES = frozenset({"--port", "--template", "--theme", "--base_url", "--server_url", "--config",
                           "--log-level", "--ip"})


def _voila(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``voila [NOTEBOOK|FOLDER]``: the notebook, or each one below the folder (the current one; hidden
    names not served), in its own folder, when a page asks for it: commands it *may* run."""
    if any(w.literal in ("-h", "--help", "--help-all", "--version") for w in args):
        return []
    operands = _operands(args, _VOILA_VALUES)
    if cwd_unknown:
        raise NotKnown("voila serves a folder only known at run time")
    found: list[Script] = []
    for word in operands or [Word(text=cwd)]:
        if word.literal is None:
            raise NotKnown(f"{word.text} is only known at run time")
        target = os.path.join(cwd, os.path.expanduser(word.literal))
        if os.path.isdir(target):
            names = [n for n in sorted(glob.glob("**/*.ipynb", root_dir=target, recursive=True))
                     if not any(part.startswith(".") for part in n.split(os.sep))]
            if len(names) > _MAX_GLOB:
                raise NotKnown(f"{word.text} holds more than {_MAX_GLOB} notebooks voila may run")
            for name in names:
                found += _notebooks(Word(text=os.path.join(target, name)), cwd, False, None)
        else:
            found += _notebooks(word, cwd, False, None)
    return [replace(s, certain=False) for s in found]


def _operands(args: tuple[Word, ...], values: frozenset[str], pairs: frozenset[str] = frozenset()) -> list[Word]:
    """The words that may be files: not options, not the value of an option known to take one
    (``pairs``: two, papermill's ``-p NAME VALUE``; a traitlets option of unknown width may take
    the next word: it stays a candidate)."""
    found = []
    i = 0
    while i < len(args):
        word = args[i]
        text = word.literal
        if text is not None and text.startswith("-") and text != "-":
            i += 3 if text in pairs else 2 if text in values else 1
            continue
        found.append(word)
        i += 1
    return found


def _option(args: tuple[Word, ...], names: tuple[str, ...]) -> Word | None:
    """The value of the last of these options (``--cwd DIR`` or ``--cwd=DIR``)."""
    value = None
    for i, word in enumerate(args):
        text = word.text
        for name in names:
            if text == name and i + 1 < len(args):
                value = args[i + 1]
            elif text.startswith(name + "=") and word.literal is not None:
                value = Word(text[len(name) + 1:], word.static, word.glob)
    return value


def _flag(args: tuple[Word, ...], *prefixes: str) -> bool:
    return any(w.literal is None or w.literal.startswith(prefixes) for w in args if w.text.startswith("-"))


def _nbconvert(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    if not _flag(args, "--execute", "--ExecutePreprocessor.", "--config"):
        return []  # converting a notebook runs none of it
    if any(w.literal == "--stdin" for w in args):
        raise NotKnown("nbconvert reads the notebook from its input")
    kernel = _option(args, ("--ExecutePreprocessor.kernel_name",))
    return [s for word in _operands(args, _NBCONVERT_VALUES)
            for s in _notebooks(word, cwd, cwd_unknown, None, kernel=kernel)]


def _jupyter_run(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    if any(w.text.startswith("--existing") for w in args):
        raise NotKnown("jupyter run --existing runs it in a kernel already running, whose folder is not known")
    language = _language_of(_option(args, ("--kernel",)), "")
    if language is None:
        return []
    return [s for word in _operands(args, frozenset({"--kernel"}))
            for s in _ipython_file(word, cwd, cwd_unknown, True, language)]


def _papermill(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    operands = _operands(args, _PAPERMILL_VALUES, _PAPERMILL_PAIRS)
    if not operands:
        return []
    where = _option(args, ("--cwd",))
    kernel_cwd = cwd if where is None else _folder(where, cwd, cwd_unknown)
    kernel = _option(args, ("-k", "--kernel"))
    return _notebooks(operands[0], cwd, cwd_unknown, kernel_cwd, parent_is_cwd=False, kernel=kernel)


def _jupytext(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    run_path = _option(args, ("--run-path",))
    if run_path is None and not any(w.literal in ("--execute", None) for w in args if w.text.startswith("--")):
        return []
    if any(w.literal in ("--sync", "-s", "--update") for w in args):
        raise NotKnown("jupytext --sync may run the cells of the file paired with it")
    output = _option(args, ("-o", "--output"))
    kernel = _option(args, ("--set-kernel", "-k"))
    found = []
    for word in _operands(args, _JUPYTEXT_VALUES):
        text = word.literal
        if text is not None and not text.endswith(".ipynb"):
            raise NotKnown(f"jupytext makes the notebook it runs from {text}")
        if run_path is not None:
            kernel_cwd = _folder(run_path, cwd, cwd_unknown)
            if not os.path.isdir(kernel_cwd):  # jupytext then tries it from the notebook's folder
                raise NotKnown(f"--run-path {run_path.text} is not a folder from here")
        elif output is not None and output.literal != "-":
            kernel_cwd = _folder(output, cwd, cwd_unknown, parent=True)
        else:
            kernel_cwd = None
        found += _notebooks(word, cwd, cwd_unknown, kernel_cwd, parent_is_cwd=kernel_cwd is None, kernel=kernel)
    return found


def _ipython(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    if args and args[0].literal in _IPYTHON_SUBCOMMANDS:
        return []  # ipython profile create, ipython kernel: no code of its own
    if any(w.literal is not None and w.literal.startswith(("--version", "-h", "--help")) for w in args):
        return []
    for word in args:
        if word.literal is None and word.text.startswith("-"):
            raise NotKnown("an option of ipython is only known at run time")
        if word.literal is not None and word.literal.startswith(_IPYTHON_ELSEWHERE):
            raise NotKnown(f"{word.literal.split('=')[0]} makes ipython run code from elsewhere")
    found: list[Script] = []
    code = _option(args, ("-c", "--c"))
    if code is not None:
        if code.literal is None:
            raise NotKnown("the code ipython -c runs is only known at run time")
        found.append(Script(f"ipython -c {code.text}", None, code=_code_in("python", [code.literal]), cwd=cwd))
    if _option(args, ("-m",)) is not None:
        return found  # a Python module
    operands = _operands(args, _IPYTHON_VALUES)
    if operands:
        found += _ipython_file(operands[0], cwd, cwd_unknown, False, "python")
    elif code is None:
        raise NotKnown("ipython runs what it reads from its input")
    return found


# pytest's own options that take a value, and its plugins' (a word after another may be a path:
# one that is not a notebook or a folder adds nothing)
_PYTEST_VALUES = frozenset({"-k", "-m", "-c", "-o", "-p", "-W", "-n", "-r", "--rootdir", "--basetemp", "--confcutdir",
                            "--junitxml", "--junit-xml", "--ignore", "--ignore-glob", "--deselect", "--maxfail",
                            "--tb", "--durations", "--log-level", "--log-file", "--log-cli-level", "--cov",
                            "--cov-report", "--override-ini", "--config-file", "--import-mode", "--capture",
                            "--nbmake-kernel", "--nbmake-timeout", "--nbval-kernel-name", "--nbval-cell-timeout",
                            "--nbval-sanitize-with", "--sanitize-with", "--dist", "--numprocesses", "--timeout"})
# pytest's configuration files, in the order it looks in each folder: (name, section, whether the file
# counts even without the section)
_PYTEST_CONFIGS = (("pytest.ini", "pytest", True), (".pytest.ini", "pytest", True), ("pyproject.toml", "", False),
                   ("tox.ini", "pytest", False), ("setup.cfg", "tool:pytest", False))
_NORECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")
_MAX_WALK = 20_000


def _pytest(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    """``pytest --nbmake`` / ``--nbval`` (on the line, in ``addopts`` or ``PYTEST_ADDOPTS``) runs
    each notebook it collects, in the notebook's folder: those named, those below the folders
    named (else below ``testpaths``, and the current folder)."""
    config = _pytest_config(args, cwd, cwd_unknown)
    try:
        added = shlex.split(f"{config[1]} {os.environ.get('PYTEST_ADDOPTS', '')}")
    except ValueError:  # (pytest stops on it too, but what it holds is not known here)
        raise NotKnown("pytest's addopts could not be split into words") from None
    options = (*(Word(t) for t in added), *args)  # addopts come first
    if not any(w.literal is not None and "--nb" in w.literal for w in options):
        return []  # (a word only known at run time is not taken for the option: ls | xargs pytest runs)
    kernel = _option(options, ("--nbmake-kernel", "--nbval-kernel-name"))
    if any(w.literal in ("--nbval-current-env", "--current-env") for w in options):
        kernel = Word("python3")
    paths = _operands(args, _PYTEST_VALUES)
    if not paths:
        paths = [Word(os.path.join(config[0], p)) for p in config[2]] + [Word(".")]
    found: list[Script] = []
    for word in paths:
        text = word.literal
        if text is None:
            raise NotKnown(f"pytest may run the notebooks {word.text} names, only known at run time")
        text = text.split("::", 1)[0]
        if text.endswith(".ipynb"):
            found += _notebooks(Word(text), cwd, cwd_unknown, None, kernel=kernel)
            continue
        try:
            folder = resolve_below(os.path.expanduser(text), cwd)[1]
        except BadPath:
            continue
        if os.path.isdir(folder):
            for notebook in _notebooks_below(folder, config[3]):
                found += _notebooks(Word(os.path.relpath(notebook, cwd)), cwd, False, None, kernel=kernel)
    return found


def _pytest_config(args: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> tuple[str, str, list[str], list[str]]:
    """The folder of pytest's configuration file, its ``addopts``, ``testpaths`` and
    ``norecursedirs`` (the file ``-c`` names, else the first one pytest takes upwards)."""
    named = _option(args, ("-c", "--config-file"))
    if named is not None:
        if named.literal is None or cwd_unknown:
            raise NotKnown("pytest's configuration file is only known at run time")
        path = resolve_below(os.path.expanduser(named.literal), cwd)[1]
        section = "" if path.endswith(".toml") else "tool:pytest" if path.endswith(".cfg") else "pytest"
        candidates = [(path, section, True)]
    else:
        candidates = []
        folder = cwd
        while True:
            candidates += [(os.path.join(folder, name), section, always) for name, section, always in _PYTEST_CONFIGS]
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    for path, section, always in candidates:
        if not os.path.isfile(path):
            continue
        values, why = parsed_file(path, _INI_READERS[section, always] if section else _pytest_settings_toml)
        if why:
            data, _ = read_bounded(path)
            if data is None or b"--nb" in data:
                raise NotKnown(f"{os.path.basename(path)} could not be read ({why})")
            continue
        if values is not None:
            return (os.path.dirname(path), *values)
    return (cwd, "", [], list(_NORECURSE))


def _ini_settings(section: str, always: bool, data: bytes) -> tuple[str, list[str], list[str]] | None:
    parser = ini_of(data)
    if not parser.has_section(section):
        return ("", [], list(_NORECURSE)) if always else None  # pytest.ini counts even empty

    def get(key: str) -> str:
        return parser.get(section, key, fallback="")
    return (get("addopts"), get("testpaths").split(), get("norecursedirs").split() or list(_NORECURSE))


_Settings = Callable[[bytes], "tuple[str, list[str], list[str]] | None"]
_INI_READERS: dict[tuple[str, bool], _Settings] = {
    (section, always): partial(_ini_settings, section, always) for _name, section, always in _PYTEST_CONFIGS if section
}


def _pytest_settings_toml(data: bytes) -> tuple[str, list[str], list[str]] | None:
    tool = toml_of(data).get("tool")
    pytest = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(pytest, dict):
        return None
    table = pytest.get("ini_options", pytest)
    if not isinstance(table, dict):
        return None

    def words(key: str) -> list[str]:
        value = table.get(key, [])
        return shlex.split(value) if isinstance(value, str) else [str(v) for v in value] if isinstance(value, list) else []
    addopts = table.get("addopts", "")
    return (addopts if isinstance(addopts, str) else " ".join(map(shlex.quote, map(str, addopts or []))),
            words("testpaths"), words("norecursedirs") or list(_NORECURSE))


def _notebooks_below(folder: str, norecurse: list[str]) -> list[str]:
    """The ``.ipynb`` files pytest collects below ``folder`` (skipping ``norecursedirs``)."""
    found: list[str] = []
    seen: set[str] = set()
    entries = 0
    for top, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        entries += len(dirs) + len(files)
        if entries > _MAX_WALK or len(found) > _MAX_GLOB:
            raise NotKnown(f"pytest may run more notebooks below {folder} than are read here")
        dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, pattern) for pattern in norecurse)]
        found += [os.path.join(top, f) for f in files if f.endswith(".ipynb")]
    return sorted(found)


def _ipython_file(word: Word, cwd: str, cwd_unknown: bool, any_kind: bool, language: str) -> list[Script]:
    """A file IPython runs: a notebook's cells, an ``.ipy`` file as one cell; another file is
    Python (``any_kind``: every file is one cell, as ``jupyter run`` sends each to the kernel,
    whose ``language`` it is)."""
    text = word.literal
    if text is None:
        raise NotKnown(f"{word.text} is a file only known at run time")
    if not any_kind and text.lower().endswith(".ipynb"):
        return _notebooks(word, cwd, cwd_unknown, cwd, parent_is_cwd=False, ipython=True)
    if not any_kind and not text.lower().endswith(".ipy"):
        return []
    found = []
    for script in located(word, [cwd], search_path=False):
        if cwd_unknown and not os.path.isabs(script.shown):
            found.append(Script(script.shown, None, f"{script.shown} is found from a folder only known at run time"))
        elif script.path is None or script.missing:
            found.append(script)
        else:
            source, why = parsed_file(script.path, _text, _MAX_NOTEBOOK)
            if source is None:
                found.append(Script(script.shown, None, why or f"{script.shown} could not be read"))
            else:
                found.append(replace(script, code=_code_in(language, [source]), cwd=cwd))
    return found


def _notebooks(word: Word, cwd: str, cwd_unknown: bool, kernel_cwd: str | None, parent_is_cwd: bool = True,
               kernel: Word | None = None, ipython: bool = False) -> list[Script]:
    """The notebook(s) ``word`` names (nbconvert and nbclient take glob patterns too), run from
    ``kernel_cwd``, or from each notebook's folder (``parent_is_cwd``), in the ``kernel`` an option
    names or the one its metadata names (``ipython``: in IPython, whatever it names)."""
    text = word.literal
    if text is None and word.static and "{" not in word.text and not word.text.startswith("~"):
        text = word.text  # *.ipynb: the files it names (quoted wildcards too: more, not fewer)
    if text is None:
        raise NotKnown(f"{word.text} is a notebook only known at run time")
    if text == "-" or "://" in text:
        raise NotKnown(f"the notebook {text} is read from elsewhere")
    if cwd_unknown and not os.path.isabs(os.path.expanduser(text)):
        raise NotKnown(f"{text} is found from a folder only known at run time")
    names = [text]
    if any(c in text for c in "*?["):
        names = sorted(glob.glob(os.path.expanduser(text), root_dir=cwd))
        if len(names) > _MAX_GLOB:
            raise NotKnown(f"{text} names more than {_MAX_GLOB} notebooks")
    found = []
    for name in names:
        try:
            path = resolve_below(os.path.expanduser(name), cwd)[1]
        except BadPath:
            raise NotKnown(f"{name} could not be resolved") from None
        if not os.path.exists(path):
            found.append(Script(name, path, missing=True))
            continue
        notebook, why = parsed_file(path, code_cells, _MAX_NOTEBOOK)
        if notebook is None and why:
            found.append(Script(name, None, f"{name} could not be read as a notebook ({why})"))
            continue
        if notebook is None:
            continue  # not a notebook: the runner stops on it
        language = "python" if ipython else _language_of(kernel, notebook[0])
        code = None if language is None else _code_in(language, notebook[1])
        where = os.path.dirname(path) if parent_is_cwd else (kernel_cwd or cwd)
        if code is not None:
            found.append(Script(name, path, code=code, cwd=where))
        if language is not None and not ipython:  # the kernel starts by running its spec's argv
            found += _kernel_command(kernel, notebook[0], where)
    return found


def _kernel_command(option: Word | None, named: str, cwd: str) -> list[Script]:
    """The command that starts the kernel (its spec's ``argv``, ``{connection_file}`` filled
    in), for the deny and ask rules: a spec whose ``argv`` is ``rm -rf x`` runs ``rm``."""
    name = (option.literal if option is not None else None) or named or "python3"
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(name)
    except Exception:
        return []  # (_language_of found it: a spec that fails now is code only known at run time there)
    argv = [str(part).replace("{connection_file}", "kernel-connection.json") for part in spec.argv or ()]
    if not argv:
        return []
    return [Script(f"the kernel spec {name}", os.path.join(spec.resource_dir, "kernel.json"),
                   code=shlex.join(argv), cwd=cwd, rules_only=True)]


_SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh"})


def _code_in(language: str, sources: list[str]) -> str | None:
    """The shell code cells in ``language`` run: IPython's reading of them, a shell kernel's
    cells themselves (bash_kernel), or None (another language: a program)."""
    if language == "python":
        return _ipython_shell_code(tuple(sources), os.environ.get("PATH", ""))
    if language in _SHELL_LANGUAGES:
        return "\n".join(sources)
    return None


@lru_cache(maxsize=64)
def _ipython_shell_code(sources: tuple[str, ...], _path: str) -> str:
    """``notebook_shell_code``, kept per sources (and ``PATH``, which ``%rehashx`` reads): each
    decision of a line that runs a notebook would read every cell of it again."""
    return notebook_shell_code(sources)


def _language_of(option: Word | None, named: str) -> str | None:
    """The language of the kernel an option names, else the one the notebook names (else the
    default, ``python3``), from its kernel spec; None when there is no such kernel (nothing runs)."""
    if option is not None and option.literal is None:
        raise NotKnown(f"the kernel {option.text} is only known at run time")
    name = option.literal if option is not None else named
    if not name or name == "-":  # jupytext -k -: this Python's
        name = "python3"
    try:
        from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    except ImportError:  # (the runner cannot run either, unless it is another Python's)
        raise NotKnown(f"the language of the kernel {name} is not known here") from None
    try:
        spec = KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        return None
    except Exception as exc:
        raise NotKnown(f"the kernel spec {name} could not be read ({type(exc).__name__})") from None
    return (spec.language or "").lower()


def _folder(word: Word, cwd: str, cwd_unknown: bool, parent: bool = False) -> str:
    text = word.literal
    if text is None or (cwd_unknown and not os.path.isabs(text)):
        raise NotKnown(f"the notebook runs in {word.text}, a folder only known at run time")
    try:
        path = resolve_below(os.path.expanduser(text), cwd)[1]
    except BadPath:
        raise NotKnown(f"{text} could not be resolved") from None
    return os.path.dirname(path) if parent else path


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None


def code_cells(data: bytes) -> tuple[str, list[str]] | None:
    """The kernel a notebook names and the sources of its code cells, in order (nbformat 4, or 3
    which runners upgrade); None when the file is not a notebook at all."""
    try:
        nb: Any = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(nb, dict) or "nbformat" not in nb:
        return None
    meta = nb.get("metadata")
    spec = meta.get("kernelspec") if isinstance(meta, dict) else None
    kernel = spec.get("name") if isinstance(spec, dict) else None
    if nb["nbformat"] == 4:
        cells = nb.get("cells")
    elif nb["nbformat"] == 3:
        cells = [c for ws in nb.get("worksheets") or () if isinstance(ws, dict) for c in ws.get("cells") or ()]
    else:
        raise ValueError(f"nbformat {nb['nbformat']!r} is not read here")
    if not isinstance(cells, list):
        raise ValueError("its cells are not a list")
    sources = [source_text(cell.get("source", cell.get("input", ""))) for cell in cells
               if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    return (kernel if isinstance(kernel, str) else "", sources)


def source_text(source: object) -> str:
    """A cell's source as nbformat writes it (a string, or a list of lines), as one string;
    ``ValueError`` when it is not text."""
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    if not isinstance(source, str):
        raise ValueError("a cell's source is not text")
    return source


def json_cells(data: bytes) -> list[Any] | None:
    """The ``cells`` list of a notebook file's JSON; None when the file has none (not a notebook)."""
    try:
        nb: Any = json.loads(data)
    except ValueError:
        return None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    return cells if isinstance(cells, list) else None


__all__ = ["NOTEBOOK_RUNNERS", "code_cells", "notebook_scripts"]
