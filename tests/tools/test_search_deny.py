"""Grep and Glob never show files that Read(...) deny rules forbid."""

from __future__ import annotations

import dataclasses

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool
from tests.support.tools import make_context


def _ctx(tmp_path, deny=()):
    ctx = make_context([GrepTool(), GlobTool()], tmp_path)
    pc = ToolPermissionContext(project_dir=tmp_path, deny_rules={"session": tuple(deny)})
    ctx.set_app_state(lambda s: dataclasses.replace(s, tool_permission_context=pc))
    return ctx


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".env").write_text("API_KEY=SECRET-123\n")
    (tmp_path / "app.py").write_text("key = 'SECRET-placeholder'\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes:1:odd.txt").write_text("SECRET in an odd name\n")
    return tmp_path


async def _run(ctx, name, inp, approve):
    out = await run_tool_use(ToolUseRequest("t", name, inp), ctx, approve)
    assert not out.is_error, out.text
    return out.text


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
async def test_grep_hides_denied_file(project, approve, mode):
    inp = {"pattern": "SECRET", "output_mode": mode}
    shown = await _run(_ctx(project), "Grep", inp, approve)
    assert ".env" in shown  # without the rule the file is found: the check below can fail
    hidden = await _run(_ctx(project, deny=("Read(./.env)",)), "Grep", inp, approve)
    assert ".env" not in hidden and "SECRET-123" not in hidden
    assert "app.py" in hidden and "notes:1:odd.txt" in hidden


async def test_grep_content_keeps_separators_and_context(project, approve):
    inp = {"pattern": "SECRET", "output_mode": "content", "-n": True, "-C": 1}
    text = await _run(_ctx(project, deny=("Read(./.env)",)), "Grep", inp, approve)
    assert f"{project}/app.py:1:key = 'SECRET-placeholder'" in text
    assert f"{project}/sub/notes:1:odd.txt:1:SECRET in an odd name" in text


async def test_grep_denied_folder_pattern(project, approve):
    text = await _run(_ctx(project, deny=("Read(./sub/**)",)), "Grep", {"pattern": "SECRET"}, approve)
    assert "odd.txt" not in text and "app.py" in text


async def test_glob_hides_denied_file(project, approve):
    shown = await _run(_ctx(project), "Glob", {"pattern": "**/*"}, approve)
    assert ".env" in shown
    hidden = await _run(_ctx(project, deny=("Read(./.env)",)), "Glob", {"pattern": "**/*"}, approve)
    assert ".env" not in hidden and "app.py" in hidden


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
async def test_grep_through_a_linked_folder_keeps_its_real_folders_rules(project, approve, mode):
    """``keydir`` → ``keys``: the rule ``Read(./keys/*.pem)`` reaches below the real folder."""
    import os

    (project / "keys").mkdir()
    (project / "keys" / "id.pem").write_text("SECRET-pem\n")
    os.symlink("keys", project / "keydir")
    inp = {"pattern": "SECRET", "path": str(project / "keydir"), "output_mode": mode}
    assert "id.pem" in await _run(_ctx(project), "Grep", inp, approve)
    hidden = await _run(_ctx(project, deny=("Read(./keys/*.pem)",)), "Grep", inp, approve)
    assert "id.pem" not in hidden and "SECRET-pem" not in hidden
    listed = await _run(_ctx(project, deny=("Read(./keys/*.pem)",)), "Glob", {"pattern": "*", "path": inp["path"]},
                        approve)
    assert "id.pem" not in listed


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
async def test_grep_drops_a_hard_link_to_a_denied_file(project, approve, mode):
    """A regex over a hard link would tell the secret bit by bit, even in files_with_matches."""
    import os

    os.link(project / ".env", project / "copy.txt")
    inp = {"pattern": "SECRET-1", "output_mode": mode}
    assert "copy.txt" in await _run(_ctx(project), "Grep", inp, approve)
    hidden = await _run(_ctx(project, deny=("Read(./.env)",)), "Grep", inp, approve)
    assert "copy.txt" not in hidden and "SECRET-123" not in hidden


async def test_hard_link_lookup_fails_closed_past_its_walk_budget(project, approve, monkeypatch):
    """When the denied folders are too big to walk, a multiply-linked file counts as denied."""
    import os

    from jupyter_agent.permissions import hard_links

    (project / "big").mkdir()
    (project / "big" / "data.txt").write_text("SECRET-data\n")
    os.link(project / "big" / "data.txt", project / "big" / "data2.txt")
    ctx = _ctx(project, deny=("Read(**/.env)",))
    inp = {"pattern": "SECRET-data", "output_mode": "files_with_matches"}
    assert "data2.txt" in await _run(ctx, "Grep", inp, approve)  # walked: not a denied file
    monkeypatch.setattr(hard_links, "HARD_LINK_WALK", 1)
    assert "data2.txt" not in await _run(_ctx(project, deny=("Read(**/.env)",)), "Grep", inp, approve)
