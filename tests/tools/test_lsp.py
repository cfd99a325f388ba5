"""LSP against a real jedi-language-server on a small project in tmp_path."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.lsp.manager import get_lsp_manager, shutdown_lsp
from jupyter_agent.tools.lsp import LSPTool
from tests.support.tools import make_context

HAVE_SERVER = Path(sys.executable).with_name("jedi-language-server").exists() or shutil.which("jedi-language-server")
pytestmark = pytest.mark.skipif(not HAVE_SERVER, reason="jedi-language-server is not installed (pip install jedi-language-server)")

GEOMETRY = '''\
class Circle:
    """A circle of a given radius."""

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        return 3.14159 * self.radius ** 2


def unit_circle() -> Circle:
    return Circle(1.0)
'''

APP = '''\
from geometry import Circle, unit_circle

big = Circle(10.0)
print(big.area(), unit_circle().area())
'''


@pytest.fixture
async def project(tmp_path):
    (tmp_path / "geometry.py").write_text(GEOMETRY)
    (tmp_path / "app.py").write_text(APP)
    ctx = make_context([LSPTool()], tmp_path)
    yield ctx
    await shutdown_lsp(ctx)


async def lsp(ctx, approver, **payload):
    return await run_tool_use(ToolUseRequest("l", "LSP", payload), ctx, approver)


async def test_definition_references_hover_symbols(project, approve):
    ctx = project
    out = await lsp(ctx, approve, operation="definition", file_path="app.py", line=3, character=7)
    assert not out.is_error, out.text
    assert out.text == "Found 1 definition(s):\ngeometry.py:1:7: class Circle:"
    out = await lsp(ctx, approve, operation="references", file_path="geometry.py", line=7, character=9)
    assert "geometry.py:7:9: def area(self) -> float:" in out.text
    assert "app.py:4:11: print(big.area(), unit_circle().area())" in out.text
    assert "app.py:4:33:" in out.text
    out = await lsp(ctx, approve, operation="hover", file_path="app.py", line=3, character=7)
    assert "A circle of a given radius." in out.text
    out = await lsp(ctx, approve, operation="document_symbols", file_path="geometry.py")
    lines = out.text.splitlines()
    assert "class Circle — geometry.py:1" in lines
    assert any(ln.strip() == "method area — geometry.py:7" and ln.startswith("  ") for ln in lines)
    assert "function unit_circle — geometry.py:11" in lines
    out = await lsp(ctx, approve, operation="workspace_symbols", file_path="app.py", query="unit_circle")
    assert "function unit_circle — geometry.py:11:5: def unit_circle() -> Circle:" in out.text
    assert approve.asks == []
    # one server for the workspace, reused by every call
    assert len(get_lsp_manager(ctx).running()) == 1


async def test_read_denied_files_show_no_lines_and_no_hover(tmp_path, approve):
    """With Read(./secret_keys.py) denied, a definition, reference, workspace symbol or hover
    must not print its source (jedi shows `API_KEY = "sk-live-123"` in each)."""
    (tmp_path / "secret_keys.py").write_text('API_KEY = "sk-live-123"\n\n\ndef token():\n    return API_KEY\n')
    (tmp_path / "app.py").write_text("from secret_keys import API_KEY, token\nprint(API_KEY, token())\n")
    ctx = make_context([LSPTool()], tmp_path)
    pc = ToolPermissionContext(project_dir=tmp_path, deny_rules={"session": ("Read(./secret_keys.py)",)})
    ctx.set_app_state(lambda s: dataclasses.replace(s, tool_permission_context=pc))
    try:
        outputs = []
        for payload in (dict(operation="definition", file_path="app.py", line=2, character=7),
                        dict(operation="references", file_path="app.py", line=2, character=7),
                        dict(operation="hover", file_path="app.py", line=2, character=7),
                        dict(operation="workspace_symbols", file_path="app.py", query="API_KEY")):
            out = await lsp(ctx, approve, **payload)
            assert not out.is_error, out.text
            outputs.append(out.text)
        assert not any("sk-live" in text for text in outputs), outputs
        assert "secret_keys.py:1:1: (not shown: a Read deny rule covers this file)" in outputs[0]
        assert "app.py:2:7: print(API_KEY, token())" in outputs[1]  # other files still show their lines
        assert outputs[2].startswith("Hover not shown: the symbol is defined in secret_keys.py")
        denied = await lsp(ctx, approve, operation="document_symbols", file_path="secret_keys.py")
        assert denied.is_error and "sk-live" not in denied.text
    finally:
        await shutdown_lsp(ctx)


async def test_diagnostics_follow_edits_and_shutdown_stops_the_server(project, approve):
    ctx = project
    broken = Path(ctx.cwd) / "broken.py"
    broken.write_text("def f(:\n    return 1\n")
    out = await lsp(ctx, approve, operation="diagnostics", file_path="broken.py")
    assert "broken.py:1:" in out.text and "error" in out.text
    broken.write_text("def f():\n    return 1\n")
    out = await lsp(ctx, approve, operation="diagnostics", file_path="broken.py")
    assert out.text == "No diagnostics: broken.py is clean."
    (client,) = get_lsp_manager(ctx).running()
    await shutdown_lsp(ctx)
    assert client.proc.returncode is not None and get_lsp_manager(ctx).running() == []


async def test_input_errors(project, approve):
    ctx = project
    for payload, message in [
        ({"operation": "hover", "file_path": "app.py"}, "needs line and character"),
        ({"operation": "workspace_symbols", "file_path": "app.py"}, "needs a query"),
        ({"operation": "document_symbols", "file_path": "notes.txt"}, "No language server is configured for .txt"),
        ({"operation": "document_symbols", "file_path": "gone.py"}, "File does not exist"),
        ({"operation": "rename", "file_path": "app.py"}, "operation"),
    ]:
        out = await lsp(ctx, approve, **payload)
        assert out.is_error and message in out.text, (payload, out.text)
    assert get_lsp_manager(ctx).running() == []  # nothing started for bad input


async def test_a_missing_server_binary_is_a_clear_error(tmp_path, approve):
    from jupyter_agent.lsp.manager import LspSettings, ServerConfig

    (tmp_path / "a.py").write_text("x = 1\n")
    ctx = make_context([LSPTool()], tmp_path)
    ctx.extra["lsp_settings"] = LspSettings(servers={"python": ServerConfig(("no-such-lsp-server",), (".py",), "python")})
    out = await lsp(ctx, approve, operation="document_symbols", file_path="a.py")
    assert out.is_error and "Could not start the python language server 'no-such-lsp-server'" in out.text


async def test_malformed_server_config_is_reported_not_raised(tmp_path, approve, monkeypatch):
    from jupyter_agent.core.registry import RegistryConfig, get_all_base_tools

    monkeypatch.setenv("JUPYTER_AGENT_LSP_SERVERS", "{broken")
    assert "LSP" in [t.name for t in get_all_base_tools(RegistryConfig(platform="linux"))]
    (tmp_path / "a.py").write_text("x = 1\n")
    out = await lsp(make_context([LSPTool()], tmp_path), approve, operation="document_symbols", file_path="a.py")
    assert out.is_error and "JUPYTER_AGENT_LSP_SERVERS is malformed" in out.text


async def test_a_server_cancelled_while_it_starts_is_killed_not_waited_for(tmp_path):
    """The loop is held just after the fork, then the start is cancelled: asyncio alone would
    SIGKILL the direct child and wait on pipes its children still hold.  Here all of it dies."""
    from jupyter_agent.lsp.client import LspClient
    from tests.tasks.shell_support import cancel_mid_start, eventually, live_with, token

    mark = token()
    await cancel_mid_start(LspClient.start(["bash", "-c", f"sleep {mark} & sleep {mark}; wait"], tmp_path, "python"))
    assert await eventually(lambda: live_with(mark) == [])
