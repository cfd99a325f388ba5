"""Argv oracle: deny and ask rules WITH arguments hold however the arguments are spelled.

Stub programs ``qa`` and ``qb`` in a temp ``bin/`` log their name and their whole argv (one
file per run, NUL-separated, so arguments may hold blanks, newlines and quotes); real programs
that run their arguments (``env``, ``nohup``, ``nice``, ``timeout``, ``xargs``, ``stdbuf``,
``find``, ``setsid``, ``ionice``, ``taskset``, ``chrt``, ``bash``) are linked beside them.  Bash runs each
line with only that folder on ``PATH`` in a folder holding files named ``push``, ``pu``, ``sh``,
``-f``, ``--force`` and ``x`` (``push`` holds the word ``push``), inside ``bwrap`` when it works.
With ``Bash(qa:*)``, ``Bash(qb:*)`` allowed, ``Bash(qa push:*)`` denied and
``Bash(qb --force:*)`` asked, for every line:

1. a run of ``qa`` whose ``argv[1]`` is exactly ``push`` → the line was not allowed;
2. a run of ``qb`` whose ``argv[1]`` is exactly ``--force`` → the line was not allowed;
3. allowed → no run's words match the deny or ask pattern (``qa push -f`` too).  The words are
   rendered as the rules see them, quoted when needed: ``qa 'push x'`` (one argument) is not
   ``qa push …``;
4. a line that ran a stub is not read-only (``is_read_only_command``);
5. allowed, and the analyzer saw every word of every command as fixed (no problems) → every
   run's rendered words are one of the analyzer's forms (bash ran what was analyzed, exactly).

Lines come from a vocabulary that builds ``push`` / ``--force`` indirectly (quotes, escapes,
expansions, globs, braces, ``$'…'``, line continuations, wrappers, variables, arrays,
``set --``, ``read``, ``printf -v``, functions, ``eval``, substitutions …) and from fixed rows.
Raise ``ARGV_ORACLE_EXAMPLES`` (e.g. 20000) to hunt; CI runs a fixed, derandomized set.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command
from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.bash_rules import compile_bash_pattern, form_text
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.oracle_shell import BASH, run_line, sandbox_prefix
from tests.permissions.tools import make_ctx

EXAMPLES = int(os.environ.get("ARGV_ORACLE_EXAMPLES", "1500"))  # about 8 s
TIMEOUT = 3.0
STUBS = ("qa", "qb")
RUNNERS = ("env", "nohup", "nice", "timeout", "xargs", "stdbuf", "find", "setsid", "ionice", "taskset", "chrt",
           "bash")
FILES = {"push": "push\n", "pu": "", "sh": "", "-f": "", "--force": "--force\n", "x": "qa push\n"}
ALLOW = ("Bash(qa:*)", "Bash(qb:*)")
DENY = ("Bash(qa push:*)",)
ASK = ("Bash(qb --force:*)",)
PATTERNS = [compile_bash_pattern(rule[5:-1]) for rule in DENY + ASK]

pytestmark = pytest.mark.skipif(not os.path.exists(BASH), reason="needs /bin/bash")

PUSH = [
    "push", "'push'", '"push"', '"pu"sh', "p'u'sh", "pu\\sh", "\\push", "$'push'", "$'\\x70ush'",
    "$'\\160ush'", "$'p\\u0075sh'", "pu$()sh", "pu${x}sh", "pu${y}sh", "${x:-push}", "${x-push}",
    "${y:+push}", "$(echo push)", "`echo push`", "{push,x}", "{x,push}", "pu{s,}h", "pu{s}h", "pu?h",
    "p*", "[p]ush", "p[u]sh", "pu[s]h", "$x", '"$x"', "${a[0]}", "${a[@]}", '"$@"', "$1", "$*",
    "pu\\\nsh", '$"push"', 'pu""sh', "pu''sh", "\u0440ush", "push\\ ", "${x,,}", "${x^^}",
    "${x/q/push}", "${!y}", "$(<push)", "$(<p*)", "`<push`", "$( echo pu )sh", "$(echo pu)sh",
    "pu$(:)sh", "pu\"\"sh", "push$'\\t'x", "@(push)", "+(push)", "p@(u)sh", "\\p\\u\\s\\h",
    "'p'\"u\"$'s'h", "pu$'\\163'h", "p${x:0:0}ush", "$((0))", "${#x}", "~", "~push", "$'push\\n'",
    '"$v"', "$v", '"${v}"',  # the loop variable of `for v in push; do …; done` (read unrolled)
]
FORCE = [
    "--force", "'--force'", "-\\-force", "--for''ce", "$'--force'", "--f*", "--fo{r,}ce", "{--force,x}",
    "$(echo --force)", '"--force"', "-${y}-force", "--forc?", "-[-]force", "$x", "\\--force", "-f",
    "--force=1", "--forc", "$(<--force)", "$'\\x2d-force'", "-*",
]
SETUPS = [
    "", "", "", "", "", "x=push; ", "x=PUSH; ", "x=--force; ", "y=x; ", "set -- push; ", "set -- --force; ",
    "a=(push); ", "IFS=u; ", "IFS=x; x=qaxpush; ", "read x <<< push; ", "printf -v x push; ",
    "declare x=push; ", "shopt -s expand_aliases; ", "alias qa='qa push'\n", "f() { qa \"$@\"; }; ",
    "g() { qb \"$@\"; }; ", "export x=push; ", "eval x=push; ", "x=pu; x+=sh; ", "shopt -s extglob\n",
    "set -f; ", "shopt -s nocaseglob; ", "GLOBIGNORE=x; ", "unset x; ", "x=$'push'; ", "x='qa push'; ",
    "declare -n y=x; x=push; ", "set -a; ", "cd .; ", "x=qa; ", "set -H -o history\n: push\n",
    "set -o history -H\n: --force\n", "set -k; ", "set -x; ", "set -B; ", "set +B; ", "set -o posix\n",
    "set -H\n", "set -euo pipefail; ", "qa push >/dev/null 2>&1 <<< x & ", "cd /; ", "exec <push; ",
    "exec 0<push\n", "shopt -s expand_aliases\nalias qa='qa push'\n",
]
HEADS_A = [
    "qa", "qa", "qa", "qa", "command qa", "exec qa", "time qa", "env qa", "nohup qa", "nice qa",
    "timeout 5 qa", "FOO=1 qa", "x=push qa", "\\qa", "'qa'", "q\\a", "f", "eval qa", "$x", "env -- qa",
    "env -i qa", "exec -a qb qa", "nice -n 1 qa", "stdbuf -oL qa", "command -- qa", "env FOO=1 qa",
    "builtin qa", "time -p qa", "! qa", "coproc qa", "xargs qa", "xargs -0 qa", "qa\\\n", "\"qa\"",
    "xargs -I{} qa", "xargs -n1 qa", "xargs -a push qa", "xargs -- qa", "env - qa", "nohup -- qa",
    "timeout -- 5 qa", "builtin command qa", "exec -c qa", "time -- qa", "! ! qa", "x=1 y=2 qa",
    "setsid qa", "setsid -w qa", "ionice -c 3 qa", "taskset 1 qa", "taskset -c 0 qa", "chrt -o 0 qa",
    "timeout -k 1 5 qa", "nice -n5 qa", "env -u x -- qa", "stdbuf -i0 -oL qa", "ionice -t qa",
    "timeout -vk 1 5 qa", "env -iu x qa", "xargs -tn1 qa", "ionice -tc 3 qa", "xargs -rI{} qa",
]
HEADS_B = ["qb", "qb", "command qb", "exec qb", "env qb", "g", "nohup qb", "timeout 5 qb", "FOO=1 qb",
           "xargs qb", "\\qb", "'qb'", "xargs -I% qb", "nice qb", "time qb"]
# words that leave argv[1] alone or look harmless to a parser: the generator mixes them in so that
# many lines are allowed and then really run
PLAIN = ["x", "-f", "--", "'a b'", "pu{s}h", "push\\ ", "push#", "pu#sh", "#", "\\#", "!!:1", "!echo:1",
         "!:1", "!-1:1", "^x^push", "x=1", "y=push", "{}", "%", "\u0440ush", "push\\;", "'pu'", "sh",
         "'push '", "$'push\\r'", "-fpush", "--force=1", "--forc", "-f=push", "!#:0", "--\\", "p\\\\ush"]
TAILS = ["", "", "", " -f", " x", " push", " --force", " 'a b'", " $'\\n'", " >/dev/null", " 2>&1",
         " <<< push", " <push", " &", " | qb", " # c", "; :", " <<< x=1", " >x", " # push"]
GAPS = [" ", " ", " ", "\t", " \\\n", " -- ", "  ", " x=1 ", " >/dev/null ", " 2>&1 ", " <x "]


@st.composite
def statement(draw) -> str:
    """One statement that tries to run ``qa push`` or ``qb --force`` without saying so."""
    if draw(st.booleans()):
        head, vocab = draw(st.sampled_from(HEADS_A)), PUSH
    else:
        head, vocab = draw(st.sampled_from(HEADS_B)), FORCE
    words = draw(st.lists(st.sampled_from(vocab + PLAIN + PLAIN), min_size=1, max_size=3))
    text = head
    for word in words:
        text += draw(st.sampled_from(GAPS)) + word
    return draw(st.sampled_from(SETUPS)) + text + draw(st.sampled_from(TAILS))


def _wrap(inner: str, how: int) -> str:
    return [
        inner, inner, inner, f"$( {inner} )", f"echo $({inner})", f": <({inner})", f"{{ {inner}; }}",
        f"( {inner} )", f"if :; then {inner}; fi", f"for v in push; do {inner}; done",
        f"case push in *) {inner};; esac", f"qb <<EOF\n$({inner})\nEOF", f"x=$({inner})",
        f"echo push | {inner}", f"while read x; do {inner}; done <<< push", f"qb `{inner}`",
        f"qa \"$({inner})\"", f"h() {{ {inner}; }}; h", f"eval '{inner}'", f"{inner} &", f"[[ $({inner}) ]]",
        f"for v in p* x; do {inner}; done", f"for v in *; do {inner}; done",  # globs: push, pu; -f, --force …
        f"bash -eo pipefail -c {shlex.quote(inner)}", f"echo {shlex.quote(inner)} | bash -xo errexit",
        f"bash -c -O extglob {shlex.quote(inner)}",  # a shell's option clusters and -O
    ][how]


LINES = st.builds(
    lambda first, how, joins: _wrap(first, how) + joins,
    statement(),
    st.integers(min_value=0, max_value=25),
    st.lists(st.tuples(st.sampled_from(["; ", " && ", "\n", " | ", " || "]), statement()), max_size=1).map(
        lambda pairs: "".join(sep + stmt for sep, stmt in pairs)),
)
TOKENS = ["qa", "qb", " ", " ", " ", "push", "--force", "pu", "sh", "\\", "\\\n", "'", '"', "$", "$'", "{", "}",
          ",", "?", "*", "[", "]", "(", ")", "$(", "`", "x=", "$x", ";", "\n", "|", "&&", "echo ", "-",
          "=", "#", "\t", "command ", "exec ", "env ", "eval ", "~", "@", "!", "<<<", "<", ">", "xargs ",
          "find push -exec ", "{}", "\\;", "set -H -o history\n", "!!:1", "!:1", "--", "\r", "\u00a0",
          "\u0440", "$'\\x70'", "''", '""', "-f", "x=1 ", "2>&1 ", "&", "\\ "]
TOKEN_LINES = st.lists(st.sampled_from(TOKENS), min_size=2, max_size=12).map("".join)
# words spelled from pieces of ``push``: invariant 5 compares the analyzer's value of each with bash's
PIECES = ["p", "u", "s", "h", "pu", "sh", "push", "'", '"', "\\", "\\\n", "$", "$'", "{", "}", ",", "#", "!",
          "-", "--force", "\\x70", "\\160", "x", "~", "=", ":", "@", "%", "^", "(", ")", " ", "\t", "''", '""',
          "*", "?", "[", "]", ";", "&", "|", "<", ">", "`", "${", "$(", "\n", "\r", "\v", "\u00e9", "\u00a0", "+",
          "/", ".", "0", "1", "==", "=~", "!="]
WORD_LINES = st.tuples(st.sampled_from(["qa ", "qb ", "qa x ", "env qa ", "qa -- "]),
                       st.lists(st.sampled_from(PIECES), min_size=1, max_size=8)).map(lambda t: t[0] + "".join(t[1]))
WRAPPED_WORD_LINES = st.builds(_wrap, WORD_LINES, st.integers(min_value=0, max_value=20))
# one small edit anywhere in a line: a line continuation, empty quotes, a backslash …
EDITS = ["\\\n", "''", '""', "\\", "\t", " ", "\n", "#", "'", '"', "$", "{", "}", ",", "\r"]
EDITED_LINES = st.tuples(st.one_of(LINES, TOKEN_LINES), st.integers(0, 200), st.sampled_from(EDITS)).map(
    lambda t: t[0][: t[1] % (len(t[0]) + 1)] + t[2] + t[0][t[1] % (len(t[0]) + 1):])


@dataclass
class Run:
    name: str
    argv: list[str]

    @property
    def rendered(self) -> str:
        """The run's words as a rule sees them (quoted only when needed, as ``form_text`` does)."""
        return form_text([Word(self.name), *[Word(a) for a in self.argv]])[0]


@dataclass
class Oracle:
    root: Path
    work: Path
    logs: Path
    bin: Path
    sandbox: tuple[str, ...]

    def run(self, line: str) -> list[Run] | None:
        """Every stub run bash made for ``line``; ``None`` on a timeout."""
        for folder in (self.work, self.logs):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        for name, text in FILES.items():
            (self.work / name).write_text(text)
        if not run_line(line, self.sandbox, self.work, self.bin, TIMEOUT):
            return None
        return [_record(path.read_bytes()) for path in sorted(self.logs.iterdir())]


def _record(data: bytes) -> Run:
    """``name NUL count NUL arg NUL …`` (written by one stub run)."""
    fields = data.split(b"\0")
    name, count = fields[0].decode(), int(fields[1])
    argv = [f.decode("utf-8", "surrogateescape") for f in fields[2 : 2 + count]]
    assert len(argv) == count, data
    return Run(name, argv)


def _stub(folder: Path, logs: Path, name: str) -> None:
    path = folder / name
    path.write_text(
        "#!/bin/bash\n"
        f"f=$(/usr/bin/mktemp '{logs}/run.XXXXXXXX') || exit 99\n"
        f"printf '%s\\0' {name} \"$#\" \"$@\" > \"$f\"\n"
    )
    path.chmod(0o755)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> Oracle:
    root = tmp_path_factory.mktemp("argv").resolve()
    folder, logs = root / "bin", root / "logs"
    folder.mkdir()
    for name in STUBS:
        _stub(folder, logs, name)
    for name in RUNNERS:
        real = shutil.which(name, path="/usr/bin:/bin")
        if real is not None:
            os.symlink(real, folder / name)
    os.symlink(BASH, folder / "sh")  # a shell reading its commands from standard input (bash_stdin)
    return Oracle(root, root / "work", logs, folder, sandbox_prefix(root))


def _forbidden(run: Run) -> bool:
    first = run.argv[0] if run.argv else None
    return (run.name == "qa" and first == "push") or (run.name == "qb" and first == "--force")


def check_line(oracle: Oracle, line: str, allow: tuple[str, ...] = ALLOW, mode: str = "default") -> None:
    """The invariants of the module docstring for one line (bash runs only when one could fail)."""
    oracle.work.mkdir(exist_ok=True)
    ctx = make_ctx(oracle.work, allow=allow, deny=DENY, ask=ASK, mode=mode)
    decision = check_bash_permission(line, ctx)
    read_only = is_read_only_command(line, ctx)
    allowed = isinstance(decision, PermissionAllow)
    if not allowed and not read_only:
        return  # nothing bash does could break an invariant
    runs = oracle.run(line)
    if runs is None:
        return  # a loop that never ends: skip
    if read_only:
        assert runs == [], (line, runs, "called read-only")
    if allowed:
        for run in runs:
            assert not _forbidden(run), (line, run, "allowed")
            text = run.rendered
            assert not any(p.matches(text) for p in PATTERNS), (line, run, text, "allowed")
        analysis = analyze_uncached(line)
        forms = [form for info in analysis.commands for form in info.form_texts]
        if not analysis.problems and all(complete for _text, _known, complete in forms):
            texts = {text for text, _known, _complete in forms}
            for run in runs:
                assert run.rendered in texts, (line, run.rendered, sorted(texts), "not what was analyzed")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line=st.one_of(LINES, LINES, LINES, TOKEN_LINES, EDITED_LINES, WORD_LINES, WRAPPED_WORD_LINES))
def test_generated_lines_never_run_a_denied_argv(oracle, line):
    check_line(oracle, line)


def _stdin_wrap(inner: str, how: int) -> str:
    """``inner`` as the code a shell reads on standard input (a shell always asks: checked in
    bypassPermissions, where the deny and ask rules still hold)."""
    quoted = shlex.quote(inner)
    return [
        f"sh <<'EOF'\n{inner}\nEOF", f"sh <<EOF\n{inner}\nEOF", f"printf '%s\\n' {quoted} | sh",
        f"echo {quoted} | sh", f"sh 0<<< {quoted}", f"cat <<'EOF' | sh -s\n{inner}\nEOF",
        f"sh -s -- x <<< {quoted}", f"printf {quoted} | sh", f"sh <<< {quoted} 0</dev/null",
    ][how]


STDIN_LINES = st.builds(_stdin_wrap, st.one_of(LINES, WORD_LINES), st.integers(min_value=0, max_value=8))


@settings(max_examples=max(EXAMPLES // 3, 50), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line=STDIN_LINES)
def test_code_a_shell_reads_never_runs_a_denied_argv(oracle, line):
    check_line(oracle, line, mode="bypassPermissions")


STDIN_ROWS = ["sh < x", "sh 0<x", "cat x | sh", "sh -s < x", "echo 'qa push' | sh", "sh <<< 'qa pu\\sh'",
              "printf 'qa p%sh\\n' us | sh", "echo qa pu{s,}h | sh", "cat <<'EOF' | sh\nqa push\nEOF"]


@pytest.mark.parametrize("line", STDIN_ROWS)
def test_stdin_rows_never_run_a_denied_argv(oracle, line):
    check_line(oracle, line, mode="bypassPermissions")


ROWS = [
    "qa push", "qa 'push'", "qa pu\\sh", "qa $'\\x70ush'", "qa pu?h", "qa p*", "qa {push,x}",
    "x=push; qa $x", "set -- push; qa \"$@\"", "a=(push); qa ${a[0]}", "qa pu\\\nsh", "qa \\\n push",
    "command qa push", "exec qa push", "env qa push", "nohup qa push", "timeout 5 qa push",
    "FOO=1 qa push", "echo $(qa push)", "f() { qa \"$@\"; }; f push", "qa $(<push)", "qb --f*",
    "qb -\\-force", "qa \u0440ush", "qa -- push", "exec -a push qa push", "set -k; qa x=1 push",
    # holes the oracle found (each was allowed before the fix)
    "echo push | xargs qa",  # xargs appends stdin's words: `qa <words from stdin>` may match
    "echo --force | xargs qb", "xargs -a push qa", "echo push | xargs -I{} qa {}", "echo push | xargs nice qa",
    "set -H -o history\n: push\nqa !!:1",  # history expansion works in `bash -c` too
    "set -o history -H\necho push\nqa !echo:1", "set -Ho history\n: --force\nqb !:1",
    'qa push$""', 'qb --force$""',  # $"" is a translated (empty) string, not a `$`
    # words the analyzer read differently from bash (invariant 5; fixed)
    "qa $ x", "qa -- sh''^$$", "qa pupu %\" $'\"", "qa x \"\\\t\"p#", "qa -- \" \"\"\"shpu-", "qa x =~ y",
    "qa == x", "qa x p=~ P=a:~/b --f=~", 'qb "\n"', 'qa "a\n\nb"', 'qa -- "\n\\x70\n"',
]


@pytest.mark.parametrize("line", ROWS)
def test_rows_never_run_a_denied_argv(oracle, line):
    check_line(oracle, line)


FIND_ROWS = [
    "find push -exec qa {} \\;",  # a hole: `qa {}` is `qa push` at run time (was allowed)
    "find push -exec qa {} +", "find pu* -exec qa {} \\;", "find --force -maxdepth 0 -exec qb {} \\;",
    "find push -exec qb -f \\;", "find . -name push -exec qa -- {} \\;",
]


@pytest.mark.parametrize("line", FIND_ROWS)
def test_find_exec_rows_with_find_allowed(oracle, line):
    check_line(oracle, line, ALLOW + ("Bash(find:*)",))


def test_the_oracle_sees_every_argv(oracle):
    """The oracle itself: whole argv (blanks, newlines, quotes), globs against the files, runners."""
    runs = oracle.run("qa push 'a b' $'c\\nd' '\"' ''; qb --f*")
    assert sorted((r.name, r.argv) for r in runs) == [("qa", ["push", "a b", "c\nd", '"', ""]),
                                                      ("qb", ["--force"])]
    assert [r.argv for r in oracle.run("qa pu?h p[u]sh")] == [["push", "push"]]
    assert [(r.name, r.argv) for r in oracle.run("env FOO=1 nice qa $(<push)")] == [("qa", ["push"])]
    assert oracle.run("ls /") == []
    assert oracle.run("while :; do :; done") is None
    assert [r.rendered for r in oracle.run("qa 'push x' push")] == ["qa 'push x' push"]
    denied = check_bash_permission("qa push -f", make_ctx(oracle.work, allow=ALLOW, deny=DENY, ask=ASK))
    assert isinstance(denied, PermissionDeny)
