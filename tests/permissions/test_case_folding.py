"""Deny and ask rules compare names as a case-insensitive disk does.

On macOS (APFS, HFS+) and Windows (NTFS) ``cat .ENV`` opens ``.env``, and ``café`` typed
composed opens the decomposed name HFS+ stored.  A rule that refuses must not depend on the
spelling the model picks, so deny and ask rules match by ``fold_case``.  Linux disks here are
case-sensitive, so the rows below show the matching itself: the differently spelled name is
created as its own file and must be refused exactly as the rule's spelling is.  Allow rules
are not folded (on a case-sensitive disk ``SRC/`` is another folder).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.permissions.filesystem import read_denied
from jupyter_agent.permissions.path_patterns import fold_case
from jupyter_agent.permissions.path_programs import program_on_path
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CAFE_NFC = unicodedata.normalize("NFC", "café.txt")
CAFE_NFD = unicodedata.normalize("NFD", "CAFÉ.TXT")
RULES = ("Read(./.env)", "Read(./Secrets/**)", f"Read(./{CAFE_NFC})", "Edit(./Build/**)")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    for name in (".env", ".ENV", ".Env", CAFE_NFD, "notes.md", "NOTES.MD", "src/a.py", "SRC/a.py",
                 "secrets/key", "SECRETS/key", "build/out.txt", "docs/Private/x.md", "docs/readme.md"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"contents of {name}\n")
    return root


def _contents(path):
    return Path(path).read_text() if os.path.exists(path) else None


def _tools(*names):
    return tuple(load_tool(TOOL_TARGETS[n]) for n in names)


def test_fold_case():
    assert fold_case("/P/.ENV") == "/p/.env"
    assert fold_case(CAFE_NFD) == fold_case(CAFE_NFC) == fold_case("Café.TXT")
    assert fold_case("STRASSE") == fold_case("Straße")  # full case folding, not lower()
    assert fold_case(fold_case("Ǆ/ΣΑΣ")) == fold_case("Ǆ/ΣΑΣ")


@pytest.mark.parametrize(
    ("tool", "name", "expected"),
    [
        ("Read", ".env", "deny"),
        ("Read", ".ENV", "deny"),
        ("Read", ".Env", "deny"),
        ("Read", "SECRETS/key", "deny"),
        ("Read", "secrets/key", "deny"),
        ("Read", CAFE_NFD, "deny"),  # decomposed and upper case: still the rule's café.txt
        ("Read", "notes.md", "allow"),
        ("Write", ".ENV", "deny"),  # a Read deny also refuses writing
        ("Edit", ".Env", "deny"),
        ("Write", "BUILD/out.txt", "deny"),  # Edit(./Build/**) denied
        ("Write", "build/new.txt", "deny"),
    ],
)
async def test_file_tools_refuse_every_spelling(project, tool, name, expected):
    ctx = make_ctx(project, deny=RULES, mode="acceptEdits", tools=_tools("Read", "Write", "Edit"))
    path = str(project / name)
    approver = RecordingApprover()
    if tool != "Read" and os.path.exists(path):
        await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, approver)
    inputs = {
        "Read": {"file_path": path},
        "Write": {"file_path": path, "content": "overwritten\n"},
        "Edit": {"file_path": path, "old_string": "contents", "new_string": "changed"},
    }[tool]
    before = _contents(path)
    outcome = await run_tool_use(ToolUseRequest("t", tool, inputs), ctx, approver)
    assert approver.asks == []
    if expected == "deny":
        assert outcome.is_error and "denied" in outcome.text.lower(), outcome.text
        assert _contents(path) == before  # nothing written
    else:
        assert not outcome.is_error and "contents of" in outcome.text


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat .ENV", "deny"),
        ("head -n 3 .Env", "deny"),
        ("cat ./src/../.ENV", "deny"),
        ("grep -n key SECRETS/key", "deny"),
        (f"cat {CAFE_NFD}", "deny"),
        ("echo hi > BUILD/x.txt", "deny"),
        ("grep -rn x SECRETS", "ask"),  # a recursive read into a denied folder, however spelled
        ("cat notes.md NOTES.MD", "allow"),
    ],
)
async def test_bash_refuses_every_spelling(project, command, expected):
    ctx = make_ctx(project, deny=RULES, mode="acceptEdits")
    assert verdict_name(await decide_bash(ctx, command)) == expected


async def test_recursive_reads_see_a_folded_rule_below(project):
    ctx = make_ctx(project, deny=("Read(./DOCS/private/**)",))
    assert verdict_name(await decide_bash(ctx, "grep -rn x docs")) == "ask"
    assert verdict_name(await decide_bash(ctx, "grep -rn x src")) == "allow"


async def test_search_tools_filter_every_spelling(project):
    ctx = make_ctx(project, deny=RULES, tools=_tools("Grep", "Glob"))
    assert read_denied(str(project / ".ENV"), ctx) and read_denied(str(project / "secrets/key"), ctx)
    assert not read_denied(str(project / "NOTES.MD"), ctx)
    grep = await run_tool_use(
        ToolUseRequest("g", "Grep", {"pattern": "contents", "output_mode": "files_with_matches"}), ctx,
        RecordingApprover(),
    )
    found = {os.path.relpath(line, project) for line in grep.text.splitlines() if line.startswith(str(project))}
    assert {"notes.md", "NOTES.MD", "src/a.py"} <= found
    assert not found & {".env", ".ENV", ".Env", "secrets/key", "SECRETS/key", CAFE_NFD}


@pytest.mark.parametrize(
    ("rules", "name", "expected"),
    [
        ({"ask": ("Read(./Notes.md)",)}, "notes.md", "ask"),
        ({"ask": ("Read(./Notes.md)",)}, "NOTES.MD", "ask"),
        # allow rules keep their case: SRC/ is another folder on a case-sensitive disk
        ({"allow": ("Edit(./src/**)",)}, "src/a.py", "allow"),
        ({"allow": ("Edit(./src/**)",)}, "SRC/a.py", "ask"),
    ],
)
async def test_ask_rules_fold_and_allow_rules_do_not(project, rules, name, expected):
    ctx = make_ctx(project, tools=_tools("Read", "Edit"), **rules)
    path = str(project / name)
    approver = RecordingApprover()
    if "allow" in rules:
        await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, approver)
        request = ToolUseRequest("e", "Edit", {"file_path": path, "old_string": "contents", "new_string": "x"})
    else:
        request = ToolUseRequest("r", "Read", {"file_path": path})
    await run_tool_use(request, ctx, approver)
    asked = [name for name, _ask in approver.asks]
    assert asked == ([] if expected == "allow" else [request.name])


def test_programs_on_path_by_folded_folder(tmp_path):
    tool = tmp_path / ".venv" / "bin" / "rg"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert program_on_path(str(tool), str(tmp_path / ".VENV" / "BIN")) is not None
    assert program_on_path(str(tool), "/usr/bin") is None
