"""The tables of built-in read-only commands: each program's options that write, execute or
read files its arguments do not name.

GNU tools accept abbreviated long options (``sort --out=f`` is ``--output``), so a long option
matches an entry when it is a prefix of it.  ``lists``: options with which a program reads files
named *inside* another file (``sort --files0-from=LIST``, ``sha256sum -c LIST``, ``jq -f PROG``
whose program may import modules): those files are only known at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


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
    lists: Spec | None = None  # options that read the files another file names (module docstring)
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
        "sha512sum", "cksum", "b2sum", "realpath", "readlink", "column",
        "look", "wdiff")},
    # a program file may import modules the arguments do not name
    "jq": _s(lists=_s("-f", "--from-file")),
    **{name: _s(**_NO_PATHS) for name in (
        "pwd", "echo", "true", "false", ":", "exit", "whoami", "id", "groups", "uname", "arch", "nproc",
        # a function's and a loop's flow: a number, never evaluated as arithmetic ("$x" holding
        # 'a[$(cmd)]' is refused as "numeric argument required")
        "return", "shift", "break", "continue",
        "uptime", "free", "locale", "tty", "which", "type", "whereis", "printenv", "sleep",
        "seq", "ps", "pgrep", "lsof", "who", "w", "env", "getconf", "users",
        # arithmetic and calendars: their operands are numbers, not files
        "expr", "factor", "numfmt", "cal", "ncal",
        # strings, not files: basename "$PWD", dirname src/app.py, yes | head -3
        "basename", "dirname", "yes")},
    # iconv prints the converted text; -o/--output writes it to a file
    "iconv": _s("-o", "--output"),
    "test": _s("-v", "-R", **_NO_PATHS),
    "[": _s("-v", "-R", **_NO_PATHS),
    "printf": _s("-v", **_NO_PATHS),
    # the shell's table of where commands were found: -r forgets it (a venv's activate script
    # ends with `hash -r`), NAME looks one up on PATH; -p PATH NAME makes NAME run another program
    "hash": _s("-p", dynamic_ok=False, **_NO_PATHS),
    "date": _s("-s", "--set", "-f", "--file", **_NO_PATHS),
    "hostname": Spec(max_positional=0, reads_paths=False, unsafe=frozenset({"-F", "--file"})),
    "uniq": _s(max_positional=1),
    "sort": _s("-o", "--output", "--compress-program", "-T", "--temporary-directory",
               "--random-source", dynamic_ok=False, lists=_s("--files0-from")),
    **{name: _s(lists=_s("--files0-from")) for name in ("wc", "du")},
    **{name: _s(lists=_s("-c", "--check")) for name in (
        "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum")},
    "tree": _s("-o", "-R", "-H", "--fromfile", "--fromtabfile", dynamic_ok=False),
    "file": _s("-C", "--compile", "-m", "--magic-file", dynamic_ok=False),
    "xxd": _s("-r", "--revert", max_positional=1, dynamic_ok=False),
    "rg": _s("--pre", "--pre-glob", "--search-zip", "-z", "--hostname-bin", dynamic_ok=False),
    "fd": _s("-x", "--exec", "-X", "--exec-batch", dynamic_ok=False),
    "find": _s("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
               "-fprintf", "-fls", single_dash_long=True, dynamic_ok=False,
               lists=_s("-files0-from", single_dash_long=True)),
    # Go yq: -s/--split-exp EXP writes each result to a file EXP names (Python yq's -s, jq's
    # slurp, asks too); -i edits in place
    "yq": _s("-i", "--inplace", "--in-place", "--from-file", "--expression-file", "-f", "-s", "--split-exp",
             dynamic_ok=False),
}

# version questions to interpreters and compilers: each prints and exits before running anything
# (python -V imports no site module, so no .pth file runs; pip --version would, so pip is not here)
_VERSIONS = frozenset({"-V", "--version", "-VV"})
for _name in ("python", "python3", *(f"python3.{minor}" for minor in range(6, 16))):
    SPECS[_name] = Spec(only_options=_VERSIONS, requires_any=_VERSIONS, max_positional=0, reads_paths=False,
                        dynamic_ok=False)
SPECS["node"] = Spec(only_options=frozenset({"-v", "--version"}), requires_any=frozenset({"-v", "--version"}),
                     max_positional=0, reads_paths=False, dynamic_ok=False)
SPECS["nvcc"] = Spec(only_options=frozenset({"-V", "--version"}), requires_any=frozenset({"-V", "--version"}),
                     max_positional=0, reads_paths=False, dynamic_ok=False)
# GPU and CPU facts (nvidia-smi -f FILE writes, -r resets, -pm changes a mode: none of them here)
SPECS["nvidia-smi"] = Spec(only_options=frozenset({"-L", "--list-gpus", "-q", "--query", "--query-gpu", "--format",
                                                   "-x", "--xml-format"}),
                           max_positional=0, reads_paths=False, dynamic_ok=False)
SPECS["lscpu"] = _s("-s", "--sysroot", **_NO_PATHS)

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
_CONFIG_SCOPES = frozenset({"--local", "--global", "--system", "--show-origin", "--show-scope", "--null", "-z"})
# `git config user.name` (one name: a get, two: a set), and git 2.46's `git config get NAME` and
# `git config list` (older gits read those as a name without a section and refuse them)
GIT_CONFIG_GET = Spec(max_positional=1, dynamic_ok=False, reads_paths=False, only_options=_CONFIG_SCOPES)
# `git stash list` takes log's options and `git stash show` diff's (--output=F writes F)
GIT_SUB_SUB: dict[str, dict[str, Spec]] = {
    "config": {
        "get": Spec(max_positional=1, dynamic_ok=False, reads_paths=False,
                    only_options=_CONFIG_SCOPES | {"--all", "--regexp"}),
        "list": Spec(max_positional=0, dynamic_ok=False, reads_paths=False,
                     only_options=_CONFIG_SCOPES | {"--name-only", "--includes", "--no-includes"}),
    },
    "stash": {"list": _GIT_LOGLIKE, "show": _GIT_LOGLIKE},
    "worktree": {"list": Spec(max_positional=0, dynamic_ok=False,
                              only_options=frozenset({"--porcelain", "-v", "--verbose", "-z"}))},
}
GIT_GLOBAL_FLAGS = frozenset({"--no-pager", "-P", "--no-optional-locks"})
