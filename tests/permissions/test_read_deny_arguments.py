"""A command naming a file a Read deny rule covers asks, whatever the mode or allow rules.

Read-only commands (``cat .env``) are denied by the read check; any other command that names
the file as a fixed argument (``/bin/cat .env``, ``cp .env /tmp``, a link to it) may read it, so
it asks even in bypassPermissions mode and under a matching allow rule (dontAsk: denied).
"""

from __future__ import annotations

import os

import pytest

from jupyter_agent.permissions.decide import has_permission_to_use_tool
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import BashLike, make_ctx

ROWS = [
    # (mode, allow rules, command, expected)
    ("bypassPermissions", (), "cat .env", "deny"),
    ("bypassPermissions", (), "/bin/cat .env", "ask"),
    ("bypassPermissions", (), "cp .env /tmp/stolen", "deny"),  # its source is a read
    ("bypassPermissions", (), "cp env-link /tmp/stolen", "deny"),  # a link to it
    ("bypassPermissions", (), "cp sub/../.env x", "deny"),
    ("bypassPermissions", (), "cp a.py b.py", "allow"),
    ("bypassPermissions", (), "echo hello", "allow"),
    ("default", ("Bash(cp:*)",), "cp .env /tmp/stolen", "deny"),
    ("default", ("Bash(cp:*)",), "cp a.py b.py", "allow"),
    ("acceptEdits", ("Bash(less:*)",), "less .env", "ask"),
    ("dontAsk", ("Bash(cp:*)",), "cp .env /tmp/stolen", "deny"),
    ("dontAsk", ("Bash(cp:*)",), "cp a.py b.py", "allow"),
    # date -r FILE prints when FILE changed: a read of it (it was read-only with any FILE)
    ("default", (), "date -r .env", "deny"),
    ("default", (), "date --reference=.env +%s", "deny"),
    ("default", (), "date -ur sub/../.env", "deny"),
    ("default", (), "date -r a.py", "allow"),
    ("default", (), "date -R", "allow"),
]


@pytest.mark.parametrize(("mode", "allow", "command", "expected"), ROWS)
async def test_naming_a_read_denied_file(world, mode, allow, command, expected):
    ctx = make_ctx(world.project, mode=mode, allow=allow, deny=("Read(./.env)",))
    tool = BashLike()
    verdict = await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)
    assert verdict_name(verdict) == expected, (command, verdict)
    if expected == "ask" and mode != "dontAsk":
        assert "denies reading" in verdict.message or "denied" in verdict.message


async def test_without_read_deny_rules_nothing_changes(world):
    ctx = make_ctx(world.project, mode="bypassPermissions")
    tool = BashLike()
    verdict = await has_permission_to_use_tool(tool, tool.input_schema(command="cp .env /tmp/x"), ctx)
    assert verdict_name(verdict) == "allow"


RUN_TIME_ROWS = [
    # a word known only at run time, under a rule that allows the program (session 8: each ran)
    ("cp $(echo .env) /tmp/stolen", "ask"),
    ("cp `echo .env` /tmp/stolen", "ask"),
    ("F=.env; cp $F /tmp/stolen", "ask"),
    ("for f in .env; do cp $f /tmp/stolen; done", "deny"),  # the loop is read as cp .env /tmp/stolen
    ("cp ~+/.env /tmp/stolen", "ask"),  # ~+ is $PWD
    ("cp \"$PWD/.env\" /tmp/stolen", "ask"),
    ("cp $X/../.env /tmp/stolen", "ask"),  # any folder, then ..
    ("LR=1; python train.py --lr $LR", "ask"),  # the line sets it
    ("cp hard.txt /tmp/stolen", "deny"),  # a hard link to .env
    ("cp /proc/self/cwd/.env /tmp/stolen", "ask"),  # /proc/self is whoever opens it
    ("python train.py --lr $LR", "allow"),  # one variable from the environment
    ("python train.py --lr \"${LR}\"", "allow"),
    ("python train.py --lr=$LR", "allow"),  # an option's value
    ("python train.py --out=$X/../.env", "ask"),
    ("python train.py --cfg=$(echo .env)", "ask"),
    ("cp a.py b.py", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), RUN_TIME_ROWS)
async def test_words_known_at_run_time_under_read_deny_rules(world, command, expected):
    os.link(world.project / ".env", world.project / "hard.txt")
    ctx = make_ctx(world.project, allow=("Bash(cp:*)", "Bash(python:*)"), deny=("Read(./.env)",))
    tool = BashLike()
    verdict = await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    ("python train.py --out $OUT/model.pt", "allow"),  # no rule to apply: as the allow rule says
    ("python train.py --out $(date +%s).pt", "allow"),
    ("cp a.py $(echo .git/config)", "ask"),  # a known writer: a protected path at run time
    ("F=.git/config; cp a.py $F", "ask"),
    ("echo x | tee $(echo .claude/settings.json)", "ask"),
    ("rm -rf $(echo .git)", "ask"),
    # one variable from the environment: no protected path to fear, but the rule allows cp, not
    # writing anywhere, and $DEST may lie outside the working directories (bypass: it runs)
    ("cp a.py $DEST", "ask allow"),
])
async def test_words_known_at_run_time_without_path_rules(world, command, expected):
    default, bypass = (expected.split() * 2)[:2]
    for mode, allow, wanted in (("default", ("Bash(cp:*)", "Bash(python:*)", "Bash(tee:*)", "Bash(rm:*)"), default),
                                ("bypassPermissions", (), bypass)):
        ctx = make_ctx(world.project, allow=allow, mode=mode)
        tool = BashLike()
        verdict = await has_permission_to_use_tool(tool, tool.input_schema(command=command), ctx)
        assert verdict_name(verdict) == wanted, (mode, command, verdict)
