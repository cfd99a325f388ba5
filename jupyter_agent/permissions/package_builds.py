"""The build code a build or install of a project runs: its strings may be commands.

``pip install .`` runs the project's ``setup.py`` (and an in-tree build backend, ``hatch_build.py``,
poetry's build script, a ``CMakeLists.txt`` scikit-build configures, a ``build.rs`` maturin
compiles); so do ``uv sync``, ``uv run``, ``poetry install``, ``pdm install``, ``hatch build``,
``python -m build``, ``pipx install ./x`` and tox's packaging.  ``cargo build|test|run`` runs the
package's ``build.rs``; ``gradle`` and ``./gradlew`` the ``build.gradle`` scripts, ``mvn`` the
``pom.xml`` plugins (``exec-maven-plugin``'s ``<executable>``), ``ant`` its ``build.xml``,
``sbt`` ``build.sbt``, ``mix`` ``mix.exs``, ``lein`` ``project.clj``, ``tilt`` the ``Tiltfile``,
``cmake`` the ``CMakeLists.txt`` tree (``execute_process(COMMAND rm -rf x)``), ``ctest`` the
``CTestTestfile.cmake`` tests, ``meson`` the ``meson.build`` tree (``run_command('rm', …)``);
``terraform`` the ``local-exec`` commands of its ``*.tf`` files, ``packer`` its ``shell-local``,
``vagrant`` the ``Vagrantfile``, ``pulumi`` its program; ``sphinx-build`` the ``conf.py``,
``mkdocs`` its hooks; ``bundle`` the ``Gemfile``, ``node-gyp`` and ``npm install`` the
``binding.gyp`` actions, ``R CMD INSTALL`` the package's R code (``r_packages.py``), ``hg`` its
Python extensions and hooks (``hg_hooks.py``); ``swift build`` the ``Package.swift``, ``zig build``
the ``build.zig``, ``dune`` the ``(run …)`` actions of its ``dune`` files, ``xmake`` the
``xmake.lua`` files, ``mage`` the ``magefile.go``.

What such code computes is not known, but a string of it that is a command line a deny or ask rule
names is what it may run (``os.system("rm -rf build")``, ``Command::new("rm")``, ``commandLine
'rm', '-rf', 'x'``): ``bash.py`` holds each to the rules as it does a Python script's strings
(``code_files.py``), and a match asks.  Only files that are there are read, each once per version.
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .bash_words import Word
from .hg_hooks import hg_code_files
from .inline_code import is_interpreter
from .paths import nearest_holding
from .r_packages import r_packages_built
from .script_files import lines_of, parsed_file, toml_of, yaml_of

Args = Sequence[str | None]  # a command's words after the program; None: known only at run time
_MAX_FILES = 200  # of one tree (CMake's, meson's, gradle's, maven's modules)
_SKIP_DIRS = frozenset({"node_modules", "build", "target", "dist", "out", "venv", "__pycache__", "site-packages"})


# --- Python projects ------------------------------------------------------------------------------------

# files a Python project's build runs when they are there (setuptools, hatchling's and pdm-backend's
# default hooks), beside what pyproject.toml names; a compiled part's build (scikit-build's CMake,
# meson-python's meson, maturin's and setuptools-rust's Cargo)
_PYTHON_BUILD_FILES = ("setup.py", "hatch_build.py", "pdm_build.py")


def python_project(root: str) -> list[str]:
    """The code files building the Python project in ``root`` runs (real paths)."""
    files = [os.path.join(root, name) for name in _PYTHON_BUILD_FILES]
    table, _why = parsed_file(os.path.join(root, "pyproject.toml"), toml_of)
    if isinstance(table, dict):
        files.extend(os.path.join(root, path) for path in _named_by_pyproject(table))
    found = [os.path.realpath(path) for path in files if os.path.isfile(path)]
    if os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        found.extend(cmake_tree(root))
    if os.path.isfile(os.path.join(root, "meson.build")):
        found.extend(_tree(root, ("meson.build",), ()))
    if os.path.isfile(os.path.join(root, "Cargo.toml")):
        found.extend(cargo_build_scripts(root))
    return list(dict.fromkeys(found))


_MAX_PROJECTS = 50


def project_with_sources(root: str) -> list[str]:
    """``python_project`` of ``root`` and of each local project it installs from a path (uv's
    ``[tool.uv.sources]`` and workspace members, poetry's and pdm's path dependencies, ``name @
    file:…`` requirements), and theirs: ``uv sync`` builds every one."""
    found: list[str] = []
    todo, seen = [os.path.realpath(root)], set[str]()
    while todo and len(seen) < _MAX_PROJECTS:
        folder = todo.pop(0)
        if folder in seen:
            continue
        seen.add(folder)
        found += python_project(folder)
        table, _why = parsed_file(os.path.join(folder, "pyproject.toml"), toml_of)
        if isinstance(table, dict):
            todo += [path for path in _local_sources(table, folder) if os.path.isdir(path)]
    return list(dict.fromkeys(found))


def _local_sources(table: dict[str, Any], folder: str) -> list[str]:
    """The folders of the local projects ``pyproject.toml`` (in ``folder``) depends on."""
    paths: list[str] = []
    uv = _get(table, "tool", "uv")
    sources = _get(uv, "sources").values()  # a source, or a list of them (one per marker)
    paths += _paths_of([entry for source in sources for entry in (source if isinstance(source, list) else [source])])
    members = _get(uv, "workspace").get("members")
    for member in members if isinstance(members, list) else ():
        if isinstance(member, str):
            paths += sorted(glob.glob(os.path.join(glob.escape(folder), member)))[:_MAX_PROJECTS]
    poetry = _get(table, "tool", "poetry")
    tables = [_get(poetry, "dependencies"), _get(poetry, "dev-dependencies")]
    tables += [_get(group, "dependencies") for group in _get(poetry, "group").values() if isinstance(group, dict)]
    paths += [path for deps in tables for path in _paths_of(deps.values())]
    project = _get(table, "project")
    requirements = [r for r in _list(project.get("dependencies")) if isinstance(r, str)]
    for extra in _get(project, "optional-dependencies").values():
        requirements += [r for r in extra if isinstance(r, str)] if isinstance(extra, list) else []
    for group in list(_get(table, "dependency-groups").values()) + list(
            _get(table, "tool", "pdm", "dev-dependencies").values()):
        requirements += [r for r in group if isinstance(r, str)] if isinstance(group, list) else []
    for requirement in requirements:
        text = requirement.replace("${PROJECT_ROOT}", folder).removeprefix("-e ").strip()
        if "file:" in text:
            path = _local_path(text if " @ " in text else text[text.index("file:"):], folder)
            if path:
                paths.append(path)
    return [os.path.realpath(os.path.join(folder, os.path.expanduser(path))) for path in paths]


def _paths_of(entries: Iterable[Any]) -> list[str]:
    """The ``path`` of each dependency table given by path (``{ path = "libs/x", editable = true }``)."""
    return [entry["path"] for entry in entries if isinstance(entry, dict) and isinstance(entry.get("path"), str)]


def _named_by_pyproject(table: dict[str, Any]) -> list[str]:
    """The code files ``pyproject.toml`` names: an in-tree backend (``backend-path`` + its module),
    hatch's custom hooks, poetry's build script."""
    named: list[str] = []
    system = _get(table, "build-system")
    backend = system.get("build-backend")
    paths = system.get("backend-path")
    if isinstance(backend, str) and isinstance(paths, list):
        module = backend.partition(":")[0].strip().replace(".", "/")
        for folder in (p for p in paths if isinstance(p, str)):
            named += [os.path.join(folder, module + ".py"), os.path.join(folder, module, "__init__.py")]
    hatch_build = _get(table, "tool", "hatch", "build")
    hooks = [_get(hatch_build, "hooks", "custom"), _get(table, "tool", "hatch", "metadata", "hooks", "custom")]
    hooks += [_get(target, "hooks", "custom") for target in _get(hatch_build, "targets").values()
              if isinstance(target, dict)]
    named += [hook["path"] for hook in hooks if isinstance(hook.get("path"), str)]
    poetry = _get(table, "tool", "poetry")
    for script in (_get(poetry, "build").get("script"), poetry.get("build")):
        if isinstance(script, str):
            named.append(script)
    pdm_hook = _get(table, "tool", "pdm", "build").get("custom-hook")
    if isinstance(pdm_hook, str):
        named.append(pdm_hook)
    return [path for path in named if not os.path.isabs(path)]


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list (a settings file may hold anything where a list belongs)."""
    return value if isinstance(value, list) else []


def _get(table: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else {}


def _project_root(cwd: str, folder: str | None = None) -> str | None:
    start = os.path.join(cwd, os.path.expanduser(folder)) if folder else cwd
    return nearest_holding(os.path.realpath(start), ("pyproject.toml", "setup.py"))


# pip's options that take a value (the next word when not joined): not an operand
_PIP_VALUED = frozenset({
    "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target",
    "--prefix", "--root", "--src", "--upgrade-strategy", "--python-version", "--platform", "--implementation",
    "--abi", "--only-binary", "--no-binary", "--progress-bar", "--log", "--proxy", "--retries", "--timeout",
    "--exists-action", "--trusted-host", "--cert", "--client-cert", "--cache-dir", "-C", "--config-settings",
    "--global-option", "--build-option", "--report", "--python", "-d", "--dest", "-w", "--wheel-dir",
    "--use-feature", "--use-deprecated", "--keyring-provider", "--group", "-o", "--output-file", "-p",
    "--extra", "--index", "--default-index", "--python-platform", "-P", "--upgrade-package",
    "--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--config-file", "--directory",
    "--project", "--with", "--from", "--spec", "--suffix", "--pip-args",
})
_PIP_BUILDS = frozenset({"install", "wheel", "download", "lock", "compile", "sync"})
_METADATA_FILES = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})


def _pip(args: Args, cwd: str) -> list[str]:
    """``pip install|wheel|download|lock`` (and ``uv pip install|compile|sync``): each local project
    it is given (``.``, ``-e ./x``, ``file:./x``, a requirements file's ``-e .``) is built."""
    words = _after_options(args, _PIP_VALUED)
    if not words or words[0][1] not in _PIP_BUILDS:
        return []
    found: list[str] = []
    for option, value in _options_and_operands(args[words[0][0] + 1:], _PIP_VALUED):
        if option in ("-e", "--editable"):
            found += _local_project(value, cwd, editable=True)
        elif option in ("-r", "--requirement", "--requirements"):
            found += _requirements(value, cwd, 0)
        elif option is None:
            path = _local_path(value, cwd)
            if path and os.path.basename(path) in _METADATA_FILES:  # uv pip compile pyproject.toml
                found += python_project(os.path.dirname(path))
            elif path and os.path.isfile(path) and words[0][1] in ("compile", "sync"):
                found += _requirements(value, cwd, 0)
            else:
                found += _local_project(value, cwd, editable=False)
    return found


def _requirements(value: str | None, cwd: str, depth: int) -> list[str]:
    """The local projects a requirements file names (``-e .``, ``./pkg``, ``file:.``, ``-r more.txt``)."""
    path = _local_path(value, cwd, any_path=True)
    if path is None or depth > 4 or not os.path.isfile(path):
        return []
    lines, _why = parsed_file(path, lines_of)
    folder = os.path.dirname(path)
    return [found for line in lines or () for found in _requirement_line(line, folder, depth)]


def _requirement_line(line: str, folder: str, depth: int) -> list[str]:
    """The local projects one requirements line names (``-e .``, ``./pkg``, ``-r more.txt``)."""
    text = line.split(" #", 1)[0].strip()
    option, _space, rest = text.partition(" ")
    if option in ("-e", "--editable"):
        return _local_project(rest.strip(), folder, editable=True)
    if option in ("-r", "--requirement"):
        return _requirements(rest.strip(), folder, depth + 1)
    if text and not text.startswith("-"):
        return _local_project(text.split(";")[0].strip(), folder, editable=False)
    return []


def _local_project(value: str | None, cwd: str, editable: bool) -> list[str]:
    """A project folder ``value`` names (pip reads a bare name as a requirement unless ``-e``)."""
    path = _local_path(value, cwd, any_path=editable)
    return python_project(path) if path and os.path.isdir(path) else []


def _local_path(value: str | None, cwd: str, any_path: bool = False) -> str | None:
    if not value:
        return None
    if " @ " in value:  # name @ file:///x
        return _local_path(value.split(" @ ", 1)[1].strip(), cwd)
    text = value
    if text.startswith("file:"):
        text = text[5:].removeprefix("//")
        any_path = True
    text = text.split("#", 1)[0].split("[", 1)[0]  # file:.#egg=x, .[dev]
    if not (any_path or text in (".", "..") or "/" in text or text.startswith(("~", "."))):
        return None
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(text or ".")))


def _after_options(args: Args, valued: frozenset[str]) -> list[tuple[int, str]]:
    """(index, word) of the operands before ``--`` (options and their values skipped)."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(args):
        text = args[i]
        if text == "--":
            break
        if text is not None and text[:1] != "-":
            out.append((i, text))
        elif text is not None and text in valued:
            i += 1
        i += 1
    return out


def _options_and_operands(args: Args, valued: frozenset[str]) -> list[tuple[str | None, str | None]]:
    """(option, its value) for each valued option (joined ``--x=v``, ``-ev`` too) and
    (None, operand) for each operand."""
    out: list[tuple[str | None, str | None]] = []
    i = 0
    while i < len(args):
        text = args[i]
        i += 1
        if text is None:
            continue
        if text == "--":
            out += [(None, rest) for rest in args[i:]]
            break
        if text[:2] == "--" and "=" in text:
            name, _eq, value = text.partition("=")
            out.append((name, value))
        elif text in valued or text in ("-e", "--editable", "-r", "--requirement", "--requirements"):
            out.append((text, args[i] if i < len(args) else None))
            i += 1
        elif text[:2] in ("-e", "-r") and len(text) > 2:
            out.append((text[:2], text[2:]))
        elif text[:1] != "-":
            out.append((None, text))
    return out


def _uv(args: Args, cwd: str) -> list[str]:
    """``uv sync|run|lock|add|remove|build|export|tree`` build the project (a package, or a
    dynamic one's metadata); ``uv pip …`` is pip's; ``uv tool install ./x`` builds ``./x``."""
    words = _after_options(args, _PIP_VALUED)
    if not words:
        return []
    at, sub = words[0]
    rest = args[at + 1:]
    if sub == "pip":
        return _pip(rest, cwd)
    if sub == "tool":
        if rest[:1] not in (["install"], ["run"]):
            return []
        spec = _option_value(rest, ("--from",))
        candidates = [word for _i, word in _after_options(rest[1:], _PIP_VALUED)] + ([spec] if spec else [])
        return [path for word in candidates for path in _local_project(word, cwd, editable=False)]
    if sub not in ("sync", "run", "lock", "add", "remove", "build", "export", "tree", "version"):
        return []
    if sub == "run" and ("--no-project" in args or "--no-sync" in args):
        return []
    folder = _option_value(args, ("--project", "--directory"))
    if sub == "build":
        operands = [word for _i, word in _after_options(rest, _PIP_VALUED)]
        folder = operands[0] if operands else folder
    root = _project_root(cwd, folder)
    return project_with_sources(root) if root else []


def _option_value(args: Args, names: tuple[str, ...]) -> str | None:
    for i, text in enumerate(args):
        if text is None:
            continue
        if text in names and i + 1 < len(args):
            return args[i + 1]
        name, equals, value = text.partition("=")
        if equals and name in names:
            return value
    return None


def _project_manager(subs: frozenset[str], skip: tuple[str, ...], folder_options: tuple[str, ...]
                     ) -> Callable[[Args, str], list[str]]:
    """poetry's, pdm's, hatch's commands that build and install the project itself."""
    def files(args: Args, cwd: str) -> list[str]:
        words = _after_options(args, frozenset(folder_options))
        if not words or words[0][1] not in subs or any(word in skip for word in args):
            return []
        root = _project_root(cwd, _option_value(args, folder_options))
        return project_with_sources(root) if root else []
    return files


def _python_build(args: Args, cwd: str) -> list[str]:
    """``python -m build [SRCDIR]``, ``pyproject-build``: the project in SRCDIR (default: here)."""
    operands = _after_options(args, frozenset({"-o", "--outdir", "-C", "--config-setting", "--installer"}))
    return python_project(os.path.realpath(os.path.join(cwd, operands[0][1] if operands else ".")))


def _pipx(args: Args, cwd: str) -> list[str]:
    """``pipx install ./x``, ``pipx inject env ./x``, ``pipx run --spec ./x``: local projects built."""
    words = _after_options(args, _PIP_VALUED)
    if not words or words[0][1] not in ("install", "inject", "run", "upgrade", "install-all"):
        return []
    spec = _option_value(args, ("--spec",))
    candidates = [word for _i, word in words[1:]] + ([spec] if spec else [])
    return [path for word in candidates for path in _local_project(word, cwd, editable=False)]


def _tox(args: Args, cwd: str) -> list[str]:
    """tox builds and installs the project into each environment (unless told not to)."""
    if any(word in ("--skip-pkg-install", "--version", "--help", "-h", "-l", "--listenvs", "-a",
                    "--listenvs-all", "list", "config", "c", "l") for word in args):
        return []
    root = nearest_holding(cwd, ("tox.ini", "pyproject.toml", "setup.cfg"))
    return python_project(root) if root else []


def _conda(args: Args, cwd: str) -> list[str]:
    """``conda env create|update [-f FILE]`` (``mamba``, ``micromamba create -f``): the ``pip:``
    requirements of the environment file (``-e .``, ``./pkg``, ``-r requirements.txt``) are built."""
    words = [word for _i, word in _after_options(args, frozenset({"-f", "--file", "-n", "--name", "-p", "--prefix",
                                                                    "-c", "--channel"}))]
    given = _option_value(args, ("-f", "--file"))
    if words[:2] in (["env", "create"], ["env", "update"]):
        given = given or "environment.yml"
    elif not (words[:1] in (["create"], ["install"], ["update"]) and given and given.endswith((".yml", ".yaml"))):
        return []
    path = os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))
    data, _why = parsed_file(path, yaml_of)
    folder, found = os.path.dirname(path), []
    for entry in _list(data.get("dependencies") if isinstance(data, dict) else None):
        pip = entry.get("pip") if isinstance(entry, dict) else None
        found += [project for line in _list(pip) if isinstance(line, str)
                  for project in _requirement_line(line, folder, 0)]  # (a requirements file's lines)
    return found


_PIXI_INSTALLS = frozenset({"install", "i", "run", "r", "shell", "s", "shell-hook", "add", "a", "update", "upgrade",
                            "remove", "rm", "reinstall"})  # (not exec: a temporary environment of conda packages)


def _pixi(args: Args, cwd: str) -> list[str]:
    """``pixi install|run|shell|add …`` install the workspace's environment: its PyPI dependencies
    given by path (``[pypi-dependencies] p = { path = ".", editable = true }``) are built."""
    words = _after_options(args, frozenset({"--manifest-path", "-e", "--environment"}))
    if not words or words[0][1] not in _PIXI_INSTALLS:
        return []
    manifest = _option_value(args, ("--manifest-path",))
    folder = (os.path.dirname(os.path.realpath(os.path.join(cwd, manifest))) if manifest
              else nearest_holding(cwd, ("pixi.toml", "pyproject.toml")))
    if folder is None:
        return []
    found: list[str] = []
    for name, keys in (("pixi.toml", ()), ("pyproject.toml", ("tool", "pixi"))):
        table, _why = parsed_file(os.path.join(folder, name), toml_of)
        pixi = _get(table, *keys) if keys else table if isinstance(table, dict) else {}
        tables = [_get(pixi, "pypi-dependencies")]
        tables += [_get(feature, "pypi-dependencies") for feature in _get(pixi, "feature").values()
                   if isinstance(feature, dict)]
        found += [file for deps in tables for path in _paths_of(deps.values())
                  for file in project_with_sources(os.path.join(folder, path))]
    return found


# --- Cargo ----------------------------------------------------------------------------------------------

# cargo's commands that compile the package, running its build scripts
_CARGO_BUILDS = frozenset({"build", "b", "check", "c", "run", "r", "test", "t", "bench", "doc", "d", "install",
                           "clippy", "rustc", "rustdoc", "fix", "package", "publish", "miri", "llvm-cov",
                           "nextest", "tarpaulin", "watch"})


def _cargo(args: Args, cwd: str) -> list[str]:
    words = [(i, word) for i, word in _after_options(args, frozenset({"--manifest-path", "--config", "-Z", "-C",
                                                                    "--color"})) if word[:1] != "+"]
    if not words or words[0][1] not in _CARGO_BUILDS:
        return []
    manifest = _option_value(args, ("--manifest-path",))
    path = _option_value(args, ("--path",)) if words[0][1] == "install" else None
    if manifest:
        root: str | None = os.path.dirname(os.path.realpath(os.path.join(cwd, manifest)))
    elif path:
        root = os.path.realpath(os.path.join(cwd, path))
    elif words[0][1] == "install":
        return []  # a crate from crates.io
    else:
        root = nearest_holding(cwd, ("Cargo.toml",))
    if not root:
        return []
    if words[0][1] not in _CARGO_RUNS:
        return cargo_build_scripts(root)
    # what it runs is the crate's own code: its sources, tests, examples and benches
    sources = [f for folder in _cargo_packages(root) for f in _tree(folder, (), (".rs",))]
    return list(dict.fromkeys([*cargo_build_scripts(root), *sources[:_MAX_FILES]]))


# the subcommands that run the crate's code (its program, tests or benches), not only build it
_CARGO_RUNS = frozenset({"run", "r", "test", "t", "bench", "miri", "llvm-cov", "nextest", "tarpaulin", "watch"})


def cargo_build_scripts(root: str) -> list[str]:
    """The build scripts of the package (and workspace members) whose ``Cargo.toml`` is in ``root``."""
    found: list[str] = []
    for folder in _cargo_packages(root):
        table, _why = parsed_file(os.path.join(folder, "Cargo.toml"), toml_of)
        script = _get(table, "package").get("build", "build.rs")
        if isinstance(script, str) and os.path.isfile(os.path.join(folder, script)):
            found.append(os.path.realpath(os.path.join(folder, script)))
    return found


def _cargo_packages(root: str) -> list[str]:
    """The folders of the package whose ``Cargo.toml`` is in ``root`` and of its workspace's members."""
    found: list[str] = []
    todo, seen = [root], set[str]()
    while todo and len(seen) < _MAX_FILES:
        folder = todo.pop()
        if folder in seen:
            continue
        seen.add(folder)
        table, _why = parsed_file(os.path.join(folder, "Cargo.toml"), toml_of)
        if not isinstance(table, dict):
            continue
        found.append(folder)
        members = _get(table, "workspace").get("members")
        for member in members if isinstance(members, list) else ():
            if isinstance(member, str):
                todo += sorted(glob.glob(os.path.join(glob.escape(folder), member)))[:_MAX_FILES]
    return found


# --- JVM, Elixir, Clojure, Tilt -------------------------------------------------------------------------

def _files_of(names: tuple[str, ...], options: tuple[str, ...] = (), quiet: tuple[str, ...] = (),
              walk: bool = False, dirs: tuple[str, ...] = ()) -> Callable[[Args, str], list[str]]:
    """A build tool that runs the code of ``names`` in its folder (or the file or folder an
    option in ``options`` gives); nothing for the ``quiet`` words (``--version``); ``walk``:
    the files of that name below it too (a multi-project build); ``dirs``: folders whose
    files of a code suffix run too (sbt's ``project/``)."""
    def files(args: Args, cwd: str) -> list[str]:
        if any(word in quiet for word in args):
            return []
        given = _option_value(args, options) if options else None
        folder = cwd
        if given:
            path = os.path.realpath(os.path.join(cwd, os.path.expanduser(given)))
            if os.path.isfile(path):
                return [path]
            folder = path
        if walk:
            return _tree(folder, names, ())
        found = [os.path.realpath(os.path.join(folder, name)) for name in names
                 if os.path.isfile(os.path.join(folder, name))]
        for sub in dirs:
            base = os.path.join(folder, sub)
            if os.path.isdir(base):
                found += sorted(os.path.realpath(os.path.join(base, name)) for name in os.listdir(base)
                                if name.endswith((".sbt", ".scala", ".exs"))
                                and os.path.isfile(os.path.join(base, name)))[:_MAX_FILES]
        return found
    return files


_VERSION = ("--version", "-v", "-V", "--help", "-h", "-?", "help")
_GRADLE_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")


def _gradle(args: Args, cwd: str) -> list[str]:
    """``gradle``/``./gradlew`` configure the whole build: the settings and build scripts of the
    build (the nearest folder from here or ``-p DIR`` holding a settings script, and every folder
    below it; without one, the folder's own), and the scripts ``-b``, ``-c`` and ``-I`` name."""
    if any(word in _VERSION for word in args):
        return []
    given = _option_value(args, ("-p", "--project-dir"))
    folder = os.path.realpath(os.path.join(cwd, given)) if given else cwd
    root = nearest_holding(folder, ("settings.gradle", "settings.gradle.kts"), depth=8)
    found = (_tree(root, _GRADLE_FILES, ()) if root  # a multi-project build: every project's script
             else [os.path.join(folder, name) for name in _GRADLE_FILES])
    for option in (("-b", "--build-file"), ("-c", "--settings-file"), ("-I", "--init-script")):
        script = _option_value(args, option)
        if script and os.path.isfile(os.path.join(cwd, script)):
            found.append(os.path.realpath(os.path.join(cwd, script)))
    return found


# --- CMake, CTest, meson --------------------------------------------------------------------------------

_CMAKE_VALUED = frozenset({"-G", "-T", "-A", "-C", "-D", "-U", "--preset", "--target", "-t", "--config", "-j",
                           "--parallel", "--prefix", "-S", "-B", "--build", "--install", "--component"})


def _cmake(args: Args, cwd: str) -> list[str]:
    """``cmake`` configures the source tree (``-S DIR``, a folder operand, or here; a build
    folder's cache names its source), ``--build``/``--install DIR`` run its custom commands and
    install scripts, ``-P FILE`` runs FILE; ``-E`` is a built-in command (checked on its own)."""
    if args[:1] and args[0] in ("-E", "--version", "--help", "-h", "--system-information"):
        return []
    script = _option_value(args, ("-P",))
    if script:
        path = os.path.realpath(os.path.join(cwd, script))
        return [path] if os.path.isfile(path) else []
    build = _option_value(args, ("--build", "--install"))
    source = _option_value(args, ("-S",))
    operands = _after_options(args, _CMAKE_VALUED)
    if build:
        folder = _cmake_source(os.path.realpath(os.path.join(cwd, build)))
    elif source:
        folder = os.path.realpath(os.path.join(cwd, source))
    elif operands:
        folder = _cmake_source(os.path.realpath(os.path.join(cwd, operands[-1][1])))
    else:
        folder = cwd
    return cmake_tree(folder) if folder and os.path.isfile(os.path.join(folder, "CMakeLists.txt")) else []


def _cmake_source(folder: str) -> str | None:
    """The source folder: ``folder`` itself, or the one a build folder's cache names."""
    if os.path.isfile(os.path.join(folder, "CMakeLists.txt")):
        return folder
    home, _why = parsed_file(os.path.join(folder, "CMakeCache.txt"), _cmake_home)
    return home if isinstance(home, str) and home else None


def _cmake_home(data: bytes) -> str:
    match = re.search(rb"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", data, re.MULTILINE)
    return match.group(1).decode("utf-8", "replace").strip() if match else ""


def cmake_tree(source: str) -> list[str]:
    return _tree(source, ("CMakeLists.txt",), (".cmake",))


def _ctest(args: Args, cwd: str) -> list[str]:
    """``ctest`` runs the tests the build folder's ``CTestTestfile.cmake`` files list."""
    if any(word in ("--version", "--help", "-N", "--show-only") for word in args):
        return []
    folder = os.path.realpath(os.path.join(cwd, _option_value(args, ("--test-dir",)) or "."))
    return _tree(folder, ("CTestTestfile.cmake",), (), skip_builds=False)


_MESON_RUNS = frozenset({"compile", "test", "install", "dist", "configure", "devenv", "introspect"})
_MESON_OTHERS = frozenset({"help", "env2mfile", "wrap", "init", "rewrite", "format", "fmt", "subprojects",
                           "--version", "-v"})


def _meson(args: Args, cwd: str) -> list[str]:
    """``meson setup BUILD [SOURCE]`` (and the old ``meson BUILD``) runs the ``meson.build`` tree of
    SOURCE (default: here); ``compile``, ``test``, ``install`` … in a build folder (``-C DIR``)
    run it again when it changed: the source its ``meson-info.json`` names."""
    words = [word for _i, word in _after_options(args, frozenset({"-C", "--prefix", "--buildtype", "-D",
                                                                    "--backend", "--wrap-mode"}))]
    sub = words[0] if words else "setup"
    if sub in _MESON_OTHERS or any(word in ("--version", "-v", "--help", "-h") for word in args):
        return []
    if sub in _MESON_RUNS:
        build = _option_value(args, ("-C",)) or (words[1] if sub == "configure" and len(words) > 1 else ".")
        info, _why = parsed_file(os.path.join(cwd, build, "meson-info", "meson-info.json"), json.loads)
        source = _get(info, "directories").get("source")
        if not isinstance(source, str):
            return []
        folder = source
    else:
        operands = words[1:] if sub == "setup" else words
        folder = os.path.realpath(os.path.join(cwd, operands[1] if len(operands) > 1 else "."))
    return _tree(folder, ("meson.build",), ()) if os.path.isfile(os.path.join(folder, "meson.build")) else []


def tree_files(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files of ``suffixes`` in ``folder`` and below (bounded, not in hidden or output folders)."""
    return _tree(folder, (), suffixes)


def pytest_files_below(folder: str) -> list[str]:
    """The ``conftest.py`` files and test modules (``test_*.py``, ``*_test.py``: pytest's default
    ``python_files``) in ``folder`` and below, as pytest collects them: each is imported."""
    return _tree(folder, ("conftest.py",), ("_test.py",), prefix=("test_", ".py"))


_MAX_FOLDERS = 2_000  # looked into by one walk


def _tree(root: str, names: tuple[str, ...], suffixes: tuple[str, ...], skip_builds: bool = True,
          prefix: tuple[str, str] = ("/", "")) -> list[str]:
    """The files of ``names`` (or ``suffixes``, or ``prefix``: its beginning and end) in ``root`` and
    below, at most ``_MAX_FILES``: not in hidden folders, dependency or output folders, nor
    (``skip_builds``) a CMake build folder."""
    found: list[str] = []
    for walked, (folder, subdirs, files) in enumerate(os.walk(root)):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in _SKIP_DIRS
                            and not (skip_builds and os.path.isfile(os.path.join(folder, d, "CMakeCache.txt"))))
        found += [os.path.realpath(os.path.join(folder, name)) for name in sorted(files)
                  if name in names or (suffixes and name.endswith(suffixes))
                  or (name.startswith(prefix[0]) and name.endswith(prefix[1]))]
        if len(found) >= _MAX_FILES or walked >= _MAX_FOLDERS:
            break
    return found[:_MAX_FILES]


# --- infrastructure tools: terraform's provisioners, packer's, Vagrant's and Pulumi's programs ----------------

_TERRAFORM_RUNS = frozenset({"apply", "plan", "destroy", "refresh", "import", "test", "console", "run-all", "run"})
_MAX_MODULES = 50


def _terraform(args: Args, cwd: str) -> list[str]:
    """``terraform|tofu apply|plan|destroy …`` run the ``local-exec`` provisioners and ``external``
    data sources of the configuration (``-chdir=DIR``, else here): its ``*.tf`` files and those of
    the local modules it calls (``source = "./modules/x"``); terragrunt's ``terragrunt.hcl`` hooks."""
    folder = cwd
    for text in args:
        if text and text.startswith("-chdir="):
            folder = os.path.realpath(os.path.join(cwd, os.path.expanduser(text[7:])))
    words = [word for _i, word in _after_options(args, frozenset({"-var", "-var-file", "-target", "-out",
                                                                    "-state", "-parallelism"}))]
    if not words or words[0] not in _TERRAFORM_RUNS:
        return []
    found: list[str] = []
    todo, seen = [folder], set[str]()
    while todo and len(seen) < _MAX_MODULES:
        here = todo.pop(0)
        if here in seen or not os.path.isdir(here):
            continue
        seen.add(here)
        names = sorted(os.listdir(here))
        files = [os.path.realpath(os.path.join(here, n)) for n in names
                 if n.endswith((".tf", ".tf.json", ".tofu")) or n == "terragrunt.hcl"]
        found += files
        for path in files:
            text, _why = parsed_file(path, _decoded)
            for source in _LOCAL_SOURCE.findall(text or ""):
                todo.append(os.path.realpath(os.path.join(here, source)))
    return found


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "replace")


_LOCAL_SOURCE = re.compile(r'\bsource\s*=\s*"(\.\.?/[^"]*)"')


def _packer(args: Args, cwd: str) -> list[str]:
    """``packer build|validate PATH``: the template's ``shell-local`` provisioners run here."""
    words = [word for _i, word in _after_options(args, frozenset({"-var", "-var-file", "-only", "-except"}))]
    if words[:1] != ["build"] or len(words) < 2:
        return []
    path = os.path.realpath(os.path.join(cwd, words[-1]))
    if os.path.isfile(path):
        return [path]
    return [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith((".pkr.hcl", ".pkr.json"))
            ] if os.path.isdir(path) else []


def _vagrant(args: Args, cwd: str) -> list[str]:
    """Every ``vagrant`` command loads the ``Vagrantfile`` (Ruby, run here) found from here upwards."""
    if any(word in _VERSION + ("global-status", "box", "plugin", "init") for word in args[:1]):
        return []
    folder = nearest_holding(cwd, ("Vagrantfile",))
    return [os.path.join(folder, "Vagrantfile")] if folder else []


_PULUMI_MAINS = ("__main__.py", "index.ts", "index.js", "main.go", "Program.cs", "Main.java", "Pulumi.yaml")


def _pulumi(args: Args, cwd: str) -> list[str]:
    """``pulumi up|preview|destroy|refresh`` run the project's program (``__main__.py``,
    ``index.ts`` … in the folder of ``Pulumi.yaml``, or its ``main:``)."""
    words = [word for _i, word in _after_options(args, frozenset({"-s", "--stack", "-C", "--cwd", "-m",
                                                                    "--message", "--config-file"}))]
    if not words or words[0] not in ("up", "update", "preview", "pre", "destroy", "down", "refresh", "watch"):
        return []
    given = _option_value(args, ("-C", "--cwd"))
    folder = nearest_holding(os.path.realpath(os.path.join(cwd, given)) if given else cwd, ("Pulumi.yaml",))
    if folder is None:
        return []
    data, _why = parsed_file(os.path.join(folder, "Pulumi.yaml"), yaml_of)
    main = data.get("main") if isinstance(data, dict) else None
    base = os.path.join(folder, main) if isinstance(main, str) else folder
    if os.path.isfile(base):
        return [base]
    return [os.path.join(base, name) for name in _PULUMI_MAINS]


# --- documentation builds: Sphinx's conf.py, mkdocs' hooks --------------------------------------------------

_SPHINX_VALUED = frozenset({"-b", "-d", "-c", "-D", "-A", "-t", "-j", "-w", "-M", "--builder", "--doctree-dir",
                            "--conf-dir", "--define", "--html-define", "--tag", "--jobs", "--warning-file",
                            "--port", "--host", "--ignore", "--re-ignore", "--watch", "--pre-build"})


def _sphinx(args: Args, cwd: str) -> list[str]:
    """``sphinx-build [-M BUILDER] SOURCE OUT`` (``sphinx-autobuild``, ``python -m sphinx``) runs the
    ``conf.py`` of SOURCE (or of ``-c DIR``; none with ``-C``)."""
    if "-C" in args or "--isolated" in args or any(word in ("--version", "--help", "-h") for word in args):
        return []
    operands = _after_options(args, _SPHINX_VALUED)
    folder = _option_value(args, ("-c", "--conf-dir")) or (operands[0][1] if operands else None)
    return [os.path.realpath(os.path.join(cwd, folder, "conf.py"))] if folder else []


def _mkdocs(args: Args, cwd: str) -> list[str]:
    """``mkdocs build|serve|gh-deploy`` run the ``hooks:`` (Python files) its ``mkdocs.yml`` lists."""
    words = [word for _i, word in _after_options(args, frozenset({"-f", "--config-file", "-d", "--site-dir", "-a",
                                                                    "--dev-addr", "-t", "--theme"}))]
    if not words or words[0] not in ("build", "serve", "gh-deploy"):
        return []
    config = os.path.realpath(os.path.join(cwd, _option_value(args, ("-f", "--config-file")) or "mkdocs.yml"))
    if not os.path.isfile(config) and not _option_value(args, ("-f", "--config-file")):
        config = os.path.join(cwd, "mkdocs.yaml")
    data, _why = parsed_file(config, _mkdocs_yaml)
    hooks = data.get("hooks") if isinstance(data, dict) else None
    folder = os.path.dirname(config)
    return [os.path.realpath(os.path.join(folder, hook)) for hook in _list(hooks) if isinstance(hook, str)]


def _mkdocs_yaml(data: bytes) -> Any:
    """mkdocs.yml, whose ``!ENV``/``!relative`` tags a plain YAML reader refuses (kept as text)."""
    return yaml_of(re.sub(rb"!(?:ENV|relative)\b", b"", data))


# --- Ruby's Gemfile and gemspecs, node-gyp's binding.gyp -----------------------------------------------------

def _bundle(args: Args, cwd: str) -> list[str]:
    """Every ``bundle`` command that loads the bundle evaluates the ``Gemfile`` (Ruby) found from
    here upwards, and the ``*.gemspec`` files beside it (``gemspec`` in the Gemfile)."""
    words = [word for _i, word in _after_options(args, frozenset({"--gemfile", "--path", "-j", "--jobs"}))]
    if words[:1] and words[0] in ("version", "help", "init", "gem", "plugin") or any(w in _VERSION for w in args):
        return []
    given = _option_value(args, ("--gemfile",))
    gemfile = (os.path.realpath(os.path.join(cwd, given)) if given
               else os.path.join(nearest_holding(cwd, ("Gemfile", "gems.rb")) or cwd, "Gemfile"))
    folder = os.path.dirname(gemfile)
    files = [gemfile, os.path.join(folder, "gems.rb")]
    if os.path.isdir(folder):
        files += sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".gemspec"))
    return files


def _gem(args: Args, cwd: str) -> list[str]:
    """``gem build X.gemspec`` evaluates the gemspec (Ruby)."""
    words = [word for _i, word in _after_options(args, frozenset({"-o", "--output", "-C"}))]
    if words[:1] != ["build"]:
        return []
    named = [os.path.join(cwd, word) for word in words[1:] if word.endswith(".gemspec")]
    return named or sorted(os.path.join(cwd, n) for n in os.listdir(cwd) if n.endswith(".gemspec"))


def _node_gyp(args: Args, cwd: str) -> list[str]:
    """``node-gyp configure|build|rebuild`` runs the actions of ``binding.gyp``; so does installing a
    package that has one (npm runs ``node-gyp rebuild`` for it)."""
    words = [word for _i, word in _after_options(args, frozenset({"--directory", "-C", "--target", "--arch"}))]
    if not words or words[0] not in ("configure", "build", "rebuild", "install"):
        return []
    folder = _option_value(args, ("--directory", "-C")) or "."
    return [os.path.realpath(os.path.join(cwd, folder, "binding.gyp"))]


def _node_install(args: Args, cwd: str, bare: bool = False) -> list[str]:
    """``npm install`` (``ci``, ``rebuild``, ``yarn add`` …; ``bare``: a bare ``yarn`` installs)."""
    words = [word for _i, word in _after_options(args, frozenset({"--prefix", "-C", "--cwd", "--dir", "-w",
                                                                    "--workspace", "--filter"}))]
    if words[:1] == [] and not bare or words and words[0] not in ("install", "i", "ci", "rebuild", "add", "update",
                                                                  "up", "upgrade"):
        return []
    if not words and any(word in _VERSION for word in args):
        return []
    root = nearest_holding(cwd, ("package.json",))
    return [os.path.join(root, "binding.gyp")] if root else []


def _r_package(args: Args, cwd: str) -> list[str]:
    """``R CMD INSTALL|build|check PKG`` runs the package's ``R/*.R`` (and ``check`` its ``tests/``)."""
    return [path for command, folder in r_packages_built(args, cwd)
            for sub in ("R", "tests") if sub == "R" or command == "check"
            for path in _tree(os.path.join(folder, sub), (), (".R", ".r"))]


# --- Swift, Zig, dune, xmake, mage: build code in the language of the project -------------------------------

def _manifest_build(manifest: str, subcommands: frozenset[str],
                    folder_options: tuple[str, ...] = ()) -> Callable[[Args, str], list[str]]:
    """``swift build|run|test`` runs ``Package.swift`` (Swift code), ``zig build`` the
    ``build.zig`` program: of the nearest folder holding it (or the one an option names)."""
    def files(args: Args, cwd: str) -> list[str]:
        operands = _after_options(args, frozenset(folder_options))
        if not operands or operands[0][1] not in subcommands:
            return []
        given = _option_value(args, folder_options) if folder_options else None
        root = os.path.realpath(os.path.join(cwd, given)) if given else nearest_holding(cwd, (manifest,), depth=8)
        return [os.path.join(root, manifest)] if root else []
    return files


_DUNE_RUNS = frozenset({"build", "test", "runtest", "exec", "install", "promote", "utop", "rpc", "b", "t"})


def _dune(args: Args, cwd: str) -> list[str]:
    """``dune build|test|exec …`` runs the actions of every ``dune`` file of the project (the
    nearest folder holding ``dune-project``, or here)."""
    operands = _after_options(args, frozenset({"--root", "-p", "--only-packages", "-j", "--profile"}))
    if not operands or operands[0][1] not in _DUNE_RUNS:
        return []
    given = _option_value(args, ("--root",))
    root = os.path.realpath(os.path.join(cwd, given)) if given else nearest_holding(cwd, ("dune-project",), depth=8)
    return _tree(root or cwd, ("dune", "dune-project", "dune-workspace"), ())


def _mage(args: Args, cwd: str) -> list[str]:
    """``mage TARGET`` runs the Go code of ``magefile.go`` (or of ``magefiles/``) in its folder
    (``-d DIR``)."""
    if any(word in ("-l", "-version", "-h", "-help", "-init") for word in args):
        return []
    given = _option_value(args, ("-d",))
    folder = os.path.realpath(os.path.join(cwd, given)) if given else cwd
    return [os.path.join(folder, "magefile.go"), *_tree(os.path.join(folder, "magefiles"), (), (".go",))]


# --- the table ------------------------------------------------------------------------------------------

_HANDLERS: dict[str, Callable[[Args, str], list[str]]] = {
    "pip": _pip, "uv": _uv, "build": _python_build, "pyproject-build": _python_build, "pipx": _pipx,
    "poetry": _project_manager(frozenset({"install", "build", "sync", "add", "update", "remove"}), ("--no-root",),
                               ("-C", "--directory", "-P", "--project")),
    "pdm": _project_manager(frozenset({"install", "build", "sync", "add", "update", "remove"}),
                            ("--no-self",), ("-p", "--project")),
    "hatch": _project_manager(frozenset({"build", "env", "run", "shell", "test", "version"}), (),
                              ("-p", "--project")),
    "uvx": lambda args, cwd: _uv(["tool", "run", *args], cwd),
    "conda": _conda, "mamba": _conda, "micromamba": _conda, "pixi": _pixi,
    "tox": _tox, "cargo": _cargo, "gradle": _gradle, "gradlew": _gradle,
    "mvn": _files_of(("pom.xml",), ("-f", "--file"), _VERSION, walk=True),
    "ant": _files_of(("build.xml",), ("-f", "-file", "-buildfile"), _VERSION),
    "sbt": _files_of(("build.sbt",), (), _VERSION, dirs=("project",)),
    "mix": _files_of(("mix.exs",), (), ("--version", "-v", "help", "new"), dirs=("config",)),
    "lein": _files_of(("project.clj",), (), _VERSION + ("new",)),
    "tilt": _files_of(("Tiltfile",), ("-f", "--file"), _VERSION + ("version", "get", "describe", "logs")),
    "cmake": _cmake, "ctest": _ctest, "meson": _meson, "hg": hg_code_files, "chg": hg_code_files,
    "terraform": _terraform, "tofu": _terraform, "terragrunt": _terraform, "packer": _packer,
    "vagrant": _vagrant, "pulumi": _pulumi, "sphinx-build": _sphinx, "sphinx-autobuild": _sphinx, "sphinx": _sphinx,
    "mkdocs": _mkdocs, "bundle": _bundle, "bundler": _bundle, "gem": _gem, "node-gyp": _node_gyp,
    "R": _r_package, "npm": _node_install, "yarn": lambda args, cwd: _node_install(args, cwd, bare=True), "pnpm": _node_install,
    "swift": _manifest_build("Package.swift", frozenset({"build", "run", "test", "package"}), ("--package-path",)),
    "zig": _manifest_build("build.zig", frozenset({"build"}), ("--build-file",)),
    "dune": _dune, "mage": _mage, "xmake": _files_of(("xmake.lua",), ("-P", "--project"), _VERSION, walk=True),
}
_HANDLERS["mvnw"] = _HANDLERS["mvn"]
_PIP_NAME = re.compile(r"pip[0-9.]*")
BUILDERS = frozenset(_HANDLERS)  # (and pip3.x, python -m NAME)


def build_files(form: tuple[Word, ...], cwd: str) -> list[str]:
    """The build code files (real paths) ``form`` runs from ``cwd`` whose strings may be commands."""
    program = form[0].literal
    if program is None:
        return []
    name = program.rpartition("/")[2]
    if name.startswith("python") and len(form) > 2 and form[1].literal == "-m" and is_interpreter(name):
        name, form = form[2].literal or "", form[2:]  # python -m pip install ., python -m build
    elif name[:3] == "pip" and _PIP_NAME.fullmatch(name):
        name = "pip"
    handler = _HANDLERS.get(name)
    if handler is None:
        return []
    try:
        return [path for path in handler([word.literal for word in form[1:]], cwd) if os.path.isfile(path)]
    except OSError:
        return []


_DUNE_RUN = re.compile(r"\((?:run|system|bash)\s+([^()]*)\)")


def dune_commands(text: str) -> list[str]:
    """The command lines of a ``dune`` file's actions: ``(run rm -rf x)`` (its words, unquoted),
    ``(system "…")`` and ``(bash "…")`` (a string: found as any string is, and here too)."""
    return [" ".join(w[1:-1] if w[:1] == '"' else w for w in match.group(1).split())
            for match in _DUNE_RUN.finditer(text)]


def cmake_commands(text: str) -> list[str]:
    """The command lines of CMake's ``COMMAND`` arguments (``execute_process(COMMAND rm -rf x)``,
    ``add_custom_command(… COMMAND rm x VERBATIM)``): the words up to the next keyword or ``)``."""
    lines = []
    for match in _CMAKE_COMMAND.finditer(text):
        words: list[str] = []
        for token in _CMAKE_TOKEN.finditer(text, match.end()):
            word = token.group(0)
            if word == ")" or _CMAKE_KEYWORD.fullmatch(word) or len(words) > 200:
                break
            words.append(word[1:-1] if word[:1] == '"' else word)
        if words:
            lines.append(" ".join(words))
    return lines


def heredoc_texts(text: str) -> list[str]:
    """The bodies of HCL's heredocs (``command = <<-EOT`` … ``EOT``): each one command line, as
    the shell that runs a ``local-exec`` command reads it."""
    return [match.group(2) for match in _HEREDOC.finditer(text)]


def xml_texts(text: str) -> list[str]:
    """The texts of an XML file's elements (``<executable>rm</executable>``)."""
    return [found.strip() for found in _XML_TEXT.findall(text) if found.strip()]


_CMAKE_COMMAND = re.compile(r"\bCOMMAND\b")
_CMAKE_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\)|[^\s()"]+')
_CMAKE_KEYWORD = re.compile(r"[A-Z][A-Z_]{2,}")
_XML_TEXT = re.compile(r">([^<>]{1,4096})<")
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_]*)[ \t]*\n(.{0,8192}?)\n[ \t]*\1\b", re.DOTALL)

__all__ = ["BUILDERS", "build_files", "cargo_build_scripts", "cmake_commands", "cmake_tree", "dune_commands", "heredoc_texts",
           "project_with_sources", "pytest_files_below", "python_project", "tree_files", "xml_texts"]
