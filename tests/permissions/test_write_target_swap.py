"""A link re-pointed between a write's permission check and the write itself: the write goes
nowhere else than where the link led when it was checked.  In acceptEdits a write to
``link`` → ``notes.txt`` is allowed unasked; swapped to ``.git/config`` (protected) or to a file
outside the project right before the call, the real tools refuse and change nothing."""

from __future__ import annotations

import os

import pytest

from jupyter_agent.core.events import ToolCallStarted
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from tests.conftest import RecordingApprover
from tests.permissions.tools import make_ctx

PAYLOAD = "[core]\n\tfsmonitor = ./evil\n"


@pytest.fixture
def world(tmp_path):
    project, outside = tmp_path / "proj", tmp_path / "outside"
    (project / ".git").mkdir(parents=True)
    outside.mkdir()
    (project / ".git" / "config").write_text("[core]\n")
    (project / "notes.txt").write_text("notes\n")
    (outside / "profile").write_text("PATH=/usr/bin\n")
    os.symlink("notes.txt", project / "link")
    return project, outside


def _swap_to(link, target):
    def on_event(event) -> None:
        if isinstance(event, ToolCallStarted) and event.tool_name in ("Write", "Edit"):
            os.unlink(link)
            os.symlink(target, link)
    return on_event


@pytest.mark.parametrize("tool", ["Write", "Edit"])
@pytest.mark.parametrize("target", [".git/config", "OUTSIDE"])
async def test_a_swapped_link_does_not_carry_the_write(world, tool, target):
    project, outside = world
    victim = outside / "profile" if target == "OUTSIDE" else project / target
    before = victim.read_bytes()
    ctx = make_ctx(project, mode="acceptEdits", tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write", "Edit")))
    approver = RecordingApprover()
    read = await run_tool_use(ToolUseRequest("r", "Read", {"file_path": str(project / "link")}), ctx, approver)
    assert not read.is_error
    data = {"file_path": str(project / "link"), "content": PAYLOAD} if tool == "Write" else \
        {"file_path": str(project / "link"), "old_string": "notes", "new_string": PAYLOAD}
    outcome = await run_tool_use(ToolUseRequest("w", tool, data), ctx, approver,
                                 on_event=_swap_to(project / "link", str(victim)))
    assert approver.asks == []  # allowed unasked: the link led to notes.txt when checked
    assert outcome.is_error and "a link changed" in outcome.text, outcome.text
    assert victim.read_bytes() == before and (project / "notes.txt").read_text() == "notes\n"


async def test_an_unchanged_link_is_written_through(world):
    project, _ = world
    ctx = make_ctx(project, mode="acceptEdits", tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write")))
    approver = RecordingApprover()
    await run_tool_use(ToolUseRequest("r", "Read", {"file_path": str(project / "link")}), ctx, approver)
    outcome = await run_tool_use(ToolUseRequest("w", "Write", {"file_path": str(project / "link"), "content": "new\n"}),
                                 ctx, approver)
    assert not outcome.is_error, outcome.text
    assert (project / "notes.txt").read_text() == "new\n" and os.path.islink(project / "link")


def _swap_before_writing(monkeypatch, module, swap):
    """Run ``swap`` after the tool's last check, right before its atomic writer starts."""
    write = module.atomic_write_bytes

    def swap_then_write(*args, **kwargs):
        swap()
        return write(*args, **kwargs)

    monkeypatch.setattr(module, "atomic_write_bytes", swap_then_write)


def _folder_swap(project, outside):
    def swap() -> None:
        os.rename(project / "sub", project / "sub.old")
        os.symlink(outside, project / "sub")
    return swap


@pytest.mark.parametrize("tool", ["Write", "Edit"])
async def test_a_folder_swapped_after_the_last_check_does_not_carry_the_write(world, tool, monkeypatch):
    from jupyter_agent.tools import _text_file

    project, outside = world
    (project / "sub").mkdir()
    (project / "sub" / "profile").write_text("PATH=/usr/bin\n")
    ctx = make_ctx(project, mode="acceptEdits", tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write", "Edit")))
    approver = RecordingApprover()
    path = str(project / "sub" / "profile")
    assert not (await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, approver)).is_error
    _swap_before_writing(monkeypatch, _text_file, _folder_swap(project, outside))
    data = {"file_path": path, "content": PAYLOAD} if tool == "Write" else \
        {"file_path": path, "old_string": "PATH", "new_string": PAYLOAD}
    outcome = await run_tool_use(ToolUseRequest("w", tool, data), ctx, approver)
    assert outcome.is_error and "replaced by a link" in outcome.text, outcome.text
    assert (outside / "profile").read_text() == "PATH=/usr/bin\n"
    assert (project / "sub.old" / "profile").read_text() == "PATH=/usr/bin\n"
    assert sorted(os.listdir(outside)) == ["profile"] and sorted(os.listdir(project / "sub.old")) == ["profile"]


async def test_a_file_swapped_for_a_link_after_the_last_check_is_replaced_not_followed(world, monkeypatch):
    from jupyter_agent.tools import _text_file

    project, outside = world
    ctx = make_ctx(project, mode="acceptEdits", tools=tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Write")))
    approver = RecordingApprover()
    notes = project / "notes.txt"
    await run_tool_use(ToolUseRequest("r", "Read", {"file_path": str(notes)}), ctx, approver)

    def swap() -> None:
        os.unlink(notes)
        os.symlink(outside / "profile", notes)

    _swap_before_writing(monkeypatch, _text_file, swap)
    outcome = await run_tool_use(ToolUseRequest("w", "Write", {"file_path": str(notes), "content": "new\n"}), ctx, approver)
    assert not outcome.is_error, outcome.text
    assert (outside / "profile").read_text() == "PATH=/usr/bin\n"
    assert not notes.is_symlink() and notes.read_text() == "new\n"


async def test_a_notebook_folder_swapped_after_the_last_check_does_not_carry_the_edit(world, monkeypatch):
    import nbformat

    from jupyter_agent.notebook import ondisk

    project, outside = world
    (project / "sub").mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", id="c1")])
    for folder in (project / "sub", outside):
        nbformat.write(nb, folder / "a.ipynb")
    before = (outside / "a.ipynb").read_bytes()
    tools = tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "NotebookEdit"))
    ctx = make_ctx(project, mode="acceptEdits", tools=tools)
    approver = RecordingApprover()
    path = str(project / "sub" / "a.ipynb")
    assert not (await run_tool_use(ToolUseRequest("r", "Read", {"file_path": path}), ctx, approver)).is_error
    _swap_before_writing(monkeypatch, ondisk, _folder_swap(project, outside))
    outcome = await run_tool_use(
        ToolUseRequest("e", "NotebookEdit", {"notebook_path": path, "cell_id": "c1", "new_source": "import os"}),
        ctx, approver)
    assert outcome.is_error and "replaced by a link" in outcome.text, outcome.text
    assert (outside / "a.ipynb").read_bytes() == before
    assert "x = 1" in (project / "sub.old" / "a.ipynb").read_text()
