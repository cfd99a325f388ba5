"""Execution oracle: real bash RUNS generated lines, and the programs that really ran judge us.

A temp ``bin/`` holds stub programs ``qa``, ``qb``, ``qc`` (and ``nohup``, which runs its
arguments) that log their own name; bash runs each line with only that folder on ``PATH`` in an
empty folder (inside ``bwrap`` when it works), so only builtins and the stubs can run.  For every
line (generated from a token vocabulary, or one of the fixed rows below):

1. allowed with ``Bash(qa:*)``, ``Bash(qb:*)`` as the only allow rules → bash ran only qa/qb;
   and likewise with rules that also allow bash's builtins (``Bash(printf:*)``,
   ``Bash(declare:*)``, ``Bash(shopt:*)`` …, ``BUILTIN_RULES``): a builtin may not run code
   hidden in a quoted word (``printf -v 'a[$(qc)]' 1``) or change what a later word runs;
2. bash ran ``qc`` → not allowed with ``Bash(qc:*)`` denied (deny or ask), in the default
   mode and in bypassPermissions with ``Bash(*)`` allowed (code only known at run time must
   meet the deny rule there too: ``printf -v 'a[$(qc)]' 1`` ran qc before session 39);
3. the analysis has no problems → every program bash ran is one of the analyzer's commands
   (or the analyzer saw a program name it cannot know or a command that always asks);
4. called read-only (``is_read_only_command``) → bash ran no stub at all.

Raise ``ORACLE_EXAMPLES`` (e.g. 20000) to hunt for holes; CI runs a fixed, derandomized set.
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

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command
from jupyter_agent.permissions.bash_analysis import analyze_uncached
from jupyter_agent.permissions.shell_invocation import shell_call
from tests.permissions.oracle_shell import BASH, run_line, sandbox_prefix
from tests.permissions.tools import make_ctx

STUBS = {"qa": 0, "qb": 1, "qc": 0}  # name → exit status (qb fails: `while qb` ends)
BUILTINS = ("printf", "read", "test", "[", "declare", "typeset", "local", "export", "readonly", "unset", "getopts",
            "wait", "mapfile", "readarray", "let", "shopt", "set", "hash", "alias", "compgen", "jobs", "history",
            "echo", "type", "cd", "true", ":")
BUILTIN_RULES = tuple(f"Bash({b}:*)" for b in BUILTINS)
RUNNERS = ("nohup",)  # stubs named like wrappers: log, then run their arguments
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "400"))
TIMEOUT = 3.0

pytestmark = pytest.mark.skipif(not os.path.exists(BASH), reason="needs /bin/bash")

BODIES = [
    "$(qc)", "`qc`", "${x:-$(qc)}", "$((1+2))", "$((10#$(qc)))", "$[$(qc)]", "a ) b $ c", "$x",
    "\\$(qc)", "$ (qc)", "$( qc )", "'$(qc)'", '"$(qc)"', "$(qa)$(qc)", "$(qa $(qc))", "x $(( 2 ))",
    "$(case x in x) qc;; esac)", "${x:-`qc`}", "plain text", "$(qa)", "\\`qc\\`", "$(qa\nqc)",
    "${x#$(qc)}", "$'$(qc)'", "$(qa) )", "$(qa) $ ( )", "\t$(qc)", "$(<x)", "${x[$(qc)]}",
    "$(echo ')')$(qc)", "$(# )\nqc)", "\\\n$(qc)", "$(qa <<E\n$(qc)\nE\n)", "$((1)); qc)", "$((qc))", "$( (qc) )", "EOF ", " EOF", "\tEOF", " EOF\nqa '", "EOF \nqa \"",
    "EOFX", "$(qa)EOF", "EOF)", "\\\\$(qc)", "\\`qc`", "$'\\'$(qc)'", "${x:-'$(qc)'}", "${x:-\"$(qc)\"}", "\u00e9\u00e9 $(qa) \\$(qc) `qc`",
]
DELIMS = ["EOF", "'EOF'", '"EOF"', "\\EOF", "E\"O\"F", "-EOF", "-'EOF'", " EOF", "E'O'F", "EO\\F"]
TOKENS = [
    "qa", "qb", "qc", " ", " ", " ", ";", "&&", "||", "|", "|&", "&", "\n", "$(", ")", "`", "'", '"',
    "\\", "<<", "EOF", "\nEOF\n", ">x", "2>&1", "<", "#", "{ ", " }", "(", "$x", "${x:-", "}", "=",
    "<(", "$'", "\t", "!", "if ", "then ", "else ", "fi", "for v in qa qc; do ", "do ", "done",
    "case qc in qc) ", ";;", "esac", "[[ ", " ]]", "-n ", " =~ ", " == ", "^", "{qa,qc}", "{qc,qa}", "*", "~", "<<<",
    "x=qc ", "x=qc; ", "export ", "coproc ", "time ", "coproc qa ", "time -p ", "command ", "builtin ", "nohup ", "f() { ",
    "f", "$((", "))", "10#", "$[", "]", "while qb; do ", "until qa; do ", "$x ", "\"$x\"", "$v",
    "$(qc)", "`qc`", "<<'EOF'", "<<\"EOF\"", "<<-", "\\\n", "$'qc'", "q\\c", "'qc'", "declare ",
    "local ", "readonly ", "typeset ", "x[", "$(qa)", ":", "true", "echo ", "printf %s ",
    "{qa;}", "{", "\u00a0", ">|", "2>&-", "((", '$"', "qa=1 ", "select v in qc; do ", "function f { ",
    "\u00e9", "x\u00e9 ",
    "printf -v ", "'a[$(qc)]' ", "'a[0]' ", "read ", "<<< x", "let ", "test -v ", "[ -v ", "declare -i y; y=",
    "declare -n r=", "$r", "mapfile -C qc -c 1 a ", "compgen -W ", "shopt -s expand_aliases\n", "alias qa=qc\n",
    "hash -p \"$(command -v qc)\" qa; ", "jobs -x ", "set -k; ", "shopt -s dotglob; ", "export -n ",
    "| sh", "| sh -s", " sh", "sh <<<", "sh 0<<< ", "printf '%s\\n' ", "printf 'q%sc\\n' ", "cat x | sh",
    "echo qa\\; qc | sh", "sh <<'EOF'\n", "echo 'qc' | ",
]


@st.composite
def heredoc(draw) -> str:
    """A heredoc with a body from BODIES, sometimes followed by more code on its line."""
    delim = draw(st.sampled_from(DELIMS))
    word = delim.lstrip("-").strip().replace("'", "").replace('"', "").replace("\\", "")
    body = "\n".join(draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=3)))
    if delim.startswith("-"):
        body = "\t" + body.replace("\n", "\n\t")
    program = draw(st.sampled_from(["qa", "qb", "echo", ":", "f", "$(qa", "x=$(qa", "sh", "cat"]))
    after = draw(st.sampled_from(["", "; qb", " | qb", " && qa", " <<A", ")", " $(qc)", " `qc`", " >x",
                                  " | qc", " || qc", " & qc", " |& { qc; }", " # c", " && qa <<B"]))
    text = f"{program} <<{delim}{after}\n{body}\n{word}\n"
    if after.endswith(("<<A", "<<B")):
        text += draw(st.sampled_from(BODIES)) + "\n" + after[-1] + "\n"
    return text


TOKEN_LINES = st.lists(st.one_of(st.sampled_from(TOKENS), heredoc()), min_size=1, max_size=10).map("".join)
WORDS = ["qa", "qb", "qc", "$(( '$(qc)' ))", "'qc'", '"qc"', "q\\c", "$'qc'", "{qa,qc}", "$x", '"$x"', "$((1+2))", "$[1]",
         ">x", "2>&1", "-n", "x=qc", "--", "*", "~", "\\", "#c", "a\\ qc", "q''c", "$''qc"]
PREFIXES = ["", "x=qc ", "command ", "builtin ", "nohup ", "time ", "! ", "coproc ", "export ", "declare ",
            "local ", "exec 2>&1; "]


def _statement(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    word = st.one_of(st.sampled_from(WORDS), inner.map(lambda s: f"$({s})"), inner.map(lambda s: f"`{s}`"),
                     inner.map(lambda s: f'"$({s})"'), inner.map(lambda s: f"${{x:-$({s})}}"),
                     inner.map(lambda s: f"<({s})"), inner.map(lambda s: f"<<<$({s})"))
    simple = st.tuples(st.sampled_from(PREFIXES), st.lists(word, min_size=1, max_size=3)).map(
        lambda t: t[0] + " ".join(t[1]))
    return st.one_of(
        simple, simple,
        st.tuples(inner, st.sampled_from([";", "&&", "||", "|", "|&", "&", "\n"]), inner).map(" ".join),
        inner.map(lambda s: f"( {s} )"), inner.map(lambda s: f"{{ {s}; }}"),
        st.tuples(inner, inner).map(lambda t: f"if {t[0]}; then {t[1]}; fi"),
        st.tuples(st.lists(word, max_size=2), inner).map(lambda t: f"for v in {' '.join(t[0])}; do {t[1]}; done"),
        st.tuples(word, inner).map(lambda t: f"case {t[0]} in qc|*) {t[1]};; esac"),
        inner.map(lambda s: f"f() {{ {s}; }}; f"), inner.map(lambda s: f"x={s}; $x"),
        heredoc(),
        # code a shell reads on standard input (bash_stdin)
        inner.map(lambda s: f"echo {shlex.quote(s)} | sh"), inner.map(lambda s: f"sh <<< {shlex.quote(s)}"),
        inner.map(lambda s: f"printf '%s\\n' {shlex.quote(s)} | sh -s"), inner.map(lambda s: f"sh <<'E'\n{s}\nE\n"),
        inner.map(lambda s: f"cat <<'E' | sh\n{s}\nE\n"),
    )


GRAMMAR_LINES = st.recursive(st.sampled_from(["qa", "qb", "qc", "echo qc", ":"]), _statement, max_leaves=6)
LINES = st.one_of(TOKEN_LINES, GRAMMAR_LINES)


@dataclass
class Oracle:
    root: Path
    work: Path  # bash's cwd and the project of the permission context
    log: Path
    bin: Path
    sandbox: tuple[str, ...]

    def run(self, line: str) -> list[str] | None:
        """The programs (stubs) bash ran for ``line``, in order; ``None`` on a timeout."""
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir()
        self.log.write_bytes(b"")
        if not run_line(line, self.sandbox, self.work, self.bin, TIMEOUT):
            return None
        records = self.log.read_bytes().split(b"\x1e")
        return [r.split(b"\x1f", 1)[0].decode() for r in records if r]


def _stub(oracle_bin: Path, log: Path, name: str, status: int, runner: bool) -> None:
    script = f"#!/bin/sh\nprintf '%s\\037%s\\036' {name} \"$*\" >> '{log}'\n"
    if runner:
        script += '[ "$1" = "--" ] && shift\n[ $# -gt 0 ] && exec "$@"\n'
    script += f"exit {status}\n"
    path = oracle_bin / name
    path.write_text(script)
    path.chmod(0o755)




@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> Oracle:
    root = tmp_path_factory.mktemp("oracle").resolve()
    (root / "bin").mkdir()
    log = root / "log"
    for name, status in STUBS.items():
        _stub(root / "bin", log, name, status, False)
    for name in RUNNERS:
        _stub(root / "bin", log, name, 0, True)
    os.symlink(BASH, root / "bin" / "sh")  # a shell reading its commands from standard input (bash_stdin)
    return Oracle(root, root / "work", log, root / "bin", sandbox_prefix(root))


def _ctx(oracle: Oracle, **rules):
    return make_ctx(oracle.work, **rules)


def _analyzer_programs(line: str) -> tuple[list[str], set[str], bool]:
    """Problems, every program name the analyzer saw, and whether one is unknown: not a fixed
    word, or a command that always asks (``command $x``: the options are not understood).  A
    shell's script operand counts as seen: ``sh qa`` runs the stub's text, found on PATH, as a
    script (whose commands the analyzer reads from the file)."""
    analysis = analyze_uncached(line)
    names: set[str] = set()
    unknown = False
    for info in analysis.commands:
        unknown = unknown or info.ask_reason is not None
        for form in info.forms:
            if form:
                program = form[0].literal
                unknown = unknown or program is None
                names.add(program or "")
                if program in ("sh", "bash"):
                    call = shell_call([w.literal for w in form[1:]], program)
                    if call.mode == "file" and call.operand is not None:
                        names.add(os.path.basename(form[1 + call.operand].literal or ""))
    return analysis.problems, names, unknown


def check_line(oracle: Oracle, line: str) -> None:
    """The invariants of the module docstring for one line (bash runs only if needed)."""
    oracle.work.mkdir(exist_ok=True)
    allowed = check_bash_permission(line, _ctx(oracle, allow=("Bash(qa:*)", "Bash(qb:*)")))
    builtins = check_bash_permission(line, _ctx(oracle, allow=("Bash(qa:*)", "Bash(qb:*)", *BUILTIN_RULES)))
    denied = check_bash_permission(line, _ctx(oracle, deny=("Bash(qc:*)",)))
    bypass = check_bash_permission(line, _ctx(oracle, allow=("Bash(*)",), deny=("Bash(qc:*)",), mode="bypassPermissions"))
    problems, names, unknown = _analyzer_programs(line)
    read_only = is_read_only_command(line, _ctx(oracle))
    if not any(isinstance(v, PermissionAllow) for v in (allowed, builtins, denied, bypass)) and (
        problems or unknown
    ) and not read_only:
        return  # nothing bash does could break an invariant
    ran = oracle.run(line)
    if ran is None:
        return  # a loop that never ends: skip
    if isinstance(allowed, PermissionAllow):
        assert set(ran) - set(RUNNERS) <= {"qa", "qb"}, (line, ran, "allowed with only qa/qb allowed")
    if isinstance(builtins, PermissionAllow):
        assert set(ran) - set(RUNNERS) <= {"qa", "qb"}, (line, ran, "allowed with qa/qb and builtins allowed")
    if "qc" in ran:
        assert not isinstance(denied, PermissionAllow), (line, ran, "allowed with qc denied")
        assert not isinstance(bypass, PermissionAllow), (line, ran, "allowed in bypassPermissions with qc denied")
    if not problems and not unknown:
        assert set(ran) <= names, (line, ran, sorted(names), "ran a program the analyzer missed")
    if read_only:  # the stubs are no read-only programs (a runner's stub logs itself: `nohup declare x`)
        assert [name for name in ran if name not in RUNNERS] == [], (line, ran, "called read-only")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(line=LINES)
def test_generated_lines_run_only_what_the_analyzer_saw(oracle, line):
    check_line(oracle, line)


ROWS = [
    "echo $(( 'a[$(qc)]' ))",  # quotes do not quote inside $((…)): bash runs qc
    "echo $(( x'$(qc)' ))",
    "echo $[ '$(qc)' ]",
    "qa <<EOF\n$(( '$(qc)' ))\nEOF",
    "qa <<EOF\n$(qc)\nEOF",
    "qa <<'EOF'\n$(qc)\nEOF",
    "qa <<EOF\n`qc`\nEOF",
    "qa <<EOF\n${x:-$(qc)}\nEOF",
    "qa <<EOF\n$((10#$(qc)))\nEOF",
    "qa <<EOF\na ) b $ c\nEOF",
    "echo $(qc)",
    "echo ${x:-$(qc)}",
    "x=qc; $x",
    "f() { qc; }; f",
    "{qc,qa}",
    "command qc",
    "nohup qc",
    "time qc",
    "coproc qc",
    "! qc",
    "qa |& qc",
    "qa & qc",
    "qa <<< $(qc)",
    "for v in qa qc; do $v; done",
    "case qc in qc) qc;; esac",
    "[[ -n $(qc) ]]",
    "echo $[$(qc)]",
    # holes the oracle found (each was allowed before the fix)
    "qb <<E'O'F\nx\nEOF\nqc\nE'O'F\n",  # bash's delimiter is EOF: qc runs
    'qb <<E"O"F\nx\nEOF\nqc\nE"O"F\n',
    "echo <<EOF\n${x:-'$(qc)'}\nEOF\n",  # in a heredoc or "..." the single quotes are text
    "echo \"${x:-'$(qc)'}\"",
    "echo \"${x:-$'$(qc)'}\"",
    "echo \"${x:-a'$(qc)'}\"",
    "qa - <<EOF\n$(qc)\nEOF\n",
    "[[ x =~ ^`qc`$ ]]",  # a regex node keeps the backticks as text
    "[[ x =~ a|`qc` ]]",
    "time { qc; }",  # tree-sitter: a command `{` with the argument qc (asked only for `}`)
    "coproc qa { qc; }",
    "! { qc; }",
    "time -p if qc; then :; fi",
    "qa <<EOF\n EOF\nqa '\nEOF\nqc\n'",  # tree-sitter ends the heredoc at " EOF", bash does not
    "qa <<EOF\nx\nEOF \nqa '\nEOF\nqc\n'",
    "qa <<-EOF\n \tEOF\nqa '\nEOF\nqc\n'",
    "qa <<EOF | qb\n$(qc)\nEOF",  # statements tree-sitter puts inside the heredoc redirect
    "qa <<'EOF' && qc\nx\nEOF",
    "qa <<EOF |& qc $(qb)\nx\nEOF",
    "qa << EOF && qa <<B\nx\nEOF\ny\nB\nqa << EOF | qb\nz\nEOF\n",  # tree-sitter swaps the bodies
    # builtins allowed by rules that run code hidden in a quoted word (found by hand, session 8)
    "printf -v 'a[$(qc)]' 1",
    "read 'a[$(qc)]' <<< x",
    "test -v 'a[$(qc)]'",
    "[ -v 'a[$(qc)]' ]",
    "declare 'a[$(qc)]=1'",
    "declare -a 'a=($(qc))'",
    "declare -i y='a[$(qc)]'",
    "declare -i y; y='a[$(qc)]'",
    "let 'a[$(qc)]=1'",
    "x='a[$(qc)]'; let x+1",
    "mapfile -C qc -c 1 a <<< x",
    "compgen -W '$(qc)' x",
    "jobs -x qc",
    "hash -p \"$(command -v qc)\" qa; qa",
    "shopt -s expand_aliases\nalias qa=qc\nqa",
    # session 39: the same in bypassPermissions, and [[ ]] arithmetic
    "[[ 'a[$(qc)]' -eq 1 ]]",
    "x='a[$(qc)]'; [[ $x -eq 1 ]]",
    "[[ -v 'a[$(qc)]' ]]",
    "x='a[$(qc)]'; let y=x",
]


@pytest.mark.parametrize("line", ROWS)
def test_rows_run_only_what_the_analyzer_saw(oracle, line):
    check_line(oracle, line)


def test_the_oracle_sees_what_bash_runs(oracle):
    """The oracle itself: stubs log, background jobs are waited for, a hang is a skip."""
    assert oracle.run("qa; qb") == ["qa", "qb"]
    assert oracle.run("(qb; qc) & qa") is not None
    assert sorted(oracle.run("(qb; qc) & qa")) == ["qa", "qb", "qc"]
    assert oracle.run("nohup qc") == ["nohup", "qc"]
    assert oracle.run("qa <<EOF\n$(qc)\nEOF") == ["qc", "qa"]
    assert oracle.run("qa <<'EOF'\n$(qc)\nEOF") == ["qa"]
    assert oracle.run("ls /") == []  # not on PATH
    assert oracle.run("while :; do :; done") is None
