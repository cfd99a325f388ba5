"""A Bash read outside the working directories asks, as the Read tool does — and, as for the
Read tool, a ``Read(…)`` allow rule covering the path lifts the question, which is what
*Always allow* on such a card saves for the session (the file's folder, or the folder listed;
never the root or the home folder whole).  ``blockReadsOutsideWorkingDirectories`` keeps
asking whatever the rules say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside, with_permissions


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    project, outside = project_and_outside(tmp_path)
    (outside / "docs").mkdir()
    (outside / "docs" / "a.md").write_text("a\n")
    return project, outside


@pytest.mark.parametrize(("line", "offered"), [
    ("cat {o}/notes.txt", "{o}"),
    ("ls {o}/docs", "{o}/docs"),
    ("head -n 3 {o}/docs/a.md", "{o}/docs"),
    ("grep -n x {o}/notes.txt {o}/docs/a.md", None),  # two folders: both offered
])
async def test_always_allow_offers_the_folder_read(places, line, offered):
    project, outside = places
    command = line.replace("{o}", str(outside))
    verdict = await decide_bash(make_ctx(project), command)
    assert verdict_name(verdict) == "ask" and "outside the working directories" in verdict.message
    (update,) = verdict.suggestions
    assert update.destination == "session"
    if offered is not None:
        assert update.rules == (f"Read(/{offered.replace('{o}', str(outside))}/**)",)
    granted = make_ctx(project, allow=update.rules)
    assert verdict_name(await decide_bash(granted, command)) == "allow", (command, update.rules)


async def test_a_read_allow_rule_covers_bash_reads_there(places):
    project, outside = places
    ctx = make_ctx(project, allow=(f"Read(/{outside}/docs/**)",))
    assert verdict_name(await decide_bash(ctx, f"cat {outside}/docs/a.md")) == "allow"
    assert verdict_name(await decide_bash(ctx, f"ls {outside}/docs")) == "allow"  # the folder it covers
    assert verdict_name(await decide_bash(ctx, f"cat {outside}/notes.txt")) == "ask"  # beside it
    assert verdict_name(await decide_bash(ctx, f"cat {outside}/docs/../notes.txt")) == "ask"
    blocked = with_permissions(make_ctx(project, allow=(f"Read(/{outside}/docs/**)",)), block_outside_reads=True)
    assert verdict_name(await decide_bash(blocked, f"cat {outside}/docs/a.md")) == "ask"  # the block holds


async def test_the_root_and_home_are_never_offered_whole(places):
    project, _outside = places
    for command in ("ls /", "cat ~/notes.txt", "ls ~"):
        verdict = await decide_bash(make_ctx(project), command)
        assert verdict_name(verdict) == "ask"
        assert all(r not in ("Read(///**)", f"Read(/{Path.home()}/**)") for u in verdict.suggestions for r in u.rules)


@pytest.mark.parametrize(("line", "expected"), [
    ("cp {o}/notes.txt .", "ask"),  # a rule allowing cp: the source outside is a read there
    ("cp -r {o}/docs build/", "ask"),
    ("tar cf x.tar {o}/docs", "ask"),
    ("zip -q x.zip {o}/notes.txt", "ask"),
    ("tar cf {o}/x.tar notes.txt", "ask"),  # the archive is written, not read (asked as a write)
    ("cp notes.txt build/", "allow"),
    ("tar cf x.tar notes.txt", "allow"),
])
async def test_what_a_rule_allowed_copier_reads_outside_asks(places, line, expected):
    project, outside = places
    (project / "build").mkdir()
    (project / "notes.txt").write_text("n\n")
    ctx = make_ctx(project, allow=("Bash(cp:*)", "Bash(tar:*)", "Bash(zip:*)"))
    command = line.replace("{o}", str(outside))
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)
    if "{o}/x.tar" in line:
        assert "it reads" not in verdict.message
    elif expected == "ask":
        granted = make_ctx(project, allow=("Bash(cp:*)", "Bash(tar:*)", "Bash(zip:*)", *verdict.suggestions[0].rules))
        assert verdict_name(await decide_bash(granted, command)) == "allow", verdict.suggestions


@pytest.mark.parametrize("line", [
    "ls < /dev/null", "pytest -q < /dev/null", "head -c 16 /dev/urandom | xxd", "cat /dev/null", "wc -c < /dev/zero",
    "cat /dev/stdin",
])
@pytest.mark.parametrize("block", [False, True])
async def test_devices_with_no_data_are_no_outside_read(places, line, block):
    """``cmd < /dev/null`` asked as a read outside the working directories (session 28): the
    devices that hold nothing of anyone's are read freely, even when outside reads are blocked;
    ``/dev/tty`` or a disk still asks, and a Read deny rule still denies."""
    project, _outside = places
    ctx = make_ctx(project, allow=("Bash(pytest:*)",))
    if block:
        with_permissions(ctx, block_outside_reads=True)
    assert verdict_name(await decide_bash(ctx, line)) == "allow", line


@pytest.mark.parametrize(("line", "expected", "deny"), [
    ("cat /dev/tty", "ask", ()), ("cat /dev/sda", "ask", ()), ("ls < /dev/null", "deny", ("Read(//dev/**)",)),
])
async def test_other_devices_still_ask_and_read_rules_hold(places, line, expected, deny):
    project, _outside = places
    assert verdict_name(await decide_bash(make_ctx(project, deny=deny), line)) == expected, line
