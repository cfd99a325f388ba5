"""Read-deny oracle: what the analyzer allows must never print a denied file.

A project holds ``.env`` with a secret token (denied by ``Read(./.env)``), a symlink to it, a
sub-folder, a git repository in which ``.env`` is committed, and ordinary files.  Lines built
from read-only programs and the many ways of naming ``.env`` (globs, braces, ``..``, links,
option words, revisions, redirections, substitutions) are decided; each one that is
**allowed** then really runs in bash (inside ``bwrap`` when it works), and the token must not
appear in its output.  Lines that are denied or ask are not run.

Whole-repository patches (``git log -p``, ``git show`` of a commit) are in the vocabulary: the
secret is committed, so they must ask.  A second token sits *outside* the working directories
(a sibling folder, reached also through links in the project, and ``$HOME``): reading outside
asks, so no allowed line may print that one either.
Raise ``DENY_ORACLE_EXAMPLES`` to hunt; CI runs a fixed, derandomized set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions.bash import check_bash_permission
from tests.permissions.tools import make_ctx

BASH = "/bin/bash"
BWRAP = "/usr/bin/bwrap"
TOKEN = "TOKEN-5f3a9c"
OUTSIDE = "OUTSIDE-7d41b0"  # in files outside the working directories
EXAMPLES = int(os.environ.get("DENY_ORACLE_EXAMPLES", "250"))

pytestmark = pytest.mark.skipif(
    not os.path.exists(BASH) or shutil.which("git") is None, reason="needs /bin/bash and git"
)

PROGRAMS = [
    "cat", "head -n 3", "tail -n 3", "grep -h .", "grep -r -h .", "sort", "uniq", "nl", "od -c", "xxd",
    "strings", "cut -c1-40", "rev", "tac", "paste", "fold", "wc", "diff /dev/null", "comm - ",
    "jq -R .", "sed -n p", "xargs echo", "xargs -a", "grep -f", "git cat-file -p",
    "git grep -h TOKEN", "ls", "file", "md5sum", "stat -c %s", "du --files0-from", "wc --files0-from",
    "cd", "cd -P", "pushd", "cd sub && cat", "cd sub && cat ../",
    "head -c 100", "tail -c 50", "cut -f1", "column -t", "cmp -l", "expand", "fmt", "grep -o .",
    "grep -c S", "grep -rl S", "rg -uu -N S", "rg --no-ignore --hidden -N S", "rg -N S", "find . -name",
    "du -a", "sort -u", "uniq -c", "diff -r .", "xxd -p", "od -An -c", "readlink -f", "rev <",
    "git show", "git log -p", "git log --oneline -S SECRET", "git show --stat", "git diff HEAD~0 --",
    "git log --format=%H", "git show -s", "git stash show -p", "git diff --cached --",
    "sort --files0-from", "sort --files0-from=list0", "sha256sum -c sums", "wc --files0-from=list0",
    "grep -d recurse -h .", "grep --rec -h .", "grep --directories=recurse S", "diff", "diff sub", "diff -q",
    "git diff --no-index", "git diff --no-index sub", "git diff --no-index -- . ",
]
NAMES = [
    ".env", "./.env", "sub/../.env", "env-link", "sub/link-up", ".e*", ".e?v", ".[e]nv", ".[!x]nv",
    "{.env,a.txt}", ".[^x]nv", ".e{n,}v", "'.env'", "\".env\"", ".\\env", "$(echo .env)", "`echo .env`",
    "HEAD:.env", ":.env", "HEAD:./.env", "--file=.env", "-f.env", "=.env", "< .env", "<.env", "0<.env",
    "<<< \"$(cat .env)\"", "*", ".*", "sub/*", "a.txt", "sub", ".", "$PWD/.env", "~/../proj/.env",
    "/proc/self/cwd/.env", "-- .env", ".env/", "./sub/../.e*", "~+/.env", "~0/.env", "~+0/.env",
    "$'.env'", "$'\\x2eenv'", "'.e'\"nv\"", "././/.env", "sub/../env-link", "$(printf .env)",
    "\"$PWD\"/.env", "{a.txt,.env}", ".[[:alpha:]]nv", ".[\\e]nv", "-a.env", "--arg-file=.env",
    "--files0-from=.env", "--from-file=.env", ":0:.env", "sub", "..", "linkdir", "sub/link-up/..",
    "../outside/o.txt", "out-link", "outdir/o.txt", "outdir", "~/h.txt", "$HOME/h.txt", "../*/o.txt",
    "../outside", "~", "sub/../../outside/o.txt", "\"$OLDPWD\"/o.txt", "~/../outside/o.txt", "../o*/o.txt",
    "$(dirname $PWD)/outside/o.txt", "../outside/*", "-C ../outside o.txt", "/proc/self/cwd/../outside/o.txt",
    "hl.txt", "h*", "./hl.txt", "< hl.txt",
    "{,.}env", "{.,}e{n,}v", "x{,.env}", "{sub/..,.}/.env", "{'.env',a.txt}", "{a\\,b,.env}", "{.env,sub/*}",
    ".{e,x}n{v,}", "{..,.}/proj/.env", "if=.env", "@.env", "k=@.env", "{.e*,a.txt}",
]
JOINS = [" ", " | ", " && ", "; ", " | xargs ", " < "]


def _project(root: Path) -> Path:
    project = root / "proj"
    (project / "sub").mkdir(parents=True)
    (project / ".env").write_text(f"SECRET={TOKEN}\n")
    (project / "a.txt").write_text("alpha\nbeta\n")
    (project / "list0").write_text(".env\0")  # names the secret for --files0-from
    (project / "sums").write_text("0" * 64 + "  .env\n")
    (project / "sub" / ".env").write_text("OTHER=1\n")  # not denied; `diff . sub` compares it with .env
    os.link(project / ".env", project / "hl.txt")  # a hard link: the same file under another name
    (project / "sub" / "b.txt").write_text("gamma\n")
    os.symlink(project / ".env", project / "env-link")
    os.symlink("../.env", project / "sub" / "link-up")
    (root / "outside").mkdir()
    (root / "outside" / "o.txt").write_text(f"OUT={OUTSIDE}\n")
    (root / "home" / "h.txt").write_text(f"HOME={OUTSIDE}\n")
    os.symlink(root / "outside" / "o.txt", project / "out-link")
    os.symlink("../outside", project / "outdir")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=project, check=True)
    return project


def _bwrap_works() -> bool:
    if not os.path.exists(BWRAP):
        return False
    done = subprocess.run([BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"],
                          capture_output=True, timeout=10)
    return done.returncode == 0


def _run(line: str, project: Path, sandbox: bool) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(project.parent / "home"), "PWD": str(project),
           "OLDPWD": str(project.parent / "outside"),
           "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    argv = [BASH, "--norc", "--noprofile", "-c", line]
    if sandbox:
        argv = [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(project.parent),
                str(project.parent), "--unshare-all", "--die-with-parent", "--new-session", "--chdir",
                str(project), *argv]
    try:
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=10)
    except subprocess.TimeoutExpired:
        return ""
    return (done.stdout + done.stderr).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("deny-oracle")
    (root / "home").mkdir()
    project = _project(root)
    ctx = make_ctx(project, deny=("Read(./.env)",))
    with pytest.MonkeyPatch.context() as patch:  # decide with the HOME the lines run with (`~/../proj/.env`)
        patch.setenv("HOME", str(root / "home"))
        yield project, ctx, _bwrap_works()


def _check(world, line: str) -> None:
    project, ctx, sandbox = world
    verdict = check_bash_permission(line, ctx)
    if not isinstance(verdict, PermissionAllow):
        return
    output = _run(line, project, sandbox)
    assert TOKEN not in output, f"allowed {line!r}, and it printed the denied file: {output[:300]!r}"
    assert OUTSIDE not in output, f"allowed {line!r}, and it printed a file outside: {output[:300]!r}"


def test_the_secret_is_reachable(world):
    """The oracle can fail: these lines do print the token (and are denied)."""
    project, ctx, sandbox = world
    for line in ("cat .env", "git show HEAD:.env", "xargs -a .env echo", "cat {.env,a.txt}", "git show", "git log -p",
                 "cat ../outside/o.txt", "cat out-link", "cat ~/h.txt", "grep -r OUT ..", "cat \"$OLDPWD\"/o.txt",
                 "sort --files0-from=list0", "diff . sub", "grep -d recurse S .", "git diff --no-index . sub", "cat hl.txt", "strings @.env"):
        output = _run(line, project, sandbox)
        assert TOKEN in output or OUTSIDE in output, line
        assert not isinstance(check_bash_permission(line, ctx), PermissionAllow), line


ROWS = [f"{p} {n}" for p in ("cat", "grep -h .", "xargs -a", "git cat-file -p", "du --files0-from") for n in NAMES]
ROWS += [f"git show {n}" for n in NAMES if ":" in n]  # (a bare `git show` prints the last commit's patch)


@pytest.mark.parametrize("line", ROWS)
def test_fixed_lines(world, line):
    _check(world, line)


# programs a rule allows that read a file named inside their script (not an argument)
SCRIPT_READS = ["sed 'r {}' a.txt", "sed -n '1R {}' a.txt", "awk 'BEGIN {{ while ((getline l < \"{}\") > 0) print l }}'",
                "history -r {}; history"]
SCRIPT_RULES = ("Bash(sed:*)", "Bash(awk:*)", "Bash(history:*)")
PLAIN_NAMES = [n for n in NAMES if not any(c in n for c in " '\"\\$`<{") and not n.startswith("-")]


@pytest.mark.parametrize("line", [t.format(n) for t in SCRIPT_READS for n in PLAIN_NAMES])
def test_rule_allowed_programs_reading_files_their_scripts_name(world, line):
    project, _ctx, sandbox = world
    verdict = check_bash_permission(line, make_ctx(project, deny=("Read(./.env)",), allow=SCRIPT_RULES))
    if isinstance(verdict, PermissionAllow):
        output = _run(line, project, sandbox)
        assert TOKEN not in output, f"allowed {line!r}, and it printed the denied file: {output[:300]!r}"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 250,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(PROGRAMS), st.sampled_from(NAMES), st.sampled_from(JOINS)),
                min_size=1, max_size=3))
def test_generated_lines(world, parts):
    line = "".join(f"{program} {name}{join}" for program, name, join in parts).rstrip(" |&;<").rstrip()
    _check(world, line)
