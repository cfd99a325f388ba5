"""``permissions.blockWritesOutsideWorkingDirectories`` (Claude Code 2.1.314): Write, Edit and
NotebookEdit refuse paths outside the working directories in every mode, whatever an allow rule
says; Bash asks about writing there in every mode; any settings file may turn it on, trusted or
not, and none can turn it off again."""

from __future__ import annotations

import json
import os

import nbformat
import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.filesystem import path_denial
from jupyter_agent.permissions.settings import build_permission_context, load_settings
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside, with_permissions

KEY = "permissions.blockWritesOutsideWorkingDirectories"


def _blocking(ctx):
    return with_permissions(ctx, block_outside_writes=True)


@pytest.fixture
def places(tmp_path):
    project, outside = project_and_outside(tmp_path)
    for folder in (project, outside):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1", id="c1")]), folder / "nb.ipynb")
    return project, outside


def _file_tools():
    return tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write", "Edit", "NotebookEdit"))


def _writes(folder):
    return (
        ("Write", {"file_path": str(folder / "new.txt"), "content": "x\n"}),
        ("Edit", {"file_path": str(folder / "notes.txt"), "old_string": "notes", "new_string": "NOTES"}),
        ("NotebookEdit", {"notebook_path": str(folder / "nb.ipynb"), "cell_id": "c1", "new_source": "2"}),
    )


async def _read_first(ctx, approve, folder):
    for name in ("notes.txt", "nb.ipynb"):  # Edit and NotebookEdit want a Read first
        await run_tool_use(ToolUseRequest(f"r-{name}", "Read", {"file_path": str(folder / name)}), ctx, approve)


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_the_file_tools_refuse_writes_outside_in_every_mode(places, approve, mode):
    project, outside = places
    ctx = _blocking(make_ctx(project, tools=_file_tools(), mode=mode, allow=(f"Edit(/{outside}/**)",),
                             additional=()))
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    await _read_first(ctx, approve, outside)
    for name, payload in _writes(outside):
        outcome = await run_tool_use(ToolUseRequest(f"w-{name}", name, payload), ctx, approve)
        assert outcome.is_error and KEY in outcome.text and "%agent --add-dir" in outcome.text, outcome.text
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before  # nothing written, nothing added
    assert [name for name, _ask in approve.asks if name != "Read"] == []  # refused outright, never asked


async def test_notebook_execute_refuses_a_notebook_outside(places):
    """Running cells writes their outputs into the notebook: outside, refused before any cell is read."""
    from jupyter_agent.tools.notebook_execute import NotebookExecuteInput, NotebookExecuteTool

    project, outside = places
    tool = NotebookExecuteTool()
    for mode in ("default", "bypassPermissions"):
        ctx = _blocking(make_ctx(project, mode=mode))
        verdict = await tool.check_permissions(
            NotebookExecuteInput(notebook_path=str(outside / "nb.ipynb"), cell_ids=["c1"]), ctx)
        assert isinstance(verdict, PermissionDeny) and KEY in verdict.message
    inside = await tool.check_permissions(
        NotebookExecuteInput(notebook_path=str(project / "nb.ipynb"), cell_ids=["c1"]), _blocking(make_ctx(project)))
    assert not isinstance(inside, PermissionDeny)


async def test_inside_the_working_directories_nothing_changes(places, approve):
    project, outside = places
    ctx = _blocking(make_ctx(project, tools=_file_tools(), mode="acceptEdits", additional=(outside,)))
    for folder in (project, outside):  # an additional directory is a working directory too
        await _read_first(ctx, approve, folder)
        for name, payload in _writes(folder):
            outcome = await run_tool_use(ToolUseRequest(f"w-{name}", name, payload), ctx, approve)
            assert not outcome.is_error, outcome.text
        assert (folder / "notes.txt").read_text() == f"NOTES in {folder.name}\n"
    assert approve.asks == []


async def test_a_link_inside_leading_outside_is_refused(places, approve):
    project, outside = places
    os.symlink(outside / "notes.txt", project / "link.txt")
    ctx = _blocking(make_ctx(project, tools=_file_tools(), mode="bypassPermissions"))
    outcome = await run_tool_use(
        ToolUseRequest("w", "Write", {"file_path": str(project / "link.txt"), "content": "x"}), ctx, approve)
    assert outcome.is_error and KEY in outcome.text
    assert (outside / "notes.txt").read_text() == "notes in elsewhere\n"
    # and right before a write, where a link re-pointed since the check would lead:
    assert KEY in path_denial(str(project / "link.txt"), str(outside / "notes.txt"), ctx)
    assert path_denial(str(project / "notes.txt"), str(project / "notes.txt"), ctx) is None


async def test_a_deny_rule_is_named_first_and_the_sessions_folder_stays_writable(places, approve):
    project, outside = places
    ctx = _blocking(make_ctx(project, tools=_file_tools(), deny=(f"Edit(/{outside}/**)",)))
    outcome = await run_tool_use(
        ToolUseRequest("w", "Write", {"file_path": str(outside / "x.txt"), "content": "x"}), ctx, approve)
    assert outcome.is_error and f"denied by the rule Edit(/{outside}/**)" in outcome.text
    own = ctx.session_dir / "plans" / "plan.md"  # plans and saved outputs live there
    outcome = await run_tool_use(ToolUseRequest("p", "Write", {"file_path": str(own), "content": "# Plan\n"}),
                                 ctx, approve)
    assert KEY not in outcome.text


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_bash_asks_about_writes_outside_in_every_mode(places, mode):
    project, outside = places
    allow = ("Bash(echo:*)", "Bash(cp:*)", "Bash(touch:*)")
    ctx = _blocking(make_ctx(project, mode=mode, allow=allow))
    for command in (f"echo x > {outside}/out.txt", f"cp notes.txt {outside}/", f"touch {outside}/made",
                    f"echo x >> {outside}/../elsewhere/notes.txt"):
        verdict = await decide_bash(ctx, command)
        assert isinstance(verdict, PermissionAsk), (command, verdict)
        assert "blockWritesOutsideWorkingDirectories" in verdict.message, (command, verdict.message)
    for command in ("echo x > out.txt", "cp notes.txt copy.txt", "touch made"):  # inside: as without it
        verdict = await decide_bash(ctx, command)
        assert "blockWritesOutsideWorkingDirectories" not in getattr(verdict, "message", ""), command
        assert isinstance(verdict, PermissionAsk if mode == "default" and ">" in command else PermissionAllow)
    # without the setting, a write outside asks as a redirection there does: Bash(touch:*) allows
    # touch, not touching any file; bypassPermissions lets it through
    plain = make_ctx(project, mode=mode, allow=allow)
    verdict = await decide_bash(plain, f"touch {outside}/made")
    if mode == "bypassPermissions":
        assert isinstance(verdict, PermissionAllow), verdict
    else:
        assert isinstance(verdict, PermissionAsk) and "outside the working directories" in verdict.message, verdict
        assert "blockWritesOutsideWorkingDirectories" not in verdict.message


async def test_bash_may_still_write_the_sessions_folder(places):
    """The session's own folder stays writable for Bash too: a redirection there and a writing
    program's target there are not caught by the block (as the file tools are not)."""
    project, _outside = places
    ctx = _blocking(make_ctx(project, mode="bypassPermissions", allow=("Bash(cp:*)", "Bash(echo:*)")))
    own = ctx.session_dir / "outputs"
    own.mkdir(parents=True)
    for command in (f"echo x > {own}/out.txt", f"cp notes.txt {own}/", f"cp notes.txt {own}/copy.txt"):
        verdict = await decide_bash(ctx, command)
        assert isinstance(verdict, PermissionAllow), (command, verdict)


async def test_bash_still_denies_by_rule(places):
    project, outside = places
    ctx = _blocking(make_ctx(project, mode="bypassPermissions", deny=(f"Edit(/{outside}/**)",)))
    verdict = await decide_bash(ctx, f"echo x > {outside}/out.txt")
    assert isinstance(verdict, PermissionDeny) and "Edit(" in verdict.message


def test_the_setting_holds_from_any_file_trusted_or_not(tmp_path):
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    shared = project / ".claude" / "settings.json"
    shared.write_text(json.dumps({"permissions": {"blockWritesOutsideWorkingDirectories": True,
                                                  "allow": ["Bash(ls:*)"]}}))
    # a later, higher file saying false does not lift it: the switch only restricts
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"blockWritesOutsideWorkingDirectories": False}}))
    settings = load_settings(project, home, trusted=False)
    assert settings.block_writes_by == shared
    assert build_permission_context(settings).block_outside_writes
    plain = load_settings(tmp_path / "other", home, trusted=True)
    assert not build_permission_context(plain).block_outside_writes
    shared.write_text(json.dumps({"permissions": {"blockWritesOutsideWorkingDirectories": "yes"}}))
    with pytest.raises(AgentConfigError, match="blockWritesOutsideWorkingDirectories must be true or false"):
        load_settings(project, home, trusted=True)
