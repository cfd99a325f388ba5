"""The code files a command runs whose strings may be commands: an interpreter's script
(``python tool.py``, ``python -m tool`` from the folder or its ``src/``, ``node x.js``, ``ruby
x.rb``; ``./tool.py`` or a file whose ``#!`` names an interpreter; ``uv run tool.py``), the source
other runners run (``go run``, ``deno run``, ``tsx``, ``java Main.java`` …: ``SOURCE_RUNNERS``), the
test files ``pytest`` is named or collects and the ``conftest.py`` files it loads, the task files
of runners whose tasks are code (``invoke``'s ``tasks.py``, ``nox``'s ``noxfile.py``, ``rake``'s
``Rakefile`` …), a console script of the project (``[project.scripts]``), the build code of a
project a command builds (``package_builds.py``), and the project's code files those load (their
imports, ``require("./lib")``: ``code_imports.py``).  A notebook's code cells are read by
``notebook_strings`` (``bash.py``, for the notebooks a line runs).

What such code computes is not known, but a string of it that reads as a command line is what
``subprocess.run(["rm", "-rf", "x"])``, ``os.system("rm x")``, ``c.run("rm -rf build")`` or ``sh "rm x"``
run: ``bash.py`` holds each such string to the deny and ask rules (a match asks, as the strings of
``python -c CODE`` do).  A file's strings are read once per version of it (``parsed_file``).
"""

from __future__ import annotations

import json
import os
import shlex
from typing import cast

from .bash_words import Word
from .code_imports import (
    go_package_files,
    is_python_file,
    loaded_files,
    module_files,
    perl_module_files,
    r_loaded,
    shebang_program,
)
from .inline_code import code_literals, inline_code, is_interpreter
from .js_tool_configs import CONFIGS, JS_LAUNCHERS, launched_scripts, tool_config_files
from .notebook_runs import _pytest_config, code_cells
from .package_builds import (
    BUILDERS,
    build_files,
    cmake_commands,
    dune_commands,
    heredoc_texts,
    pytest_files_below,
    tree_files,
    xml_texts,
)
from .paths import folders_up, nearest_holding
from .python_envs import script_folders
from .python_launchers import (
    DISCOVERING,
    LAUNCHER_MODULES,
    LAUNCHERS,
    PLUGGED,
    alembic_files,
    discovered_tests,
    launched,
    plugin_modules,
)
from .python_strings import folded_strings
from .quarto_docs import chunk_sources
from .script_files import NotKnown, ini_of, parsed_file, toml_of

# runner -> the files holding its tasks, in the folder it runs in (the first found)
TASK_FILES: dict[str, tuple[str, ...]] = {
    "invoke": ("tasks.py",), "inv": ("tasks.py",), "fab": ("fabfile.py",), "nox": ("noxfile.py",),
    "doit": ("dodo.py",), "scons": ("SConstruct", "Sconstruct", "sconstruct", "SConstruct.py"),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"), "gulp": ("gulpfile.js", "gulpfile.mjs"),
    "grunt": ("Gruntfile.js", "Gruntfile.coffee"), "waf": ("wscript",), "jake": ("Jakefile", "Jakefile.js"),
}
# an interpreter's options that take the next word as their value (not its script)
_VALUED = frozenset({"-W", "-X", "-r", "--require", "--import", "--loader", "--input-type", "-I", "-C", "-E",
                     "--env-file"})
# options after which no script file is read (code given inline, a module, standard input)
_NO_FILE = frozenset({"-c", "-m", "-e", "-E", "-p", "--eval", "--print", "-"})
_MAX_STRINGS = 20_000


Memo = dict[tuple[object, ...], object]


def code_files(form: tuple[Word, ...], cwd: str, memo: Memo | None = None,
               pythonpath: tuple[str, ...] = ()) -> list[str]:
    """The code files (real paths) ``form`` runs from ``cwd`` whose strings may be commands: a
    script, a task file, or the build code of a project it builds (``package_builds.py``), and
    what those load of the project (``code_imports.py``; ``pythonpath``: ``PYTHONPATH``'s folders);
    ``memo``: what one decision found already (a long line runs pytest in the same folder often)."""
    memo = {} if memo is None else memo
    files = _run_files(form, cwd, memo) + build_files(form, cwd)
    program = form[0].literal or ""
    name = program.rpartition("/")[2]
    start = _launcher_start(form, name)
    if start is not None:  # coverage run app.py, python -m cProfile app.py, uvicorn app:app, celery -A proj
        files += [f for f in _launched_files(form, start, cwd, memo) if f not in files]
    if name in CONFIGS:  # eslint .: eslint.config.js; jest: jest.config.ts and the test files
        key = ("js tool", name, tuple(w.text for w in form), cwd)
        if key not in memo:
            memo[key] = tool_config_files(form, name, cwd)
        files += [f for f in cast("list[str]", memo[key]) if f not in files]
    if name in JS_LAUNCHERS:  # nodemon x.js, pm2 start x.js, c8 node x.js
        files += [f for f in launched_scripts(form, cwd) if f not in files]
    interpreter = program if "/" in program and is_interpreter(name) else None
    if name == "ruby":  # ruby -Ilib x.rb: lib/ is on $LOAD_PATH
        pythonpath = (*_include_options(form)[0], *pythonpath)
    if name in _PRELOADERS:  # node -r ./setup.js x.js, --import, --loader; bun --preload; ruby -r ./x.rb
        files += [f for f in _preloaded(form, name, cwd) if f not in files]
    if name in ("perl", "prove"):  # perl -Ilib -MMy::Clean: @INC's folders, its modules
        includes, modules = _include_options(form)
        pythonpath = (*includes, *pythonpath)
        roots = tuple(os.path.join(cwd, p) for p in (*includes, "."))
        files += [f for m in modules for f in perl_module_files(m, roots) if f not in files]
    return files + loaded_files(files, cwd, memo, pythonpath, interpreter) if files else files


# interpreters' options that load a module before the script, and the suffixes tried for a name
_PRELOADERS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    **dict.fromkeys(("node", "nodejs"), (frozenset({"-r", "--require", "--import", "--loader",
                                                    "--experimental-loader"}), (".js", ".cjs", ".mjs"))),
    "bun": (frozenset({"-r", "--preload", "--require"}), (".js", ".ts", ".mjs", ".cjs")),
    **dict.fromkeys(("tsx", "ts-node"), (frozenset({"-r", "--require", "--import"}), (".ts", ".js", ".mjs"))),
    "ruby": (frozenset({"-r"}), (".rb",)),
}


def _preloaded(form: tuple[Word, ...], name: str, cwd: str) -> list[str]:
    """The files the preload options of ``form`` load (``node -r ./setup.js``: setup.js, run before
    the script): a relative path from ``cwd``; for node a package of the nearest ``node_modules``;
    for ruby a name in its ``-I`` folders."""
    options, suffixes = _PRELOADERS[name]
    values: list[str] = []
    args = form[1:]
    i = 0
    while i < len(args):
        text = args[i].literal or ""
        if text[:1] != "-" or text == "--":
            break  # the script: the options end
        key, eq, value = text.partition("=")
        if key in options:
            given = value if eq else args[i + 1].literal if i + 1 < len(args) else None
            values += [given] if given else []
            i += 1 if eq else 2
            continue
        if name == "ruby" and text[:2] == "-r" and len(text) > 2:
            values.append(text[2:])
        i += 2 if text in _VALUED else 1  # ruby -I lib -r x: -I's value is no script
    folders = [cwd]
    if name == "ruby":
        folders = [os.path.join(cwd, f) for f in _include_options(form)[0]]
    found: list[str] = []
    for value in values:
        if value.startswith(("./", "../", "/", "~")) or name != "ruby" and os.path.isabs(value):
            bases = [os.path.join(cwd, os.path.expanduser(value))]
        elif name == "ruby":
            bases = [os.path.join(folder, value) for folder in folders]
        else:  # a package: node_modules/NAME from the folder up
            bases = [os.path.join(folder, "node_modules", value) for folder in folders_up(cwd)]
        for base in bases:
            candidates = [base, *(base + s for s in suffixes)]
            if os.path.isdir(base):
                candidates += _folder_entry(base, "node") or [os.path.join(base, "index" + s) for s in suffixes]
            path = next((c for c in candidates if os.path.isfile(c)), None)
            if path is not None:
                found.append(os.path.realpath(path))
                break
    return found


def _launcher_name(form: tuple[Word, ...], start: int) -> str:
    """The launcher's name: the program's, or the module's of ``python -m MODULE``."""
    name = (form[0].literal or "").rpartition("/")[2]
    if name in LAUNCHERS:
        return {"dmypy": "mypy", "pdoc3": "pdoc", "pydoc3": "pydoc"}.get(name, name)
    text = form[start - 1].literal or ""
    return text[2:] if text[:2] == "-m" and len(text) > 2 else text


def _launcher_start(form: tuple[Word, ...], name: str) -> int | None:
    """Where the words of a Python launcher begin in ``form`` (``coverage run app.py``: 1;
    ``python -m cProfile app.py``: 3), or None when ``form`` runs none."""
    if name in LAUNCHERS:
        return 1
    if not name.startswith(("python", "pypy")):
        return None
    for i, word in enumerate(form[1:-1], 1):
        text = word.literal or ""
        module = text[2:] if text[:2] == "-m" and len(text) > 2 else form[i + 1].literal if text == "-m" else None
        if module is not None:
            return (i + (1 if len(text) > 2 else 2)) if module in LAUNCHER_MODULES else None
        if text[:1] != "-":
            return None  # a script: its own arguments
    return None


def _launched_files(form: tuple[Word, ...], start: int, cwd: str, memo: Memo) -> list[str]:
    launcher = _launcher_name(form, start)
    if launcher in PLUGGED:  # mypy ., pylint pkg: their plugins run, not the modules they check
        return [f for module in plugin_modules(form, launcher, cwd) for f in _module_file(module, cwd)]
    scripts, modules, pytest_args = launched(form, start)
    if launcher in DISCOVERING:  # python -m unittest: the test*.py files it discovers
        scripts += discovered_tests(form, start, cwd)
        modules = [m for m in modules if m != "discover"]
    found = [os.path.realpath(os.path.join(cwd, os.path.expanduser(s))) for s in scripts]
    found = [f for f in found if os.path.isfile(f)]
    found += [f for module in modules for f in _module_file(module, cwd)]
    for args in pytest_args:  # coverage run -m pytest: what pytest runs (and a local pytest/ first)
        found += _module_file("pytest", cwd) + _pytest_files(args, cwd, memo)
    if form[0].literal and ("alembic" in (form[0].literal.rpartition("/")[2], *(w.literal for w in form[1:start]))):
        found += alembic_files(cwd, form)
    return list(dict.fromkeys(found))


def _prove_files(args: tuple[Word, ...], cwd: str) -> list[str]:
    """The test files ``prove`` runs: the files named, the ``.t`` files of the folders named (of
    ``t/`` by default; all of them below, which reads more than prove without ``-r`` does)."""
    named = [w.literal for w in args if w.literal and w.literal[:1] != "-"]
    found: list[str] = []
    for text in named or ["t"]:
        path = os.path.join(cwd, text)
        if os.path.isdir(path):
            found += [os.path.realpath(f) for f in tree_files(path, (".t",))]
        elif os.path.isfile(path):
            found.append(os.path.realpath(path))
    return list(dict.fromkeys(found))


def _include_options(form: tuple[Word, ...]) -> tuple[list[str], list[str]]:
    """perl's (prove's, ruby's) ``-I DIR`` folders and ``-M``/``-m`` modules, up to its script or code
    (``-MFoo=bar``, ``-M-strict``: the module's name); ``prove -l`` puts ``lib/`` on ``@INC``."""
    args = form[1:]
    prove = (form[0].literal or "").endswith("prove")  # (its options may follow its operands)
    includes: list[str] = []
    modules: list[str] = []
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None or text[:1] != "-" or text in ("-", "--"):
            if not prove:
                break
            i += 1
            continue
        if text[:2] == "-I":
            value = text[2:] or (args[i + 1].literal if i + 1 < len(args) else None)
            includes += [value] if value else []
            i += 1 if text[2:] else 2
            continue
        if text[:2] in ("-M", "-m"):
            modules += text[2:].lstrip("-").partition("=")[0].split()[:1]
        elif prove and (text == "--lib" or (text[1:2] != "-" and "l" in text)):
            includes.append("lib")  # prove -l, -lr, -vl
        i += 2 if text in ("-e", "-E") else 1
    return includes, modules


def may_run_code_files(program: str) -> bool:
    """The cheap test first: may ``program`` (a form's first word) run a code file ``code_files``
    reads?  (Most of a line's programs are none of these.)"""
    name = program.rpartition("/")[2]
    return ("/" in program or name in _NAMED or name.endswith(_SCRIPT_SUFFIXES) or name[:3] == "pip"
            or is_interpreter(name) or name in LAUNCHERS or name in CONFIGS or name in JS_LAUNCHERS)


def _run_files(form: tuple[Word, ...], cwd: str, memo: Memo) -> list[str]:
    program = form[0].literal
    if program is None:
        return []
    name = program.rpartition("/")[2]
    if name in TASK_FILES:
        for file in TASK_FILES[name]:
            path = os.path.join(cwd, file)
            if os.path.isfile(path):
                return [os.path.realpath(path)]
        return []
    if name == "go" and len(form) > 1 and form[1].literal == "test":
        return _go_test_files(form[2:], cwd)
    if name in SOURCE_RUNNERS:
        return _source_files(form, name, cwd)
    if name in ("pytest", "py.test"):
        return _pytest_files(form[1:], cwd, memo)
    if name == "prove":  # Perl's test harness: the .t files of the folders it is given, else t/
        return _prove_files(form[1:], cwd)
    interpreter = is_interpreter(name)
    if (name.endswith(_SCRIPT_SUFFIXES) or "/" in program) and not interpreter:  # ./tool.py, uv run tool.py
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(program)))
        return [path] if os.path.isfile(path) and (name.endswith(_SCRIPT_SUFFIXES) or _interpreted(path)) else []
    if not interpreter:
        return _console_script(name, cwd, memo)
    if name.startswith("python") and len(form) > 2 and form[1].literal == "-m" and form[2].literal == "pytest":
        return _module_file("pytest", cwd) + _pytest_files(form[3:], cwd, memo)  # (a local pytest/ first)
    i = 1
    while i < len(form):
        text = form[i].literal
        if text is None:
            return []
        if name.startswith(("python", "ipython")) and text[:2] == "-m":  # python -m pkg.tool: the folder's
            module = text[2:] or (form[i + 1].literal if i + 1 < len(form) else None)
            return _module_file(module, cwd)
        if text in _NO_FILE or (text[:2] == "-c" and text != "-c" and name.startswith("python")):
            return _named_in_code(form, cwd)  # python -c 'runpy.run_path("tool.py")': that file's too
        if text[:1] != "-":
            if text.endswith(".ipynb"):  # ipython x.ipynb: its cells (notebook_runs.py), not JSON's strings
                return []
            path = os.path.join(cwd, os.path.expanduser(text))
            if os.path.isdir(path):  # python app/ runs app/__main__.py; node . the package's main
                return _folder_entry(os.path.realpath(path), name)
            # a script that is no regular file (a named pipe) is read as it runs: it cannot be read here
            return [os.path.realpath(path)] if os.path.exists(path) else []
        i += 2 if text in _VALUED else 1
    return []


def _folder_entry(folder: str, name: str) -> list[str]:
    """The file an interpreter runs when given a folder: Python its ``__main__.py``; node and bun
    the ``main`` of its ``package.json``, else its ``index.js``."""
    if name.startswith(("python", "pypy")):
        candidates = [os.path.join(folder, "__main__.py")]
    elif name in ("node", "nodejs", "bun"):
        manifest, _why = parsed_file(os.path.join(folder, "package.json"), json.loads)
        main = manifest.get("main") if isinstance(manifest, dict) else None
        base = os.path.join(folder, main) if isinstance(main, str) and main else None
        candidates = [base, *(base + s for s in _NODE_SUFFIXES), os.path.join(base, "index.js")] if base else []
        candidates += [os.path.join(folder, "index" + s) for s in _NODE_SUFFIXES]
    else:
        return []
    return [os.path.realpath(c) for c in candidates if os.path.isfile(c)][:1]


_NODE_SUFFIXES = (".js", ".cjs", ".mjs")


def _named_in_code(form: tuple[Word, ...], cwd: str) -> list[str]:
    """The code files the inline code of ``form`` names in a string (``exec(open("tool.py").read())``,
    ``runpy.run_path("tool.py")``, ``require("./x.js")``) that are there: it may run them."""
    codes = inline_code(form)
    literals = code_literals(codes, bare=False, words=False)
    paths = [os.path.realpath(os.path.join(cwd, os.path.expanduser(t))) for t in literals
             if t.endswith((*_SCRIPT_SUFFIXES, ".node")) and "\n" not in t]  # (require("./addon.node"): compiled)
    if (form[0].literal or "").rpartition("/")[2] in ("Rscript", "R"):  # devtools::load_all(), tar_make()
        paths += [f for code in codes for f in r_loaded(code, cwd)]
    return [path for path in dict.fromkeys(paths) if os.path.isfile(path)]


_TS = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")
_ANY = ("*",)  # a program with no subcommands: its first operand of the suffix is the file
# programs that run a source file: name -> (the subcommands that run one, "" for the file first
# without one, or _ANY; the suffixes of their source files)
SOURCE_RUNNERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "go": (("run",), (".go",)), "deno": (("run", ""), _TS), "tsx": (("watch", ""), _TS), "ts-node": (_ANY, _TS),
    "ts-node-esm": (_ANY, _TS), "esno": (_ANY, _TS), "vite-node": (_ANY, _TS), "jiti": (_ANY, _TS),
    "java": (_ANY, (".java",)), "groovy": (_ANY, (".groovy",)), "kotlin": (_ANY, (".kts",)),
    "kotlinc": (_ANY, (".kts",)), "scala": (("run", ""), (".sc", ".scala")), "scala-cli": (("run", ""), (".sc", ".scala")),
    "amm": (_ANY, (".sc",)), "swift": (_ANY, (".swift",)), "elixir": (_ANY, (".exs", ".ex")),
    "dart": (("run", ""), (".dart",)), "crystal": (("run", ""), (".cr",)), "nim": (("r", "c", "compile"), (".nim",)),
    "zig": (("run",), (".zig",)), "runghc": (_ANY, (".hs",)), "runhaskell": (_ANY, (".hs",)),
    "tclsh": (_ANY, (".tcl",)), "wish": (_ANY, (".tcl", ".tk")), "ocaml": (_ANY, (".ml",)),
    "racket": (_ANY, (".rkt", ".scm")), "guile": (_ANY, (".scm",)), "csi": (_ANY, (".scm",)), "gsi": (_ANY, (".scm",)),
    "chez": (_ANY, (".ss", ".scm")), "scheme": (_ANY, (".ss", ".scm")), "sbcl": (_ANY, (".lisp", ".lsp", ".cl")),
    "clojure": (_ANY, (".clj", ".cljc")), "clj": (_ANY, (".clj", ".cljc")), "bb": (_ANY, (".clj", ".cljc", ".bb")),
    "raku": (_ANY, (".raku", ".rakumod", ".p6", ".pl6", ".pl")), "perl6": (_ANY, (".p6", ".pl6", ".pl")),
    "janet": (_ANY, (".janet",)), "qjs": (_ANY, (".js", ".mjs")), "pwsh": (_ANY, (".ps1",)),
    "powershell": (_ANY, (".ps1",)), "escript": (_ANY, (".erl", ".escript")), "swipl": (_ANY, (".pl", ".pro")),
    "fennel": (_ANY, (".fnl",)), "hy": (_ANY, (".hy",)), "coffee": (_ANY, (".coffee",)),
}
_MAX_PACKAGE_FILES = 50


def _source_files(form: tuple[Word, ...], name: str, cwd: str) -> list[str]:
    """The source file a runner runs (``go run main.go``, ``deno run -A x.ts``, ``tsx x.ts``, ``java
    Main.java``), or a Go package's files (``go run .``, ``go run ./cmd/app``)."""
    subcommands, suffixes = SOURCE_RUNNERS[name]
    words = [w.literal for w in form[1:]]
    operands = [(i, w) for i, w in enumerate(words) if w is not None and w[:1] != "-"]
    if not operands:
        return []
    if subcommands is _ANY:
        start = 0
    elif operands[0][1] in subcommands:  # go run …, deno run …
        start = operands[0][0] + 1
    elif "" in subcommands and operands[0][1].endswith(suffixes):  # tsx x.ts, deno x.ts (not deno fmt x.ts)
        start = operands[0][0]
    else:
        return []
    for text in words[start:]:
        if text is None:
            return []
        if text[:1] == "-" or "=" in text:
            continue
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(text)))
        if text.endswith(suffixes):
            return [path] if os.path.isfile(path) else []
        if name == "go" and (text in (".", "..") or text.startswith(("./", "../", "/"))) and os.path.isdir(path):
            return go_package_files(path)[:_MAX_PACKAGE_FILES]
    return []


def _go_test_files(args: tuple[Word, ...], cwd: str) -> list[str]:
    """The Go files ``go test`` builds and runs: of each local package it names (``./pkg``, ``.``,
    ``./...`` and everything below), or of the package here; their ``_test.go`` files too."""
    named = [w.literal for w in args if w.literal is not None and w.literal.startswith((".", "/"))]
    found: list[str] = []
    for text in named or ["."]:
        below = text == "..." or text.endswith("/...")
        folder = os.path.realpath(os.path.join(cwd, text[:-3] if below else text))
        if not os.path.isdir(folder):
            continue
        if below:
            found += tree_files(folder, (".go",))
        else:
            found += go_package_files(folder, tests=True)
    return list(dict.fromkeys(found))[:_MAX_PACKAGE_FILES * 4]


_NAMED = frozenset(TASK_FILES) | frozenset(SOURCE_RUNNERS) | BUILDERS | {"pytest", "py.test", "prove"}
_SCRIPT_SUFFIXES = (".py", ".pyw", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".R", ".jl", ".lua")


def _interpreted(path: str) -> bool:
    """Whether the file's ``#!`` line names an interpreter (``#!/usr/bin/env python3``), not a shell
    (a shell script's commands are read as commands, ``script_files.py``)."""
    program = shebang_program(path)
    return bool(program) and is_interpreter(program)


def _pytest_files(args: tuple[Word, ...], cwd: str, memo: Memo) -> list[str]:
    """What pytest runs of the project's code: the test files the line names (``pytest
    tests/test_x.py::t``) or that it collects below a folder it names (here when it names none),
    and the ``conftest.py`` files it loads — of the folders above those paths up to the
    project's, and below the paths it collects."""
    key = ("pytest-root", cwd)
    if key not in memo:
        memo[key] = nearest_holding(cwd, ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", ".git")) or cwd
    root = str(memo[key])

    def collected(folder: str) -> list[str]:
        if ("pytest files", folder) not in memo:
            memo[("pytest files", folder)] = pytest_files_below(folder)
        return list(cast("list[str]", memo[("pytest files", folder)]))

    files: list[str] = []
    folders: list[str] = []
    for word in args:
        text = word.literal
        if text is None or text[:1] == "-":
            continue
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(text.partition("::")[0])))
        if path.endswith(".py") and os.path.isfile(path):
            files.append(path)
            folders.append(os.path.dirname(path))
        elif os.path.isdir(path) and ("/" in text or text.startswith(".") or os.path.isdir(os.path.join(cwd, text))):
            folders.append(path)
            files += collected(path)
    if not folders:
        folders.append(cwd)
        files += collected(cwd)
    for name in _pytest_plugins(args, cwd, memo):  # -p evilplug (or in addopts): a module of the folder
        files += _module_file(name, cwd) + (_module_file(name, root) if root != cwd else [])
    for folder in folders:  # the conftest.py files above each path, up to the project's folder
        while folder == root or folder.startswith(root + os.sep):
            conftest = os.path.join(folder, "conftest.py")
            if os.path.isfile(conftest):
                files.append(conftest)
            if folder == root:
                break
            folder = os.path.dirname(folder)
    return list(dict.fromkeys(files))


def _pytest_plugins(args: tuple[Word, ...], cwd: str, memo: Memo) -> list[str]:
    """The plugin modules pytest loads early by name: ``-p NAME`` on the line, in its
    configuration's ``addopts`` or ``PYTEST_ADDOPTS``, and ``PYTEST_PLUGINS`` (``python -m pytest``
    with ``addopts = -p evilplug`` imported ``evilplug.py`` of the folder)."""
    key = ("pytest-config", cwd, tuple(w.text for w in args))
    if key not in memo:
        try:
            memo[key] = _pytest_config(args, cwd, False)[1]
        except NotKnown:
            memo[key] = ""
    words = [w.literal or "" for w in args]
    for text in (str(memo[key]), os.environ.get("PYTEST_ADDOPTS", "")):
        try:
            words += shlex.split(text)
        except ValueError:
            words += text.split()
    names = [n.strip() for n in os.environ.get("PYTEST_PLUGINS", "").split(",") if n.strip()]
    for i, word in enumerate(words):
        if word == "-p" and i + 1 < len(words):
            names.append(words[i + 1])
        elif word.startswith("-p") and len(word) > 2 and not word.startswith("--"):
            names.append(word[2:])
    return [n for n in dict.fromkeys(names) if not n.startswith("no:")]


def _module_file(module: str | None, cwd: str) -> list[str]:
    """The files ``python -m MODULE`` runs when the module is in ``cwd`` (where ``-m`` looks
    first, before the standard library and the installed packages: a local ``json.py`` runs for
    ``python -m json.tool``, a local ``pytest/`` for ``python -m pytest``) or in the project's
    ``src/`` (a src layout, installed editable: the project's own module): what importing it runs,
    as Python's finder finds it (``code_imports.module_files``: each package's ``__init__.py``, a
    module met on the way, an extension module), and a package's ``__main__.py``."""
    if not module or not all(part.isidentifier() for part in module.split(".")):
        return []
    for folder in (cwd, os.path.join(cwd, "src")):
        found = module_files(module, (folder,))
        main = os.path.join(folder, *module.split("."), "__main__.py")
        if os.path.isfile(main):  # (a namespace package's too)
            found = [*found, os.path.realpath(main)]
        if found:
            return found
    return []


def _console_script(name: str, cwd: str, memo: Memo) -> list[str]:
    """The module a console script of the project here runs (``mycli`` of ``[project.scripts]``
    ``mycli = "pkg.cli:main"``, gui-scripts, ``[tool.poetry.scripts]``, setup.cfg's
    ``console_scripts``), as installed from its folder or its ``src/``: that module's file and its
    packages' ``__init__.py`` (its imports follow, ``code_imports.py``)."""
    root = _python_project(cwd, memo)
    scripts: dict[str, str] = {}
    for manifest, parse in (("setup.cfg", _setup_cfg_scripts), ("pyproject.toml", _pyproject_scripts)):
        found, _why = parsed_file(os.path.join(root, manifest), parse) if root else (None, "")
        scripts.update(found or {})
    target = scripts.get(name, "").partition(":")[0].strip()  # "pkg.cli:main": import pkg.cli
    if target and root:
        return [os.path.realpath(p) for p in module_files(target, (root, os.path.join(root, "src")))]
    return _installed_script(name, cwd, memo)


def _installed_script(name: str, cwd: str, memo: Memo) -> list[str]:
    """The console script ``name`` an environment's install made (``.venv/bin/mycli``, a workspace
    member's): the wrapper, a Python file whose ``from pkg.cli import main`` is followed where the
    project's code is (an editable install's folders; a package installed for good is not)."""
    key = ("script folders", cwd)
    if key not in memo:
        memo[key] = script_folders(cwd)
    for folder in cast("list[str]", memo[key]):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and is_python_file(path):
            return [os.path.realpath(path)]
    return []


def _python_project(folder: str, memo: Memo) -> str | None:
    """The nearest folder from ``folder`` upwards with a ``pyproject.toml`` or ``setup.cfg``.  Kept
    between decisions while the folders walked keep their times (a file made in one changes it):
    most lines name a program no table knows, and the walk would cost each a dozen lookups."""
    key = ("python project", folder)
    if key in memo:
        return cast("str | None", memo[key])
    kept = _PROJECTS.get(folder)
    if kept is None or not all(_mtime(d) == t for d, t in kept[1]):
        walked: list[tuple[str, int]] = []
        here: str | None = folder
        while here is not None:
            walked.append((here, _mtime(here)))
            if any(os.path.lexists(os.path.join(here, name)) for name in ("pyproject.toml", "setup.cfg")):
                break
            parent = os.path.dirname(here)
            here = None if parent == here else parent
        if len(_PROJECTS) >= 256:
            _PROJECTS.clear()
        kept = _PROJECTS[folder] = (here, tuple(walked))
    memo[key] = kept[0]
    return kept[0]


_PROJECTS: dict[str, tuple[str | None, tuple[tuple[str, int], ...]]] = {}


def _mtime(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return -1


def _pyproject_scripts(data: bytes) -> dict[str, str]:
    table = toml_of(data)
    found: dict[str, str] = {}
    project, tool = table.get("project"), table.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    for scripts in ((project or {}).get("scripts") if isinstance(project, dict) else None,
                    (project or {}).get("gui-scripts") if isinstance(project, dict) else None,
                    poetry.get("scripts") if isinstance(poetry, dict) else None):
        for script, target in (scripts or {}).items() if isinstance(scripts, dict) else ():
            if isinstance(target, dict):  # poetry's {callable = "pkg.cli:main"} or {reference = …}
                target = target.get("callable") or target.get("reference")
            if isinstance(target, str):
                found[str(script)] = target
    return found


def _setup_cfg_scripts(data: bytes) -> dict[str, str]:
    ini = ini_of(data)
    found: dict[str, str] = {}
    for kind in ("console_scripts", "gui_scripts"):
        text = ini.get("options.entry_points", kind, fallback="") if ini.has_section("options.entry_points") else ""
        for line in text.splitlines():
            script, equals, target = line.partition("=")
            if equals and script.strip():
                found[script.strip()] = target.strip()
    return found


def file_strings(path: str) -> tuple[str, ...]:
    """The strings of the code file at ``path`` that may be command lines (none when it cannot be
    read): its string literals, and a CMake file's ``COMMAND`` lines, an XML file's texts; a shell
    script's whole text, a notebook's code cells' strings."""
    return file_strings_why(path)[0]


def file_strings_why(path: str) -> tuple[tuple[str, ...], str]:
    """``file_strings``, and why they are not known when the file is there but cannot be read (too
    long, unreadable; "" otherwise)."""
    name = os.path.basename(path)
    if name.endswith(COMPILED_SUFFIXES):  # import ext (ext.cpython-312-x86_64-linux-gnu.so): loaded by its suffix
        return (), "it is compiled code, whose commands cannot be read"
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        parse = _cmake_strings
    elif name.endswith((".tf", ".hcl", ".tofu")):
        parse = _hcl_strings
    elif name in ("dune", "dune-project", "dune-workspace"):
        parse = _dune_strings
    elif name.endswith((".sh", ".bash")):  # a shell script code names (subprocess.run(["sh", "x.sh"])): its text
        parse = _shell_text
    elif name.endswith(".ipynb"):  # a notebook code names: its code cells, not its prose or outputs
        parse = _notebook_strings
    elif name.endswith(".py"):
        parse = _python_strings
    elif name.endswith(".pth"):  # the lines Python runs at start-up (import x; …); the others are folders
        parse = _pth_strings
    else:
        parse = _xml_strings if name.endswith(".xml") else _strings
    strings, why = parsed_file(path, parse, _MAX_CODE_BYTES)
    return strings or (), why


_MAX_CODE_BYTES = 4 * 1024 * 1024  # (a bundled server.js is often over 1 MiB)
# compiled code a code file loads: Python's extension modules and byte code, node's addons, libraries
COMPILED_SUFFIXES = (".so", ".pyd", ".dylib", ".dll", ".node", ".pyc")


def _python_strings(data: bytes) -> tuple[str, ...]:
    """A Python file's literals and the strings it builds from them (``'.e' + 'nv'``)."""
    strings = _strings(data)
    if not strings or len(data) > _MAX_FOLDED:
        return strings
    folded = folded_strings(data.decode("utf-8", "replace"))
    return strings + tuple(text for text in folded if text not in strings)[:_MAX_STRINGS]


_MAX_FOLDED = 512 * 1024  # larger Python files: their literals only


def _pth_strings(data: bytes) -> tuple[str, ...]:
    return _python_strings(b"\n".join(line for line in data.splitlines() if line.startswith((b"import ", b"import\t"))))


def _strings(data: bytes) -> tuple[str, ...]:
    if b"\x00" in data:
        return ()
    return tuple(code_literals([data.decode("utf-8", "replace")], bare=False, words=False)[:_MAX_STRINGS])


def notebook_strings(path: str) -> tuple[str, ...]:
    """The strings of a notebook's code cells (``os.system("rm x")`` in a cell ``jupyter nbconvert
    --execute`` runs), not of its markdown or outputs; an IPython file's (``.ipy``) as a script's."""
    if path.lower().endswith((".qmd", ".rmd")):  # a Quarto or R Markdown document's chunks
        strings, _why = parsed_file(path, _chunk_strings)
        return strings or ()
    if not path.endswith(".ipynb"):
        return file_strings(path)
    strings, _why = parsed_file(path, _notebook_strings)
    return strings or ()


def _shell_text(data: bytes) -> tuple[str, ...]:
    return () if b"\x00" in data else (data.decode("utf-8", "replace"),)


def _chunk_strings(data: bytes) -> tuple[str, ...]:
    return tuple(code_literals(chunk_sources(data), bare=False, words=False)[:_MAX_STRINGS])


def _notebook_strings(data: bytes) -> tuple[str, ...]:
    cells = code_cells(data)
    if cells is None:
        return ()
    return tuple(code_literals(cells[1], bare=False, words=False)[:_MAX_STRINGS])


def _cmake_strings(data: bytes) -> tuple[str, ...]:
    return (*cmake_commands(data.decode("utf-8", "replace")), *_strings(data))[:_MAX_STRINGS]


def _dune_strings(data: bytes) -> tuple[str, ...]:
    return (*dune_commands(data.decode("utf-8", "replace")), *_strings(data))[:_MAX_STRINGS]


def _hcl_strings(data: bytes) -> tuple[str, ...]:
    return (*heredoc_texts(data.decode("utf-8", "replace")), *_strings(data))[:_MAX_STRINGS]


def _xml_strings(data: bytes) -> tuple[str, ...]:
    return (*xml_texts(data.decode("utf-8", "replace")), *_strings(data))[:_MAX_STRINGS]


__all__ = ["SOURCE_RUNNERS", "TASK_FILES", "code_files", "file_strings", "file_strings_why", "may_run_code_files",
           "notebook_strings"]
