"""The folders editable installs put on Python's path: the project's own code installed from
elsewhere (``pip install -e ../lib``, ``uv``'s workspace members, ``poetry install`` of a path
dependency, ``%pip install -e .`` in the notebook).

An editable install leaves a ``.pth`` file in the environment's ``site-packages``: either a line
naming a folder (``/work/lib/src``: Python appends it to ``sys.path`` at start-up), or an import
of a finder module setuptools writes beside it (``__editable___x_finder.py``, whose ``MAPPING``
names each package's folder).  ``editable_roots`` reads both in the environments a command's
Python may be: the kernel's own, ``VIRTUAL_ENV``'s, the one ``python3``/``python`` on ``PATH``
belongs to, the nearest ``.venv``/``venv`` above the folder (uv, poetry, hatch in-project), and
the one of an interpreter the line names by path (``/opt/env/bin/python``).  Folders inside a
``site-packages`` (installed packages) are not roots: only the project's code is followed.

A ``.pth`` file is read once per version (``parsed_file``), each environment's listing once per
change of its folder; a ``.pth`` line Python would run as code other than an editable finder's
(``import x; …``) names no folder here.
"""

from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import sys

from .script_files import lines_of, parsed_file

_SITE_GLOBS = ("lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
               "local/lib/python3*/dist-packages", "lib/site-packages")
_FINDER = re.compile(r"\b(__editable___\w+_finder)\b")
_MAPPING = re.compile(r"^MAPPING\s*(?::[^=\n]*)?=\s*(\{.*?\})\s*$", re.MULTILINE | re.DOTALL)
_MAX_PTH = 200  # .pth files of one environment read
_INSTALLED = (f"{os.sep}site-packages", f"{os.sep}dist-packages")

# prefix → (the stat of its lib folder, its site folders); site folder → (its stat, its .pth names)
_SITES: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
_PTHS: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
_WHICH: dict[tuple[str, str], str | None] = {}


def editable_roots(cwd: str, interpreter: str | None = None) -> tuple[str, ...]:
    """The folders the editable installs of the environments a Python run from ``cwd`` may use
    put on its path (``interpreter``: the program the line names, when it is a path)."""
    roots: list[str] = []
    for prefix in _prefixes(cwd, interpreter):
        for site in _site_folders(prefix):
            roots += _site_roots(site)
    return tuple(dict.fromkeys(roots))


def script_folders(cwd: str) -> list[str]:
    """The ``bin`` folders of the environments a command run from ``cwd`` may use (a console
    script an editable install made is there: ``.venv/bin/mycli``)."""
    return [os.path.join(prefix, "bin") for prefix in _prefixes(cwd, None)]


def _prefixes(cwd: str, interpreter: str | None) -> list[str]:
    found = [sys.prefix]
    if os.environ.get("VIRTUAL_ENV"):
        found.append(os.environ["VIRTUAL_ENV"])
    search = os.environ.get("PATH", os.defpath)
    for name in ("python3", "python"):
        key = (search, name)
        if key not in _WHICH:
            if len(_WHICH) > 64:
                _WHICH.clear()
            _WHICH[key] = shutil.which(name, path=search)
        program = _WHICH[key]
        if program:
            found.append(os.path.dirname(os.path.dirname(program)))
    if interpreter and "/" in interpreter:
        found.append(os.path.dirname(os.path.dirname(os.path.join(cwd, os.path.expanduser(interpreter)))))
    folder = cwd
    while True:
        venv = next((os.path.join(folder, n) for n in (".venv", "venv")
                     if os.path.isfile(os.path.join(folder, n, "pyvenv.cfg"))), None)
        parent = os.path.dirname(folder)
        if venv is not None or parent == folder:
            if venv is not None:
                found.append(venv)
            break
        folder = parent
    return list(dict.fromkeys(os.path.normpath(p) for p in found))


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def _site_folders(prefix: str) -> tuple[str, ...]:
    stamp = _stamp(os.path.join(prefix, "lib"))
    if stamp is None:
        return ()
    known = _SITES.get(prefix)
    if known is None or known[0] != stamp:
        folders = tuple(dict.fromkeys(f for pattern in _SITE_GLOBS for f in sorted(glob.glob(os.path.join(prefix, pattern)))
                                      if os.path.isdir(f)))
        if len(_SITES) > 64:
            _SITES.clear()
        known = _SITES[prefix] = (stamp, folders)
    return known[1]


def startup_files(cwd: str, interpreter: str | None = None, jupyter: bool = False) -> list[str]:
    """The code the environments a Python run from ``cwd`` may use run at every start-up, before
    any script: each ``.pth`` file with a line Python runs (``import x; …``), the modules such a
    line imports from the same folder, and ``sitecustomize.py``/``usercustomize.py`` there
    (``.venv/lib/python3.12/site-packages/x.pth`` holding ``import os; os.system("rm x")`` ran
    for ``.venv/bin/python -c 'print(1)'``); with ``jupyter``, the Python configuration files of
    its ``etc/jupyter`` and ``etc/ipython`` (``jupyter_server_config.py``, ``ipython_config.py``),
    which jupyter and IPython load from every environment's prefix."""
    found: list[str] = []
    for prefix in _prefixes(cwd, interpreter):
        for site in _site_folders(prefix):
            found += _site_startup(site)
        if jupyter:  # jupyter's and IPython's configuration files of the environment are Python
            for folder in ("etc/jupyter", "etc/ipython"):
                found += sorted(glob.glob(os.path.join(prefix, folder, "*.py")))[:_MAX_PTH]
    return list(dict.fromkeys(found))


def _site_startup(site: str) -> list[str]:
    """``startup_files`` of one ``site-packages``, worked out again only when the folder, one of its
    ``.pth`` files or a package folder a ``.pth`` line imports changes."""
    names = _pth_names(site)
    known = _STARTUP.get(site)
    if known is not None:
        stamp, folders, found = known
        if stamp == (_PTHS.get(site, (None,))[0], tuple(_stamp(os.path.join(site, n)) for n in names),
                     tuple(_stamp(f) for f in folders)):
            return found
    found, folders = [], []
    for name in names:
        path = os.path.join(site, name)
        lines, _why = parsed_file(path, lines_of)
        code = [line for line in lines or () if line.startswith(("import ", "import\t"))]
        if not code:
            continue
        found.append(path)
        for line in code:  # import evil: site-packages/evil.py runs too (a finder's module is read as any)
            for module in _IMPORTED.findall(line):
                top = module.split(".")[0]
                if os.path.isdir(os.path.join(site, top)):
                    folders.append(os.path.join(site, top))
                found += [c for c in (os.path.join(site, top + ".py"), os.path.join(site, top, "__init__.py"))
                          if os.path.isfile(c)]
    for name in ("sitecustomize.py", "usercustomize.py"):
        if os.path.isfile(os.path.join(site, name)):
            found.append(os.path.join(site, name))
    if len(_STARTUP) > 64:
        _STARTUP.clear()
    _STARTUP[site] = ((_PTHS.get(site, (None,))[0], tuple(_stamp(os.path.join(site, n)) for n in names),
                       tuple(_stamp(f) for f in folders)), folders, found)
    return found


_STARTUP: dict[str, tuple[object, list[str], list[str]]] = {}
_IMPORTED = re.compile(r"(?:\bimport\s+|__import__\(\s*['\"]|,\s*)([A-Za-z_][\w.]*)")


def _pth_names(site: str) -> tuple[str, ...]:
    """The ``.pth`` files of ``site``, listed once per change of the folder."""
    stamp = _stamp(site)
    if stamp is None:
        return ()
    known = _PTHS.get(site)
    if known is None or known[0] != stamp:
        try:
            names = tuple(sorted(n for n in os.listdir(site) if n.endswith(".pth"))[:_MAX_PTH])
        except OSError:
            names = ()
        if len(_PTHS) > 256:
            _PTHS.clear()
        known = _PTHS[site] = (stamp, names)
    return known[1]


def _site_roots(site: str) -> list[str]:
    roots: list[str] = []
    for name in _pth_names(site):
        lines, _why = parsed_file(os.path.join(site, name), lines_of)
        for line in lines or ():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith(("import ", "import\t")):  # Python runs the line: a finder's install()
                for finder in _FINDER.findall(line):
                    roots += _finder_roots(os.path.join(site, finder + ".py"))
            else:
                roots.append(os.path.normpath(os.path.join(site, line)))
    return [r for r in dict.fromkeys(roots) if not r.endswith(_INSTALLED) and _INSTALLED[0] + os.sep not in r
            and _INSTALLED[1] + os.sep not in r and os.path.isdir(r)]


def _finder_roots(path: str) -> list[str]:
    """The folders holding the packages (and modules) a setuptools editable finder maps."""
    mapping, _why = parsed_file(path, _mapping_of)
    roots = []
    for name, target in (mapping or {}).items():
        if isinstance(name, str) and isinstance(target, str) and os.path.isabs(target):
            roots.append(os.path.dirname(os.path.normpath(target)))  # pkg → /x/src/pkg: /x/src
    return roots


def _mapping_of(data: bytes) -> dict[object, object]:
    found = _MAPPING.search(data.decode("utf-8", "replace"))
    if found is None:
        return {}
    try:
        value = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("its MAPPING is not a literal") from None
    return value if isinstance(value, dict) else {}


__all__ = ["editable_roots", "script_folders"]
