"""Python calls that read or remove every file below a folder no string names as a file.

``shutil.make_archive('/tmp/a', 'zip', '.')`` (and with no folder at all: the current one) put
``.env`` in the archive, ``shutil.copytree('.', '/tmp/x')`` copied it, and ``shutil.rmtree('.')``
removed it and ``.git`` — in a NotebookExecute cell or ``python -c`` under bypassPermissions,
since the strings checks look for files, not for what lies below a folder.  These calls are read
with ``ast`` (an IPython cell's magics and shell lines left out): the folder they walk is
checked as ``tar cf - DIR`` and ``rm -rf DIR`` are (``filesystem.read_deny_in``, following links
as ``copytree`` and ``make_archive`` do; protected folders inside for ``rmtree``).  A folder only
known at run time counts as unknown; code that does not parse but names one of these calls too.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from functools import lru_cache

from .compiled import PathScope
from .filesystem import read_deny_in
from .paths import protected_inside

# name → (the positional index and keyword of the folder, the default folder, whether it removes)
_CALLS: dict[str, tuple[int, str, str | None, bool]] = {
    "make_archive": (2, "root_dir", ".", False),  # make_archive(base, fmt, root_dir=cwd, base_dir=…)
    "copytree": (0, "src", None, False),
    "copy_tree": (0, "src", None, False),  # distutils / setuptools' dir_util
    "rmtree": (0, "path", None, True),
}
_NAMED = re.compile(r"\b(?:make_archive|copytree|copy_tree|rmtree)\b")
_SHELL_LINE = re.compile(r"^(\s*)[%!]", re.MULTILINE)
_CHDIR = re.compile(r"%cd\b|%pushd\b|\bchdir\b|^\s*cd\s", re.MULTILINE)


@lru_cache(maxsize=256)
def walked_folders(code: str) -> tuple[tuple[str | None, bool], ...]:
    """``(folder, removes)`` for each such call of ``code`` (the folder as written, None when
    only known at run time); ``()`` when there is none."""
    if _NAMED.search(code) is None:
        return ()
    if code.lstrip().startswith("%%"):  # a cell magic: not Python (%%bash …: read as shell code)
        return ()
    source = _SHELL_LINE.sub(lambda m: m.group(1) + "pass  #", code)  # %magic, !cmd: not Python
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return tuple((None, name == "rmtree") for name in set(_NAMED.findall(code)))
    found: list[tuple[str | None, bool]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        spec = _CALLS.get(name or "")
        if spec is None:
            continue
        index, keyword, default, removes = spec
        value: ast.expr | None = next((k.value for k in node.keywords if k.arg == keyword), None)
        if value is None and len(node.args) > index:
            value = node.args[index]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            found.append((None, removes))  # *args, **kwargs: any folder
        elif value is None:
            found.append((default, removes))
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.append((value.value, removes))
        elif isinstance(value, ast.Constant) and value.value is None and default is not None:
            found.append((default, removes))
        else:
            found.append((None, removes))
    return tuple(found)


def folder_calls_reason(codes: Sequence[str], cwd: str, scope: PathScope) -> str | None:
    """Why code in ``codes`` run from the real folder ``cwd`` must ask: a call that copies,
    archives or removes a folder holding a file a Read deny rule denies (or, removing, a
    protected path), or such a call on a folder only known at run time when that could matter;
    None when none does."""
    for code in codes:
        moves = _CHDIR.search(code) is not None  # %cd x, os.chdir(x): a relative folder is read from elsewhere
        for folder, removes in walked_folders(code):
            if folder is not None and moves and not os.path.isabs(os.path.expanduser(folder)):
                folder = None
            if folder is None:
                if scope.read_deny or removes:
                    return ("copies, archives or removes a folder only known at run time "
                            f"({'shutil.rmtree' if removes else 'shutil.copytree/make_archive'}), which may hold a "
                            "protected or Read-denied file")
                continue
            real = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
            rule = read_deny_in(real, scope, links=not removes) if scope.read_deny else None
            if rule is not None:
                verb = "removes" if removes else "copies or archives"
                return f"{verb} every file below {folder}, where the rule {rule} denies reading"
            inside = protected_inside(real, scope.roots) if removes else None
            if inside is not None:
                return f"removes every file below {folder}, which holds {inside}"
    return None


__all__ = ["folder_calls_reason", "walked_folders"]
