"""The rule "Always allow" offers for a command: as wide as is useful, never wider than is safe.

``pytest -q tests`` → ``pytest``; ``git push origin`` → ``git push``; ``npm run test`` →
``npm run test`` (a runner's script, not every script); ``python x.py`` → ``python x.py``
(an interpreter's script, never ``python``, which would allow ``python -c`` anything);
``python -m pytest`` → ``python -m pytest``.  No prefix is offered when the words that would make
it narrow are unknown: inline code (``python -c``, ``node -e``), options before a subcommand
(``git -C x push``), a program named by its path; then the exact command is (``Bash(python
--version)``), as long as no word needs quoting.
"""

from __future__ import annotations

import re

from .bash_words import Word

_TWO_WORD_PROGRAMS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "go", "pip", "pip3", "uv", "poetry", "docker",
     "kubectl", "make", "conda", "mamba", "bun", "deno", "npx", "gh", "jupyter", "dotnet",
     "pipx", "hatch", "pdm", "bunx", "pnpx"}
)
# subcommands that run whatever their next word names
_RUNNERS = frozenset(
    {("uv", "run"), ("uv", "tool"), ("poetry", "run"), ("pipx", "run"), ("npm", "run"), ("npm", "exec"),
     ("npm", "run-script"), ("pnpm", "run"), ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "run"),
     ("yarn", "exec"), ("yarn", "dlx"), ("bun", "run"), ("bun", "x"), ("deno", "run"), ("conda", "run"),
     ("mamba", "run"), ("hatch", "run"), ("pdm", "run"), ("cargo", "run"), ("go", "run"), ("docker", "exec"),
     ("docker", "run")}
)
_INTERPRETERS = frozenset(
    {"python", "python2", "python3", "pypy", "pypy3", "ipython", "node", "nodejs", "perl", "ruby",
     "php", "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "Rscript", "R", "julia", "lua",
     "luajit", "tclsh", "wish", "osascript", "pwsh", "powershell", "java", "groovy", "scala",
     "elixir", "erl", "racket", "guile", "awk", "gawk", "mawk", "busybox", "source"}
)
_VERSIONED = re.compile(r"(?:python|pypy|ruby|perl|php|lua)\d+(?:\.\d+)*")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+@=,:-]*")  # no quoting or glob (test:unit is fine)
_PATH_WORD = re.compile(r"[A-Za-z0-9_./-][A-Za-z0-9_.+@=,:/-]*")
_EXACT_WORDS = 8  # a longer exact rule is rarely reused


def suggested_rule(words: tuple[Word, ...]) -> str | None:
    """What to put in the ``Bash(…)`` rule offered for ``words``: ``prefix:*``, else the exact
    command when every word is plain (``python --version``), else None."""
    prefix = suggested_prefix(words)
    if prefix is not None:
        return prefix + ":*"
    texts = [w.literal for w in words]
    if 0 < len(texts) <= _EXACT_WORDS and all(t is not None and _PATH_WORD.fullmatch(t) for t in texts):
        return " ".join(texts)  # type: ignore[arg-type]
    return None


def suggested_prefix(words: tuple[Word, ...]) -> str | None:
    """The prefix of a ``Bash(prefix:*)`` rule to offer for ``words``, or None (module docstring)."""
    texts = [w.literal for w in words[:6]]
    program = texts[0] if texts else None
    if program is None or not _PLAIN_WORD.fullmatch(program):
        return None
    if _is_interpreter(program):
        return _interpreter(texts)
    if program not in _TWO_WORD_PROGRAMS:
        return program
    second = _word(texts, 1)
    if second is None:
        return None  # `git -C x push`, a bare `git`: the subcommand is unknown
    if (program, second) not in _RUNNERS:
        return f"{program} {second}"
    third = _word(texts, 2)
    if third is None:
        return None
    if _is_interpreter(third):  # `uv run python x.py`
        rest = _interpreter(texts[2:])
        return f"{program} {second} {rest}" if rest is not None else None
    return f"{program} {second} {third}"


def _is_interpreter(program: str) -> bool:
    return program in _INTERPRETERS or _VERSIONED.fullmatch(program) is not None


def _interpreter(texts: list[str | None]) -> str | None:
    """``python x.py`` → the script; ``python -m pytest`` → the module; inline code → None."""
    program = texts[0]
    second = _word(texts, 1, path=True)
    if second is not None:
        return f"{program} {second}"
    if len(texts) > 2 and texts[1] == "-m" and (module := _word(texts, 2)) is not None:
        return f"{program} -m {module}"
    return None


def _word(texts: list[str | None], i: int, path: bool = False) -> str | None:
    """``texts[i]`` when it is a plain word (not an option; a path only when ``path``)."""
    if i >= len(texts):
        return None
    text = texts[i]
    if text is None or text[:1] == "-":
        return None
    return text if (_PATH_WORD if path else _PLAIN_WORD).fullmatch(text) else None


__all__ = ["suggested_prefix", "suggested_rule"]
