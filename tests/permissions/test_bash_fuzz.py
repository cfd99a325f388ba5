"""Generated command lines: the analyzer never crashes and never allows a hidden ``rm``."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.permissions.bash import check_bash_permission, is_read_only_command
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.bash_words import Word
from tests.permissions.tools import make_ctx

SAFE = ["ls", "git status", "cat a.py", "echo ok", "wc -l a.py", "pwd", "head -n 2 a.py", "true"]
# ways of hiding "rm x" inside a line; {r} is the rm command
HIDE = [
    "{r}", "echo $({r})", "echo `{r}`", "cat <({r})", "x=$({r})", "echo \"$({r})\"", "({r})",
    "{{ {r}; }}", "! {r}", "timeout 5 {r}", "nice -n 1 {r}", "FOO=1 {r}", "env A=1 {r}",
    "xargs {r}", "nohup {r}", "sh -c '{r}'", "bash -c \"{r}\"", "eval '{r}'", "sudo {r}",
    "if {r}; then :; fi", "for i in a; do {r}; done", "while {r}; do :; done",
    "case a in a) {r};; esac", "echo ${{x:-$({r})}}", "cat <<EOF\n$({r})\nEOF", "command {r}",
    "time {r}", "exec {r}", "stdbuf -oL {r}", "echo $(echo $({r}))", "ls > >({r})",
    "! ! {r}", "coproc {r}", "watch -n 1 '{r}'", "find . -exec sh -c '{r}' \\;", "find . -exec {r} \\;",
    "bash -o pipefail -c '{r}'", "bash -c -- '{r}'", "builtin eval '{r}'", "su -c '{r}'",
    "until {r}; do :; done", "echo ${{x:-`{r}`}}", "cat <<<$({r})",
]
RM = ["rm x", "rm -rf x", "'rm' x", "r\\m x", "\\rm x", "/bin/rm x", '"rm" -f x', "$'rm' x"]
SEPARATORS = [" && ", " || ", "; ", " | ", " & ", "\n", " |& "]

_CTX = None


def _ctx():
    global _CTX
    if _CTX is None:
        project = Path("/tmp/jupyter-agent-perm-fuzz")
        project.mkdir(exist_ok=True)
        _CTX = make_ctx(project, deny=("Bash(rm:*)",), allow=("Bash(echo:*)", "Bash(git:*)", "Bash(ls:*)"))
    return _CTX


@st.composite
def hidden_rm(draw):
    parts = draw(st.lists(st.sampled_from(SAFE), min_size=0, max_size=4))
    hidden = draw(st.sampled_from(HIDE)).format(r=draw(st.sampled_from(RM)))
    parts.insert(draw(st.integers(0, len(parts))), hidden)
    line = parts[0]
    for part in parts[1:]:
        line += draw(st.sampled_from(SEPARATORS)) + part
    return line


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hidden_rm())
def test_hidden_rm_is_never_allowed(line):
    verdict = check_bash_permission(line, _ctx())
    assert not isinstance(verdict, PermissionAllow), line
    assert not is_read_only_command(line, _ctx()), line


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab $()`'\"\\;&|<>{}[]*?~!#=\n\t-") + ["rm ", "ls ", "EOF", "<<"]),
                max_size=40).map("".join))
def test_arbitrary_text_never_crashes(text):
    verdict = check_bash_permission(text, _ctx())
    assert verdict.behavior in ("allow", "ask", "deny")
    if verdict.behavior == "allow":  # only a line the analyzer fully understood may run
        analysis = analyze(text)
        assert not analysis.problems, (text, analysis.problems)
        assert all(c.innermost[:1] != (Word("rm"),) for c in analysis.commands), text


def test_exit_is_a_harmless_builtin():
    """`python app.py; exit 3` asked about `exit 3` and offered 'Always allow Bash(exit:*)'."""
    project = Path("/tmp/jupyter-agent-perm-exit")
    project.mkdir(exist_ok=True)
    ctx = make_ctx(project, deny=("Bash(rm:*)",), allow=("Bash(python:*)",))
    assert is_read_only_command("exit 3", ctx) and is_read_only_command("exit", ctx)
    assert isinstance(check_bash_permission("python app.py; exit 3", ctx), PermissionAllow)
    assert not isinstance(check_bash_permission("exit $(rm x)", ctx), PermissionAllow)
    assert not isinstance(check_bash_permission("exit 3 > /etc/passwd", ctx), PermissionAllow)
