"""Context-free analysis of a command line: every simple command, unwrapped and classified.

Cached by command text; the context-dependent decision (rules, paths, working directories)
is made in ``bash.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from .bash_evaluated import EVALUATING, assigned_names, evaluation_reason
from .bash_extra_forms import (
    EXTRA_FORM_PROGRAMS,
    FORM_PROGRAMS,
    extra_forms,
    git_forms,
    may_have_extra_forms,
    spelled_otherwise,
)
from .bash_parse import NUMBERS_COMPARED, Redirect, SimpleCommand, parse_command
from .bash_readonly import ReadOnlyCheck, check_read_only
from .bash_rules import form_text
from .bash_runners import (
    REMOTE_SHELL,
    SCHEDULERS,
    SHELL_CODE,
    UNKNOWN_CODE,
    UNKNOWN_PROGRAM,
    may_run_something,
    runner_forms,
)
from .bash_stdin import StdinSources
from .bash_synonyms import SYNONYM_PROGRAMS, canonical_forms
from .bash_words import Word
from .bash_wrappers import (
    EDITORS,
    EVAL_LIKE,
    JUPYTER_PROGRAMS,
    MAKES,
    NETWORK_RUNNERS,
    NOTEBOOK_RUNNERS,
    OTHER_SHELLS,
    PACKAGE_MANAGERS,
    SHELLS,
    STDIN_SHELLS,
    TOOLCHAINS,
    WRAPPERS,
    Unwrapped,
    dangerous_env,
    package_setting_reason,
    stdin_shell_reason,
    unwrap,
)

_MAX_SCRIPT_DEPTH = 4
SAFE_TEST_OPERATORS = frozenset(
    [NUMBERS_COMPARED, "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-z", "-n", "=", "==", "!=", "<", ">", "=~", "&&", "||", "!", "-o", "-nt", "-ot", "-ef", "(", ")"]
)
_CD = frozenset({"cd", "pushd"})
# builtins whose evaluation_reason is a change of what the line means (bash._line_change_checks
# decides when that matters), not code they run
_MEANING_CHANGERS = frozenset({"shopt", "set", "hash", "alias", "setopt", "unsetopt", "emulate"})
# Programs ``unwrap`` peels or treats as code runners, and find/fd whose ``-exec`` commands are
# extra forms: every other fixed program name is classified by ``_classify_plain``.
# (``/bin/rm`` has an extra form too: names with a slash go the general way as well.)
# Reserved words as a program: tree-sitter read `time { cmd; }` / `coproc x { cmd; }` as commands.
_KEYWORDS = frozenset({"{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
                       "for", "case", "esac", "select", "function", "[[", "]]"})
_NOT_PLAIN = (frozenset(WRAPPERS) | SHELLS | EVAL_LIKE | MAKES | TOOLCHAINS | NOTEBOOK_RUNNERS | PACKAGE_MANAGERS
              | EDITORS | STDIN_SHELLS | OTHER_SHELLS | JUPYTER_PROGRAMS | NETWORK_RUNNERS | _KEYWORDS | FORM_PROGRAMS
              | {"su", "command", "find", "fd", "corepack", "coreutils", "run-parts", "enable", "alias", "fc"})
# programs whose words the analysis reads as its own (wrappers, runners, shells, editors …):
# what they run is among a command's forms already (bash._argument_commands leaves them alone)
MODELED_PROGRAMS = _NOT_PLAIN
_MAX_EXTRA_DEPTH = 4  # `uv run npx rm`: forms found in forms, this deep
_PLAIN_WITH_MORE = frozenset({"git", "cd", "pushd", "popd"}) | EVALUATING  # an extra form, a cd target, code
_NOT_READ_ONLY = ReadOnlyCheck(False)
_READ_ONLY = ReadOnlyCheck(True)
# the form of a program only known at run time: `bash -c "$X"`, or a variable that changes what
# runs (`PAGER='rm y' git log`, `PATH=/tmp ls`): deny and ask rules may match it (bash._rule_checks)
_UNKNOWN_FORM = (UNKNOWN_PROGRAM,)


@dataclass(slots=True)
class CommandInfo:
    """One simple command: the word forms rules are matched against and its classification."""

    forms: tuple[tuple[Word, ...], ...]  # deny/ask matching: outermost … innermost, extras
    innermost: tuple[Word, ...]  # allow rules match this form only
    read_only: ReadOnlyCheck
    ask_reason: str | None = None  # sudo, bash -c, $cmd, PATH=…: asks even if a rule allows
    cd_target: Word | None = None
    cd_kind: str | None = None  # "cd" / "pushd" / "popd"
    nested: bool = False
    inner_index: int = field(default=-1, repr=False, compare=False)  # forms[i] is innermost
    _form_texts: tuple[tuple[str, str, bool], ...] | None = field(default=None, repr=False, compare=False)
    _text: str | None = field(default=None, repr=False, compare=False)
    assigned: tuple[tuple[str, str | None], ...] = ()  # FOO=1 cmd, env FOO=1 cmd: (name, fixed value or None)
    inline_code: bool = False  # sh -c 'make': a shell doing only what its code's commands (the line's too) do
    stdin_scripts: tuple[Word, ...] = ()  # sh < FILE, cat FILE | sh: files whose text the shell runs
    unknown_code: bool = False  # it runs shell code not read (bash -c "$X", curl … | sh): Read/Edit deny rules ask
    set_values: tuple[tuple[str, str], ...] = ()  # X='rm x' alone: (name, fixed value), seen if exported

    @property
    def form_texts(self) -> tuple[tuple[str, str, bool], ...]:
        """Per form: its text, the text of its leading fixed words, whether all are fixed."""
        texts = self._form_texts
        if texts is not None:
            return texts
        forms = self.forms
        if self.inner_index == 0 and len(forms) == 1 and forms[0] is self.innermost:  # the common case
            text = form_text(forms[0])
            self._text = text[0]  # before _form_texts: a set _form_texts implies a set _text
            self._form_texts = texts = (text,)
            return texts
        return self._texts()

    @property
    def text(self) -> str:
        """The innermost form's text (what allow rules match)."""
        text = self._text
        if text is None:
            self._texts()
            text = self._text
        return text  # type: ignore[return-value]

    def _texts(self) -> tuple[tuple[str, str, bool], ...]:
        """Both lazy texts in one go (bash.py asks for both of every command)."""
        forms = self.forms
        texts = (form_text(forms[0]),) if len(forms) == 1 else tuple([form_text(f) for f in forms])
        index = self.inner_index
        if 0 <= index < len(forms) and forms[index] is self.innermost:
            self._text = texts[index][0]
        else:
            self._text = form_text(self.innermost)[0] if self.innermost else ""
        self._form_texts = texts  # last (see form_texts); racing threads compute equal values
        return texts


@dataclass(slots=True)
class Analysis:
    commands: list[CommandInfo] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # the commands of shell code run on another machine (ssh HOST CMD): for deny and ask rules only
    # (their paths, files and programs are that machine's)
    remote: list[CommandInfo] = field(default_factory=list)
    source: str = field(default="", compare=False)  # the text analyzed (the order its commands run in)

    @property
    def ruled(self) -> list[CommandInfo]:
        """The commands deny and ask rules see: the line's, and those it runs on another machine."""
        return self.commands + self.remote if self.remote else self.commands


def analyze(command: str) -> Analysis:
    """The cached analysis; an internal error becomes a problem (ask), never an exception."""
    try:
        return _analyze_cached(command)
    except RecursionError:
        return Analysis(problems=["the command is nested too deeply to analyze"])
    except Exception as exc:  # fail closed, but keep the session going
        return Analysis(problems=[f"the analyzer failed ({type(exc).__name__})"])


@lru_cache(maxsize=2048)
def _analyze_cached(command: str) -> Analysis:
    return analyze_uncached(command)


def analyze_uncached(command: str, depth: int = 0, nested: bool = False) -> Analysis:
    parsed = parse_command(command)
    out = Analysis([], list(parsed.redirects), list(parsed.problems), source=command)
    commands = out.commands
    stdin = None  # what shells reading standard input read (bash_stdin), found on first need
    for cmd in parsed.commands:
        words = cmd.words
        if words and cmd.kind == "command":
            program = words[0]
            name = program.text
            plain = program.static and not program.glob and name not in _NOT_PLAIN
            # /bin/rm, zsh's =rm (extra forms), git rebase -x 'code': the general way
            if plain and not spelled_otherwise(name) and (name != "git" or not may_run_something(words)):
                if cmd.assignments or name in _PLAIN_WITH_MORE:
                    commands.append(_classify_plain(cmd, nested))
                else:  # _classify_plain's common case, inlined: one form, no reason
                    read_only = check_read_only(words)
                    commands.append(CommandInfo((words,), words, read_only, None, None, None, nested or cmd.nested, 0))
                continue
            if (name in FORM_PROGRAMS and program.static and not program.glob and not cmd.assignments
                    and name not in EVALUATING):  # mapfile -C CODE: a runner that evaluates names
                extras = _plain_runner_forms(words)
                if extras is not None:  # npm install, python -m pytest: what _classify would give
                    commands.append(CommandInfo((words, *extras), words, check_read_only(words), None, None,
                                                None, nested or cmd.nested, 0))
                    continue
        if stdin is None:
            stdin = StdinSources(command)
        info, scripts, reads, remote = _classify(cmd, nested, stdin)
        commands.append(info)
        out.redirects.extend([Redirect(word, False) for word in reads])  # xargs -a FILE reads FILE
        for script in scripts:
            if depth >= _MAX_SCRIPT_DEPTH:
                out.problems.append("shell code nested too deeply")
                continue
            inner = analyze_uncached(script, depth + 1, nested=True)
            commands.extend(inner.commands)
            out.redirects.extend(inner.redirects)
            out.problems.extend(inner.problems)
            out.remote.extend(inner.remote)
        for code in remote:  # ssh host 'rm x': its commands meet deny and ask rules, nothing else
            there = analyze_uncached(code, depth + 1, nested=True) if depth < _MAX_SCRIPT_DEPTH else None
            if there is None or there.problems:  # not read: what runs there may be what a rule names
                out.remote.append(CommandInfo((_UNKNOWN_FORM,), (), _NOT_READ_ONLY, nested=True))
            if there is not None:
                out.remote.extend(there.ruled)
    return out


def _classify_plain(cmd: SimpleCommand, nested: bool) -> CommandInfo:
    """``_classify`` for a command whose program is a fixed word that wraps nothing.

    ``unwrap`` would return the words as the only form, with no reason and no scripts, so the
    words are classified directly.  Of ``extra_forms`` only git's applies here, and unwrapping
    its extra form (``git …`` again) adds nothing but that form.
    """
    words = cmd.words
    program = words[0].text
    forms: tuple[tuple[Word, ...], ...] = (words,)
    reason = _prefix_reason(cmd) if cmd.assignments else None
    if reason is not None:  # PAGER='rm y' git log, export GIT_SSH_COMMAND=…: what runs is not this form
        forms = (words, _UNKNOWN_FORM)
    if program == "git":  # after the unknown form, in _classify's order
        more = git_forms(words)
        if more:
            forms = (*forms, *more)
    if program in EVALUATING:
        evaluated = evaluation_reason(words)
        if evaluated is not None:  # printf -v 'a[$(rm x)]' 1: code only known at run time
            reason = reason or evaluated
            if program not in _MEANING_CHANGERS:  # (shopt -s dotglob: bash._line_change_checks)
                forms = (*forms, _UNKNOWN_FORM) if _UNKNOWN_FORM not in forms else forms
        setting = _setter_reason(words)
        if setting is not None:  # read PATH, printf -v BASH_ENV …: as PATH=… (what runs is not this form)
            reason = reason or setting
            forms = (*forms, _UNKNOWN_FORM) if _UNKNOWN_FORM not in forms else forms
    read_only = check_read_only(words) if reason is None else _NOT_READ_ONLY
    if program in _CD or program == "popd":
        info = _cd_info(cmd, nested, forms, words, read_only, reason, program, 0)
    else:
        info = CommandInfo(forms, words, read_only, reason, None, None, nested or cmd.nested, 0)
    if cmd.assignments:
        info.assigned = tuple((name, _assigned_value(word)) for name, word in cmd.assignments)
    return info


def _assigned_value(word: Word) -> str | None:
    """A variable's fixed value; ``~/x`` as written (bash expands a tilde after ``=``)."""
    if word.literal is not None:
        return word.literal
    return word.text if word.static and word.text[:1] == "~" and not any(c in word.text for c in "*?[{") else None


def _plain_runner_forms(words: tuple[Word, ...]) -> list[tuple[Word, ...]] | None:
    """What a runner runs when that is nothing (``npm install``) or only plain commands
    (``python -m pytest``), which ``_classify`` would not unwrap; else None (``_classify``)."""
    if words[0].text in PACKAGE_MANAGERS and package_setting_reason(words) is not None:
        return None  # npm test --script-shell=x: _classify's unwrap asks
    if words[0].text in STDIN_SHELLS and stdin_shell_reason(words) is not None:
        return None  # script, poetry shell: a shell on standard input (_classify's unwrap asks)
    if words[0].text in TOOLCHAINS:
        return None  # cargo --config 'target.x.runner=…': _classify's unwrap reads the settings
    extras = runner_forms(words) if may_run_something(words) else []
    if words[0].text in SYNONYM_PROGRAMS:
        extras += canonical_forms(words)
    for form in extras:
        program = form[0]
        name = program.text
        if (not program.static or program.glob or name in _NOT_PLAIN or name in EXTRA_FORM_PROGRAMS
                or spelled_otherwise(name)):
            return None
    return extras


def _classify(cmd: SimpleCommand, nested: bool, stdin: StdinSources | None = None
              ) -> tuple[CommandInfo, list[str], list[Word], list[str]]:
    """The command's classification, the shell code it runs, the files its wrappers read and the
    shell code it runs on another machine (``stdin``: what the line's shells reading standard
    input read)."""
    nested = nested or cmd.nested
    remote: list[str] = []
    env_reason = _prefix_reason(cmd) if cmd.assignments else None
    if cmd.kind == "assignment" or (cmd.kind == "command" and not cmd.words):  # PATH=/tmp; ls
        info = CommandInfo((_UNKNOWN_FORM,) if env_reason else (), (), _READ_ONLY, env_reason, nested=nested)
        if env_reason:  # GLOBIGNORE=x; cat *: what the rest of the line means (bash.py)
            info.assigned = tuple((name, _assigned_value(word)) for name, word in cmd.assignments)
        elif cmd.kind == "assignment":  # X='rm x'; export X: a program may read it (bash.py)
            info.set_values = tuple((name, word.literal) for name, word in cmd.assignments if word.literal)
        return info, [], [], remote
    if cmd.kind == "test":
        safe = all(op in SAFE_TEST_OPERATORS for op in cmd.test_operators)
        if safe:
            return CommandInfo((), cmd.words, _READ_ONLY, None, nested=nested), [], [], remote
        # [[ $x -eq 1 ]], [[ -v 'a[$(rm y)]' ]]: code only known at run time, which a deny rule may name
        why = "a test with arithmetic or -v (can run code)"
        return CommandInfo((_UNKNOWN_FORM,), cmd.words, _NOT_READ_ONLY, why, nested=nested), [], [], remote
    unwrapped = unwrap(cmd.words)
    stdin_files = _stdin_read(unwrapped, cmd, stdin)
    env_given = ((e.partition("=")[0], e.partition("=")[2]) for e in unwrapped.env)  # env NAME=VALUE cmd
    given_reason = _env_reason(env_given) if unwrapped.env else None
    reason = env_reason or unwrapped.ask_reason or given_reason
    keyworded = [form for form in unwrapped.forms if form and (form[0].text in _KEYWORDS or form[0].text == "coproc"
                                                              and form[2:3] and form[2].text in _KEYWORDS)]
    if keyworded:  # `time { rm x; }`, `coproc N { rm x; }`: tree-sitter read a compound command as words
        reason = reason or "a shell keyword where a command was expected"
    inner = unwrapped.innermost
    setting = None
    evaluated = None
    if inner and inner[0].literal in EVALUATING:  # builtin printf -v 'a[$(x)]' 1
        evaluated = evaluation_reason(inner)
        setting = _setter_reason(inner)  # command read PATH
        reason = reason or evaluated or setting
        evaluated = None if inner[0].literal in _MEANING_CHANGERS else evaluated  # (not code: _line_change_checks)
    forms = list(unwrapped.forms)
    code_unknown = unwrapped.unknown_code  # shell code not read: bash -c "$X", curl … | sh, eval "$X"
    if keyworded:  # what follows the keyword is a command (deny rules see `rm x`), and the rest unread
        commands, unread = _after_keywords(keyworded)
        code_unknown = code_unknown or unread
        forms.extend(commands)
        if unread:  # `time for …`, `coproc N [[ … ]]`: words not read as a command
            forms.append(_UNKNOWN_FORM)
    if unwrapped.unknown_code or env_reason or given_reason or setting or evaluated:  # bash -c "$X", read PATH,
        forms.append(_UNKNOWN_FORM)  # GIT_SSH_COMMAND='rm y' git fetch: what runs may be what a rule names
    stdin_form = unwrapped.stdin_form
    if stdin_form is not None:  # xargs: deny/ask rules see an unknown tail
        forms.append(stdin_form)
    scripts = unwrapped.scripts  # a fresh list of this unwrap
    reads = unwrapped.reads
    todo = [(form, 0) for form in unwrapped.forms]
    if stdin_form is not None:  # ls | xargs uv run: what uv runs comes from stdin
        todo.append((stdin_form, 0))
    while todo:
        form, depth = todo.pop()
        if not may_have_extra_forms(form):
            continue
        for extra in extra_forms(form):  # find -exec sh -c '...' {} ;  → unwrap that too
            if extra[0] is REMOTE_SHELL:  # ssh host 'rm x'
                remote.append(extra[1].literal or "")
                continue
            if extra[0] is UNKNOWN_CODE and form is cmd.words:
                codes = _scheduled(form, stdin)  # echo 'make' | at now: the job is that text
                if codes is not None:
                    scripts.extend(codes)
                    continue
            peeled = unwrap(extra)
            code_unknown = code_unknown or extra[0] is UNKNOWN_CODE  # gdb -x cmds.gdb, pdflatex -shell-escape
            if peeled.stdin_shell and extra[1:] == form[1:] and "/" in form[0].text:  # echo CODE | /bin/sh
                stdin_files += _stdin_read(peeled, cmd, stdin)
            if peeled.ask_reason and extra[0] is not SHELL_CODE:  # uv run sudo x: asks like sudo x
                reason = reason or peeled.ask_reason
            forms.extend(peeled.forms)
            peeled_env = _env_reason((e.partition("=")[0], e.partition("=")[2]) for e in peeled.env)
            if peeled_env:  # uv run env GIT_SSH_COMMAND='rm y' git fetch
                reason = reason or peeled_env
            if peeled.unknown_code or peeled_env:  # find -exec sh -c "$X" ;: as bash -c "$X" on its own
                forms.append(_UNKNOWN_FORM)
                code_unknown = code_unknown or peeled.unknown_code
            scripts.extend(peeled.scripts)
            reads.extend(peeled.reads)
            if depth < _MAX_EXTRA_DEPTH:
                todo.extend((inner, depth + 1) for inner in peeled.forms)
    if unwrapped.lookup_only:
        read_only = _READ_ONLY
    elif reason is not None:
        read_only = _NOT_READ_ONLY
    else:
        read_only = check_read_only(inner, unwrapped.appends_args)
    program = inner[0].literal if inner else None
    index = len(unwrapped.forms) - 1
    info = _cd_info(cmd, nested, tuple(forms), inner, read_only, reason, program, index)
    if scripts and program in SHELLS and not (unwrapped.unknown_code or env_reason or given_reason):
        info.inline_code = True
    if stdin_files:  # sh < FILE, cat FILE | sh: as sh FILE (script_files)
        info.stdin_scripts = stdin_files
    info.unknown_code = code_unknown
    if cmd.assignments or unwrapped.env:
        info.assigned = (*((name, _assigned_value(word)) for name, word in cmd.assignments),
                         *((e.partition("=")[0], e.partition("=")[2]) for e in unwrapped.env))
    return info, scripts, reads, remote


def _scheduled(words: tuple[Word, ...], stdin: StdinSources | None) -> list[str] | None:
    """The job ``at``/``batch`` (``words``: the command itself, no wrapper) reads from standard
    input when the line fixes it (no ``-f FILE``, no word only known at run time); else None."""
    if stdin is None or words[0].literal not in SCHEDULERS or any(
            w.literal is None or (w.literal[:1] == "-" and "f" in w.literal) for w in words[1:]):
        return None
    inputs = stdin.of(words)
    codes = [code for code in inputs or () if isinstance(code, str)]
    return codes if inputs is not None and len(codes) == len(inputs) else None


def _stdin_read(unwrapped: Unwrapped, cmd: SimpleCommand, stdin: StdinSources | None) -> tuple[Word, ...]:
    """A shell reading its commands from standard input (``sh <<'EOF' … EOF``, ``echo CODE |
    sh``, ``sh < FILE``): when bash_stdin knows what it reads, the code becomes ``unwrapped``'s, as
    ``sh -c CODE``'s is, and the files are returned (run as ``sh FILE`` runs its file)."""
    if not unwrapped.stdin_shell or unwrapped.appends_args or stdin is None:  # (xargs sh: words, no input)
        return ()
    inputs = stdin.of(cmd.words)
    if inputs is None:
        return ()
    unwrapped.unknown_code = False
    unwrapped.scripts.extend(unwrapped.prelude + code for code in inputs if isinstance(code, str))
    return tuple(word for word in inputs if isinstance(word, Word))


def _cd_info(
    cmd: SimpleCommand,
    nested: bool,
    forms: tuple[tuple[Word, ...], ...],
    inner: tuple[Word, ...],
    read_only: ReadOnlyCheck,
    reason: str | None,
    program: str | None,
    inner_index: int,
) -> CommandInfo:
    """The CommandInfo, with the target of ``cd``/``pushd``/``popd`` when that is the program."""
    cd_target, cd_kind = None, None
    if program in _CD or program == "popd":
        cd_kind = program
        args = [w for w in inner[1:] if w.literal != "--"]
        cd_target = args[0] if args else None
        if cd_target is not None and not cd_target.static:
            reason = reason or f"{program} to a folder only known at run time"
        elif len(args) > 1 or (cd_target is not None and (cd_target.literal or "-").startswith(("-", "+"))):
            reason = reason or f"{program} with options"
    return CommandInfo(forms, inner, read_only, reason, cd_target, cd_kind, nested or cmd.nested, inner_index)


# builtins for which IFS=… in front only changes their own splitting (`while IFS= read -r line`)
_IFS_BUILTINS = frozenset({"read", "mapfile", "readarray", "printf", "echo", "test", "["})


def _prefix_reason(cmd: SimpleCommand) -> str | None:
    """``_env_reason`` of the assignments in front of a command (``PATH=/tmp ls``)."""
    pairs = [(name, word.literal) for name, word in cmd.assignments]
    if cmd.words and cmd.words[0].literal in _IFS_BUILTINS:  # a builtin: the shell restores IFS after it
        pairs = [pair for pair in pairs if pair[0] != "IFS"]
    return _env_reason(pairs) if pairs else None


def _setter_reason(words: tuple[Word, ...]) -> str | None:
    """Why a builtin setting variables by name must ask: it sets one that changes what programs
    run, or one whose name is only known at run time.  ``unset PATH`` too: bash then looks for
    a command in the current folder (``unset PATH; ls`` ran ``./ls``), as after ``PATH=``."""
    if words and words[0].literal == "unset":
        return _unset_reason(words)
    names = assigned_names(words)
    if "?" in names:
        return f"{words[0].text} sets a variable whose name is only known at run time"
    return _env_reason((name, None) for name in names) if names else None


def _unset_reason(words: tuple[Word, ...]) -> str | None:
    functions_only = False
    for word in words[1:]:
        text = word.literal
        if text is not None and text[:1] == "-" and len(text) > 1 and not functions_only:
            functions_only = "f" in text and "v" not in text  # unset -f NAME: the function only
            continue
        if functions_only and text is not None:
            continue
        if text is None:
            return "unset may unset PATH (a name only known at run time): a command is then looked for in the current folder"
        if text == "PATH":
            return "it unsets PATH: a command is then looked for in the current folder"
    return None


_LEADING_KEYWORDS = frozenset({"{", "do", "then", "else", "elif", "if", "while", "until", "!"})
_CLOSERS = frozenset({"}", "fi", "done", "esac", "]]"})


def _after_keywords(forms: list[tuple[Word, ...]]) -> tuple[list[tuple[Word, ...]], bool]:
    """The commands after the reserved words of forms tree-sitter read as words: ``{ rm x``
    (``time { rm x; }``), ``coproc N { rm x``, ``do rm x`` — unwrapped as commands are — and
    whether some words were not read as one (``time for …``, an assignment: ``{ X=1 rm x``).
    A form of closing words only (``}``, ``done``) runs nothing."""
    found: list[tuple[Word, ...]] = []
    unread = False
    for form in forms:
        if all(word.text in _CLOSERS for word in form):
            continue
        i = 0
        if form[0].text == "coproc":
            i = 2 if form[2:3] and form[2].text in _KEYWORDS else 1  # coproc NAME { …
        while i < len(form) and form[i].text in _LEADING_KEYWORDS:
            i += 1
        tail = form[i:]
        if i == 0 or not tail or tail[0].text in _KEYWORDS or "=" in tail[0].text:
            unread = True
            continue
        peeled = unwrap(tail)
        unread = unread or peeled.unknown_code
        found.extend(peeled.forms)
    return found, unread


def _env_reason(assignments: Iterable[tuple[str, str | None]]) -> str | None:
    """Why setting these variables (name, fixed value or None) must ask."""
    for name, value in assignments:
        if dangerous_env(name, value):
            return f"it sets {name}, which changes what programs run"
    return None
