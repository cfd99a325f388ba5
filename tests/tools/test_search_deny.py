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
