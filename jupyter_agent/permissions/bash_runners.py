"""Programs that run a program their arguments name: ``uv run pytest``, ``npx jest``,
``docker exec app rm x``, ``python -m pip uninstall x``.

An allow rule for the runner (``Bash(uv run:*)``) allows what it runs, as the user wrote it.
Deny and ask rules must still see the program inside, or ``uv run rm -rf x`` walks past
``Bash(rm:*)`` in deny.  ``runner_forms`` gives what a runner may run as extra forms, which
deny and ask rules match like ``find -exec``'s commands (allow rules never look at them).

Options are read without knowing every runner's full option list: an option this table does
not name is read both ways (a flag, or an option with a separate value), so every word where
the command may start begins a form.  A deny rule that matches any of them denies; reading an
option's value as a program name can deny too much, never too little.  Past ``_MAX_STARTS``
places, or where a word is only known at run time, the form starts with an unknown word, which
a deny or ask rule may match (``_rule_checks`` then asks).

What a runner runs is unwrapped like any command: ``uv run sudo x``, ``uv run bash -c '…'`` and
``uv run $TOOL`` ask whatever the runner's allow rule says, as they would on their own.  Shell
code a runner takes as an option (``git rebase -x '…'``) is analyzed as commands, each needing
its own rule; only code known at run time asks for itself.
"""

from __future__ import annotations

from .bash_awk import AWKS, awk_program
from .bash_runner_table import GIT_RUNNERS, PYTHONS, RUNNERS, SEDS, Runner
from .bash_sed import sed_commands
from .bash_words import Word
from .git_words import git_global_options

_MAX_STARTS = 8
UNKNOWN_PROGRAM = Word("<a program chosen at run time>", static=False)
SHELL_CODE = Word("sh")  # the program of a form made for shell code a runner takes (`sh -c CODE`)
_GIT_FIRST_WORDS = frozenset(path[0] for path, _r in GIT_RUNNERS)
# subcommands that run something only through an option (git push --receive-pack=…): its names
_GIT_BY_OPTION = {path[0]: r.shell for path, r in GIT_RUNNERS if r.rest == "none"}
RUNNER_PROGRAMS = frozenset(RUNNERS) | PYTHONS | SEDS | AWKS  # awk: system(), print | "cmd"
_FIRST_WORDS = {program: frozenset(path[0] for path, _r in entries if path) if all(p for p, _r in entries) else None
                for program, entries in RUNNERS.items()}  # None: runs something with no word first


def may_name(word: Word, options: frozenset[str]) -> bool:
    """May ``word`` be one of ``options`` (``--exec=…``, or ``-x`` among short flags: ``-ix``)?"""
    text = word.literal
    if text is None:
        return True
    if text.startswith("--"):
        return text.partition("=")[0] in options
    return text[:1] == "-" and any("-" + letter in options for letter in text[1:])


_OPTION_RUNNERS = frozenset(p for p, entries in RUNNERS.items() if all(not path and r.rest == "none"
                                                                       for path, r in entries))


def may_run_something(words: tuple[Word, ...]) -> bool:
    """False when ``runner_forms(words)`` is surely empty: ``npm install``, ``python app.py``."""
    program = words[0].text
    if program == "git":  # git rebase -x 'code': the subcommand after git's options
        _options, i = git_global_options(words)
        if i >= len(words) or (words[i].literal is not None and words[i].text not in _GIT_FIRST_WORDS):
            return False
        shell = _GIT_BY_OPTION.get(words[i].text)
        return shell is None or any(may_name(w, shell) for w in words[i + 1:])
    if program in SEDS:  # a script with an e, -f FILE, or a word only known at run time
        return any(w.literal is None or "e" in w.text or (w.text[:1] == "-" and "f" in w.text) for w in words[1:])
    if program in PYTHONS:
        return any(w.literal is None or (w.text[:1] == "-" and "m" in w.text) for w in words[1:])
    if program in AWKS:  # system(…), a pipe, or a program not read here
        return any(w.literal is None or "system" in w.text or "|" in w.text or w.text[:1] in "-@" for w in words[1:])
    if program in _OPTION_RUNNERS:  # tar, ssh: only an option runs something
        return any(w.literal is None or w.text[:1] == "-" for w in words[1:])
    firsts = _FIRST_WORDS.get(program)
    return firsts is None or any(w.literal is None or w.text in firsts for w in words[1:])


def runner_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """The commands ``form`` (a runner, by its program name) may run; shell code as ``sh -c``."""
    program = form[0].literal
    if program in PYTHONS:
        module = _python_module(form)
        return [module] if module else []
    if program in SEDS:
        return _sed_forms(form)
    if program in AWKS:
        return _awk_forms(form)
    out: list[tuple[Word, ...]] = []
    for path, runner in GIT_RUNNERS if program == "git" else RUNNERS.get(program or "", ()):
        for after in after_path(form, path):
            out.extend(_commands(form, after, runner))
    return _distinct(out)


def after_path(form: tuple[Word, ...], path: tuple[str, ...]) -> list[int]:
    """Where the words after ``path`` begin, with options (of unknown width) before each word."""
    places = [1]
    for word in path:
        found = []
        for start in places:
            for j in _option_skips(form, start):
                if form[j].literal in (word, None):  # `npm e[x]ec` may be exec
                    found.append(j + 1)
        places = sorted(set(found))
    return places


def _option_skips(form: tuple[Word, ...], start: int) -> list[int]:
    """Each place reachable from ``start`` by skipping options, each a flag or with one value."""
    seen, todo, out = set(), [start], []
    while todo:
        j = todo.pop()
        if j in seen or j >= len(form):
            continue
        seen.add(j)
        out.append(j)
        text = form[j].literal
        if text is None or (text.startswith("-") and text not in ("-", "--")):
            todo.extend((j + 1, j + 2) if text is None or "=" not in text else (j + 1,))
    return out


def _commands(form: tuple[Word, ...], start: int, runner: Runner) -> list[tuple[Word, ...]]:
    starts: set[int] = set()
    scripts: list[tuple[Word, ...]] = []
    seen: set[tuple[int, int]] = set()
    todo = [(start, runner.positionals)]
    scan = runner.rest == "none"  # positionals are no command: read every option of the line
    while todo and len(starts) <= _MAX_STARTS:
        j, left = todo.pop()
        if (j, left) in seen or j >= len(form):
            continue
        seen.add((j, left))
        text = form[j].literal
        if text is None:  # only known at run time: an option, a value, a positional or the program
            todo.extend(((j + 1, left), (j + 2, left)) + (((j + 1, left - 1),) if left else ()))
            if not left and not scan:
                starts.add(j)
        elif text == "--":
            if left:
                todo.append((j + 1, left))
            elif not scan:
                starts.add(j + 1)
        elif text.startswith("-") and text != "-":
            _option(form, j, left, text, runner, todo, starts, scripts)
        elif left or scan:
            todo.append((j + 1, max(left - 1, 0)))
        else:
            starts.add(j)
    if len(starts) > _MAX_STARTS:
        return [(UNKNOWN_PROGRAM,)]
    places = [j for j in sorted(starts) if j < len(form)]
    if runner.rest == "shell":  # git submodule foreach rm x: the words joined are shell code
        for j in places:
            rest = form[j:]
            if len(rest) == 1:
                _script(rest[0], scripts)
            elif all(w.literal is not None for w in rest):
                _script(" ".join(w.text for w in rest), scripts)
            else:
                scripts.append((UNKNOWN_PROGRAM,))
        return scripts
    return [form[j:] for j in places] + scripts


def _option(
    form: tuple[Word, ...], j: int, left: int, text: str, runner: Runner,
    todo: list[tuple[int, int]], starts: set[int], scripts: list[tuple[Word, ...]],
) -> None:
    key, eq, value = text.partition("=")
    if not text.startswith("--") and len(text) > 2:  # -qc 'code': a short option among flags
        for k, letter in enumerate(text[1:], start=2):
            if "-" + letter in runner.shell:
                _script(text[k:] or _word(form, j + 1), scripts)
            elif "-" + letter in runner.argv:
                _argv(text[k:] or _word(form, j + 1), scripts)
            elif "-" + letter in runner.command:
                starts.add(j + 1)  # nix develop -ic rm x: the command is the words after it
            elif "-" + letter in runner.config:
                _config(text[k:] or _word(form, j + 1), scripts)
    if key in runner.command and not eq:
        starts.add(j + 1)
        return
    if key in runner.shell:  # the value is shell code
        _script(value if eq else _word(form, j + 1), scripts)
    elif key in runner.argv:  # the value is a command line: rsync -e 'ssh -p 22'
        _argv(value if eq else _word(form, j + 1), scripts)
    elif key in runner.config:  # ssh -o ProxyCommand=…
        _config(value if eq else _word(form, j + 1), scripts)
    if eq or key in runner.flags:
        todo.append((j + 1, left))
    elif key in runner.values or key in runner.shell or key in runner.argv or key in runner.config:
        todo.append((j + 2, left))
    else:
        todo.extend(((j + 1, left), (j + 2, left)))


def _text(value: str | Word | None, scripts: list[tuple[Word, ...]]) -> str | None:
    """An option's value as text; one known only at run time adds an unknown program (None)."""
    if isinstance(value, Word):
        if value.literal is None:
            scripts.append((UNKNOWN_PROGRAM,))
            return None
        return value.text
    return value or ""


def _argv(line: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    """A command line given as one value, which the program splits into words and runs."""
    words = tuple(Word(w) for w in (_text(line, scripts) or "").split())
    if words:
        scripts.append(words)


_CODE_SETTINGS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})


def _config(setting: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    """``-o Key=Value`` (or ``Key Value``): the value of a key that names a command is shell code."""
    text = (_text(setting, scripts) or "").strip()
    cut = min((i for i in (text.find("="), text.find(" "), text.find("\t")) if i >= 0), default=len(text))
    if text[:cut].lower() in _CODE_SETTINGS:
        _script(text[cut + 1:].lstrip("= \t"), scripts)


def _word(form: tuple[Word, ...], j: int) -> Word | None:
    return form[j] if j < len(form) else None


def _script(code: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    """Shell code a runner runs, as the ``sh -c`` form whose script is analyzed."""
    if isinstance(code, str):
        code = Word(code)
    if code is not None:
        scripts.append((SHELL_CODE, Word("-c"), code) if code.literal is not None else (UNKNOWN_PROGRAM,))


def _sed_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``sed '1e rm x'`` runs ``rm x``; ``s/a/b/e`` or a script not read runs what is known later."""
    commands = sed_commands(form[1:])
    if commands is None:
        return [(UNKNOWN_PROGRAM,)]
    scripts: list[tuple[Word, ...]] = []
    for command in commands:
        if command is None:
            scripts.append((UNKNOWN_PROGRAM,))
        else:
            _script(command, scripts)
    return _distinct(scripts)


def _awk_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``awk 'BEGIN { system("rm x") }'`` runs ``rm x``; a command built at run time, a coprocess
    or a program not read here (``-f prog.awk``) runs what is known later."""
    program = awk_program(form[1:])
    if program is None:
        return [(UNKNOWN_PROGRAM,)]
    scripts: list[tuple[Word, ...]] = []
    for command in program.runs:
        if command is None:
            scripts.append((UNKNOWN_PROGRAM,))
        else:
            _script(command, scripts)
    return _distinct(scripts)


def _python_module(form: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``python -I -m pip install x`` runs ``pip install x``; ``-c`` code or a script: None."""
    i = 1
    while i < len(form):
        text = form[i].literal
        if text is None:  # may be -m: then the next word is the module
            return form[i + 1:] or None
        if not text.startswith("-") or text in ("-", "--"):
            return None  # a script (or code on stdin): no program named by a module
        if text.startswith("--"):
            i += 2 if text == "--check-hash-based-pycs" else 1
            continue
        for k, letter in enumerate(text[1:], start=2):
            if letter == "c":
                return None
            if letter == "m":
                name = text[k:]
                if name:
                    return (Word(name), *form[i + 1:])
                return form[i + 1:] or None
            if letter in "WX":
                i += 0 if text[k:] else 1  # -Wignore or -W ignore
                break
        i += 1
    return None


def _distinct(forms: list[tuple[Word, ...]]) -> list[tuple[Word, ...]]:
    out: list[tuple[Word, ...]] = []
    for form in forms:
        if form and all(form != other for other in out):
            out.append(form)
    return out
