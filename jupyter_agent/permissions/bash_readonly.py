"""The built-in read-only commands and the arguments that keep them read-only.

A command runs without asking only when its program is listed here and none of its arguments
can write or execute (``-exec``, ``-delete``, ``-i``, ``--output``, …).  GNU tools accept
abbreviated long options (``sort --out=f`` is ``--output``), so a long option is unsafe when it
is a prefix of an unsafe one.  Dynamic arguments (``$x``, globs) are accepted only by programs
for which *no* argument can write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .bash_sed import sed_files
from .bash_set import set_is_read_only
from .bash_words import Word


@dataclass(frozen=True)
class Spec:
    unsafe: frozenset[str] = frozenset()  # "-x" short letters / "--long" / find-style "-name"
    single_dash_long: bool = False  # find-style options: -name, -delete (no clusters)
    max_positional: int | None = None
    only_options: frozenset[str] | None = None  # when set, every option must be one of these
    dynamic_ok: bool = True
    reads_paths: bool = True  # positional arguments are files it reads
    requires_any: frozenset[str] = frozenset()
    file_letters: frozenset[str] = frozenset()  # short options whose attached value is a file: -fFILE
    # derived from the fields above once (the tables are constants)
    unsafe_letters: frozenset[str] = field(init=False, repr=False, compare=False, default=frozenset())
    unsafe_long: tuple[str, ...] = field(init=False, repr=False, compare=False, default=())
    plain: bool = field(init=False, repr=False, compare=False, default=False)  # no argument matters

    def __post_init__(self) -> None:
        letters = frozenset(u[1] for u in self.unsafe if len(u) == 2 and u[0] == "-")
        object.__setattr__(self, "unsafe_letters", letters)
        object.__setattr__(self, "unsafe_long", tuple(u for u in self.unsafe if u.startswith("--")))
        plain = not self.unsafe and self.max_positional is None and self.only_options is None
        plain = plain and self.dynamic_ok and not self.requires_any
        object.__setattr__(self, "plain", plain)


def _s(*unsafe: str, **kw: object) -> Spec:
    return Spec(unsafe=frozenset(unsafe), **kw)  # type: ignore[arg-type]


_NO_PATHS = {"reads_paths": False}
SPECS: dict[str, Spec] = {
    **{name: _s() for name in (
        "cat", "head", "tail", "wc", "ls", "du", "df", "stat", "cut", "tr", "nl", "paste",
        "fold", "fmt", "rev", "tac", "expand", "unexpand", "strings", "od", "hexdump", "cmp",
        "diff", "comm", "grep", "egrep", "fgrep", "md5sum", "sha1sum", "sha256sum",
        "sha512sum", "cksum", "b2sum", "realpath", "readlink", "basename", "dirname", "column",
        "jq", "look", "wdiff")},
    **{name: _s(**_NO_PATHS) for name in (
        "pwd", "echo", "true", "false", ":", "whoami", "id", "groups", "uname", "arch", "nproc",
        "uptime", "free", "locale", "tty", "which", "type", "whereis", "printenv", "sleep",
        "seq", "ps", "pgrep", "lsof", "who", "w", "env", "getconf", "users")},
    "test": _s("-v", "-R", **_NO_PATHS),
    "[": _s("-v", "-R", **_NO_PATHS),
    "printf": _s("-v", **_NO_PATHS),
    "date": _s("-s", "--set", "-f", "--file", **_NO_PATHS),
    "hostname": Spec(max_positional=0, reads_paths=False, unsafe=frozenset({"-F", "--file"})),
    "uniq": _s(max_positional=1),
    "sort": _s("-o", "--output", "--compress-program", "-T", "--temporary-directory",
               "--random-source", dynamic_ok=False),
    "tree": _s("-o", "-R", "-H", "--fromfile", dynamic_ok=False),
    "file": _s("-C", "--compile", "-m", "--magic-file", dynamic_ok=False),
    "xxd": _s("-r", "--revert", max_positional=1, dynamic_ok=False),
    "rg": _s("--pre", "--pre-glob", "--search-zip", "-z", "--hostname-bin", dynamic_ok=False),
    "fd": _s("-x", "--exec", "-X", "--exec-batch", dynamic_ok=False),
    "find": _s("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
               "-fprintf", "-fls", single_dash_long=True, dynamic_ok=False),
    "yq": _s("-i", "--inplace", "--from-file", "--expression-file", "-f", dynamic_ok=False),
}

for _name, _letters in (("grep", "f"), ("egrep", "f"), ("fgrep", "f"), ("rg", "f"), ("file", "f"),
                       ("hexdump", "f"), ("diff", "X"), ("du", "X"), ("jq", "fL")):
    SPECS[_name] = replace(SPECS[_name], file_letters=frozenset(_letters))

_GIT_LOGLIKE = _s("--output", "--ext-diff", dynamic_ok=False)
GIT_SPECS: dict[str, Spec] = {
    "status": _s(dynamic_ok=False),
    "diff": _GIT_LOGLIKE,
    "log": _GIT_LOGLIKE,
    "show": _GIT_LOGLIKE,
    "shortlog": _GIT_LOGLIKE,
    "blame": _s(dynamic_ok=False),
    "grep": _s("-O", "--open-files-in-pager", "--ext-grep", dynamic_ok=False),
    "rev-parse": _s(dynamic_ok=False),
    "rev-list": _s(dynamic_ok=False),
    "ls-files": _s(dynamic_ok=False),
    "ls-tree": _s(dynamic_ok=False),
    "cat-file": _s("--textconv", "--filters", dynamic_ok=False),
    "describe": _s(dynamic_ok=False),
    "merge-base": _s(dynamic_ok=False),
    "show-ref": _s("--delete", dynamic_ok=False),
    "for-each-ref": _s(dynamic_ok=False),
    "count-objects": _s(dynamic_ok=False),
    "name-rev": _s(dynamic_ok=False),
    "reflog": Spec(max_positional=0, dynamic_ok=False),
    "branch": Spec(
        max_positional=0, dynamic_ok=False,
        only_options=frozenset({"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
                                "--list", "-l", "--show-current", "--no-color", "--color"}),
    ),
    "tag": Spec(max_positional=0, dynamic_ok=False,
                only_options=frozenset({"-l", "--list", "-n"})),
    "remote": Spec(max_positional=0, dynamic_ok=False,
                   only_options=frozenset({"-v", "--verbose"})),
    "config": Spec(
        dynamic_ok=False,
        only_options=frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l",
                                "--show-origin", "--show-scope", "--null", "-z", "--name-only",
                                "--local", "--global", "--system"}),
        requires_any=frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l"}),
    ),
}
_GIT_SUB_SUB = {"stash": frozenset({"list", "show"}), "worktree": frozenset({"list"})}
_GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-optional-locks"})


@dataclass(frozen=True, slots=True)
class ReadOnlyCheck:
    """Whether a command is read-only, and the arguments it reads as files."""

    read_only: bool
    paths: tuple[Word, ...] = ()


_NOT = ReadOnlyCheck(False)
_YES = ReadOnlyCheck(True)
_new = object.__new__
_set_read_only = ReadOnlyCheck.read_only.__set__  # type: ignore[attr-defined]
_set_paths = ReadOnlyCheck.paths.__set__  # type: ignore[attr-defined]


def reads(paths: tuple[Word, ...]) -> ReadOnlyCheck:
    """``ReadOnlyCheck(True, paths)`` without the frozen dataclass ``__init__`` (a hot path)."""
    if not paths:
        return _YES
    check = _new(ReadOnlyCheck)
    _set_read_only(check, True)
    _set_paths(check, paths)
    return check


_STDIN_ARGUMENTS = Word("<arguments from stdin>", static=False)


def check_read_only(words: Sequence[Word], appends_args: bool = False) -> ReadOnlyCheck:
    """Read-only verdict for one unwrapped simple command (program first)."""
    if not words:
        return _NOT
    first = words[0]
    if not first.static or first.glob:
        return _NOT
    program = first.text
    spec = SPECS.get(program)
    if spec is None:
        if program == "git":
            return _git(words)
        if program == "set":
            return _YES if set_is_read_only(words[1:]) else _NOT
        if program == "sed":
            files = sed_files(words[1:], appends_args)
            return _NOT if files is None else reads(files)
        return _NOT
    if program == "yq" and any("load" in w.text for w in words[1:]):
        return _NOT  # load("f") / load_str("f") read files the arguments do not name
    if appends_args:  # xargs: more file names arrive on stdin
        if not spec.dynamic_ok:
            return _NOT
        return _check(spec, (*words[1:], _STDIN_ARGUMENTS))
    if spec.plain:
        return _plain(spec, words)
    return _check(spec, words[1:])


def _plain(spec: Spec, words: Sequence[Word]) -> ReadOnlyCheck:
    """A program for which no argument can write: only its file arguments are collected."""
    if not spec.reads_paths:
        return _YES
    positional: list[Word] = []
    attached: list[Word] | None = None
    options_done = False
    for word in words[1:]:
        value = word.text
        if options_done or value[:1] != "-" or value == "-" or not word.static or word.glob:
            positional.append(word)
        elif value == "--":
            options_done = True
        elif len(value) > 2:
            attached = _attached_path(spec, value, attached)
    return reads(tuple(positional) if attached is None else (*positional, *attached))


def _check(spec: Spec, args: Sequence[Word]) -> ReadOnlyCheck:
    positional: list[Word] = []
    attached: list[Word] | None = None
    seen: set[str] = set()
    options_done = False
    for word in args:
        value = word.text
        if not word.static or word.glob:  # no literal value
            if not spec.dynamic_ok:
                return _NOT
            positional.append(word)
        elif options_done or value[:1] != "-" or value == "-":
            positional.append(word)
        elif value == "--":
            options_done = True
        elif not _option_ok(spec, value):
            return _NOT
        else:
            if spec.requires_any:
                seen.add(value.split("=", 1)[0])
            if len(value) > 2:
                attached = _attached_path(spec, value, attached)
    if spec.max_positional is not None and len(positional) > spec.max_positional:
        return _NOT
    if spec.requires_any and not (seen & spec.requires_any):
        return _NOT
    if not spec.reads_paths:
        return _YES
    return reads(tuple(positional) if attached is None else (*positional, *attached))


def _attached_path(spec: Spec, option: str, found: list[Word] | None) -> list[Word] | None:
    """Add the file an option word names by itself to ``found``: ``--files0-from=F``,
    ``--file=F`` (any long option's value may be a file), ``-fF`` / ``-rfF`` for the
    program's short file options."""
    values = option_values(option, spec.file_letters)
    if not values:
        return found
    if found is None:
        found = []
    found.extend([Word(value) for value in values])
    return found


def option_values(option: str, letters: frozenset[str] | None) -> list[str]:
    """Values an option word carries by itself: ``--name=VALUE``; in a short cluster, the tail
    after the first letter in ``letters`` (``-fFILE``, ``-rfFILE``), or every tail when
    ``letters`` is None (any letter may take a value)."""
    if option[1:2] == "-":
        value = option.partition("=")[2]
        return [value] if value else []
    if letters is None:
        return [option[i:] for i in range(2, len(option))]
    for i in range(1, len(option) - 1):
        if option[i] in letters:
            return [option[i + 1:]]
    return []


def _option_ok(spec: Spec, option: str) -> bool:
    name = option.split("=", 1)[0] if "=" in option else option
    if spec.only_options is not None:
        return name in spec.only_options
    if name.startswith("--"):  # GNU abbreviations: --out means --output
        return not any(u.startswith(name) for u in spec.unsafe_long)
    if spec.single_dash_long:
        return name not in spec.unsafe
    letters = name[1:]
    return letters.isdigit() or spec.unsafe_letters.isdisjoint(letters)


def _git(words: Sequence[Word]) -> ReadOnlyCheck:
    """``git [global flags] <read-only subcommand> [safe arguments]`` (``words[0]`` is git)."""
    n = len(words)
    i = 1
    paths: list[Word] = []
    while i < n:
        word = words[i]
        flag = word.text
        if not word.static or word.glob or flag[:1] != "-":
            break
        if flag == "-C" and i + 1 < n and words[i + 1].literal is not None:
            paths.append(words[i + 1])
            i += 2
            continue
        if flag in ("--version", "--help") and i == n - 1:
            return _YES
        if flag not in _GIT_GLOBAL_FLAGS:
            return _NOT  # -c key=val, --git-dir, --exec-path, … can run arbitrary programs
        i += 1
    if i >= n:
        return _NOT
    word = words[i]
    if not word.static or word.glob:
        return _NOT
    sub, rest = word.text, words[i + 1:]
    spec = GIT_SPECS.get(sub)
    if spec is None:
        sub_subs = _GIT_SUB_SUB.get(sub)
        if sub_subs is None:
            return _NOT
        ok = bool(rest) and rest[0].literal in sub_subs and all(w.literal is not None for w in rest[1:])
        return _YES if ok else _NOT
    result = _check(spec, rest)
    if not result.read_only or not paths:
        return result
    # revisions look like paths too (HEAD~1): harmless, they resolve inside the project
    return reads((*paths, *result.paths))
