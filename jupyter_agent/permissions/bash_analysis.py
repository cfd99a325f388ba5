"""Context-free analysis of a command line: every simple command, unwrapped and classified.

Cached by command text; the context-dependent decision (rules, paths, working directories)
is made in ``bash.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from .bash_parse import Redirect, SimpleCommand, parse_command
from .bash_readonly import ReadOnlyCheck, check_read_only
from .bash_rules import command_text, known_text
from .bash_words import Word
from .bash_wrappers import dangerous_env, unwrap

_MAX_SCRIPT_DEPTH = 4
SAFE_TEST_OPERATORS = frozenset(
    ["-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-z", "-n", "=", "==", "!=", "<", ">", "=~", "&&", "||", "!", "-o", "-nt", "-ot", "-ef", "(", ")"]
)
_CD = frozenset({"cd", "pushd"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_TWO_WORD_PROGRAMS = frozenset(
    {"git", "npm", "pnpm", "yarn", "cargo", "go", "pip", "pip3", "uv", "poetry", "docker",
     "kubectl", "make", "conda", "mamba", "bun", "deno", "npx", "gh", "jupyter", "dotnet"}
)


@dataclass
class CommandInfo:
    """One simple command: the word forms rules are matched against and its classification."""

    forms: tuple[tuple[Word, ...], ...]  # deny/ask matching: outermost … innermost, extras
    innermost: tuple[Word, ...]  # allow rules match this form only
    read_only: ReadOnlyCheck
    ask_reason: str | None = None  # sudo, bash -c, $cmd, PATH=…: asks even if a rule allows
    cd_target: Word | None = None
    cd_kind: str | None = None  # "cd" / "pushd" / "popd"
    nested: bool = False

    @cached_property
    def form_texts(self) -> tuple[tuple[str, str, bool], ...]:
        """Per form: its text, the text of its leading fixed words, whether all are fixed."""
        return tuple((command_text(f), *known_text(f)) for f in self.forms)

    @cached_property
    def text(self) -> str:
        return command_text(self.innermost) if self.innermost else ""


@dataclass
class Analysis:
    commands: list[CommandInfo] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


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
    out = Analysis(redirects=list(parsed.redirects), problems=list(parsed.problems))
    for cmd in parsed.commands:
        info, scripts = _classify(cmd, nested)
        out.commands.append(info)
        for script in scripts:
            if depth >= _MAX_SCRIPT_DEPTH:
                out.problems.append("shell code nested too deeply")
                continue
            inner = analyze_uncached(script, depth + 1, nested=True)
            out.commands.extend(inner.commands)
            out.redirects.extend(inner.redirects)
            out.problems.extend(inner.problems)
    return out


def _classify(cmd: SimpleCommand, nested: bool) -> tuple[CommandInfo, list[str]]:
    nested = nested or cmd.nested
    env_reason = _env_reason(name for name, _ in cmd.assignments)
    if cmd.kind == "assignment" or (cmd.kind == "command" and not cmd.words):
        return CommandInfo((), (), ReadOnlyCheck(True), env_reason, nested=nested), []
    if cmd.kind == "test":
        safe = all(op in SAFE_TEST_OPERATORS for op in cmd.test_operators)
        reason = None if safe else "a test with arithmetic or -v (can run code)"
        return CommandInfo((), cmd.words, ReadOnlyCheck(safe), reason, nested=nested), []
    unwrapped = unwrap(cmd.words)
    reason = env_reason or unwrapped.ask_reason or _env_reason(unwrapped.env)
    inner = unwrapped.innermost
    forms = list(unwrapped.forms)
    scripts = list(unwrapped.scripts)
    for form in unwrapped.forms:
        for extra in _extra_forms(form):  # find -exec sh -c '...' {} ;  → unwrap that too
            peeled = unwrap(extra)
            forms.extend(peeled.forms)
            scripts.extend(peeled.scripts)
    if unwrapped.lookup_only:
        read_only = ReadOnlyCheck(True)
    elif reason is not None:
        read_only = ReadOnlyCheck(False)
    else:
        read_only = check_read_only(inner, unwrapped.appends_args)
    program = inner[0].literal if inner else None
    cd_target, cd_kind = None, None
    if program in _CD or program == "popd":
        cd_kind = program
        args = [w for w in inner[1:] if w.literal != "--"]
        cd_target = args[0] if args else None
        if len(args) > 1 or (cd_target is not None and (cd_target.literal or "-").startswith(("-", "+"))):
            reason = reason or f"{program} with options"
    info = CommandInfo(tuple(forms), inner, read_only, reason, cd_target, cd_kind, nested)
    return info, scripts


def _env_reason(names: object) -> str | None:
    for name in names:  # type: ignore[attr-defined]
        if dangerous_env(name):
            return f"it sets {name}, which changes what programs run"
    return None


def _extra_forms(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``/bin/rm x`` is also checked as ``rm x``; ``find -exec rm {} ;`` yields ``rm {}``."""
    extra: list[tuple[Word, ...]] = []
    program = form[0].literal if form else None
    if program and "/" in program:
        extra.append((Word(program.rsplit("/", 1)[1]), *form[1:]))
    if program in ("find", "fd"):
        extra.extend(_exec_commands(form))
    if program == "git":
        bare = _git_without_global_options(form)
        if bare is not None:
            extra.append(bare)
    return extra


_GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                    "--config-env", "--super-prefix"})


def _git_without_global_options(form: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``git -C x --no-pager push`` is also checked as ``git push`` (deny and ask rules)."""
    i = 1
    while i < len(form) and (form[i].literal or "").startswith("-"):
        key = (form[i].literal or "").split("=", 1)[0]
        i += 2 if key in _GIT_GLOBAL_WITH_VALUE and "=" not in (form[i].literal or "") else 1
    if i == 1:
        return None
    if i > len(form):
        return None
    return (form[0], *form[i:])


def _exec_commands(form: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    out: list[tuple[Word, ...]] = []
    current: list[Word] | None = None
    for word in form[1:]:
        if current is None:
            if word.literal in _FIND_EXEC or word.literal in ("-x", "--exec", "-X", "--exec-batch"):
                current = []
            continue
        if word.literal in (";", "+", "\\;"):
            if current:
                out.append(tuple(current))
            current = None
        else:
            current.append(word)
    if current:
        out.append(tuple(current))
    return out


def suggested_prefix(words: tuple[Word, ...]) -> str | None:
    """``pytest -q tests`` → ``pytest``; ``git push origin`` → ``git push``."""
    if not words or words[0].literal is None:
        return None
    program = words[0].literal
    if "/" in program:
        return None
    second = words[1].literal if len(words) > 1 else None
    if program in _TWO_WORD_PROGRAMS and second and not second.startswith("-") and "/" not in second:
        return f"{program} {second}"
    return program
