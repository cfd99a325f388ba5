"""A wrapper tool (checkpoints, subagents' read-only guard) must answer for its inner tool in
every way the pipeline and the UI ask: a method of ``Tool`` the wrapper does not forward falls
back to the base class's default, not to the inner tool (``__getattr__`` never sees it)."""

from __future__ import annotations

import inspect

from jupyter_agent.core.tool import ChangePreview, Tool
from jupyter_agent.subagents.delegating import DelegatingTool

# members a wrapper keeps as its own on purpose (to_api_tool is built from forwarded members)
OWN = {"name", "input_schema", "aliases", "max_result_size_chars", "should_defer", "search_hint", "to_api_tool"}


def test_every_member_of_tool_is_forwarded_by_the_wrapper():
    members = {n for n, _ in inspect.getmembers(Tool) if not n.startswith("_")}
    missing = sorted(n for n in members - OWN if n not in vars(DelegatingTool))
    assert missing == [], f"DelegatingTool does not forward {missing}"


async def test_the_wrapped_notebook_edit_previews_its_change_and_summarises_as_itself(tmp_path):
    import nbformat

    from jupyter_agent.checkpoints.wrap import CheckpointingTool
    from jupyter_agent.magics.reports import tool_summary
    from jupyter_agent.tools.agent_tool import AgentTool
    from jupyter_agent.tools.notebook_edit import NotebookEditTool
    from tests.support.tools import make_context

    path = tmp_path / "n.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", id="c")]), path)
    wrapped = CheckpointingTool(NotebookEditTool())
    ctx = make_context([wrapped], tmp_path)
    edit = wrapped.input_schema(notebook_path=str(path), cell_id="c", new_source="x = 2")
    assert await wrapped.change_preview(edit, ctx) == ChangePreview("x = 1", "x = 2", "cell 1 of 1 [ ]: x = 1")
    assert DelegatingTool(AgentTool()).summary == AgentTool.summary
    assert tool_summary(wrapped, ctx.options) == "Completely replaces the contents of a specific cell in a " \
        "Jupyter notebook (.ipynb file) with new so…"


def test_a_wrapped_bash_knows_a_cd_inside_the_project_stays_read_only(tmp_path):
    from jupyter_agent.tools.bash import BashTool
    from tests.support.tools import make_context

    (tmp_path / "sub").mkdir()
    bash = BashTool()
    ctx = make_context([bash], tmp_path)
    command = bash.input_schema(command="cd sub && ls")
    assert bash.is_read_only_in(command, ctx)
    assert DelegatingTool(bash).is_read_only_in(command, ctx)  # it asked the base: "may write"
