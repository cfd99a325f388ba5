"""The project's own code files a code file loads, whose strings count as its own: what
``python tool.py`` runs is also the modules ``tool.py`` imports from the project (``import
helpers``, ``from pkg.clean import run``, ``from . import jobs``, ``importlib.import_module("x")``,
a dotted module name in a string: Django's ``"proj.settings"``), what ``node x.js`` runs is also
what it requires (``require("./lib")``, ``import … from "./lib.js"``, and through ``js_modules``
a ``tsconfig.json`` alias, a ``#x`` import, Deno's import map, a workspace package), what ``perl x.pl``
loads (``use My::Clean`` from ``@INC``: ``use lib``, ``-I``, FindBin's folder), Ruby's ``require`` from
``$LOAD_PATH``, Lua's ``require`` by ``package.path``, R's ``load_all``/``tar_make``, the PHP classes
Composer autoloads (PSR-4), what a Go file imports of its
own module (``go.mod``), and a code file, shell script or notebook a file names in a string may run
as well (``runpy.run_path("y.py")``, ``subprocess.run(["bash", "clean.sh"])``, ``source("x.R")``,
Ruby's ``require_relative "lib/x"``).  ``code_files.py`` adds them to the files a command runs, and
``bash.py`` holds their strings to the deny and ask rules: a helper module's ``os.system("rm -rf
x")`` asks as the script's would.

Only the project's files are followed: a module is looked for in the script's folder (Python's
``sys.path[0]``), ``PYTHONPATH``'s folders, a folder the code puts on the path (``sys.path.insert(0,
"lib")``), the folder the line runs in and its ``src/`` (``python -m``, pytest's rootdir, an
editable install), a relative import in its package; the standard library and installed packages
are not (site-packages is none of those folders).  A module the file shadows (a local ``json.py``)
is found first, as Python finds it; a module built into Python (``sys``) is not looked for.  Each
file's references are read once per version of it (``parsed_file``); at most ``MAX_FILES`` files
are followed from one command's files.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import re
import stat
import sys
from functools import lru_cache
from typing import cast

from .inline_code import code_literals
from .js_modules import JS_SUFFIXES, JsLookups, alias_files
from .js_modules import module_files as js_module_files
from .notebook_runs import code_cells
from .package_builds import tree_files
from .paths import nearest_holding, open_regular
from .python_envs import editable_roots
from .script_files import interpreter_name, parsed_file

MAX_FILES = 300
_PYTHON = (".py", ".pyw")
_JS = JS_SUFFIXES
# the files whose strings code_files reads as code, when a file names one
CODE_SUFFIXES = (*_PYTHON, *_JS, ".rb", ".pl", ".pm", ".php", ".R", ".r", ".jl", ".lua", ".ipynb", ".sh", ".bash")
_PYTHON_NAMES = frozenset({"SConstruct", "Sconstruct", "sconstruct", "wscript", "dodo.py"})
_MAX_NAMED = 200  # strings of one file tried as file names
_NAME = re.compile(r"[\w.][\w./-]*")

# one reference a file makes: (level, module, names) for a Python import (level: its leading
# dots), (-1, text, ()) for a string that may name a code file, (-2, text, ()) for a folder it
# puts on Python's path (sys.path.insert(0, "lib"), site.addsitedir("vendor"))
Ref = tuple[int, str, tuple[str, ...]]


def loaded_files(files: list[str], cwd: str, memo: dict[tuple[object, ...], object] | None = None,
                 paths: tuple[str, ...] = (), interpreter: str | None = None) -> list[str]:
    """The project's code files ``files`` (real paths, run from ``cwd``) load, directly or through
    each other, that exist (real paths; not ``files`` themselves), at most ``MAX_FILES``;
    ``memo``: what this decision found already (the folders listed, each file's references);
    ``paths``: the folders ``PYTHONPATH`` puts on the path; ``interpreter``: the program that runs
    them, when the line names it by path (its environment's editable installs count)."""
    memo = {} if memo is None else memo
    folders = memo.get(("folders",))
    if not isinstance(folders, _Folders):
        folders = memo[("folders",)] = _Folders()
    scripts = [os.path.dirname(f) for f in files if is_python_file(f)]  # sys.path[0] of each
    roots = tuple(dict.fromkeys([*scripts, *(os.path.join(cwd, p) for p in paths), cwd, os.path.join(cwd, "src"),
                                 *(_editable(cwd, memo, interpreter) if scripts else ())]))
    seen = dict.fromkeys(files)
    queue = list(files)
    for path in queue:
        language = _language(path)
        if language in ("python", "perl", "ruby"):  # the folders it puts on the path count for it and what it loads
            refs = parsed_file(path, _READERS[language])[0] or ()
            added = [os.path.normpath(os.path.join(base, ref[1].replace(_BIN, os.path.dirname(path))
                                                   .replace(_FILE, path)))
                     for ref in refs if ref[0] == -2 for base in (os.path.dirname(path), cwd)]
            folders_added = [folder for folder in added if os.path.isdir(folder)]
            first = language != "python"  # use lib, $LOAD_PATH.unshift: before the others
            roots = tuple(dict.fromkeys([*folders_added, *roots] if first else [*roots, *folders_added]))
        key = ("references", path, roots, cwd)
        if key not in memo:
            memo[key] = _references(path, language, roots, cwd, folders)
        for found in cast("list[str]", memo[key]):
            if found not in seen and len(seen) < MAX_FILES + len(files):
                seen[found] = None
                queue.append(found)
    return list(seen)[len(files):]


class _Folders:
    """What one decision found of the paths an import may be (a file, a folder or nothing; its real
    path when it is a link): a project's files import the same names again and again."""

    def __init__(self) -> None:
        self._kinds: dict[str, tuple[int, str]] = {}
        self.imports: dict[tuple[Ref, tuple[str, ...]], list[str]] = {}  # what an absolute import found
        self.tops: dict[tuple[str, tuple[str, ...]], bool] = {}  # whether a top-level name is in the roots
        self.js = JsLookups(self.real_file)  # JavaScript's and TypeScript's configurations found
        self.composers: dict[str, str | None] = {}  # a PHP file's folder → its nearest composer.json's

    def _kind(self, path: str) -> tuple[int, str]:
        """(0 nothing, 1 a file, 2 a folder; the real path) of ``path`` in a real folder."""
        kind = self._kinds.get(path)
        if kind is None:
            try:
                mode = os.lstat(path).st_mode
                real = path
                if stat.S_ISLNK(mode):
                    real = os.path.realpath(path)
                    mode = os.stat(real).st_mode
                kind = (1 if stat.S_ISREG(mode) else 2 if stat.S_ISDIR(mode) else 0, real)
            except OSError:
                kind = (0, path)
            self._kinds[path] = kind
        return kind

    def file(self, folder: str, name: str) -> str | None:
        """The real path of the file ``name`` in the real folder ``folder``, if there is one."""
        return self.real_file(os.path.join(folder, name))

    def real_file(self, path: str) -> str | None:
        kind, real = self._kind(path)
        return real if kind == 1 else None

    def folder(self, folder: str, name: str) -> str | None:
        kind, real = self._kind(os.path.join(folder, name))
        return real if kind == 2 else None


def perl_module_files(module: str, roots: tuple[str, ...], folders: _Folders | None = None) -> list[str]:
    """The file ``use MODULE`` loads: ``My/Clean.pm`` in the first of the folders ``roots``
    (``@INC``'s) that holds it."""
    return _first_holding(roots, module.replace("::", "/") + ".pm", _Folders() if folders is None else folders)


def _first_holding(roots: tuple[str, ...], name: str, folders: _Folders) -> list[str]:
    """The file ``name`` in the first of ``roots`` that holds it (a search path's order)."""
    return next(([f] for f in (folders.file(root, name) for root in roots) if f), [])


def module_files(module: str, roots: tuple[str, ...]) -> list[str]:
    """The files importing the dotted ``module`` from ``roots`` runs (each package's
    ``__init__.py`` and the module's file), as Python finds them; none when it is not there."""
    return _modules((0, module, ()), "", roots, _Folders())


def is_python_file(path: str) -> bool:
    """A Python file: by its suffix or name, or a file of no suffix whose ``#!`` line names Python
    (``./manage``, a console script's wrapper in ``.venv/bin``)."""
    name = os.path.basename(path)
    if name.endswith(_PYTHON) or name in _PYTHON_NAMES:
        return True
    return "." not in name and shebang_program(path).startswith(("python", "pypy"))


def shebang_program(path: str) -> str:
    """The program the ``#!`` line of the file at ``path`` names (``python3`` for ``#!/usr/bin/env
    python3``); "" when it has none or cannot be read.  Kept per version of the file."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return _shebang_program(path, st.st_ino, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=256)
def _shebang_program(path: str, _ino: int, _mtime: int, _size: int) -> str:
    try:
        with open_regular(path) as handle:
            head = handle.read(256)  # (a binary's first bytes are no #! line)
    except OSError:
        return ""
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split() if head[:2] == b"#!" else []
    return interpreter_name(words) if words else ""


def loaded_by_code(code: str, cwd: str, memo: dict[tuple[object, ...], object] | None = None,
                   paths: tuple[str, ...] = ()) -> list[str]:
    """The project's code files Python ``code`` run in ``cwd`` loads (a notebook cell's ``import
    helpers``: the kernel's folder is on its path; ``paths``: ``PYTHONPATH``'s), directly or
    through each other."""
    return _loaded_by_refs(_python_refs(code.encode("utf-8", "replace")), cwd, {} if memo is None else memo, paths)


def notebook_loaded(path: str, cwd: str, memo: dict[tuple[object, ...], object] | None = None) -> list[str]:
    """The project's code files the code cells of the notebook at ``path`` (or an IPython file's
    code) load when its kernel runs in ``cwd``."""
    refs, _why = parsed_file(path, _python_refs if path.endswith(".ipy") else _notebook_refs)
    return _loaded_by_refs(refs or (), cwd, {} if memo is None else memo)


def _editable(cwd: str, memo: dict[tuple[object, ...], object], interpreter: str | None = None) -> tuple[str, ...]:
    """The folders editable installs put on the path (``python_envs``), once per decision."""
    key = ("editable", cwd, interpreter)
    if key not in memo:
        memo[key] = editable_roots(cwd, interpreter)
    return cast("tuple[str, ...]", memo[key])


def _notebook_refs(data: bytes) -> tuple[Ref, ...]:
    cells = code_cells(data)
    return _python_refs("\n".join(cells[1]).encode("utf-8", "replace")) if cells else ()


def _loaded_by_refs(refs: tuple[Ref, ...], cwd: str, memo: dict[tuple[object, ...], object],
                    paths: tuple[str, ...] = ()) -> list[str]:
    folders = memo.get(("folders",))
    if not isinstance(folders, _Folders):
        folders = memo[("folders",)] = _Folders()
    added = [os.path.join(cwd, ref[1]) for ref in refs if ref[0] == -2]  # sys.path.append("lib") in the code
    roots = tuple(dict.fromkeys([*(os.path.join(cwd, p) for p in paths), cwd, os.path.join(cwd, "src"),
                                 *_editable(cwd, memo), *(folder for folder in added if os.path.isdir(folder))]))
    direct = _resolved(refs, os.path.join(cwd, "<code>"), roots, cwd, folders)
    return direct + [f for f in loaded_files(direct, cwd, memo, paths) if f not in direct] if direct else []


def _references(path: str, language: str, roots: tuple[str, ...], cwd: str, folders: _Folders) -> list[str]:
    """The files (real paths) ``path`` (written in ``language``: ``_language``) loads or names that
    exist."""
    if language == "go":
        return _go_packages(path)
    if language == "notebook":
        return []  # a notebook's cells are read by code_files.notebook_strings where it is run
    refs, _why = parsed_file(path, _READERS.get(language, _named_refs))
    return _resolved(refs or (), path, roots, cwd, folders, language == "js")


def _language(path: str) -> str:
    """What a code file is written in, by its suffix, else (a script of no suffix: ``bin/cli``,
    ``artisan``) by the program its ``#!`` line names."""
    if is_python_file(path):
        return "python"
    name = os.path.basename(path)
    if "." not in name:
        return _SHEBANG_LANGUAGES.get(shebang_program(path), "")
    for suffixes, language in ((JS_SUFFIXES, "js"), (_PERL, "perl"), (_R, "r"), ((".php",), "php"), ((".rb",), "ruby"),
                               ((".lua",), "lua"),
                               ((".go",), "go"), ((".ipynb",), "notebook")):
        if name.endswith(suffixes):
            return language
    return ""


_SHEBANG_LANGUAGES = {"node": "js", "nodejs": "js", "bun": "js", "deno": "js", "tsx": "js", "ts-node": "js",
                      "perl": "perl", "Rscript": "r", "php": "php", "ruby": "ruby", "lua": "lua", "luajit": "lua"}


def _resolved(refs: tuple[Ref, ...], path: str, roots: tuple[str, ...], cwd: str, folders: _Folders,
              js: bool = False) -> list[str]:
    found: list[str] = []
    for ref in refs:
        if ref[0] == -2:
            continue
        if ref[0] == -3:
            found += alias_files(ref[1], path, folders.js)
        elif ref[0] in (-6, -7):  # R: a package's R/ files (load_all), a folder's R files (tar_source)
            found += _r_folder_files(ref, (os.path.dirname(path), cwd))
        elif ref[0] == -5:  # Perl's use My::Clean
            found += perl_module_files(ref[1], roots, folders)
        elif ref[0] == -9:  # Ruby's require "foo/bar": foo/bar.rb in the first folder of $LOAD_PATH
            found += _first_holding(roots, ref[1] + ".rb", folders)
        elif ref[0] == -10:  # Lua's require "a.b": package.path's templates (./?.lua, ./?/init.lua, added ones)
            found += _lua_module_files(ref, refs, path, cwd, folders)
        elif ref[0] == -8:  # PHP: a class Composer's autoloader loads (PSR-4)
            found += _php_class_files(ref[1], path, folders)
        elif ref[0] < 0:
            found += _named(ref[1], path, cwd, folders, js)
        elif ref[0] > 0:
            found += _modules(ref, path, roots, folders)
        else:  # an absolute import: the same from every file (``import os`` in each)
            top = (ref[1].partition(".")[0], roots)
            if top not in folders.tops:  # most names are of no folder or file here: once each
                folders.tops[top] = any(folders.folder(r, top[0]) or any(
                    folders.file(r, top[0] + suffix) for suffix in _MODULE_SUFFIXES) for r in roots)
            if not folders.tops[top]:
                continue
            key = (ref, roots)
            if key not in folders.imports:
                folders.imports[key] = _modules(ref, path, roots, folders)
            found += folders.imports[key]
    return list(dict.fromkeys(found))


def _named(text: str, path: str, cwd: str, folders: _Folders, js: bool = False) -> list[str]:
    """The code files (real paths) a string of the file at ``path`` may name: as a path from its
    folder or from ``cwd``; a JavaScript file's relative specifier (``./lib``, ``./lib.js``) as
    TypeScript, Node and the bundlers find it (``js_modules``), a Ruby file's ``lib/x`` as
    ``lib/x.rb``."""
    folder = os.path.dirname(path)
    found = []
    for base in dict.fromkeys((folder, cwd)):
        candidate = os.path.join(base, text)
        if (js or path.endswith(_JS)) and text.startswith(("./", "../")):
            found += js_module_files(candidate, folders.js)
        if text.endswith(CODE_SUFFIXES):
            tries = [candidate]
        elif path.endswith(".rb") and _NAME.fullmatch(text):
            tries = [candidate + ".rb"]
        else:
            tries = []
        found += [os.path.realpath(t) for t in tries if os.path.isfile(t)][:1]
    return found


_MODULE_SUFFIXES = (*importlib.machinery.EXTENSION_SUFFIXES, ".py", ".pyc")


def _modules(ref: Ref, path: str, roots: tuple[str, ...], folders: _Folders) -> list[str]:
    """The files of the project an import runs: each package's ``__init__.py`` on the way and the
    module's file (a package before a module of the same name, a folder with no ``__init__.py``
    last, as Python's finder does), and the submodules ``from pkg import a, b`` names."""
    level, module, names = ref
    parts = module.split(".") if module else []
    if not all(p.isidentifier() for p in parts) or (not level and parts[0] in sys.builtin_module_names):
        return []  # (a module built into Python is found before any file: import sys)
    if level:
        package = path
        for _ in range(level):
            package = os.path.dirname(package)
        searched: tuple[str, ...] = (package,)
    else:
        searched = roots
    for root in searched:
        found: list[str] = []
        folder: str | None = root
        for i, part in enumerate(parts):
            here = str(folder)
            sub = folders.folder(here, part)
            init = folders.file(sub, "__init__.py") if sub else None
            if init:
                found.append(init)
                folder = sub
                continue
            # an extension module is found before a source file, then a .py, then byte code alone
            module_file = next(filter(None, (folders.file(here, part + suffix) for suffix in _MODULE_SUFFIXES)), None)
            if module_file:
                found.append(module_file)
                folder = None  # a module: nothing below it
                break
            if sub is None:
                folder = None if i else root
                break
            folder = sub  # a namespace package
        if not found and folder == root and parts:
            continue  # not in this root: the next one (sys.path's order)
        if folder is not None:
            for name in names:  # from pkg import a: a submodule a, if there is one
                if not name.isidentifier():
                    continue
                sub = folders.folder(folder, name)
                candidate = (folders.file(sub, "__init__.py") if sub else None) or next(
                    filter(None, (folders.file(folder, name + suffix) for suffix in _MODULE_SUFFIXES)), None)
                if candidate:
                    found.append(candidate)
        return found
    return []


def _go_packages(path: str) -> list[str]:
    """The files of the module's own packages a Go file imports (``import "example.com/app/jobs"``
    with ``module example.com/app`` in the nearest ``go.mod``): each package's ``.go`` files, not
    its tests; other modules' packages are not followed."""
    imports, _why = parsed_file(path, _go_imports)
    root = nearest_holding(os.path.dirname(path), ("go.mod",))
    module = parsed_file(os.path.join(root, "go.mod"), _go_module)[0] if root and imports else None
    if not isinstance(module, str):
        return []
    found: list[str] = []
    for name in imports:
        if name.startswith(module + "/"):
            found += go_package_files(os.path.join(str(root), *name[len(module) + 1:].split("/")))[:50]
    return found


def go_package_files(folder: str, tests: bool = False) -> list[str]:
    """The ``.go`` files of the Go package in ``folder`` (sorted; its ``_test.go`` files only with
    ``tests``), none when it cannot be listed."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, f) for f in names if f.endswith(".go") and (tests or not f.endswith("_test.go"))]


_GO_IMPORT = re.compile(r'^\s*import\s*(?:\(([^)]*)\)|(?:[\w.]+\s+)?"([^"\n]+)")', re.MULTILINE)
_GO_PATH = re.compile(r'"([^"\n]+)"')


def _go_imports(data: bytes) -> tuple[str, ...]:
    text = data.decode("utf-8", "replace")
    found: list[str] = []
    for match in _GO_IMPORT.finditer(text):
        found += _GO_PATH.findall(match.group(1)) if match.group(1) is not None else [match.group(2)]
    return tuple(dict.fromkeys(found))


def _go_module(data: bytes) -> str | None:
    match = re.search(r"^\s*module\s+\"?([^\s\"]+)", data.decode("utf-8", "replace"), re.MULTILINE)
    return match.group(1) if match else None


def _python_refs(data: bytes) -> tuple[Ref, ...]:
    """A Python file's imports (its ``import`` and ``from … import`` statements, at a line's start
    or after a ``;``, and ``import_module("x")``/``__import__("x")`` of a literal name) and its
    strings that may name a code file.  Read as text, not parsed: one pass, and a file the
    running Python cannot parse (a newer syntax, Python 2) is read all the same; an import
    spelled inside a string is followed too (reading more, never less)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    refs: list[Ref] = []
    for match in _import_statements(text):
        if match.group(1) is not None:  # import a.b as c, d
            refs += [(0, name.split()[0], ()) for name in match.group(1).split(",") if name.strip()]
        else:  # from .a import (b, c)
            names = _COMMENT.sub("", match.group(4)).strip("()").replace("\\\n", " ").split(",")
            refs.append((len(match.group(2)), match.group(3), tuple(n.split()[0] for n in names if n.strip())))
    for match in _IMPORT_CALL.finditer(text):
        value = match.group(1)
        refs.append((len(value) - len(value.lstrip(".")), value.lstrip("."), ()))
    if "load_ext" in text or "aimport" in text:  # IPython's %load_ext myext, %aimport mod: imports
        refs += [(0, name, ()) for m in _MAGIC_IMPORT.finditer(text) for name in m.group(1).replace(",", " ").split()
                 if name[:1] != "-"]  # (%aimport -mod leaves mod out)
    # a dotted module name in a string is often imported by name: DJANGO_SETTINGS_MODULE's
    # "proj.settings", celery's include=["proj.tasks"], pytest_plugins = ["tests.fixtures"]
    refs += [(0, m.group(1), ()) for m in _DOTTED.finditer(text)]
    refs += [(-1, t, ()) for t in _code_names(text)]  # "y.py", os.system("bash clean.sh")
    for word in ("sys.path", "addsitedir"):  # sys.path.insert(0, str(Path(__file__).parent / "lib"))
        pos = text.find(word)
        while pos >= 0:
            end = text.find("\n", pos)
            line = text[text.rfind("\n", 0, pos) + 1:end if end >= 0 else len(text)]
            refs += [(-2, m.group(2), ()) for m in _QUOTED.finditer(line) if m.group(2) and "\0" not in m.group(2)]
            pos = text.find(word, pos + len(word))
    return tuple(dict.fromkeys(refs))


_QUOTED = re.compile(r"([\"'])([^\"'\n]{1,200})\1")


# where a name of a code file ends in a file's text: in a string, a string's words or a comment
# (only those that exist are read); found by their suffix first — one fast pass over the text
_SUFFIX_AT = re.compile(r"\.(?:pyw?|[mc]?js|jsx|[mc]?ts|tsx|rb|pl|pm|php|R|jl|lua|ipynb|sh|bash)(?=[\"'`\s])")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")


def _code_names(text: str) -> list[str]:
    """The names of code files in ``text`` that stand alone: after a quote, a space, ``=``, ``(``,
    ``[`` or ``,``, and before a quote or a space (``"y.py"``, ``"bash clean.sh --all"``)."""
    found: list[str] = []
    for match in _SUFFIX_AT.finditer(text):
        start = match.start()
        while start > 0 and text[start - 1] in _NAME_CHARS:
            start -= 1
        if start > 0 and text[start - 1] in "\"'` \t\n=([," and match.start() > start:
            found.append(text[start:match.end()])
            if len(found) >= _MAX_NAMED:
                break
    return found


# an import statement from where it starts (a line's start, or after a ";")
_IMPORT = re.compile(r"[ \t]*(?:import[ \t]+([\w., \t]+)|from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+"
                     r"(\([^)]*\)|(?:\\\n|[^\n#;])*))")


def _import_statements(text: str) -> list[re.Match[str]]:
    """The import statements of ``text``: each line holding the word ``import`` is tried from its
    start and after its last ``;`` before it (finding the word first is several times faster
    than trying a pattern at every place of a large file)."""
    found: list[re.Match[str]] = []
    pos, tried = text.find("import"), -1
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        semicolon = text.rfind(";", start, pos)
        for at in (start, semicolon + 1) if semicolon >= 0 else (start,):
            if at > tried:
                tried = at
                match = _IMPORT.match(text, at)
                if match:
                    found.append(match)
        pos = text.find("import", pos + 6)
    return found


_MAGIC_IMPORT = re.compile(r"^[ \t]*%(?:re)?(?:load_ext|aimport)[ \t]+([\w., \t]+)", re.MULTILINE)
_DOTTED = re.compile(r"[\"']([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)[\"']")
_IMPORT_CALL = re.compile(r"\b(?:import_module|__import__)\(\s*[\"']([\w.]+)[\"']")
_COMMENT = re.compile(r"#[^\n]*")


# a module an import statement names: import … from "x", import "x", import("x"), require("x")
_JS_IMPORT = re.compile(r"""\b(?:from|import|require)\s*\(?\s*(["'])([^"'\s]{1,200})\1""")


def _js_refs(data: bytes) -> tuple[Ref, ...]:
    """A JavaScript or TypeScript file's strings that may name a code file (``_named_refs``) and
    the bare or ``#`` specifiers its imports name (``-3``: resolved through the project's
    ``tsconfig.json`` paths or ``package.json`` imports)."""
    if b"\x00" in data:
        return ()
    named = _named_refs(data)
    text = data.decode("utf-8", "replace")
    bare = [m.group(2) for m in _JS_IMPORT.finditer(text)
            if not m.group(2).startswith((".", "/")) and ":" not in m.group(2)]
    return (*named, *dict.fromkeys((-3, b, ()) for b in bare[:_MAX_NAMED]))


_R = (".R", ".r")
_R_CODE = (".R", ".r", ".S", ".s", ".q")  # what an R package's R/ folder holds
# devtools::load_all("pkg") (the package's R/ files), targets' functions that run _targets.R (or
# script = "x.R"), tar_source("R") (the R files below a folder)
_R_LOAD_ALL = re.compile(r"""\bload_all\s*\(\s*(?:path\s*=\s*)?(?:(["'])([^"'\n]*)\1)?""")
_R_TARGETS = re.compile(r"\btar_(?:make|make_future|make_clustermq|outdated|manifest|network|visnetwork|glimpse|"
                        r"validate|sitrep|mermaid)\s*\(([^)]*)\)")
_R_SCRIPT = re.compile(r"""\bscript\s*=\s*(["'])([^"'\n]+)\1""")
_R_SOURCE = re.compile(r"""\btar_source\s*\(\s*(?:files\s*=\s*)?(?:(["'])([^"'\n]*)\1)?""")
_MAX_R_FILES = 200


def _r_refs(data: bytes) -> tuple[Ref, ...]:
    """An R file's strings that may name a code file (``source("x.R")``), the package folders it
    loads whole (``devtools::load_all("pkg")``: ``-6``), the pipeline script a ``targets`` call
    runs (``tar_make()``: ``_targets.R``), and the folders ``tar_source()`` sources (``-7``)."""
    if b"\x00" in data:
        return ()
    return (*_named_refs(data), *_r_code_refs(data.decode("utf-8", "replace")))


def _r_code_refs(text: str) -> tuple[Ref, ...]:
    """The package folders, pipeline scripts and sourced folders R ``text`` loads (``_r_refs``)."""
    refs: list[Ref] = [(-6, m.group(2) or ".", ()) for m in _R_LOAD_ALL.finditer(text)]
    for match in _R_TARGETS.finditer(text):
        script = _R_SCRIPT.search(match.group(1))
        refs.append((-1, script.group(2) if script else "_targets.R", ()))
    refs += [(-7, m.group(2) or "R", ()) for m in _R_SOURCE.finditer(text)]
    return tuple(dict.fromkeys(refs))


def r_loaded(text: str, cwd: str) -> list[str]:
    """The code files R code run in ``cwd`` (``Rscript -e``) loads this way."""
    folders = _Folders()
    found: list[str] = []
    for ref in _r_code_refs(text):
        found += _r_folder_files(ref, (cwd,)) if ref[0] != -1 else _named(ref[1], os.path.join(cwd, "<code>"), cwd,
                                                                           folders)
    return list(dict.fromkeys(found))


def _r_folder_files(ref: Ref, bases: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for base in dict.fromkeys(bases):
        target = os.path.join(base, ref[1])
        if ref[0] == -6:  # a package: its R/ folder's files
            folder = os.path.join(target, "R")
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith(_R_CODE))[:_MAX_R_FILES]
            except OSError:
                continue
            found += [os.path.realpath(os.path.join(folder, n)) for n in names]
        elif os.path.isdir(target):
            found += [os.path.realpath(f) for f in tree_files(target, _R)[:_MAX_R_FILES]]
        elif os.path.isfile(target):
            found.append(os.path.realpath(target))
    return [f for f in dict.fromkeys(found) if os.path.isfile(f)]


# PHP: the namespace a file declares, its use imports (group ones too), and the class names its
# code uses (\A\B::x(), new B(), B::x(), extends/implements B)
_PHP_NAMESPACE = re.compile(r"^\s*namespace\s+([\w\\]+)\s*[;{]", re.MULTILINE)
_PHP_USE = re.compile(r"^\s*use\s+(?:function\s+|const\s+)?([\w\\]+)(?:\s*\\\{([^}]*)\}|\s+as\s+(\w+))?\s*;",
                      re.MULTILINE)
_PHP_CLASS = re.compile(r"(?:\bnew\s+|\b(?:extends|implements|instanceof)\s+|(?<![\w\\$>:]))(\\?[A-Za-z_][\w\\]*)"
                        r"(?=\s*::|\s*\(|\s*\{|\s*,|\s*;|\s+(?:implements|extends)\b)")
_MAX_PHP_CLASSES = 400


def _php_refs(data: bytes) -> tuple[Ref, ...]:
    """A PHP file's strings that may name a code file (``require "x.php"``) and the classes it
    uses, fully qualified (``-8``: what Composer's autoloader would load for them)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    namespace = next((m.group(1).strip("\\") for m in _PHP_NAMESPACE.finditer(text)), "")
    aliases: dict[str, str] = {}
    classes: list[str] = []
    for match in _PHP_USE.finditer(text):
        base, group, alias = match.group(1).strip("\\"), match.group(2), match.group(3)
        names = [f"{base}\\{g.strip()}" for g in group.split(",") if g.strip()] if group is not None else [base]
        for name in names:
            short = name.split(" as ")[0].strip()
            classes.append(short)
            aliases[(alias if alias and group is None else name.rsplit(" as ", 1)[-1]).rsplit("\\", 1)[-1].strip()] = short
    for match in _PHP_CLASS.finditer(_PHP_USE.sub("", _PHP_NAMESPACE.sub("", text))):
        name = match.group(1)
        if name.startswith("\\"):
            classes.append(name[1:])
            continue
        head, _, rest = name.partition("\\")
        if head in aliases:
            classes.append(aliases[head] + ("\\" + rest if rest else ""))
        elif head.lower() not in _PHP_WORDS:
            classes.append(f"{namespace}\\{name}" if namespace else name)
    return (*_named_refs(data), *dict.fromkeys((-8, c, ()) for c in classes[:_MAX_PHP_CLASSES]))


_PHP_WORDS = frozenset({"self", "static", "parent", "function", "fn", "array", "list", "isset", "unset", "empty",
                        "echo", "print", "if", "elseif", "while", "for", "foreach", "switch", "match", "return",
                        "require", "require_once", "include", "include_once", "exit", "die", "eval", "catch",
                        "declare", "new", "class", "interface", "trait", "enum", "namespace", "use", "and", "or",
                        "not", "true", "false", "null", "clone", "yield", "throw", "else", "do", "try"})


def _php_class_files(name: str, path: str, folders: _Folders) -> list[str]:
    """The file Composer's PSR-4 autoloader loads for the class ``name`` (the ``autoload`` and
    ``autoload-dev`` maps of the nearest ``composer.json`` above ``path``: the longest namespace
    prefix, its folders in order), with the ``files`` it always loads."""
    here = os.path.dirname(path)
    if here not in folders.composers:
        folders.composers[here] = nearest_holding(here, ("composer.json",))
    composer = folders.composers[here]
    if composer is None:
        return []
    loaded, _why = parsed_file(os.path.join(composer, "composer.json"), json.loads)
    maps: list[tuple[str, str]] = []
    always: list[str] = []
    for section in ("autoload", "autoload-dev"):
        table = loaded.get(section) if isinstance(loaded, dict) else None
        psr4 = table.get("psr-4") if isinstance(table, dict) else None
        for prefix, dirs in (psr4.items() if isinstance(psr4, dict) else ()):
            for folder in dirs if isinstance(dirs, list) else [dirs]:
                if isinstance(prefix, str) and isinstance(folder, str):
                    maps.append((prefix.strip("\\"), folder))
        files = table.get("files") if isinstance(table, dict) else None
        always += [f for f in files if isinstance(f, str)] if isinstance(files, list) else []
    found = [f for f in (folders.real_file(os.path.join(composer, a)) for a in always) if f]
    matching = sorted((p for p in maps if not p[0] or name == p[0] or name.startswith(p[0] + "\\")),
                      key=lambda p: -len(p[0]))
    for prefix, folder in matching:
        rest = name[len(prefix):].lstrip("\\") if prefix else name
        hit = folders.real_file(os.path.join(composer, folder, rest.replace("\\", "/") + ".php"))
        if hit:
            return [*found, hit]
    return found


_FILE = "\x00FILE"  # the Ruby file itself, in File.expand_path("../lib", __FILE__)
_RUBY_REQUIRE = re.compile(r"""^\s*require\s*\(?\s*(["'])([\w./-]+?)(?:\.rb)?\1""", re.MULTILINE)
# $LOAD_PATH.unshift("lib"), $: << "lib", $LOAD_PATH.unshift File.expand_path("../lib", __dir__)
_RUBY_LOAD_PATH = re.compile(
    r"""\$(?:LOAD_PATH|:)\s*(?:\.\s*(?:unshift|push|prepend|append|insert)\s*\(?\s*(?:0\s*,\s*)?|<<\s*)"""
    r"""(?:(["'])([^"'\n]+)\1|File\.(?:expand_path|join)\s*\(\s*(["'])([^"'\n]+)\3\s*,\s*(__dir__|__FILE__)\s*\)"""
    r"""|File\.(?:expand_path|join)\s*\(\s*(__dir__|File\.dirname\(__FILE__\))\s*,\s*(["'])([^"'\n]+)\7\s*\))""")


def _ruby_refs(data: bytes) -> tuple[Ref, ...]:
    """A Ruby file's strings that may name a code file (``require_relative "lib/x"``, ``load
    "x.rb"``), the features it requires from ``$LOAD_PATH`` (``require "acme/clean"``: ``-9``) and
    the folders it puts there (``-2``: a literal, or ``File.expand_path("../lib", __dir__)``)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    refs: list[Ref] = list(_named_refs(data))
    refs += [(-9, m.group(2), ()) for m in _RUBY_REQUIRE.finditer(text)]
    for m in _RUBY_LOAD_PATH.finditer(text):
        if m.group(2) is not None:
            refs.append((-2, m.group(2), ()))
        elif m.group(4) is not None:  # expand_path("../lib", __dir__): from the folder; __FILE__: from the file
            refs.append((-2, (_BIN if m.group(5) == "__dir__" else _FILE) + "/" + m.group(4), ()))
        else:  # File.join(__dir__, "lib")
            refs.append((-2, _BIN + "/" + m.group(8), ()))
    return tuple(dict.fromkeys(refs))


_LUA_REQUIRE = re.compile(r"""\brequire\s*\(?\s*(["'])([\w.-]+)\1""")
_LUA_PATH = re.compile(r"""\bpackage\.path\s*=\s*(["'])([^"'\n]*\?[^"'\n]*)\1""")
_LUA_TEMPLATES = ("./?.lua", "./?/init.lua")  # the start of Lua's default package.path


def _lua_refs(data: bytes) -> tuple[Ref, ...]:
    """A Lua file's strings that may name a code file (``dofile("x.lua")``), the modules it
    requires (``require "app.clean"``: ``-10``) and the templates it puts in ``package.path``
    (``package.path = "lib/?.lua;" .. package.path``: ``-11``)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    refs: list[Ref] = list(_named_refs(data))
    refs += [(-10, m.group(2).replace(".", "/"), ()) for m in _LUA_REQUIRE.finditer(text)]
    refs += [(-11, t, ()) for m in _LUA_PATH.finditer(text) for t in m.group(2).split(";") if "?" in t]
    return tuple(dict.fromkeys(refs))


def _lua_module_files(ref: Ref, refs: tuple[Ref, ...], path: str, cwd: str, folders: _Folders) -> list[str]:
    """The file ``require`` loads: the first of ``package.path``'s templates (the file's own, then
    Lua's ``./?.lua;./?/init.lua``) that names a file, from the current folder (and, reading
    more, the file's)."""
    templates = [r[1] for r in refs if r[0] == -11] + list(_LUA_TEMPLATES)
    for template in templates:
        for base in dict.fromkeys((cwd, os.path.dirname(path))):
            hit = folders.real_file(os.path.join(base, template.replace("?", ref[1])))
            if hit:
                return [hit]
    return []


_PERL = (".pl", ".pm", ".t", ".cgi")
_BIN = "\x00BIN"  # FindBin's folder of the script, in a use lib path
_PERL_USE = re.compile(r"^\s*(?:use|require)\s+([A-Za-z_]\w*(?:::\w+)*)\b(.*)$", re.MULTILINE)
_PERL_STRING = re.compile(r"""'([^'\n]*)'|"([^"\n]*)"|\bqw\s*[(\[{/<]([^)\]}/>]*)""")
_PERL_FINDBIN = re.compile(r"\$(?:FindBin::)?(?:Real)?Bin\b|\$\{(?:FindBin::)?(?:Real)?Bin\}")


def _perl_refs(data: bytes) -> tuple[Ref, ...]:
    """A Perl file's modules (``use My::Clean``, ``require My::Clean``, ``use parent 'My::Base'``:
    ``-5``), the folders its ``use lib`` puts on ``@INC`` (``-2``; FindBin's ``$Bin`` is the
    script's folder) and the code files its strings name (``require "x.pl"``, ``do "y.pl"``)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    refs: list[Ref] = list(_named_refs(data))
    for match in _PERL_USE.finditer(text):
        name, rest = match.group(1), match.group(2).partition(";")[0]
        words = [w for m in _PERL_STRING.finditer(rest) for w in (m.group(3).split() if m.group(3) is not None
                                                                  else [m.group(1) if m.group(1) is not None
                                                                        else m.group(2)])]
        if name == "lib":
            refs += [(-2, _PERL_FINDBIN.sub(_BIN, w), ()) for w in words if "$" not in _PERL_FINDBIN.sub("", w)]
        elif name in ("parent", "base"):
            if "-norequire" not in rest:
                refs += [(-5, w, ()) for w in words if _PERL_MODULE.fullmatch(w)]
        elif not name.islower():  # (strict, warnings, utf8: pragmas, no files)
            refs.append((-5, name, ()))
    return tuple(dict.fromkeys(refs[:_MAX_NAMED * 2]))


_PERL_MODULE = re.compile(r"[A-Za-z_]\w*(?:::\w+)*")


def _named_refs(data: bytes) -> tuple[Ref, ...]:
    """Another language's strings that may name a code file it loads (a relative specifier, a
    file with a code suffix, a bare name Ruby's ``require_relative`` takes)."""
    if b"\x00" in data:
        return ()
    text = data.decode("utf-8", "replace")
    names = [t for t in code_literals([text], bare=False, words=False) if len(t) <= 200 and _NAME.fullmatch(t)]
    return tuple(dict.fromkeys((-1, t, ()) for t in [*names[:_MAX_NAMED], *_code_names(text)]))


_READERS = {"python": _python_refs, "js": _js_refs, "perl": _perl_refs, "r": _r_refs, "php": _php_refs,
            "ruby": _ruby_refs, "lua": _lua_refs}

__all__ = ["CODE_SUFFIXES", "MAX_FILES", "go_package_files", "is_python_file", "loaded_by_code", "loaded_files",
           "module_files", "notebook_loaded", "perl_module_files", "r_loaded", "shebang_program"]
