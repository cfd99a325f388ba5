"""Scheduling, locking and privilege wrappers: the command they run is checked like any other.

``ionice``, ``taskset``, ``chrt``, ``unbuffer`` and ``caffeinate`` only change how a command is
scheduled, so they are peeled like ``nice``.  ``flock``, ``chroot``, ``nsenter``, ``unshare``,
``strace``, ``ltrace``, ``pkexec`` and ``runuser`` also do something of their own (create a
lock file, change root or namespaces, write a trace, switch user): they always ask, and a deny
rule on the command inside them denies.  Options the table does not know ask.
"""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_analysis import analyze_uncached
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RM = {"deny": ("Bash(rm:*)",)}
PYTEST = {"allow": ("Bash(pytest:*)",)}

ROWS = [
    # peeled like nice: deny rules see the command, read-only commands stay read-only
    ("ionice-deny", RM, "ionice -c 3 rm x", "deny"),
    ("ionice-attached", RM, "ionice -c3 -n7 rm x", "deny"),
    ("ionice-read-only", {}, "ionice -c 3 ls", "allow"),
    ("ionice-allow-rule", PYTEST, "ionice -c 3 pytest -q", "allow"),
    ("ionice-pid-unknown", {}, "ionice -p 1234", "ask"),
    ("taskset-deny", RM, "taskset 0x1 rm x", "deny"),
    ("taskset-cpu-list", RM, "taskset -c 0,1 rm x", "deny"),
    ("taskset-read-only", {}, "taskset -c 0 cat a.py", "allow"),
    ("taskset-pid-unknown", {}, "taskset -p 0x1 1234", "ask"),
    ("taskset-mask-missing", {}, "taskset", "ask"),
    ("chrt-deny", RM, "chrt -f 10 rm x", "deny"),
    ("chrt-read-only", {}, "chrt -b 0 ls", "allow"),
    ("chrt-pid-unknown", {}, "chrt -p 10 1234", "ask"),
    ("unbuffer-deny", RM, "unbuffer -p rm x", "deny"),
    ("caffeinate-deny", RM, "caffeinate -i -t 60 rm x", "deny"),
    ("nested-peels", RM, "ionice -c 3 taskset 1 nice -n 5 timeout 9 rm x", "deny"),
    # wrappers with effects of their own: ask, or deny by the inner command
    ("flock-deny", RM, "flock /tmp/l rm x", "deny"),
    ("flock-options-deny", RM, "flock -x -w 5 /tmp/l rm x", "deny"),
    ("flock-asks", {}, "flock /tmp/l ls", "ask"),
    ("flock-asks-under-allow", {"allow": ("Bash(ls:*)",)}, "flock /tmp/l ls", "ask"),
    ("flock-c-deny", RM, "flock /tmp/l -c 'rm x'", "deny"),
    ("flock-command-deny", RM, "flock /tmp/l --command 'ls; rm x'", "deny"),
    ("flock-c-asks", {"allow": ("Bash(ls:*)",)}, "flock /tmp/l -c ls", "ask"),
    ("flock-c-dynamic", {}, 'flock /tmp/l -c "$CODE"', "ask"),
    ("flock-fd", {}, "flock 9", "ask"),
    ("chroot-deny", RM, "chroot /srv/root rm x", "deny"),
    ("chroot-userspec", RM, "chroot --userspec=1:1 /srv/root rm x", "deny"),
    ("chroot-asks", {"allow": ("Bash(ls:*)",)}, "chroot /srv/root ls", "ask"),
    ("nsenter-deny", RM, "nsenter -t 1 -m -u rm x", "deny"),
    ("unshare-deny", RM, "unshare -r rm x", "deny"),
    ("strace-deny", RM, "strace -f -o /tmp/t rm x", "deny"),
    ("strace-asks", {}, "strace -o /tmp/t ls", "ask"),
    ("ltrace-deny", RM, "ltrace -o /tmp/t rm x", "deny"),
    ("pkexec-deny", RM, "pkexec rm x", "deny"),
    ("pkexec-user-deny", RM, "pkexec --user bob rm x", "deny"),
    ("runuser-u-deny", RM, "runuser -u bob -- rm x", "deny"),
    ("runuser-c-deny", RM, "runuser -c 'rm x' bob", "deny"),
    ("runuser-asks", {"allow": ("Bash(ls:*)",)}, "runuser -u bob ls", "ask"),
    ("unknown-option-asks", {"allow": ("Bash(rm:*)",)}, "ionice --bogus rm x", "ask"),
    # a file a wrapper reads is a read: xargs -a FILE echoes FILE's words
    ("xargs-arg-file-denied", {"deny": ("Read(./.env)",)}, "xargs -a .env echo", "deny"),
    ("xargs-arg-file-long", {"deny": ("Read(./.env)",)}, "xargs --arg-file=.env echo", "deny"),
    ("xargs-arg-file-attached", {"deny": ("Read(./.env)",)}, "xargs -a.env echo", "deny"),
    ("xargs-arg-file-link", {"deny": ("Read(./.env)",)}, "xargs -a env-link echo", "deny"),
    ("xargs-arg-file-under-allow", {"deny": ("Read(./.env)",), "allow": ("Bash(echo:*)",)},
     "xargs -a .env echo", "deny"),
    ("xargs-arg-file-outside", {}, "xargs -a /etc/hostname echo", "ask"),
    ("xargs-arg-file-dynamic", {}, "xargs -a $F echo", "ask"),
    ("xargs-arg-file-inside", {}, "xargs -a a.py echo", "allow"),
    # words from stdin land among the options of a wrapper xargs runs (found by the read oracle)
    ("xargs-xargs-options", {"deny": ("Read(./.env)",)}, "echo -a.env | xargs xargs -a x", "ask"),
    ("xargs-xargs", {}, "ls | xargs xargs", "ask"),
    ("xargs-env", {}, "ls | xargs env", "ask"),
    ("xargs-nice", {}, "ls | xargs nice", "ask"),
    ("xargs-echo", {}, "ls | xargs echo", "allow"),
]


@pytest.mark.parametrize(("settings", "command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_wrapper_rows(world, settings, command, expected):
    ctx = make_ctx(world.project, allow=settings.get("allow", ()), deny=settings.get("deny", ()))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize(
    ("command", "innermost"),
    [
        ("ionice -c 3 taskset 1 chrt -r 5 git status", "git status"),
        ("flock -n /tmp/l make test", "make test"),
        ("runuser -u bob -- pytest -q", "pytest -q"),
    ],
)
def test_innermost_form_is_the_real_command(command, innermost):
    (info,) = analyze_uncached(command).commands
    assert info.text == innermost
    assert [w.text for w in info.forms[0]] == command.split()


def test_flock_c_script_is_analyzed_as_commands():
    commands = analyze_uncached("flock /tmp/l -c 'ls; rm -rf build'").commands
    programs = [info.innermost[0].text for info in commands if info.innermost]
    assert programs == ["flock", "ls", "rm"]
    assert commands[0].ask_reason == "flock -c runs a string as shell code"
