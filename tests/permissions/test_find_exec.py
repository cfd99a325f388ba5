"""``Bash(find:*)`` allows searching, not every program ``find -exec`` (or ``fd -x``) runs.

Each command ``find`` runs must be read-only or allowed by a rule of its own, as a command after
``xargs`` must; a read-only one's file arguments are checked as reads, and so are the folders
``find`` searches when it runs commands, deletes or prints to a file (``find /etc -exec cat {} +``
reads /etc as ``find /etc -name x`` does).  Deny rules matched the commands before; allow rules
now need them too."""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside

ROWS = [
    # (extra allow rules besides Bash(find:*) and Bash(fd:*), command, expected)
    ((), "find . -exec curl -s https://example.com \\;", "ask"),
    ((), "find . -name x -exec rm -rf {} +", "ask"),
    ((), "find . -execdir rm {} \\;", "ask"),
    ((), "find . -ok rm {} \\;", "ask"),
    ((), "find . -exec python -c 'print(1)' \\;", "ask"),
    ((), "find . -exec sh -c 'rm x' \\;", "ask"),
    ((), "fd -e py -x rm", "ask"),
    ((), "fd -e py -X python", "ask"),
    ((), "find . -name '*.txt' -exec cat {} +", "allow"),
    ((), "find . -name '*.txt' -exec grep -n notes {} +", "allow"),
    ((), "find . -type f -exec wc -l {} \\;", "allow"),
    ((), "fd -e txt -x wc -l", "allow"),
    ((), "find . -name '*.pyc' -delete", "allow"),
    (("Bash(rm:*)",), "find . -name x -exec rm -rf {} +", "allow"),
    (("Bash(curl:*)",), "find . -exec curl -s https://example.com \\;", "allow"),
    (("Bash(rm:*)",), "find . -exec rm {} \\; -exec curl -s https://example.com \\;", "ask"),
    # what the commands it runs read, and what it searches
    ((), "find . -exec cat /etc/hostname \\;", "ask"),
    ((), "find . -exec cat {}/../../../etc/hostname \\;", "ask"),
    ((), "find {o} -exec cat {} +", "ask"),
    ((), "fd x {o} -x cat", "ask"),
    ((), "find .. -fprint names.txt", "ask"),
    ((), "find . -newer {o}/notes.txt -delete", "ask"),
    (("Read(./.env)",), "find src -exec cat .env \\;", "deny"),
    (("Read(./.env)",), "find src -type f -exec grep -f .env {} +", "deny"),
    (("Read(./.env)",), "find . -exec cat {} +", "ask"),  # it reads .env among the rest
]


@pytest.mark.parametrize(("extra", "line", "expected"), ROWS, ids=[r[1] for r in ROWS])
async def test_a_rule_allowing_find_does_not_allow_what_it_runs(tmp_path, extra, line, expected):
    project, outside = project_and_outside(tmp_path)
    (project / ".env").write_text("KEY=1\n")
    (project / "src").mkdir()
    command = line.replace("{o}", str(outside))
    deny = tuple(r for r in extra if r.startswith("Read("))
    allow = tuple(r for r in extra if r not in deny)
    ctx = make_ctx(project, allow=("Bash(find:*)", "Bash(fd:*)", *allow), deny=deny)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_always_allow_offers_the_program_find_runs(tmp_path):
    project, _outside = project_and_outside(tmp_path)
    verdict = await decide_bash(make_ctx(project, allow=("Bash(find:*)",)), "find . -name x -exec rm {} +")
    assert verdict_name(verdict) == "ask" and "rm {} (run by find) needs approval" in verdict.message
    assert [u.rules for u in verdict.suggestions] == [("Bash(rm:*)",)]
    ctx = make_ctx(project, allow=("Bash(find:*)", *verdict.suggestions[0].rules))
    assert verdict_name(await decide_bash(ctx, "find . -name x -exec rm {} +")) == "allow"


async def test_a_deny_rule_on_what_it_runs_still_denies(tmp_path):
    project, _outside = project_and_outside(tmp_path)
    ctx = make_ctx(project, allow=("Bash(find:*)", "Bash(rm:*)"), deny=("Bash(rm -rf:*)",))
    verdict = await decide_bash(ctx, "find . -exec rm -rf {} +")
    assert verdict_name(verdict) == "deny" and "Bash(rm -rf:*)" in verdict.message


@pytest.mark.parametrize(("line", "expected"), [
    ("find . -name a.txt -exec cp {} {o}/ \\;", "ask"),
    ("find . -exec touch {o}/y \\;", "ask"),
    ("find {o} -name x -exec rm {} +", "ask"),  # what it finds is below {o}
    ("git bisect run rm -rf {o}/z", "ask"),
    ("uv run rm -rf {o}/q", "ask"),
    ("find . -name '*.pyc' -exec rm {} +", "allow"),
    ("find . -name x -exec mv {} build/ \\;", "allow"),
    ("git bisect run make test", "allow"),
])
async def test_what_it_runs_writes_where_it_writes(tmp_path, line, expected):
    """A writer run by find -exec, git bisect run or a runner is checked like one on its own:
    a rule allowing find and rm does not let `find . -exec cp {} /tmp/ ;` write outside."""
    project, outside = project_and_outside(tmp_path)
    (project / "build").mkdir()
    allow = ("Bash(find:*)", "Bash(cp:*)", "Bash(rm:*)", "Bash(mv:*)", "Bash(touch:*)", "Bash(git:*)",
             "Bash(uv run:*)", "Bash(make:*)")
    command = line.replace("{o}", str(outside))
    verdict = await decide_bash(make_ctx(project, allow=allow), command)
    assert verdict_name(verdict) == expected, (command, verdict)
    if expected == "ask":
        assert "outside the working directories" in verdict.message
