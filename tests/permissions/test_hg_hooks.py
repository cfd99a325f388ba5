"""Mercurial's hooks, shell aliases and program settings (``hg_hooks.py``): under ``Bash(*)``
allowed and ``Bash(rm:*)`` denied in bypass, ``hg --config hooks.pre-status='rm x' status`` ran rm
unasked, as a ``[hooks]`` entry of ``.hg/hgrc`` or ``~/.hgrc`` did.  Every row that denies or asks
below was allowed before.  (No Mercurial on this machine: the events follow its documentation,
``hg help config.hooks``.)"""

from __future__ import annotations

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
REPO_HOOKS = "[hooks]\nprecommit.lint = rm -rf build\npre-status = echo ok\npost-push = rm -f sent\n"
ALIASES = "[alias]\nwipe = !rm -rf $1\nlg = log -G\nmine = status -m\n[hooks]\npre-status =\n"

ROWS = [
    # a --config given on the command line: its command runs
    (None, "hg --config hooks.pre-status='rm x' status", "deny"),
    (None, "hg --config=hooks.post-status='rm -rf y' st", "deny"),  # st is status
    (None, "hg --config hooks.pre-commit.x='rm x' ci -m msg", "deny"),
    (None, "hg --config alias.w='!rm x' w", "deny"),
    (None, "hg --config hooks.precommit='rm x' commit -m x", "ask"),  # an event: may fire
    (None, "hg --config ui.ssh='rm x' pull", "ask"), (None, "hg --cwd sub --config hooks.pre-log='rm x' log", "deny"),
    (None, "hg --config hooks.pre-log='rm x' status", "ask"),  # another command's hook: a setting that runs a program
    (None, "hg --config hooks.pre-status='echo hi' status", "ask"),  # (asks in every mode)
    (None, "hg --config ui.username=me commit -m x", "allow"), (None, "hg status", "allow"),
    # the repository's .hg/hgrc
    (REPO_HOOKS, "hg commit -m msg", "ask"), (REPO_HOOKS, "hg ci -m msg", "ask"), (REPO_HOOKS, "hg push", "deny"),
    (REPO_HOOKS, "cd sub && hg push", "deny"), (REPO_HOOKS, "hg -R . push", "deny"),
    (REPO_HOOKS, "hg status", "allow"), (REPO_HOOKS, "hg log -l 3", "allow"), (REPO_HOOKS, "hg diff", "allow"),
    (ALIASES, "hg wipe build", "deny"), (ALIASES, "hg lg", "allow"), (ALIASES, "hg mine", "allow"),
    ("[extensions]\nx = ./ext.py\n", "hg status", "ask"),  # an extension's strings (ext.py: os.system("rm x"))
    ("[hooks]\npre-status = python:./ext.py:hook\n", "hg status", "ask"),
    ("[hooks]\npre-status = python:hgext_mine.hook\n", "hg status", "ask"),  # a module: not read here
    ("[extensions]\nrebase =\n", "hg status", "allow"),
    ("%include more.rc\n", "hg push", "deny"),  # (more.rc: [hooks] pre-push = rm x)
    ("[hooks]\npre-push = rm x\n%unset pre-push\n", "hg push", "allow"),
    ("[hooks]\npre-push = echo start\n  rm -rf out\n", "hg push", "deny"),  # a continuation line
]


@pytest.mark.parametrize(("hgrc", "command", "expected"), ROWS)
async def test_what_mercurial_runs_from_its_settings(world, hgrc, command, expected):
    (world.project / ".hg").mkdir()
    (world.project / "ext.py").write_text('import os\nos.system("rm x")\n')
    (world.project / ".hg" / "more.rc").write_text("[hooks]\npre-push = rm x\n")
    if hgrc is not None:
        (world.project / ".hg" / "hgrc").write_text(hgrc)
    verdict = await decide_bash(make_ctx(world.project, **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


async def test_the_users_settings_count(world):
    (world.project / ".hg").mkdir()
    (world.home / ".hgrc").write_text("[hooks]\npre-update = rm -rf cache\n")
    ctx = make_ctx(world.project, **_RULES)
    assert verdict_name(await decide_bash(ctx, "hg update default")) == "deny"
    assert verdict_name(await decide_bash(ctx, "hg up default")) == "deny"
    assert verdict_name(await decide_bash(ctx, "hg status")) == "allow"


async def test_a_setting_naming_a_program_asks_past_an_allow_rule(world):
    ctx = make_ctx(world.project, allow=("Bash(hg:*)",))
    for command in ("hg --config hooks.pre-status='echo hi' status", "hg --config extensions.x=/tmp/e.py log",
                    "hg --config-file /tmp/rc status", "hg --config alias.x='!ls' x"):
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "ask" and "hg runs" in verdict.message, command
    assert verdict_name(await decide_bash(ctx, "hg --config ui.username=me status")) == "allow"
