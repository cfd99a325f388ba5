"""Python tools that run a script or import a module the line names: ``coverage run app.py``,
``python -m cProfile app.py``, ``uvicorn app:app``, ``celery -A proj worker``, ``streamlit run
app.py``, ``alembic upgrade head`` (its ``env.py`` and migrations).

The rules met these as ``coverage``, ``uvicorn`` …, but what runs is the project's code: in
bypassPermissions under ``Bash(rm:*)`` each ran an ``app.py`` holding ``os.system("rm x")``
unasked, while ``python app.py`` was read and asked.  Here each names its code the way the tool
finds it — a ``.py`` operand, a ``-m MODULE`` (``coverage run -m pytest`` runs what pytest
runs), a ``module:attribute`` or a module a worker's ``-A``/``--app`` names — and
``code_files.py`` reads those files as it reads a script's.  Every operand that may be one is
taken (an option's value read as an operand names a file that is not there, or one more to
read), so an option this does not know hides nothing.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re

from .bash_words import Word
from .script_files import ini_of, parsed_file, text_of

# python -m MODULE ARGS…: modules that run a script or module their arguments name
LAUNCHER_MODULES = frozenset({"cProfile", "profile", "pdb", "trace", "coverage", "pyinstrument", "scalene",
                              "memray", "kernprof", "line_profiler", "viztracer", "debugpy", "IPython", "runpy",
                              "austin", "mprof", "uvicorn", "gunicorn", "hypercorn", "celery", "streamlit",
                              "locust", "dramatiq", "alembic", "pytest_watch", "ptw", "ipdb", "pudb", "unittest",
                              "doctest", "pydoc", "nose2", "pdoc", "mypy", "pylint"})
# programs that do the same (their console scripts)
LAUNCHERS = frozenset({"coverage", "pyinstrument", "scalene", "memray", "kernprof", "viztracer", "austin", "mprof",
                       "ipdb", "pudb", "pudb3", "streamlit", "fastapi", "panel", "gradio", "bokeh", "solara",
                       "chainlit", "marimo", "shiny", "textual", "locust", "scrapy", "dagster", "dagster-webserver",
                       "uvicorn", "gunicorn", "hypercorn", "daphne", "granian", "waitress-serve", "celery",
                       "dramatiq", "arq", "huey_consumer", "faust", "rq", "alembic", "ptw", "pytest-watch",
                       "python-lsp-server", "functions-framework", "chalice", "zappa", "modal", "sanic",
                       "pydoc", "pydoc3", "pdoc", "pdoc3", "nose2", "mypy", "dmypy", "pylint"})
# they discover test files (test*.py) when no test is named: python -m unittest, nose2
DISCOVERING = frozenset({"unittest", "nose2"})
# they run no module of the line, only their plugins (named on the line or in their configuration)
PLUGGED = frozenset({"mypy", "dmypy", "pylint"})
_MODULE_OPTIONS = frozenset({"-m", "--module"})
_APP_OPTIONS = frozenset({"-A", "--app", "--app-dir", "-f", "--locustfile", "--target", "--source", "-w",
                          "--worker-class", "--settings", "--config-module", "--module-name"})
_MODULE_ATTRIBUTE = re.compile(r"^([A-Za-z_][\w.]*)(?::[\w.()\[\]'\"]*)?$")


def launched(form: tuple[Word, ...], start: int) -> tuple[list[str], list[str], list[tuple[Word, ...]]]:
    """What the launcher whose words start at ``form[start]`` runs: (script paths as written,
    dotted modules, the pytest arguments when it runs pytest).  Words only known at run time are
    skipped (the rules meet them elsewhere)."""
    scripts: list[str] = []
    modules: list[str] = []
    pytest_args: list[tuple[Word, ...]] = []
    words = form[start:]
    i = 0
    while i < len(words):
        text = words[i].literal
        if text is None:
            i += 1
            continue
        key, eq, value = text.partition("=")
        if key in _MODULE_OPTIONS or (text[:2] == "-m" and len(text) > 2 and not text.startswith("--")):
            module = value if eq else text[2:] if text[:2] == "-m" and len(text) > 2 else (
                words[i + 1].literal if i + 1 < len(words) else None)
            if module in ("pytest", "py.test"):
                pytest_args.append(words[i + (1 if eq or len(text) > 2 and text[:2] == "-m" else 2):])
                break
            if module:
                modules.append(module)
            i += 1 if eq or (text[:2] == "-m" and len(text) > 2) else 2
            continue
        if key in _APP_OPTIONS:
            given = value if eq else words[i + 1].literal if i + 1 < len(words) else None
            if given:
                _operand(given, scripts, modules)
            i += 1 if eq else 2
            continue
        if text[:1] != "-":
            _operand(text, scripts, modules)
        elif eq and value:
            _operand(value, scripts, modules)
        i += 1
    return scripts, modules, pytest_args


def _operand(text: str, scripts: list[str], modules: list[str]) -> None:
    if text.endswith((".py", ".pyw", ".ipynb")) or "/" in text:
        scripts.append(text.partition(":")[0] if text.count(":") == 1 and not text.endswith(".py") else text)
        return
    match = _MODULE_ATTRIBUTE.match(text)
    if match is not None:
        modules.append(match.group(1))


def discovered_tests(form: tuple[Word, ...], start: int, cwd: str) -> list[str]:
    """The test files ``python -m unittest`` (with no test named, or ``discover``) and ``nose2``
    run: ``test*.py`` below the start folder (``-s DIR``; here by default), at most 2,000."""
    words = [w.literal or "" for w in form[start:]]
    if any(w and w[:1] != "-" and w != "discover" for w in words) and "discover" not in words:
        return []  # tests named: read as modules or files
    top = cwd
    pattern = "test*.py"
    for i, word in enumerate(words):
        if word in ("-s", "--start-directory") and i + 1 < len(words):
            top = os.path.join(cwd, words[i + 1])
        elif word in ("-p", "--pattern") and i + 1 < len(words):
            pattern = words[i + 1]
    found: list[str] = []
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv", "__pycache__")]
        found += [os.path.realpath(os.path.join(root, n)) for n in files if fnmatch.fnmatch(n, pattern)]
        if len(found) >= 2_000:
            break
    return found


def plugin_modules(form: tuple[Word, ...], name: str, cwd: str) -> list[str]:
    """The plugin modules mypy and pylint import: ``--load-plugins=a,b`` on the line, and
    ``plugins`` / ``load-plugins`` in their configuration files here (``mypy.ini``,
    ``.mypy.ini``, ``setup.cfg``, ``pyproject.toml``, ``.pylintrc``, ``pylintrc``, ``tox.ini``)."""
    names: list[str] = []
    for word in form:
        text = word.literal or ""
        if text.startswith("--load-plugins="):
            names += text.partition("=")[2].split(",")
    for i, word in enumerate(form[:-1]):
        if word.literal == "--load-plugins":
            names += (form[i + 1].literal or "").split(",")
    keys = ("plugins",) if name != "pylint" else ("load-plugins",)
    for config in ("mypy.ini", ".mypy.ini", "setup.cfg", "tox.ini", ".pylintrc", "pylintrc", "pyproject.toml"):
        text, _why = parsed_file(os.path.join(cwd, config), text_of)
        for key in keys if isinstance(text, str) else ():
            for match in re.finditer(rf"^\s*{re.escape(key)}\s*=\s*(.+?)\s*$", text, re.MULTILINE):
                names += re.split(r"[\s,\[\]\"']+", match.group(1))
    return [n.partition(":")[0] for n in dict.fromkeys(names) if n and _MODULE_ATTRIBUTE.match(n)]


def alembic_files(cwd: str, form: tuple[Word, ...]) -> list[str]:
    """The code ``alembic`` runs in ``cwd``: the ``env.py`` of the ``script_location`` its
    configuration names (``alembic.ini``, or ``-c FILE``) and its migrations (an upgrade runs
    them)."""
    config = "alembic.ini"
    words = [w.literal or "" for w in form]
    for i, word in enumerate(words):
        if word in ("-c", "--config") and i + 1 < len(words):
            config = words[i + 1]
        elif word.startswith("--config="):
            config = word.partition("=")[2]
    path = os.path.join(cwd, os.path.expanduser(config))
    config_file, _why = parsed_file(path, ini_of)
    location = config_file.get("alembic", "script_location", fallback="") if config_file is not None else ""
    if not location:
        return []
    folder = os.path.join(os.path.dirname(path), location.replace("%(here)s", os.path.dirname(path)))
    files = [os.path.join(folder, "env.py"), *sorted(glob.glob(os.path.join(folder, "versions", "*.py")))]
    return [os.path.realpath(f) for f in files if os.path.isfile(f)]


__all__ = ["DISCOVERING", "LAUNCHERS", "LAUNCHER_MODULES", "PLUGGED", "alembic_files", "discovered_tests", "launched",
           "plugin_modules"]
