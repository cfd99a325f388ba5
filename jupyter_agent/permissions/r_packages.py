"""What ``R CMD INSTALL|build|check PKG`` runs of an R package: its ``configure`` and ``cleanup``
shell scripts, and its R code.

Installing a source package runs ``PKG/configure`` with ``sh`` (unless ``--no-configure``) and, with
``--clean`` (or ``--preclean``), ``PKG/cleanup``; ``R CMD build`` runs ``cleanup``; ``R CMD check``
installs the package first.  Those are shell scripts: ``bash.py`` reads their commands as it reads
any script the line runs (``configure`` saying ``rm -rf x`` is denied under ``Bash(rm:*)``).  The
package's R code runs too (installing sources ``R/*.R`` to lazy-load them; ``check`` runs
``tests/``): its strings are read as a Python script's are (``package_builds``, from
``r_packages_built``): ``system("rm -rf x")`` asks.  A package given as a tarball is not read (its
files are not here): code only known at run time.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_analysis import CommandInfo
from .bash_words import Word
from .script_files import NotKnown, Script, per_form, scripts_of_forms

R_PROGRAMS = frozenset({"R"})
_COMMANDS = frozenset({"INSTALL", "build", "check"})


def r_package_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The ``configure``/``cleanup`` scripts ``R CMD INSTALL|build|check`` runs (any form)."""
    return scripts_of_forms(info, cwds, memo, R_PROGRAMS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    texts = [w.literal for w in form[1:]]
    command, packages, options = _command_line(texts)
    if command is None:
        return []
    if cwd_unknown and any(not os.path.isabs(p) for p in packages):
        raise NotKnown("the package is found from a folder only known at run time")
    found: list[Script] = []
    for package in packages:
        folder = os.path.realpath(os.path.join(cwd, os.path.expanduser(package)))
        if not os.path.isdir(folder):
            if package.endswith((".tar.gz", ".tgz", ".zip")) and os.path.isfile(folder):
                found.append(Script(f"the R package {package}", None, "a package tarball is not read here"))
            continue
        scripts = []
        if command in ("INSTALL", "check") and "--no-configure" not in options:
            scripts.append("configure")
        if command == "build" or "--clean" in options or "--preclean" in options:
            scripts.append("cleanup")
        for name in scripts:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                found.append(Script(f"{package}/{name}", path, cwd=folder))
    return found


_READ = per_form("the R package's scripts", _of_form)


def _command_line(texts: Sequence[str | None]) -> tuple[str | None, list[str], set[str]]:
    """(``INSTALL``/``build``/``check`` or None, the packages, the options) of ``R``'s words."""
    if len(texts) < 2 or texts[0] != "CMD" or texts[1] not in _COMMANDS:
        return None, [], set()
    if any(t is None for t in texts[2:]):
        raise NotKnown("a word of the command is only known at run time")
    words = [t for t in texts[2:] if t is not None]
    options = {w.partition("=")[0] for w in words if w.startswith("-")}
    packages = [w for i, w in enumerate(words) if not w.startswith("-") and (i == 0 or words[i - 1] != "-l")]
    return texts[1], packages, options  # (-l LIB: the library installed into, not a package)


def r_packages_built(args: Sequence[str | None], cwd: str) -> list[tuple[str, str]]:
    """(``INSTALL``/``build``/``check``, the package's folder) for each package ``R CMD …`` is given
    (none when a word is only known at run time: the scripts' reading asks then)."""
    try:
        command, packages, _options = _command_line(args)
    except NotKnown:
        return []
    return [(command, os.path.realpath(os.path.join(cwd, os.path.expanduser(p)))) for p in packages] if command else []


__all__ = ["R_PROGRAMS", "r_package_scripts", "r_packages_built"]
