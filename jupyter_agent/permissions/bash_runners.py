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

import os
import re
import shlex
import socket

from .bash_awk import AWKS, awk_program
from .bash_runner_table import GIT_RUNNERS, PYTHONS, RUNNERS, SEDS, Runner
from .bash_sed import sed_commands
from .bash_words import Word, long_option_named, make_word, run_time_word
from .cloud_commands import aws_ssm_commands, az_run_commands
from .git_words import git_global_options

_MAX_STARTS = 8
# runners that start a shell when given no command (it runs what standard input holds)
_SHELL_IF_BARE = frozenset({"fakeroot", "firejail", "fakechroot", "proot", "schroot"})
_INFO = frozenset({"--help", "--version", "-h", "-v", "-V"})
UNKNOWN_PROGRAM = Word("<a program chosen at run time>", static=False)
# shell code only known at run time (a debugger's command file, TeX's \write18, sed's `e`, the lines
# parallel reads): a deny or ask rule may match it, as an unknown program, and a Read or Edit deny
# rule may apply to what it reads or writes (bash_analysis: CommandInfo.unknown_code)
UNKNOWN_CODE = Word("<shell code only known at run time>", static=False)
SHELL_CODE = Word("sh")  # the program of a form made for shell code a runner takes (`sh -c CODE`)
# the program of a form made for shell code run on another machine (`ssh host 'rm x'`):
# (REMOTE_SHELL, CODE), whose commands meet the deny and ask rules only (bash_analysis)
REMOTE_SHELL = Word("<shell code run on another machine>", static=False)
_GIT_FIRST_WORDS = frozenset(path[0] for path, _r in GIT_RUNNERS)
# subcommands that run something only through an option (git push --receive-pack=…): its names
_GIT_BY_OPTION = {path[0]: r.shell | r.argv for path, r in GIT_RUNNERS if r.rest == "none"}
SCHEDULERS = frozenset({"at", "batch"})  # the commands come later, from stdin or -f FILE
_SCHEDULER_QUERIES = frozenset({"-l", "-r", "-d", "-c", "-V"})  # list, remove, print a job: nothing runs
DEBUGGERS = frozenset({"gdb", "gdb-multiarch", "cgdb", "lldb"})
# Miller's DSL (put/filter) runs commands (system(), exec(), tee|emit|print > "|cmd") and writes
# files (tee > "f"): such an expression runs what is not read here
_MILLER = frozenset({"mlr"})
# TeX engines run the document's \write18{CMD} with shell escape on (tectonic: -Z shell-escape)
TEX_ENGINES = frozenset({"tex", "latex", "pdflatex", "xelatex", "lualatex", "pdftex", "xetex", "luatex", "etex",
                         "platex", "uplatex", "latexmk", "context", "lualatex-dev", "pdflatex-dev", "tectonic"})
_SHELL_ESCAPES = frozenset({"-shell-escape", "--shell-escape", "-enable-write18", "--enable-write18", "shell-escape"})
_MILLER_EFFECTS = re.compile(r"\b(?:system|exec)\s*\(|\b(?:tee|emit\w*|e?print\w*|e?dump)\s*(?:>|\|)")
# text processors with a shell escape: dc's `!CMD`, m4's syscmd()/esyscmd(), groff's `.sy` (with -U)
_DC = frozenset({"dc"})
_M4 = frozenset({"m4", "gm4"})
_ROFF = frozenset({"groff", "troff", "gtroff", "nroff"})
RUNNER_PROGRAMS = (frozenset(RUNNERS) | PYTHONS | SEDS | AWKS | SCHEDULERS | DEBUGGERS
                   | _MILLER | TEX_ENGINES | _DC | _M4 | _ROFF)  # awk: system(), print | "cmd"
_FIRST_WORDS = {program: frozenset(path[0] for path, _r in entries if path) if all(p for p, _r in entries) else None
                for program, entries in RUNNERS.items()}  # None: runs something with no word first


def _roff_unsafe(words: tuple[Word, ...]) -> bool:
    """``groff -U``: unsafe mode, where the document's ``.sy CMD`` runs (or a word only known at
    run time that may turn it on)."""
    return any(w.literal is None or (w.text[:1] == "-" and w.text[1:2] != "-" and "U" in w.text) for w in words)


def _tex_escapes(words: tuple[Word, ...]) -> bool:
    """Does a TeX engine (or latexmk, or pandoc handing it the option) run with shell escape on,
    or with a word only known at run time that may turn it on?"""
    for word in words[1:]:
        text = word.literal
        if text is None:
            return True
        value = text.partition("=")[2] if text.startswith("--pdf-engine-opt=") else text
        if value in _SHELL_ESCAPES or text == "-Zshell-escape":
            return True
    return False


def _miller_effects(words: tuple[Word, ...]) -> bool:
    """Does ``mlr …`` hold an expression that runs or writes (or one only known at run time)?"""
    return any(w.literal is None or _MILLER_EFFECTS.search(w.text) for w in words[1:])


def may_name(word: Word, options: frozenset[str]) -> bool:
    """May ``word`` be one of ``options`` (``--exec=…``, an abbreviation GNU-style parsers take:
    ``--exe``, or ``-x`` among short flags: ``-ix``)?"""
    text = word.literal
    if text is None:
        return True
    if text.startswith("--"):
        return long_option_named(text.partition("=")[0], options) is not None
    return text[:1] == "-" and any("-" + letter in options for letter in text[1:])


def _unabbreviated(key: str, runner: Runner) -> str:
    """``--to-comm`` is tar's ``--to-command``: getopt_long, argp and git take any unambiguous
    beginning of a long option (an ambiguous one fails, so the option that runs something is
    taken)."""
    for options in (runner.shell, runner.argv, runner.config, runner.command, runner.typed):
        named = long_option_named(key, options)
        if named is not None:
            return named
    return key


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
    if program in SCHEDULERS or program in DEBUGGERS:
        return True
    if program in TEX_ENGINES and program != "latexmk":
        return _tex_escapes(words)
    if program in _MILLER:
        return _miller_effects(words)
    if program in _DC or program in _M4:
        return True
    if program in _ROFF:
        return _roff_unsafe(words)
    if program in _OPTION_RUNNERS:  # tar, ssh: only an option runs something (or ssh HOST CMD)
        return any(w.literal is None or w.text[:1] == "-" for w in words[1:]) or (
            program in _SSH_LIKE and _ssh_host(words) is not None)
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
    if program in TEX_ENGINES and program != "latexmk":  # pdflatex -shell-escape doc.tex: \write18{…} runs
        return [(UNKNOWN_CODE,)] if _tex_escapes(form) else []
    if program in SCHEDULERS:  # at now <<< 'rm x': what runs is not on the command line
        return [] if any(w.literal in _SCHEDULER_QUERIES for w in form[1:]) else [(UNKNOWN_CODE,)]
    if program in DEBUGGERS:
        return _debugger_forms(form)
    if program in _MILLER:  # mlr -n put 'end { system("rm x") }'
        return [(UNKNOWN_CODE,)] if _miller_effects(form) else []
    if program in _DC:
        return _dc_forms(form)
    if program in _M4:  # its input (a file or standard input) may call syscmd(CMD)
        return [] if any(w.literal in _INFO for w in form[1:]) else [(UNKNOWN_CODE,)]
    if program in _ROFF:  # groff -U: the document's .sy CMD runs
        return [(UNKNOWN_CODE,)] if _roff_unsafe(form) else []
    out: list[tuple[Word, ...]] = []
    if program in ("pandoc", "latexmk") and _tex_escapes(form):  # --pdf-engine-opt=-shell-escape: \write18 runs
        out.append((UNKNOWN_CODE,))
    if program in ("aws", "az"):  # aws ssm send-command, az vm run-command: a machine's shell runs them
        lines = aws_ssm_commands(form) if program == "aws" else az_run_commands(form)
        out.extend(_remote(_code_form(line)) for line in lines)
    host = _ssh_host(form) if program in _SSH_LIKE else None
    if host is not None:  # ssh localhost 'rm x' runs rm x here, in the home folder; another host's, there
        local = _is_local(host)
        scripts = _commands(form, 1, _SSH_LIKE[program or ""]) or _remote_command(form)
        # no command: the login shell runs what it reads from standard input (a pipe, a file, a heredoc)
        for script in scripts or [(UNKNOWN_CODE,)]:
            if not local:
                out.append(_remote(script))
                continue
            if script[0] is SHELL_CODE and len(script) == 3 and script[2].literal is not None:
                code = script[2].literal
                script = (SHELL_CODE, script[1], Word(f"cd {shlex.quote(os.path.expanduser('~'))} && {code}"))
            out.append(script)
    for path, runner in GIT_RUNNERS if program == "git" else RUNNERS.get(program or "", ()):
        for after in after_path(form, path):
            found = _commands(form, after, runner)
            if not found and program == "pdsh" and not any(w.literal in ("-V", "-h", "-L", "-q") for w in form):
                found = [(UNKNOWN_PROGRAM,)]  # no command: pdsh runs the lines it reads from standard input
            elif not found and program in _SHELL_IF_BARE and not any(w.literal in _INFO for w in form):
                found = [(UNKNOWN_CODE,)]  # no command: fakeroot starts a shell that reads standard input
            out.extend([_remote(f) for f in found] if runner.remote else found)
    return _distinct(out)


def _code_form(line: str | None) -> tuple[Word, ...]:
    """Shell code as the ``sh -c`` form (None: code only known at run time)."""
    return (SHELL_CODE, Word("-c"), Word(line)) if line is not None else (UNKNOWN_CODE,)


def _remote(form: tuple[Word, ...]) -> tuple[Word, ...]:
    """A form a runner runs on another machine as ``(REMOTE_SHELL, CODE)``: its command (the words
    joined, as ssh joins them) or its shell code; one only known at run time stays unknown."""
    if form[0] is SHELL_CODE and len(form) == 3:
        return (REMOTE_SHELL, form[2])
    if form[0] is UNKNOWN_PROGRAM or any(w.literal is None for w in form):
        return (UNKNOWN_PROGRAM,)
    return (REMOTE_SHELL, Word(" ".join(w.literal or "" for w in form)))


_SSH = RUNNERS["ssh"][0][1]
_AUTOSSH = RUNNERS["autossh"][0][1]
# ssh HOST CMD: the words after the host are joined into shell code for the host's shell
_SSH_LIKE = {name: Runner(r.values, r.flags, 1, rest="shell", config=r.config)
             for name, r in (("ssh", _SSH), ("autossh", _AUTOSSH))}
_LOCAL_HOSTS = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "::1", "0.0.0.0",
                          "0", socket.gethostname().lower()})


def _ssh_host(form: tuple[Word, ...]) -> str | None:
    """The host of ``ssh … HOST [CMD]`` (``autossh`` too) when a command follows it or, with
    none, a login shell may read commands from standard input (``ssh host < deploy.sh``, ``echo
    'rm x' | ssh host``); None when nothing runs there (``ssh -N -L 8888:localhost:8888 host``,
    ``-n``, ``-O``/``-G``/``-V``/``-Q``/``-W``) or the host is only known at run time."""
    runner = _SSH_LIKE[form[0].literal or "ssh"]
    i, host_at, quiet = 1, None, False
    while i < len(form):
        text = form[i].literal
        if text is None:
            if host_at is not None:
                break  # the command, only known at run time
            return None  # (a word only known at run time among ssh's options: asks elsewhere)
        if text == "--" and host_at is None:
            i += 1
            host_at = i if i < len(form) else None
            i += 1
            break
        if text[:1] != "-":
            if host_at is not None:
                break  # the command
            host_at = i
            i += 1
            continue
        width = 2 if text in runner.values or text in runner.config else 1
        if text[1:2] != "-":  # a cluster of flags, the last may take a value: -fN, -nT, -Ocheck, -qi KEY
            for k, letter in enumerate(text[1:], 2):
                if letter in "NnGVOWQ":
                    quiet = True  # -N, -fN, -n, -G, -V, -O check, -W host:port, -Q cipher: no shell
                if f"-{letter}" in runner.values or f"-{letter}" in runner.config:
                    width = 1 if k < len(text) else 2  # the rest is its value, or the next word is
                    break
        i += width
    if host_at is None or form[host_at].literal is None:
        return None
    if i >= len(form) and quiet:
        return None  # no command, and no shell reading standard input
    host = form[host_at].literal or ""
    if host.startswith("ssh://"):
        host = host[6:].partition("/")[0]
        host = host.rpartition(":")[0] if host.count(":") == 1 else host
    return host.rpartition("@")[2].strip("[]").lower()


def _remote_command(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``ssh -o RemoteCommand=CODE host``: the command ssh runs there when the line gives none."""
    found: list[tuple[Word, ...]] = []
    for k, word in enumerate(form[1:], 1):
        text = word.literal or ""
        setting = text[2:] if text.startswith("-o") and len(text) > 2 else None
        if text == "-o" and k + 1 < len(form):
            setting = form[k + 1].literal
        if setting is None and (text == "-o" or text.startswith("-o")):
            found.append((UNKNOWN_PROGRAM,))  # a setting only known at run time
            continue
        if setting is not None:
            key, _, value = setting.replace("=", " ", 1).partition(" ")
            if key.lower() == "remotecommand":
                _script(value.strip(), found)
    return found


def _is_local(host: str) -> bool:
    """Does ssh to ``host`` log in to this machine (``localhost``, ``127.0.0.1``, ``::1``, its own
    name), where the command runs as a command of the line would?"""
    return host in _LOCAL_HOSTS or host.startswith("127.")


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
    seen: set[tuple[int, int, int]] = set()
    todo = [(start, runner.positionals, runner.optional)]  # (word, positionals left, optional ones left)
    scan = runner.rest in ("none", "dashdash")  # positionals are no command: read every option of the line
    while todo and len(starts) <= _MAX_STARTS:
        j, left, maybe = todo.pop()
        if (j, left, maybe) in seen or j >= len(form):
            continue
        seen.add((j, left, maybe))
        text = form[j].literal
        if text is None:  # only known at run time: an option, a value, a positional or the program
            todo.extend(((j + 1, left, maybe), (j + 2, left, maybe)) + (((j + 1, left - 1, maybe),) if left else ()))
            if maybe and not left:
                todo.append((j + 1, 0, maybe - 1))
            if not left and not scan:
                starts.add(j)
        elif text == "--":
            if left:
                todo.append((j + 1, left, maybe))
            elif not scan or runner.rest == "dashdash":
                starts.add(j + 1)
        elif text.startswith("-") and text != "-":
            _option(form, j, (left, maybe), text, runner, todo, starts, scripts)
        elif left or scan:
            todo.append((j + 1, max(left - 1, 0), maybe))
        else:
            starts.add(j)
            if maybe:  # nvm exec 20 node x: 20 is a version, or the command (nvm exec node x)
                todo.append((j + 1, 0, maybe - 1))
    if len(starts) > _MAX_STARTS:
        return [(UNKNOWN_PROGRAM,)]
    places = [j for j in sorted(starts) if j < len(form)]
    if runner.rest == "typed":
        return [(UNKNOWN_PROGRAM,)] + scripts if places else scripts
    if runner.rest == "shell":  # git submodule foreach rm x: the words joined are shell code
        if not places and form[0].literal in _STDIN_COMMANDS and not _INFO_ONLY.intersection(
                w.literal for w in form[1:]):  # echo 'rm x' | parallel: each line it reads is a command
            scripts.append((UNKNOWN_CODE,))
        for j in places:
            rest = form[j:]
            if rest[0].literal is not None and rest[0].literal.startswith(":::"):
                _parallel_arguments(rest, scripts)
            elif (form[0].literal in _STDIN_COMMANDS and any(w.literal in _ARG_SOURCES for w in rest)
                  or _appends_input(form, j)):  # echo .env | parallel cat: cat gets each line read
                _parallel_commands(rest, scripts)
            elif len(rest) == 1:
                _script(rest[0], scripts)
            elif all(w.literal is not None for w in rest):
                _script(" ".join(w.text for w in rest), scripts)
            else:
                scripts.append((UNKNOWN_CODE,))
        return scripts
    if form[0].literal == "xe":  # echo .env | xe cat: each line read is an argument of the command
        return [(*form[j:], _INPUT_WORD) for j in places] + scripts
    if runner.packages:  # npx npm@10 pkg set: npm's
        return [_unversioned(form[j:]) for j in places] + scripts
    return [form[j:] for j in places] + scripts


def _unversioned(form: tuple[Word, ...]) -> tuple[Word, ...]:
    """``form`` with a package at a version as its program (``npm@10``, ``@scope/tool@2``) named
    as the package (``npm``, ``tool``): what that runs is the package's program, which rules and
    checks know by that name."""
    spec = form[0].literal
    if spec is None or "@" not in spec[1:] or spec.startswith((".", "/")) or ":" in spec:
        return form
    name = spec.split("/", 1)[1] if spec[0] == "@" and "/" in spec else spec
    name = name.split("@", 1)[0]
    return (make_word(name), *form[1:]) if name else form


# runners that, given no command, run the lines of their input as commands (GNU parallel, sem)
_STDIN_COMMANDS = frozenset({"parallel", "sem"})
_INFO_ONLY = frozenset({"--version", "--help", "-h", "--wait", "--citation", "--bibtex", "--number-of-cpus",
                        "--number-of-sockets", "--number-of-cores", "--number-of-threads", "--max-line-length-allowed"})


def _parallel_arguments(rest: tuple[Word, ...], scripts: list[tuple[Word, ...]]) -> None:
    """``parallel ::: 'rm x' 'ls'`` (no command): each argument is a command line run by the
    shell; arguments read from files (``::::``) are not known here."""
    for word in rest:
        text = word.literal
        if text in (":::", ":::+"):
            continue
        if text is None or text.startswith("::::"):
            scripts.append((UNKNOWN_CODE,))
            return
        _script(word, scripts)


_ARG_SOURCES = frozenset({":::", ":::+", "::::", "::::+"})
_PARALLEL_ARGUMENT = run_time_word("PARALLEL_ARGUMENT")
_REPLACEMENT = re.compile(r"\{[^{}\s]*\}")  # {}, {.}, {/}, {1}, {#} …


# GNU parallel's options that run the command without arguments from the input: the input is
# the command's standard input (--pipe, --pipepart) or the command runs once (--semaphore)
_NO_INPUT_ARGUMENTS = frozenset({"--pipe", "--spreadstdin", "--pipepart", "--semaphore"})


def _appends_input(form: tuple[Word, ...], j: int) -> bool:
    """Do GNU parallel (without ``:::``) and rush give the command at ``form[j:]`` the lines they
    read (standard input, ``-a FILE``) as arguments — after it, or where ``{}`` stands?"""
    program = form[0].literal
    if program == "rush":
        return True
    return program == "parallel" and not {w.literal for w in form[1:j]} & _NO_INPUT_ARGUMENTS


_INPUT_WORD = make_word(run_time_word("PARALLEL_ARGUMENT", quoted=False), False)


def _parallel_commands(rest: tuple[Word, ...], scripts: list[tuple[Word, ...]]) -> None:
    """``parallel bash -c ::: 'rm x'`` runs ``bash -c 'rm x'``: each argument goes into the
    command, shell-quoted, where a replacement string (``{}``, ``{.}`` …) stands or else after
    it; both places are read for every argument (with several sources, any may land as code).
    Without ``:::`` the arguments are the lines read, only known at run time."""
    k = next((i for i, w in enumerate(rest) if w.literal in _ARG_SOURCES), len(rest))
    if k == len(rest):
        rest = (*rest, make_word("::::"))
    if any(w.literal is None for w in rest[:k]):
        scripts.append((UNKNOWN_CODE,))
        return
    command = " ".join(w.text for w in rest[:k])
    for word in rest[k:]:
        text = word.literal
        if text in (":::", ":::+"):
            continue
        # arguments from files (::::), or only known at run time: a word only known at run time
        argument = _PARALLEL_ARGUMENT if text is None or text.startswith("::::") else shlex.quote(text)
        _script(f"{command} {argument}", scripts)
        if _REPLACEMENT.search(command):
            _script(_REPLACEMENT.sub(argument.replace("\\", "\\\\"), command), scripts)  # (as written)


def _option(
    form: tuple[Word, ...], j: int, state: tuple[int, int], text: str, runner: Runner,
    todo: list[tuple[int, int, int]], starts: set[int], scripts: list[tuple[Word, ...]],
) -> None:
    left, maybe = state
    key, eq, value = text.partition("=")
    key = _unabbreviated(key, runner)
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
    if key in runner.typed:  # screen -X stuff 'rm x\n': typed into a shell
        scripts.append((UNKNOWN_CODE,))
    given: str | Word | None = value if eq else _word(form, j + 1)
    if key in runner.staged:  # yt-dlp --exec 'before_dl:rm x', --downloader 'm3u8:rm'
        given = _unstaged(given, key in runner.shell, scripts)
    if key in runner.shell:  # the value is shell code
        _script(given, scripts)
    elif key in runner.argv:  # the value is a command line: rsync -e 'ssh -p 22'
        _argv(given, scripts)
    elif key in runner.config:  # ssh -o ProxyCommand=…
        _config(value if eq else _word(form, j + 1), scripts)
    if eq and key in runner.pairs:  # bwrap --bind=SRC DEST is not bwrap's; read both ways
        todo.extend(((j + 1, left, maybe), (j + 2, left, maybe)))
    elif eq or key in runner.flags:
        todo.append((j + 1, left, maybe))
    elif key in runner.pairs:
        todo.append((j + 3, left, maybe))
    elif key in runner.values or key in runner.shell or key in runner.argv or key in runner.config:
        todo.append((j + 2, left, maybe))
    elif text[1] != "-" and text[:2] in runner.values:  # -j2: a value attached to -j
        todo.append((j + 1, left, maybe))
    else:
        todo.extend(((j + 1, left, maybe), (j + 2, left, maybe)))


_STAGE = re.compile(r"([\w,+-]+):")
# when yt-dlp runs --exec's code (a prefix it does not know is part of the code)
# a field of yt-dlp's output template put into --exec's code without quoting (%(title)q quotes it)
_UNQUOTED_FIELD = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[^q]")
_EXEC_STAGES = frozenset({"pre_process", "after_filter", "video", "before_dl", "post_process", "after_move",
                          "after_video", "playlist"})


def _unstaged(value: str | Word | None, shell: bool, scripts: list[tuple[Word, ...]]) -> str | Word | None:
    """A value that may start with ``STAGE:``: shell code after a stage the program knows
    (``before_dl:rm x``) is the code, returned instead of the value; a command line after any
    such prefix (``m3u8,dash:aria2c``, the protocols) is read besides the value."""
    text = value.literal if isinstance(value, Word) else value
    if shell and text is not None and _UNQUOTED_FIELD.search(text):
        scripts.append((UNKNOWN_CODE,))  # --exec 'echo %(title)s': the video's title becomes code
    stage = _STAGE.match(text or "")
    if text is None or not stage:
        return value
    if shell:
        return text[stage.end():] if stage.group(1) in _EXEC_STAGES else value
    _argv(text[stage.end():], scripts)
    return value


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


_CODE_SETTINGS = frozenset({"proxycommand", "localcommand", "knownhostscommand", "exec",  # exec: tar's action
                            "sftp.command"})  # restic -o sftp.command=…
# svn --config-option FILE:SECTION:OPTION=VALUE: a tunnel's command, the diff, merge and editor commands
_SVN_CODE = re.compile(r"(?:^|:)(?:tunnels:[^:]+|diff-cmd|diff3-cmd|diff-extensions|editor-cmd|merge-tool-cmd)$")


def _config(setting: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    """``-o Key=Value`` (or ``Key Value``): the value of a key that names a command is shell code."""
    text = (_text(setting, scripts) or "").strip()
    cut = min((i for i in (text.find("="), text.find(" "), text.find("\t")) if i >= 0), default=len(text))
    if text[:cut].lower() in _CODE_SETTINGS or _SVN_CODE.search(text[:cut].lower()):
        _script(text[cut + 1:].lstrip("= \t"), scripts)


def _word(form: tuple[Word, ...], j: int) -> Word | None:
    return form[j] if j < len(form) else None


def _script(code: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    """Shell code a runner runs, as the ``sh -c`` form whose script is analyzed."""
    if isinstance(code, str):
        code = Word(code)
    if code is not None:
        scripts.append((SHELL_CODE, Word("-c"), code) if code.literal is not None else (UNKNOWN_CODE,))


_DC_BANG = re.compile(r"!(?![<=>])([^\n]*)")


def _dc_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``dc -e '!rm x'`` runs ``rm x`` (``!<``, ``!=``, ``!>`` compare); an expression of a file
    (``-f FILE``, an operand) or of standard input (no ``-e``) is code only known at run time."""
    scripts: list[tuple[Word, ...]] = []
    expressions = 0
    i = 1
    while i < len(form):
        text = form[i].literal
        if text is None:
            return [(UNKNOWN_CODE,)]
        if text in _INFO:
            return []
        if text in ("-e", "--expression") or text.startswith(("--expression=", "-e")):
            code = (text.partition("=")[2] if text.startswith("--") else text[2:]) or _word(form, i + 1)
            code_text = code.literal if isinstance(code, Word) else code
            if code_text is None:
                return [(UNKNOWN_CODE,)]
            for match in _DC_BANG.finditer(code_text):
                _script(match.group(1), scripts)
            expressions += 1
            i += 1 if text not in ("-e", "--expression") else 2
            continue
        return [(UNKNOWN_CODE,)]  # -f FILE, a file operand: its expressions are not read
    return scripts if expressions else [(UNKNOWN_CODE,)]


def _sed_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``sed '1e rm x'`` runs ``rm x``; ``s/a/b/e`` or a script not read runs what is known later."""
    commands = sed_commands(form[1:])
    if commands is None:
        return [(UNKNOWN_CODE,)]
    scripts: list[tuple[Word, ...]] = []
    for command in commands:
        if command is None:
            scripts.append((UNKNOWN_CODE,))
        else:
            _script(command, scripts)
    return _distinct(scripts)


def _awk_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``awk 'BEGIN { system("rm x") }'`` runs ``rm x``; a command built at run time, a coprocess
    or a program not read here (``-f prog.awk``) runs what is known later."""
    program = awk_program(form[1:])
    if program is None:
        return [(UNKNOWN_CODE,)]
    scripts: list[tuple[Word, ...]] = []
    for command in program.runs:
        if command is None:
            scripts.append((UNKNOWN_CODE,))
        else:
            _script(command, scripts)
    return _distinct(scripts)


# Debugger commands that run nothing but the program being debugged (gdb -ex run, lldb -o bt)
_HARMLESS_TEXT = (
    "run r start starti continue c cont next n step s stepi si nexti ni finish fin until u advance break b br "
    "tbreak rbreak watch rwatch awatch catch delete d disable enable info i print p po output printf echo x "
    "display undisplay backtrace bt where frame f up down list l disassemble thread quit q kill detach attach "
    "ptype whatis show call expression expr register breakpoint image process")
_DEBUGGER_HARMLESS = frozenset(_HARMLESS_TEXT.split())
_DEBUGGER_COMMAND = frozenset({"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command",
                               "--init-eval-command", "-eiex", "-early-init-eval-command", "--early-init-eval-command",
                               "-o", "--one-line", "-O",
                               "--one-line-before-file", "-k", "--one-line-on-crash", "-K"})
_DEBUGGER_SCRIPT = frozenset({"-x", "--x", "-command", "--command", "-ix", "-init-command", "--init-command",
                              "-eix", "-early-init-command", "--early-init-command", "-s", "--source", "-S",
                              "--source-before-file", "--source-on-crash"})
_DEBUGGER_BATCH = frozenset({"-batch", "--batch", "-batch-silent", "--batch-silent"})
_DEBUGGER_INFO = frozenset({"--version", "-version", "-v", "--help", "-help", "-h", "--configuration",
                            "-configuration"})
_DEBUGGER_VALUES = frozenset({"-p", "--pid", "-pid", "-c", "--core", "-core", "-d", "--directory", "-directory",
                              "-cd", "--cd", "-se", "-symbols", "--symbols", "-exec", "--exec", "-b", "-l", "-tty",
                              "--tty", "-D", "--data-directory", "-data-directory", "-a", "--arch", "-f", "--file",
                              "-n", "--attach-name", "--attach-pid", "--core-file"})


def _debugger_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``gdb -batch -ex 'shell rm x'`` runs ``rm x``; ``gdb -ex run --args rm x`` runs the
    program it debugs.  Commands given as options are read: a shell escape (``shell``, ``!``,
    lldb's ``platform shell``) is shell code; one not known to run nothing else, or a command
    file, runs what is not known here.  Without ``-batch`` (lldb's ``-b``) it then reads commands
    from standard input (``echo 'shell rm x' | gdb -q`` runs ``rm x``): shell code only known here
    at run time."""
    scripts: list[tuple[Word, ...]] = []
    lldb = form[0].literal == "lldb"
    batch = False
    i = 1
    while i < len(form):
        text = form[i].literal
        if text is None:
            scripts.append((UNKNOWN_PROGRAM,))
            i += 1
            continue
        key, eq, value = text.partition("=")
        if text in _DEBUGGER_BATCH or lldb and text == "-b":
            batch = True
            i += 1
            continue
        if text in _DEBUGGER_INFO:
            return []
        if text in ("--args", "--"):
            scripts.append(form[i + 1:])  # the program and its arguments: run by `run`
            break
        if key in _DEBUGGER_COMMAND:
            _debugger_command(value if eq else _word(form, i + 1), scripts)
            i += 1 if eq else 2
        elif key in _DEBUGGER_SCRIPT:
            scripts.append((UNKNOWN_CODE,))
            i += 1 if eq else 2
        elif key in _DEBUGGER_VALUES:
            i += 1 if eq else 2
        elif text.startswith("-"):
            i += 1  # -batch, -q, -nx, --silent …
        else:  # the program to debug (then a core file or pid)
            scripts.append((form[i],))
            i += 1
    if not batch:  # then the commands standard input holds
        scripts.append((UNKNOWN_CODE,))
    return _distinct(scripts)


def _debugger_command(command: str | Word | None, scripts: list[tuple[Word, ...]]) -> None:
    text = (_text(command, scripts) or "").strip()
    if text.startswith("!"):
        _script(text[1:], scripts)
        return
    words = text.split(None, 2)
    if not words:
        return
    if words[0] == "shell":
        _script(text[len("shell"):], scripts)
    elif words[0] == "platform" and len(words) > 1 and words[1] == "shell":
        _script(words[2] if len(words) > 2 else "", scripts)
    elif words[0] not in _DEBUGGER_HARMLESS:  # python, pipe, source, define, target …
        scripts.append((UNKNOWN_CODE,))


# modules whose program has another name (python -m taskipy k is `task k`, taskipy's)
_MODULE_PROGRAMS = {"taskipy": "task", "poethepoet": "poe", "pre_commit": "pre-commit",
                    "nbconvert": "jupyter-nbconvert", "notebook": "jupyter-notebook", "jupyterlab": "jupyter-lab"}


def _python_module(form: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``python -I -m pip install x`` runs ``pip install x``; ``-c`` code or a script: None."""
    found = _module_form(form)
    if found and found[0].literal in _MODULE_PROGRAMS:
        return (Word(_MODULE_PROGRAMS[found[0].literal or ""]), *found[1:])
    return found


def _module_form(form: tuple[Word, ...]) -> tuple[Word, ...] | None:
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
