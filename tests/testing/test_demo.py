"""Demo mode: the scripted conversation plays through a real session with the tools offered."""

from __future__ import annotations

from pydantic import BaseModel

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.core.permission_types import PermissionAsk
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import Tool
from jupyter_agent.testing.demo import DEMO_API_KEY, start_demo_server


class ReadIn(BaseModel):
    file_path: str


class BashIn(BaseModel):
    command: str
    description: str | None = None


class WriteIn(BaseModel):
    file_path: str
    content: str


class FakeRead(Tool[ReadIn, str]):
    name = "Read"
    input_schema = ReadIn

    def is_read_only(self, input):
        return True

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult(f"read {input.file_path}")


class EchoBash(Tool[BashIn, str]):
    name = "Bash"
    input_schema = BashIn

    async def check_permissions(self, input, context):
        return PermissionAsk(f"Run: {input.command}")

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult("Python 3.11.7")


class RealWrite(Tool[WriteIn, str]):
    name = "Write"
    input_schema = WriteIn

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        from pathlib import Path

        Path(input.file_path).write_text(input.content)
        return ToolResult(f"wrote {input.file_path}")


async def test_demo_plays_read_approval_write_answer(tmp_path, approve):
    url, server = start_demo_server()
    try:
        config = SessionConfig(
            cwd=tmp_path, sessions_dir=tmp_path / "s", home=tmp_path, base_url=url, api_key=DEMO_API_KEY,
            notebook_path=tmp_path / "quickstart.ipynb", retry=RetryPolicy(max_retries=0), mode="acceptEdits",
        )
        session = AgentSession(config, can_use_tool=approve, tools=[FakeRead(), EchoBash(), RealWrite()])
        outcome = await session.submit("show me what you can do")
        assert outcome.stop_reason == "end_turn"
        assert [name for name, _ in approve.asks][:1] == ["Bash"]
        assert (tmp_path / "agent_demo_notes.md").read_text().startswith("## Notes from the agent")
        assert "Python 3.11.7" in outcome.text
        assert "ANTHROPIC_API_KEY" in outcome.text
        names = [b["name"] for m in session.messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
        assert names == ["Read", "Bash", "Write"]
        again = await session.submit("again")  # every prompt replays the demo
        assert again.stop_reason == "end_turn"
        await session.aclose()
    finally:
        server.close()


async def test_the_demo_puts_its_notes_below_the_agent_cell_that_asked(tmp_path, approve):
    """The demo inserted its markdown cell at the top of the notebook, above the title, for every
    prompt.  It now goes right below the ``%agent`` cell named in the prompt's reminder (the text
    the magics write), and at the top only when the prompt names no cell."""
    import nbformat

    from jupyter_agent.magics.cell_context import CellContext
    from jupyter_agent.tools.notebook_edit import NotebookEditTool
    from jupyter_agent.tools.read import ReadTool

    path = tmp_path / "quickstart.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title", id="title"),
                                         nbformat.v4.new_code_cell("%agent show me", id="ask"),
                                         nbformat.v4.new_code_cell("x = 1", id="after")])
    nbformat.write(nb, str(path))
    url, server = start_demo_server()
    try:
        config = SessionConfig(
            cwd=tmp_path, sessions_dir=tmp_path / "s", home=tmp_path, base_url=url, api_key=DEMO_API_KEY,
            notebook_path=path, retry=RetryPolicy(max_retries=0), mode="acceptEdits",
        )
        session = AgentSession(config, can_use_tool=approve, tools=[ReadTool(), NotebookEditTool()])
        reminder = CellContext(str(path), "ask", 3).reminder()
        assert (await session.submit(reminder + "show me what you can do")).stop_reason == "end_turn"
        ids = [c.id for c in nbformat.read(str(path), as_version=4).cells]
        assert ids[:2] == ["title", "ask"] and ids[3] == "after" and len(ids) == 4
        assert nbformat.read(str(path), as_version=4).cells[2].source.startswith("## Notes from the agent")
        assert (await session.submit("again, no cell named")).stop_reason == "end_turn"
        cells = nbformat.read(str(path), as_version=4).cells
        assert cells[0].source.startswith("## Notes from the agent") and cells[1].id == "title"
        await session.aclose()
    finally:
        server.close()
