"""Extra forms of a command, which deny and ask rules match besides the command itself.

``/bin/rm x`` is also ``rm x`` (and zsh's ``=rm x``); ``find . -exec rm {} ;`` runs ``rm {}``;
``git -C x push`` is ``git push``; a runner's command (``uv run rm x`` → ``rm x``, ``bash_runners.py``) and a
subcommand's canonical spelling (``npm pub`` → ``npm publish``, ``bash_synonyms.py``).  Allow
rules never match an extra form.
"""

from __future__ import annotations

from .bash_runners import REMOTE_SHELL, RUNNER_PROGRAMS, SHELL_CODE, may_run_something, runner_forms
from .bash_synonyms import SYNONYM_PROGRAMS, canonical_forms, git_push_forms
from .bash_words import Word
from .git_words import git_global_options

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
FOUND_PATHS = frozenset({"{}", "{/}", "{//}", "{.}", "{/.}"})  # the path find / fd found, as a whole word
FORM_PROGRAMS = RUNNER_PROGRAMS | SYNONYM_PROGRAMS  # uv run rm x → rm x; npm pub → npm publish
EXTRA_FORM_PROGRAMS = frozenset({"find", "fd", "git"}) | FORM_PROGRAMS  # and names with a slash


def spelled_otherwise(name: str) -> bool:
    """A program named by its path (``/bin/rm``) or by zsh's ``=rm``: its extra form is ``rm``."""
    return "/" in name or name[:1] == "="


def may_have_extra_forms(form: tuple[Word, ...]) -> bool:
    """False when ``extra_forms(form)`` is surely empty (a quick test on the program name)."""
    if not form:
        return False
    program = form[0]
    name = program.text
    return program.static and not program.glob and (name in EXTRA_FORM_PROGRAMS or spelled_otherwise(name))


def extra_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``/bin/rm x`` is also checked as ``rm x``; ``find -exec rm {} ;`` yields ``rm {}``."""
    extra: list[tuple[Word, ...]] = []
    program = form[0].literal if form else None
    if program and "/" in program:
        extra.append((Word(program.rsplit("/", 1)[1]), *form[1:]))
    elif program and program[:1] == "=" and len(program) > 1:  # zsh: =rm is the path of rm (bash: not found)
        extra.append((Word(program[1:]), *form[1:]))
    if program in ("find", "fd"):
        extra.extend(exec_commands(form))
    if program == "git":
        extra.extend(git_forms(form))
        if may_run_something(form):  # git rebase -x 'code', git bisect run cmd
            extra.extend(runner_forms(form))
    else:
        if program in RUNNER_PROGRAMS and may_run_something(form):  # uv run rm x → rm x
            extra.extend(runner_forms(form))
        if program in SYNONYM_PROGRAMS:  # npm pub → npm publish
            extra.extend(canonical_forms(form))
    return extra


def git_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``git -C x push`` as ``git push``; ``git subtree push`` as ``git push`` (``bash_synonyms``)."""
    bare = git_without_global_options(form)
    return ([bare] if bare is not None else []) + git_push_forms(bare or form)


def git_without_global_options(form: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``git -C x --no-pager push`` is also checked as ``git push`` (deny and ask rules)."""
    if len(form) < 2 or (form[1].literal or "")[:1] != "-":
        return None  # the common case: no global option
    _options, i = git_global_options(form)
    if i == 1:
        return None
    if i > len(form):
        return None
    return (form[0], *form[i:])


def _starts_exec(value: str | None) -> bool:
    return value in _FIND_EXEC or value in ("-x", "--exec", "-X", "--exec-batch")


_FIND_WRITES = {"-delete": 0, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}  # words after it


def search_part(form: tuple[Word, ...]) -> tuple[Word, ...]:
    """``find`` / ``fd`` without the commands it runs and what it writes:
    ``find /etc -name x -exec cat {} + -delete`` → ``find /etc -name x`` (what it searches, read
    as on its own; the writes are checked as writes, the commands as commands)."""
    kept: list[Word] = []
    running, skip = False, 0
    for word in form:
        value = word.literal
        if skip:
            skip -= 1
        elif running:
            running = value not in (";", "+", "\\;")
        elif _starts_exec(value):
            running = True
        elif value in _FIND_WRITES and form[0].literal == "find":
            skip = _FIND_WRITES[value]
        else:
            kept.append(word)
    return tuple(kept)


def commands_it_runs(words: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """The commands ``words`` runs as programs of their own: ``find -exec``/``fd -x``, ``git
    bisect run``, a runner's (``uv run rm x``).  Shell code they take (``git rebase -x '…'``) is
    left out: the line's analysis reads it as commands already."""
    program = words[0].literal
    if program in ("find", "fd"):
        return exec_commands(words)
    if (program == "git" or program in RUNNER_PROGRAMS) and may_run_something(words):
        return [f for f in runner_forms(words) if f and f[0] is not SHELL_CODE and f[0] is not REMOTE_SHELL]
    return []


def exec_commands(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """The commands ``find … -exec|-execdir|-ok|-okdir CMD ;`` (or ``fd -x|-X CMD``) runs."""
    fd = form[0].literal == "fd"
    out: list[tuple[Word, ...]] = []
    current: list[Word] | None = None
    for word in form[1:]:
        value = word.literal
        if current is None:
            if _starts_exec(value):
                current = []
            continue
        if value in (";", "+", "\\;"):
            if current:
                out.append(_found_paths(current, fd))
            current = None
        else:
            current.append(word)
    if current:
        out.append(_found_paths(current, fd))
    return out


def _found_paths(words: list[Word], fd: bool) -> tuple[Word, ...]:
    """``{}`` (fd: ``{/}``, ``{.}`` …) is a path found at run time (``find push -exec git {} ;``
    runs ``git push``); fd appends the path when the command has no placeholder."""
    marked = [Word(w.text, False) if "{" in w.text and "}" in w.text else w for w in words]
    if fd and all(m is w for m, w in zip(marked, words, strict=True)):
        marked.append(Word("{}", False))
    return tuple(marked)
