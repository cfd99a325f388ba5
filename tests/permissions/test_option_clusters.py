"""Wrappers' option clusters and options after their positionals (session 43).

``sudo -Eu root rm x`` ran unasked under ``Bash(rm:*)``: sudo takes any flag, so ``-Eu`` read as
one flag and ``root`` as the command; the ``u`` at the end of the cluster takes the next word, as
getopt has it.  Likewise ``watch -tn 1``, ``strace -fo out``/``-fe trace=all``, ``sudo -iu``/
``-nku``.  ``perf stat -e cycles rm x`` and ``setarch x86_64 -R rm x``: options after the
positional (perf's subcommand, setarch's architecture) were taken for the command.  And two
runners not known before: ``dotenvx run … -- CMD`` and ``chamber exec SERVICE… -- CMD``.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("sudo -Eu root rm x", "deny"),
    ("sudo -iu root rm x", "deny"),
    ("sudo -nku root rm x", "deny"),
    ("sudo -uroot rm x", "deny"),  # the value attached
    ("watch -tn 1 rm x", "deny"),
    ("strace -fo out rm x", "deny"),
    ("strace -fe trace=all rm x", "deny"),
    ("timeout -vk 5 10 rm x", "deny"),
    ("timeout -k5 10 rm x", "deny"),
    ("xargs -tI{} rm {}", "deny"),
    ("xargs -0n1 rm", "deny"),
    ("env -iu X rm x", "deny"),
    ("flock -nw 5 f rm x", "deny"),
    ("perf stat -e cycles rm x", "deny"),
    ("perf stat -o f -- rm x", "deny"),
    ("setarch x86_64 -R rm x", "deny"),
    ("flock f -x -c 'rm x'", "deny"),
    ("dotenvx run -qf .env.ci -- rm x", "deny"),
    ("dotenvx run rm x", "deny"),
    ("chamber exec svc other -- rm x", "deny"),
    ("xargs --replace rm {}", "deny"),  # --replace takes a value only after = (it read rm as its value)
    ("xargs --eof rm", "deny"), ("xargs --max-lines rm", "deny"), ("xargs --replace=X rm X", "deny"),
    # what runs nothing denied
    ("sudo -Eu root ls", "ask"),  # (sudo always asks)
    ("watch -tn 1 ls", "ask"),  # (watch runs shell code: asks)
    ("timeout -vk 5 10 ls", "allow"),
    ("perf stat -e cycles ls", "ask"),  # (perf writes what it records)
    ("setarch x86_64 -R ls", "allow"),
    ("dotenvx run -f .env.ci -- ls", "allow"),
    ("chamber exec svc -- ls", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_wrapper_options_are_read_as_getopt_reads_them(tmp_path, command, expected):
    allowed = ("Bash(ls:*)", "Bash(timeout:*)", "Bash(setarch:*)", "Bash(dotenvx:*)", "Bash(chamber:*)")
    ctx = make_ctx(tmp_path, allow=allowed, deny=("Bash(rm:*)",), mode="default")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.parametrize("command", ["timeout -vk 5 10 rm x", "timeout -k5 10 rm x", "env -iu X rm x",
                                     "echo x | xargs -tI{} rm {}", "printf x | xargs -0n1 rm",
                                     "echo x | xargs --replace rm {}", "env -i -- FOO=1 rm x"])
def test_real_programs_read_the_clusters_so(tmp_path, command):
    """The ground truth of the rows: the cluster's last letter takes the next word, and ``rm x`` runs."""
    (tmp_path / "x").write_text("")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "x").exists(), command


LOCAL_SSH = [  # ssh to this machine runs the line's code here: its host was misread after -qi KEY
    ("ssh -qi key localhost 'echo x > .git/config'", "ask"),
    ("ssh -qp 22 localhost 'echo x > .git/config'", "ask"),
    ("ssh -4qi key localhost 'cat .e*'", "deny"),
    ("ssh -qp22 localhost 'cat .e*'", "deny"),  # (the value attached: read before too)
    ("ssh -qi key remote 'echo x > .git/config'", "allow"),  # another machine's .git
]


@pytest.mark.parametrize(("command", "expected"), LOCAL_SSH)
async def test_ssh_options_before_a_local_host(tmp_path, command, expected):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".env").write_text("SECRET=1\n")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    ("sudo -e .git/config", "ask"), ("sudo --edit .git/config", "ask"), ("sudo -Ae .git/config", "ask"),
    ("sudo -u root -e .claude/settings.json", "ask"),
    ("sudo -ue .git/config", "allow"),  # -u takes "e" (a user): .git/config is the command, run
    ("sudo -e a.py", "allow"),
])
async def test_sudo_edit_writes_its_operands(tmp_path, command, expected):
    """``sudo -e FILE`` is sudoedit: it writes FILE (it ran in bypassPermissions on .git/config,
    read as a program of that name)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("")
    ctx = make_ctx(tmp_path, mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    # GNU tools under their g names (Homebrew) are the tools: they ran rm x unseen
    ("grm x", "deny"), ("gtimeout 5 rm x", "deny"), ("gxargs rm < f", "deny"), ("gnice rm x", "deny"),
    ("genv FOO=1 rm x", "deny"), ("gfind . -exec rm {} +", "deny"), ("gtar --to-command='rm x' -xf a.tar", "deny"),
    # systemd's run0 runs its command as sudo does
    ("run0 rm x", "deny"), ("run0 -u root rm x", "deny"), ("run0 --user=root rm x", "deny"),
    ("gtimeout 5 ls", "allow"), ("run0 ls", "allow"), ("gdu -sh .", "allow"),
])
async def test_other_names_of_the_same_programs(tmp_path, command, expected):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_a_rule_naming_a_g_name_names_the_tool(tmp_path):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(grm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "rm x")) == "deny"


@pytest.mark.parametrize(("command", "expected"), [
    # long options taking the next word, on wrappers that take any flag: the value was the command
    ("sudo --host h rm x", "deny"), ("sudo --close-from 3 rm x", "deny"), ("sudo --role r rm x", "deny"),
    ("sudo --command-timeout 5 rm x", "deny"), ("sudo --other-user u rm x", "deny"),
    ("unshare --propagation slave rm x", "deny"), ("strace --output out rm x", "deny"),
    ("ltrace --output out rm x", "deny"),
    # perf stat's --pre/--post hooks are shell code
    ("perf stat --pre 'rm x' ls", "deny"), ("perf stat --post='rm x' ls", "deny"),
    # a long option not known to take no value, alone: what runs is not known
    ("sudo --some-new-option rm x", "ask"), ("sudo --some-new-option ls", "ask"),
    ("sudo --preserve-env ls", "allow"), ("sudo --login ls", "allow"), ("perf stat --null ls", "allow"),
    ("hyperfine --warmup 3 'rm x'", "deny"),
    ("env --ignore-signal=INT rm x", "deny"), ("env --default-signal rm x", "deny"), ("env -a name rm x", "deny"),
    ("env -i -- FOO=1 rm x", "deny"),  # env takes NAME=VALUE after -- too (FOO=1 was read as the command)
    ("env -- LD_PRELOAD=./x.so ls", "ask"), ("env -- FOO=1 ls", "allow"),
])
async def test_long_options_of_wrappers_that_take_any_flag(tmp_path, command, expected):
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)
