"""The permission system with the package's real tools (Bash, Read, Edit, Write) through run_tool_use."""

from __future__ import annotations

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from tests.permissions.tools import make_ctx


def _tools(*names: str):
    try:
        return tuple(load_tool(TOOL_TARGETS[n]) for n in names)
    except Exception as exc:  # another helper's tool is not importable right now
        pytest.skip(f"real tools unavailable: {exc}")


async def test_real_bash_respects_deny_and_protected_paths(world, approve, reject):
    (bash,) = _tools("Bash")
    ctx = make_ctx(world.project, tools=(bash,), deny=("Bash(rm:*)",), mode="bypassPermissions")
    denied = await run_tool_use(ToolUseRequest("b1", "Bash", {"command": "ls && rm -rf a.py"}), ctx, approve)
    assert denied.is_error and "Bash(rm:*)" in denied.text and (world.project / "a.py").exists()
    protected = await run_tool_use(ToolUseRequest("b2", "Bash", {"command": "echo x > .git/config"}), ctx, reject)
    assert protected.is_error and [n for n, _ in reject.asks] == ["Bash"]
    assert (world.project / ".git" / "config").read_text() == "[core]\n"


async def test_real_file_tools_respect_read_deny_through_symlinks(world, approve):
    read, edit, write = _tools("Read", "Edit", "Write")
    ctx = make_ctx(world.project, tools=(read, edit, write), deny=("Read(./.env)",), mode="bypassPermissions")
    for req in (
        ToolUseRequest("r1", "Read", {"file_path": str(world.project / "env-link")}),
        ToolUseRequest("r2", "Read", {"file_path": str(world.project / "sub" / ".." / ".env")}),
        ToolUseRequest("w1", "Write", {"file_path": str(world.project / ".env"), "content": "stolen"}),
    ):
        outcome = await run_tool_use(req, ctx, approve)
        assert outcome.is_error and "Read(./.env)" in outcome.text, (req, outcome.text)
    assert (world.project / ".env").read_text() == "SECRET=1\n" and approve.asks == []
