"""``Bash(git:*)`` allows git, not every program git can be told to run or to plant:
``git bisect run CMD`` needs CMD allowed (or read-only) as ``xargs CMD`` does, ``git grep
-O<pager>`` runs its pager as shell code, and ``git clone|init`` with a program-naming
``--config`` or a ``--template`` (whose hooks land in the new repository) ask in every mode."""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("git bisect run curl -s https://example.com", "ask"),
    ("git -C src bisect run rm -rf x", "ask"),
    ("git bisect run make test", "allow"),  # Bash(make:*)
    ("git bisect run ls", "allow"),  # read-only
    ("git bisect start", "allow"),
    ("git grep -O'rm -rf x' TODO", "ask"),
    ("git grep --open-files-in-pager=curl TODO", "ask"),
    ("git grep -n TODO", "allow"),
    ("git clone --config core.fsmonitor='sh -c id' https://example.com/r.git", "ask"),
    ("git clone -c core.hooksPath=/tmp/h https://example.com/r.git", "ask"),
    ("git clone --config=$SETTING https://example.com/r.git", "ask"),
    ("git clone --template=/tmp/t https://example.com/r.git", "ask"),
    ("git init --template /tmp/t", "ask"),
    ("git clone -c user.name=x https://example.com/r.git", "allow"),
    ("git clone https://example.com/r.git", "allow"),
    ("git init", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS, ids=[r[0] for r in ROWS])
async def test_what_git_runs_needs_its_own_rule(tmp_path, command, expected):
    (tmp_path / "src").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(git:*)", "Bash(make:*)"))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize("command", [r[0] for r in ROWS if "clone -c core" in r[0] or "--template" in r[0]
                                     or "fsmonitor" in r[0]])
async def test_planting_settings_or_hooks_asks_in_every_mode(tmp_path, command):
    ctx = make_ctx(tmp_path, allow=("Bash(git:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == "ask", command
