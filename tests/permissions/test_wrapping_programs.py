"""Programs that run another program their arguments name (``bash_wrappers.WRAPPERS``):
``busybox rm x`` ran under ``Bash(busybox:*)`` with ``Bash(rm:*)`` denied, and so did
``sg wheel -c 'rm x'``, ``perf record rm x`` and ``hyperfine 'rm x'``.  The multiplexers are
wrappers (``busybox sh -c …`` is a shell); sg, perf and hyperfine always ask, and what they run
is checked against deny rules."""

from __future__ import annotations

import grp
import os
import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("busybox rm x", "deny"), ("busybox sh -c 'rm x'", "deny"), ("toybox rm -rf y", "deny"),
    ("sg wheel -c 'rm x'", "deny"), ("perf record rm x", "deny"), ("perf stat -e cycles rm x", "deny"),
    ("hyperfine 'rm x'", "deny"), ("hyperfine --prepare 'rm x' ls", "deny"), ("hyperfine 'sleep 1'", "ask"),
    ("ash -c 'rm x'", "deny"), ("perf report", "ask"), ("busybox ls", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_wrapping_programs_run(world, command, expected):
    allow = tuple(f"Bash({p}:*)" for p in ("busybox", "toybox", "sg", "perf", "hyperfine", "ash"))
    ctx = make_ctx(world.project, allow=allow, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


# Editors run the commands their command line or standard input gives, and those can run a
# shell: `vim -c '!rm -rf y' f` ran rm under Bash(vim:*) with Bash(rm:*) denied.
EDITOR_ROWS = [
    ("vim -c '!rm -rf y' a.py", "ask"), ("vim +'!rm x' a.py", "ask"), ("vim -es a.py", "ask"),
    ("vim -Es '+%p' '+q!' a.py", "ask"), ("nvim --headless -c q", "ask"), ("vi --cmd 'set x' a.py", "ask"),
    ("ed -s a.py", "ask"), ("emacs --eval '(shell-command \"rm x\")'", "ask"), ("emacs --batch -l x.el", "ask"),
    ('vim "$F"', "ask"),
    # session 44: vi-family editors take standard input, when it is no terminal, as typed keys
    # (printf ':!rm x' | vim a.py ran rm): what they run is only known at run time
    ("vim a.py", "ask"), ("vim +10 a.py", "ask"), ("view a.py", "ask"), ("ex a.py", "ask"),
    ("emacs -nw a.py", "allow"), ("nvim a.py", "allow"), ("vim --version", "allow"),
    # a pager's start-up command may run a shell (+!cmd, +|m cmd) or save a file (+s)
    ("less +'!rm x' a.py", "ask"), ("less '+|a rm x' a.py", "ask"), ("more +'!rm x' a.py", "ask"),
    ("less ++sout.txt a.py", "ask"),
    ("less +G a.py", "allow"), ("less -N +100 a.py", "allow"), ("less +/error a.py", "allow"), ("less a.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), [
    ("vim -c '!rm x' a.py", "ask"), ("vim -S s.vim", "ask"), ("ed a.py < cmds", "ask"),
    ("emacs --batch --eval '(shell-command \"rm x\")'", "ask"), ("npm test --script-shell=./x", "ask"),
    ("printf ':!rm x' | vim a.py", "ask"), ("vi a.py < keys", "ask"), ("vim a.py", "ask"),
    ("nvim a.py", "allow"), ("vim --version", "allow"), ("npm test", "allow"),
])
async def test_editor_commands_meet_deny_rules_in_bypass(world, command, expected):
    """An editor's commands are code only known at run time: vim -c '!rm x' ran rm under a
    Bash(rm:*) deny rule in bypassPermissions."""
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("command", "expected"), EDITOR_ROWS)
async def test_editor_commands_ask(world, command, expected):
    allow = tuple(f"Bash({p}:*)" for p in ("vim", "vi", "nvim", "ed", "emacs", "view", "less", "more"))
    ctx = make_ctx(world.project, allow=allow, deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


# More programs that run the command after their options: in bypassPermissions each ran `rm x`
# under a Bash(rm:*) deny rule before it was known.  sg runs its first word in /bin/sh -c, with
# or without -c; coreutils' multi-call binary runs the program --coreutils-prog names.
RUNNER_ROWS = [
    ("ifne rm x", "deny"), ("ifne -n rm x", "deny"), ("rlwrap rm x", "deny"), ("rlwrap -H h rm x", "deny"),
    ("trickle -d 10 rm x", "deny"), ("tsocks rm x", "deny"), ("ccache rm x", "deny"), ("distcc rm x", "deny"),
    ("sccache rm x", "deny"), ("runcon -t t rm x", "deny"), ("runcon ctx rm x", "deny"),
    ("sg grp 'rm x'", "deny"), ("coreutils --coreutils-prog=rm x", "deny"),
    ("coreutils --coreutils-prog-shebang=rm x", "deny"), ("coreutils $P x", "ask"),
    ("ifne ls", "allow"), ("ccache gcc -c a.c", "allow"), ("coreutils --coreutils-prog=ls x", "allow"),
    ("bsub rm x", "deny"), ("bsub -E 'rm x' ls", "deny"), ("pee 'rm x' cat", "deny"), ("cronic rm x", "deny"),
    ("podman unshare rm x", "deny"), ("buildah unshare rm x", "deny"), ("rootlesskit rm x", "deny"),
    ("fakechroot rm x", "deny"), ("schroot -- rm x", "deny"), ("setuidgid me rm x", "deny"),
    ("s6-setuidgid me rm x", "deny"), ("softlimit -m 100 rm x", "deny"), ("envdir d rm x", "deny"),
    ("setlock f rm x", "deny"), ("systemd-nspawn rm x", "deny"), ("lxc-attach -n c -- rm x", "deny"),
    ("torify rm x", "deny"), ("run-parts d", "ask"), ("run-parts --test d", "allow"),
    ("pee ls 'wc -l'", "allow"), ("cronic ls", "allow"),
    # session 44: moreutils' mispipe (two command lines for sh) and zrun (the command, on copies)
    ("mispipe ls 'rm x'", "deny"), ("mispipe 'rm x' cat", "deny"), ("zrun rm x.gz", "deny"),
    ("mispipe \"$X\" wc", "ask"), ("mispipe ls 'wc -l'", "allow"), ("zrun cat a.gz", "allow"),
    # profilers, secret injectors, daemons and per-connection servers, macOS launchers, scl, repo forall
    ("py-spy record -o p.svg -- rm x", "deny"), ("py-spy top -- rm x", "deny"), ("nsys profile -o o rm x", "deny"),
    ("ncu rm x", "deny"), ("nvprof rm x", "deny"), ("heaptrack rm x", "deny"), ("krenew -- rm x", "deny"),
    ("k5start -U -f k -- rm x", "deny"), ("berglas exec -- rm x", "deny"), ("envchain ns rm x", "deny"),
    ("summon rm x", "deny"), ("daemon -- rm x", "deny"), ("tcpserver 0 1 rm x", "deny"),
    ("websocketd --port=8080 rm x", "deny"), ("arch -x86_64 rm x", "deny"), ("sandbox-exec -n p rm x", "deny"),
    ("xcrun rm x", "deny"), ("scl enable devtoolset-9 -- rm x", "deny"), ("scl enable d 'rm x'", "deny"),
    ("scl enable a b 'rm x'", "deny"), ("repo forall -c 'rm x'", "deny"), ("cargo watch -s 'rm x'", "deny"),
    ("cargo watch -- rm x", "deny"), ("ncat -e 'rm x' host 1", "deny"), ("ncat --exec 'rm x' host 1", "deny"),
    ("diff3 --diff-program='rm x' a b c", "deny"), ("sdiff --diff-program=rm a b", "deny"),
    ("mysql --pager='rm x' -e 'select 1'", "deny"), ("mariadb --pager='rm x'", "deny"),
    ("git send-email --smtp-server=/bin/rm a.patch", "deny"), ("git daemon --access-hook=/bin/rm", "deny"),
    ("git send-email --smtp-server smtp.example.com a.patch", "allow"), ("diff3 a b c", "allow"),
    ("py-spy record -- python a.py", "allow"), ("nsys profile python a.py", "allow"), ("arch", "allow"),
    ("scl enable d -- ls", "allow"), ("repo forall -c 'git status'", "allow"), ("envchain ns ls", "allow"),
    # a word only known at run time among a wrapper's options: `nice $N rm x` runs rm when N is empty
    ("nice $N rm x", "ask"), ("env $E rm x", "ask"), ("xargs $X rm", "ask"), ('pee "$C" cat', "ask"),
    ("nice -n 5 ls", "allow"),
    # GNU time's options (bash's keyword only takes -p): the command after them runs
    ("/usr/bin/time -v rm x", "deny"), ("\\time -f %e rm x", "deny"), ("command time -o log rm x", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), RUNNER_ROWS)
async def test_more_runners_meet_deny_rules_in_bypass(world, command, expected):
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


# A wrapper's own options may name a file it writes (strace -o, flock's lock file, rlwrap -l):
# a protected one asks in every mode, as the command's own arguments do.
WRAPPER_WRITES = ["strace -o .git/config true", "ltrace -o .git/config true", "flock .git/newlock true",
                  "lckdo .git/newlock true", "daemonize -o .git/config /bin/true", "rlwrap -l .git/config cat"]


@pytest.mark.parametrize("command", WRAPPER_WRITES)
async def test_a_wrapper_writing_a_protected_file_asks_in_bypass(world, command):
    ctx = make_ctx(world.project, deny=("Edit(./unrelated)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
    harmless = command.replace(".git/", "")
    assert verdict_name(await decide_bash(ctx, harmless)) == "allow", harmless


def test_real_sg_runs_its_word_as_shell_code(tmp_path):
    if shutil.which("sg") is None:
        pytest.skip("sg is not installed")
    group = grp.getgrgid(os.getgid()).gr_name
    done = subprocess.run(["sg", group, "touch M; true"], cwd=tmp_path, capture_output=True, timeout=10)
    if done.returncode != 0:
        pytest.skip(f"sg cannot switch to {group} here: {done.stderr!r}")
    assert (tmp_path / "M").exists()


@pytest.mark.parametrize(("command", "expected"), [
    ("\\time -o log.txt ls", "ask"), ("\\time -olog.txt ls", "ask"), ("command time --output=log.txt ls", "ask"),
    ("\\time -v ls", "allow"), ("time -p ls", "allow"),
])
async def test_gnu_time_writing_its_report_is_no_read_only_command(world, command, expected):
    ctx = make_ctx(world.project)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("command", "expected"), [
    ("sshpass -f .env ls", "deny"), ("sshpass -f.env ls", "deny"),  # the password typed at a prompt
    ("dbus-launch --config-file=.env ls", "deny"), ("sshpass -f a.py ls", "allow"),
    ("ssh-agent -a .git/agent.sock ls", "ask"),  # the socket is made at that path
    # every file of the folder becomes a variable (envdir . env prints .env's first line)
    ("envdir . env", "ask"), ("s6-envdir -I . env", "ask"), ("chpst -e . env", "ask"), ("envdir $D env", "ask"),
    ("envdir sub env", "allow"),
])
async def test_files_wrappers_read_or_make(world, command, expected):
    ctx = make_ctx(world.project, deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_real_nice_with_an_empty_variable_runs_the_command(tmp_path):
    (tmp_path / "victim").write_text("x")
    subprocess.run(["bash", "-c", "nice $N rm victim"], cwd=tmp_path, timeout=10, env={"PATH": os.environ["PATH"]})
    assert not (tmp_path / "victim").exists()


# session 44: a program the analysis does not know may run its arguments as nice does; a word a deny
# or ask rule names among them, with the words after it matching the rule, asks (never denies):
# each of the runners added above ran rm unasked before it was known
UNKNOWN_RUNNER_ROWS = [
    ("some-tool rm x", "ask"), ("some-tool -- rm -rf build", "ask"), ("./tool.sh rm x", "ask"),
    ("/opt/bin/tool --retries 3 rm x", "ask"), ("python tool.py rm x", "ask"), ("node tool.js rm x", "ask"),
    ("some-tool git push origin main", "ask"),  # an ask rule's command
    ("some-tool rmdir x", "allow"), ("some-tool --mode rm-fast", "allow"), ("some-tool x", "allow"),
    # programs whose arguments are data, or whose runs the analysis reads itself
    ("git rm a.py", "allow"), ("man rm", "allow"), ("echo rm x", "allow"), ("grep -n rm a.py", "allow"),
    ("apt-get install -y curl", "allow"), ("pip uninstall -y rm", "allow"), ("timeout 5 some-tool rm x", "ask"),
    ("nice rm x", "deny"), ("uv run rm x", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), UNKNOWN_RUNNER_ROWS)
async def test_an_unknown_program_naming_a_ruled_command_asks(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Bash(rm:*)", "Bash(curl:*)"),
                   ask=("Bash(git push:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_without_deny_or_ask_rules_nothing_changes(world):
    ctx = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    for command in ("some-tool rm x", "python tool.py rm x"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
@pytest.mark.parametrize("editor", ["vim -N -u NONE", "vi", "view", "ex"])
def test_vi_editors_really_run_what_standard_input_types(tmp_path, editor):
    """The ground truth of the rows: a pipe into vim is typed keys, and :!cmd runs cmd."""
    (tmp_path / "a.txt").write_text("hi\n")
    keys = "!touch typed\nq!\n" if editor == "ex" else ":!touch typed\n:qa!\n"
    subprocess.run(f"{editor} a.txt", shell=True, input=keys, text=True, cwd=tmp_path, capture_output=True,
                   timeout=30)
    assert (tmp_path / "typed").exists(), editor
