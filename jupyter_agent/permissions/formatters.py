"""Formatters and fixers rewrite the files below the folders they are given: ``black .``,
``ruff format``, ``ruff check --fix .``, ``isort .``, ``prettier --write .``, ``eslint --fix .``,
``autopep8 -ir .``, ``gofmt -w .``, ``terraform fmt``, ``cargo fmt``, and ``pre-commit run``,
whose hooks fix the repository's files.  A rule allowing the tool
(``Bash(black:*)``) allows formatting, not rewriting what an ``Edit`` deny rule closes: each
operand is a folder written below (``bash_arguments.program_write_check`` asks when a deny rule
may match there).  Protected folders inside it are left to the tools, which skip ``.git`` and
change only layout.  A check or diff run (``black --check``, ``ruff format --diff``) writes
nothing; where the tool formats the current folder by default, ``.`` stands for it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .bash_readonly import operand_words
from .bash_words import Word, make_word
from .paths import nearest_holding


@dataclass(frozen=True)
class _Formatter:
    sub: tuple[str, ...] = ()  # the subcommand words that format (`ruff format`)
    writes: frozenset[str] = frozenset()  # options one of which makes it write (empty: it always does)
    dry: frozenset[str] = frozenset()  # options that keep it from writing
    values: frozenset[str] = frozenset()  # options that take the next word
    default: tuple[str, ...] = ()  # what it formats when given nothing


def _f(sub: str = "", writes: str = "", dry: str = "", values: str = "", default: str = "") -> _Formatter:
    return _Formatter(tuple(sub.split()), frozenset(writes.split()), frozenset(dry.split()),
                      frozenset(values.split()), tuple(default.split()))


_RUFF_VALUES = ("--config --target-version --line-length --select --ignore --extend-select --exclude "
                "--extend-exclude --per-file-ignores --output-format -o --output-file --cache-dir "
                "--stdin-filename --fixable --unfixable --range --extension")
FORMATTERS: dict[str, list[_Formatter]] = {
    "black": [_f(dry="--check --diff -c --code --version -h --help",
                 values="-l --line-length -t --target-version --include --exclude --extend-exclude "
                        "--force-exclude --stdin-filename --config -W --workers --required-version "
                        "--python-cell-magics --enable-unstable-feature")],
    "ruff": [_f("format", dry="--check --diff", values=_RUFF_VALUES, default="."),
             _f("check", writes="--fix --unsafe-fixes", dry="--diff --no-fix", values=_RUFF_VALUES, default=".")],
    "isort": [_f(dry="--check-only -c --check --diff --show-files --show-config -h --help --version",
                 values="--settings-path --sp --settings-file --settings -l --line-length --profile -p "
                        "--project --skip -s --skip-glob --sg --filter-files --src --virtual-env")],
    "prettier": [_f(writes="--write -w", values="--config --ignore-path --plugin --parser --stdin-filepath")],
    "autopep8": [_f(writes="-i --in-place", values="--global-config --select --ignore --max-line-length "
                                                  "-j --jobs --exclude")],
    "autoflake": [_f(writes="-i --in-place", values="--imports --exclude --config")],
    "yapf": [_f(writes="-i --in-place", values="--style -e --exclude -p")],
    "docformatter": [_f(writes="-i --in-place", values="--config --exclude")],
    "eslint": [_f(writes="--fix --fix-type", values="-c --config --ext --ignore-path --ignore-pattern "
                                                    "--rulesdir --plugin --rule -f --format -o --output-file",
                  default=".")],
    "gofmt": [_f(writes="-w")], "goimports": [_f(writes="-w")], "shfmt": [_f(writes="-w --write")],
    "clang-format": [_f(writes="-i", values="--style --assume-filename")],
    "mdformat": [_f(dry="--check", values="--wrap --end-of-line")],
    "terraform": [_f("fmt", dry="-check", default=".")],
    "cargo": [_f("fmt", dry="--check", default=".")],
    "sqlfluff": [_f("fix", values="--dialect --templater --rules --exclude-rules --config")],
    "pre-commit": [],  # its hooks fix files anywhere in the repository: _pre_commit
}


def formatted_folders(words: Sequence[Word], cwd: str | None = None) -> list[tuple[Word, bool]] | None:
    """``(operand, True)`` for what ``words`` (program first) reformats below; None when the
    program is no formatter run to write.  ``cwd``: where it runs (pre-commit works on the
    repository it is in)."""
    program = words[0].literal if words else None
    args = list(words[1:])
    if program == "pre-commit":
        return _pre_commit(args, cwd)
    for spec in FORMATTERS.get(program or "", ()):
        texts = [w.literal for w in args]
        plain = [t for t in texts if t is not None and t[:1] != "-"]
        if tuple(plain[:len(spec.sub)]) != spec.sub:
            continue
        options = {t.partition("=")[0] for t in texts if t is not None and t[:1] == "-"}
        letters = {f"-{c}" for t in options if t[1:2] != "-" for c in t[1:]}  # autopep8 -ir: -i and -r
        # a word known only at run time may be the option that makes it write
        may_write = not spec.writes or bool(spec.writes & (options | letters)) or None in texts
        if not may_write or (spec.dry & options and None not in texts):
            return None
        operands = operand_words(args, spec.values)[len(spec.sub):]
        if not operands:
            operands = [make_word(d) for d in spec.default]
        return [(w, True) for w in operands if w.literal != "-"]
    return None


_PRE_COMMIT_RUNS = frozenset({"run", "try-repo", "hook-impl"})  # hook-impl: what git's hook runs
_PRE_COMMIT_VALUES = frozenset({"--hook-stage", "--from-ref", "--to-ref", "-s", "-o", "--source", "--origin",
                                "-c", "--config", "--color", "--ref", "--rev"})


def _pre_commit(args: list[Word], cwd: str | None) -> list[tuple[Word, bool]] | None:
    """``pre-commit [run] [HOOK] [--all-files | --files F…]``: its hooks (black, ruff --fix,
    end-of-file-fixer …) rewrite the files given, else staged or all files of the repository (the
    nearest folder upwards with ``.git``).  Other subcommands write nothing here (``install``
    is in ``implicit_writes``)."""
    texts = [w.literal for w in args]
    plain = operand_words(args, _PRE_COMMIT_VALUES)
    if plain and plain[0].literal not in _PRE_COMMIT_RUNS and None not in texts:
        return None
    if any(t in ("-h", "--help", "--version", "-V") for t in texts):
        return None
    files: list[Word] = []
    if "--files" in texts:  # --files F… up to the next option
        for word in args[texts.index("--files") + 1:]:
            if word.literal is not None and word.literal[:1] == "-":
                break
            files.append(word)
    if files and None not in texts:
        return [(w, True) for w in files]
    here = os.path.abspath(cwd or ".")
    return [(make_word(nearest_holding(here, (".git",)) or here), True)]


__all__ = ["FORMATTERS", "formatted_folders"]
