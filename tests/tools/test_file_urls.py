"""A ``file:`` URL given as a path is that file, for the file tools as for their permission checks.

Session 41: ``Write`` of ``file:///elsewhere/x.txt`` in acceptEdits created
``<project>/file:/elsewhere/x.txt`` without asking (the check and the write both read the URL as
a relative path), while ``Read`` of the same URL read ``/elsewhere/x.txt``.  Now every file tool
takes the URL's path, so a file outside the working directories asks, and any other URL is a clear
error that writes nothing.
"""

from __future__ import annotations

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from tests.conftest import RecordingApprover
from tests.permissions.tools import make_ctx

TOOLS = tuple(load_tool(TOOL_TARGETS[name]) for name in ("Read", "Write", "Edit", "Grep"))


@pytest.fixture
def places(tmp_path):
    project, outside = tmp_path / "proj", tmp_path / "elsewhere"
    project.mkdir()
    outside.mkdir()
    (project / "a.txt").write_text("hello\n")
    (outside / "b.txt").write_text("outside\n")
    return project, outside


async def _run(ctx, name, tool_input):
    approver = RecordingApprover(PermissionDeny("no"))
    outcome = await run_tool_use(ToolUseRequest("t", name, tool_input), ctx, approver)
    return approver, outcome


async def test_a_write_to_a_file_url_outside_asks_and_makes_no_folder_here(places):
    project, outside = places
    ctx = make_ctx(project, mode="acceptEdits", tools=TOOLS)
    for name, tool_input in [("Write", {"file_path": f"file://{outside}/new.txt", "content": "x\n"}),
                             ("Edit", {"file_path": f"file://{outside}/b.txt", "old_string": "outside",
                                       "new_string": "changed"})]:
        approver, outcome = await _run(ctx, name, tool_input)
        assert len(approver.asks) == 1 and outcome.is_error, (name, outcome.text)
        assert "outside the working directories" in approver.asks[0][1].message
    assert sorted(p.name for p in project.iterdir()) == ["a.txt"]  # no `file:` folder
    assert sorted(p.name for p in outside.iterdir()) == ["b.txt"] and (outside / "b.txt").read_text() == "outside\n"


async def test_file_urls_inside_act_on_the_file_they_name(places):
    project, _outside = places
    ctx = make_ctx(project, mode="acceptEdits", tools=TOOLS)
    approver, outcome = await _run(ctx, "Read", {"file_path": f"file://{project}/a.txt"})
    assert not outcome.is_error and "hello" in outcome.text and approver.asks == []
    approver, outcome = await _run(ctx, "Edit", {"file_path": f"file://localhost{project}/a.txt",
                                                 "old_string": "hello", "new_string": "hi"})
    assert not outcome.is_error and approver.asks == [], outcome.text
    assert (project / "a.txt").read_text() == "hi\n"
    approver, outcome = await _run(ctx, "Write", {"file_path": f"file://{project}/my%20notes.txt", "content": "n\n"})
    assert not outcome.is_error and (project / "my notes.txt").read_text() == "n\n"
    approver, outcome = await _run(ctx, "Grep", {"pattern": "hi", "path": f"file://{project}"})
    assert not outcome.is_error and "a.txt" in outcome.text, outcome.text


@pytest.mark.parametrize("url", ["https://example.com/a.txt", "file://server/share/a.txt", "ftp://h/a.txt"])
async def test_another_url_is_a_clear_error(places, url):
    project, _outside = places
    ctx = make_ctx(project, mode="bypassPermissions", tools=TOOLS)
    for name, tool_input in [("Write", {"file_path": url, "content": "x\n"}), ("Read", {"file_path": url})]:
        _approver, outcome = await _run(ctx, name, tool_input)
        assert outcome.is_error and "not a local file path" in outcome.text, (name, outcome.text)
    assert sorted(p.name for p in project.iterdir()) == ["a.txt"]
