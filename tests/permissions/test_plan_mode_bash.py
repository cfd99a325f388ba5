"""Plan mode lets read-only Bash run, judged with the session's working directories."""

from __future__ import annotations

import dataclasses

import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionDeny, ToolPermissionContext
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.support.tools import make_context


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ls -la", PermissionAllow),
        ("cd sub && ls", PermissionAllow),
        ("cd /etc && ls", PermissionDeny),
        ("rm -rf sub", PermissionDeny),
        ("ls > listing.txt", PermissionDeny),
    ],
)
async def test_plan_mode_bash(tmp_path, command, expected):
    (tmp_path / "sub").mkdir()
    ctx = make_context([BashTool()], tmp_path)
    pc = ToolPermissionContext(mode="plan", project_dir=tmp_path)
    ctx.set_app_state(lambda s: dataclasses.replace(s, tool_permission_context=pc))
    verdict = await has_permission_to_use_tool(BashTool(), BashInput(command=command), ctx)
    assert isinstance(verdict, expected), verdict
