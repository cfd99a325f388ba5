"""Pure HTML renderers: escaping, Markdown, diffs, todos, footers and tool card bodies."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jupyter_agent.ui import render, tool_views


def test_markdown_renders_and_escapes_raw_html():
    html = render.markdown_html("**bold** <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "<table>" in html


def test_markdown_refuses_javascript_links():
    html = render.markdown_html("[x](javascript:alert(1))")
    assert "href=\"javascript" not in html and "<a" not in html


def test_diff_html_colours_added_removed_and_hunks():
    lines = render.unified_diff_lines("a\nb\nc\n", "a\nB\nc\n", "src/app.py")
    assert lines[0] == "--- a/src/app.py" and lines[1] == "+++ b/src/app.py"
    html = render.diff_html(lines)
    assert f'background:{render.ADDED_BG}">+B' in html
    assert f'background:{render.REMOVED_BG}">-b' in html
    assert f"color:{render.HUNK_FG}" in html


def test_diff_html_escapes_and_truncates():
    html = render.diff_html(["+<b>x</b>"] * 5, max_lines=2)
    assert "<b>x</b>" not in html and "&lt;b&gt;" in html
    assert "3 more lines" in html


def test_hunks_to_lines_accepts_camel_and_snake_case():
    camel = [{"oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 1, "lines": ["-a", "+b"]}]
    snake = [SimpleNamespace(old_start=1, old_lines=2, new_start=1, new_lines=2, lines=[" x", "-y", "+z"])]
    assert render.hunks_to_lines(camel) == ["@@ -3,1 +3,1 @@", "-a", "+b"]
    assert render.hunks_to_lines(snake) == ["@@ -1,2 +1,2 @@", " x", "-y", "+z"]


def test_todos_html_shows_states():
    html = render.todos_html(
        [
            {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
            {"content": "Fix bug", "status": "in_progress", "activeForm": "Fixing the bug"},
            {"content": "Ship <it>", "status": "pending", "activeForm": "Shipping"},
        ]
    )
    assert "☑ <s>Write tests</s>" in html
    assert "▶ <b>Fixing the bug</b>" in html
    assert "☐ Ship &lt;it&gt;" in html
    assert render.todos_html([]) == ""


def test_footer_text_lists_model_duration_tokens_and_cost():
    usage = SimpleNamespace(
        input_tokens=1200, output_tokens=340, cache_read_input_tokens=25_000, cache_creation_input_tokens=0
    )
    text = render.footer_text("claude-sonnet-5-5", 12.34, usage, 0.01234)
    assert text == "claude-sonnet-5-5 · 12.3s · in 1200 · out 340 · cache 25.0kr/0w · $0.0123"
    full = render.footer_text("m", None, usage, 0.5, "end_turn", context=(126_600, 200_000))
    assert full.endswith("$0.5000 · context 63% of 200k · end_turn")
    assert "context 1% of 1M" in render.footer_text("m", None, usage, 0.5, context=(12_000, 1_000_000))
    nothing = SimpleNamespace(input_tokens=0, output_tokens=0, cache_read_input_tokens=0, cache_creation_input_tokens=0)
    assert render.footer_text("m", 0.1, nothing, 0.0, "blocked") == "m · 0.1s · blocked"  # no request made


async def test_the_footer_says_how_full_the_context_is():
    """How close a long session is to compaction was nowhere to be seen: the footer shows the
    context's fill after the last request, as the session measured it."""
    from jupyter_agent.agent import events as ev
    from jupyter_agent.ui.transcript import Transcript

    transcript = Transcript("x", model="m")
    usage = ev.Usage(input_tokens=10, output_tokens=2)
    transcript.handle(ev.UsageUpdated(usage, usage, 0.001, 0.001, 50_000, 200_000))
    assert "context 25% of 200k" in transcript.footer.value
    transcript.handle(ev.UsageUpdated(usage, usage, 0.002, 0.002))  # not measured (a side request)
    assert "context 25%" in transcript.footer.value
    transcript.finish("end_turn", duration_s=1.0)
    assert "context 25% of 200k · end_turn" in transcript.static_html()


async def test_a_running_turns_footer_shows_no_stale_duration():
    """The footer is redrawn once per request: a time in it would be stale at once (it read
    0.3 s while a command had run for 3 s); the duration appears when the turn ends."""
    from jupyter_agent.agent import events as ev
    from jupyter_agent.ui.transcript import Transcript

    transcript = Transcript("x", model="m")
    usage = ev.Usage(input_tokens=10, output_tokens=2)
    transcript.handle(ev.UsageUpdated(usage, usage, 0.001, 0.001))
    assert transcript.footer.value.count("·") and "s ·" not in transcript.footer.value
    assert "m · in 10 · out 2" in transcript.footer.value and "running" in transcript.footer.value
    transcript.finish("end_turn", duration_s=4.25)
    assert "m · 4.2s · in 10" in transcript.footer.value or "m · 4.3s · in 10" in transcript.footer.value


def test_tail_html_keeps_last_lines():
    html = render.tail_html([f"line {i}" for i in range(30)], limit=5)
    assert "line 29" in html and "line 25" in html and "line 24" not in html
    assert "25 earlier lines" in html


@pytest.mark.parametrize(
    ("tool", "data", "expected"),
    [
        ("Bash", {"command": "pytest -q\nmore"}, "Bash: pytest -q"),
        ("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}, "Edit src/app.py"),
        ("NotebookEdit", {"notebook_path": "nb.ipynb", "new_source": "x"}, "NotebookEdit nb.ipynb"),
        ("Glob", {"pattern": "**/*.py"}, "Glob **/*.py"),
        ("TodoWrite", {"todos": []}, "TodoWrite"),
    ],
)
def test_summary_line_defaults(tool, data, expected):
    assert tool_views.summary_line(None, tool, data) == expected


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/w/proj/src/app.py", "src/app.py"),
        ("/w/proj", "."),
        ("/w/proj-evil/x.py", "/w/proj-evil/x.py"),  # by components, not by string prefix
        ("/w/proj/../etc/passwd", "/w/proj/../etc/passwd"),  # not normal: shown exactly as given
        ("/w/proj/./a", "/w/proj/./a"),
        ("//w/proj/a", "//w/proj/a"),
        ("/w/proj/a/", "/w/proj/a/"),
        ("/etc/hosts", "/etc/hosts"),
        ("src/app.py", "src/app.py"),  # already relative
        ("/home/ada/notes.md", "~/notes.md"),
    ],
)
def test_display_path(monkeypatch, path, shown):
    monkeypatch.setenv("HOME", "/home/ada")
    assert tool_views.display_path(path, "/w/proj") == shown


def test_display_path_under_a_root_of_slash_stays_absolute(monkeypatch):
    monkeypatch.setenv("HOME", "/home/ada")
    assert tool_views.display_path("/etc/passwd", "/") == "/etc/passwd"
    assert tool_views.display_path("/etc/passwd", None) == "/etc/passwd"


def test_summary_line_shows_paths_inside_the_session_folder_relative(tmp_path):
    from jupyter_agent.tools.grep import GrepInput, GrepTool
    from jupyter_agent.tools.read import ReadInput, ReadTool

    read = ReadInput(file_path=str(tmp_path / "src" / "clean.py"))
    assert tool_views.summary_line(ReadTool(), "Read", read, tmp_path) == "Read src/clean.py"
    grep = GrepInput(pattern="dropna", path=str(tmp_path))
    assert tool_views.summary_line(GrepTool(), "Grep", grep, tmp_path) == 'Grep "dropna"'  # the folder itself
    below = GrepInput(pattern="dropna", path=str(tmp_path / "src"))
    assert tool_views.summary_line(GrepTool(), "Grep", below, tmp_path) == 'Grep "dropna" in src'
    outside = {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}
    assert tool_views.summary_line(None, "Edit", outside, tmp_path) == "Edit /etc/hosts"
    # a path that only looks like it is inside (a sibling folder sharing the prefix)
    sibling = {"file_path": f"{tmp_path}-evil/a.py"}
    assert tool_views.summary_line(None, "Write", sibling, tmp_path) == f"Write {tmp_path}-evil/a.py"


def test_counts_are_singular_for_one():
    from jupyter_agent.tools.glob import GlobOutput, GlobTool
    from jupyter_agent.tools.grep import GrepOutput, GrepTool

    assert tool_views.result_summary(None, "Read", {"num_lines": 1}, "", False) == "Read 1 line"
    assert GlobTool().render_tool_result_message(GlobOutput(("a",), 1, False, 0)) == "Found 1 file"
    assert GlobTool().render_tool_result_message(GlobOutput((), 0, False, 0)) == "Found 0 files"
    one = GrepOutput("files_with_matches", ("a",), 1, 0, False)
    assert GrepTool().render_tool_result_message(one) == "1 file"
    assert GrepTool().render_tool_result_message(GrepOutput("content", ("a", "b"), 2, 0, False)) == "2 lines"


def test_summary_line_prefers_the_tools_own_hook():
    class Fake:
        def render_tool_use_message(self, input):
            return f"Custom {input.x}"

    assert tool_views.summary_line(Fake(), "X", SimpleNamespace(x=3)) == "Custom 3"


def test_bash_detail_shows_the_full_command():
    cmd = "pytest -q tests/ && rm -rf build/ # " + "x" * 300
    html = tool_views.input_detail_html("Bash", {"command": cmd, "description": "Run tests"})
    assert render.escape(cmd) in html
    assert "Run tests" in html


def test_edit_detail_is_the_full_diff():
    old = "\n".join(f"line {i}" for i in range(50))
    new = old.replace("line 25", "LINE 25")
    html = tool_views.input_detail_html("Edit", {"file_path": "f.py", "old_string": old, "new_string": new})
    assert "-line 25" in html and "+LINE 25" in html


def test_write_and_notebook_details():
    html = tool_views.input_detail_html("Write", {"file_path": "f.py", "content": "print(1)\nprint(2)"})
    assert "+print(1)" in html and "+print(2)" in html
    nb = tool_views.input_detail_html(
        "NotebookEdit", {"notebook_path": "n.ipynb", "cell_id": "abc", "new_source": "x = 1", "edit_mode": "insert"}
    )
    assert "insert a code cell after abc" in nb and "x = 1" in nb  # it said "insert cell abc": which is new?
    assert render.diff_html(["+x = 1"]) in nb  # a new cell's lines read as added, like a new file's
    top = tool_views.input_detail_html("NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "# T",
                                                        "cell_type": "markdown", "edit_mode": "insert"})
    assert "insert a markdown cell at the top" in top
    swap = tool_views.input_detail_html("NotebookEdit", {"notebook_path": "n.ipynb", "cell_id": "c", "new_source": "#",
                                                         "cell_type": "markdown"})
    assert "replace cell c as markdown" in swap
    assert "delete cell c" in tool_views.input_detail_html("NotebookEdit", {"notebook_path": "n.ipynb", "cell_id": "c",
                                                                            "new_source": "", "edit_mode": "delete"})


def test_a_cell_change_names_the_cell_as_people_find_it():
    """The approval card's line names the cell by its place, count and first line, not its id."""
    where = "cell 3 of 12 [5]: df = pd.read_csv('sales.csv')"
    replace = {"notebook_path": "n.ipynb", "cell_id": "4af4f662-3f7a", "new_source": "df = 1"}
    html = tool_views.change_html("NotebookEdit", replace, "df = 0", "df = 1", where)
    assert "replace cell 3 of 12 [5]: df = pd.read_csv(&#x27;sales.csv&#x27;)" in html and "4af4f662" not in html
    assert "-df = 0" in html and "+df = 1" in html
    swap = tool_views.change_html("NotebookEdit", {**replace, "cell_type": "markdown"}, "x", "# T", where)
    assert "replace cell 3 of 12 [5]: df = pd.read_csv(&#x27;sales.csv&#x27;) (as markdown)" in swap
    insert = {"notebook_path": "n.ipynb", "cell_id": "c", "new_source": "## Notes", "cell_type": "markdown",
              "edit_mode": "insert"}
    assert "insert a markdown cell after cell 1 of 2 (markdown): # Title" in tool_views.change_html(
        "NotebookEdit", insert, "", "## Notes", "cell 1 of 2 (markdown): # Title")
    top = tool_views.change_html("NotebookEdit", {**insert, "cell_id": None}, "", "## Notes")
    assert "insert a markdown cell at the top" in top and "+## Notes" in top
    gone = tool_views.change_html("NotebookEdit", {**replace, "edit_mode": "delete"}, "plt.show()", "", "cell 9 of 9 [ ]: plt.show()")
    assert "delete cell 9 of 9 [ ]: plt.show()" in gone and "-plt.show()" in gone
    # without a preview (it failed or was slow), the id as before (a UUID's head)
    assert "replace cell 4af4f662…" in tool_views.change_html("NotebookEdit", replace, "a", "b")
    assert "replace cell c1<" in tool_views.input_detail_html("NotebookEdit", {**replace, "cell_id": "c1"})


def test_describe_cell():
    from jupyter_agent.tools.read_notebook import NotebookCell, describe_cell

    cells = [NotebookCell("a", "markdown", "\n# Sales\nmore", None, ()),
             NotebookCell("b", "code", "import pandas as pd", 3, ()),
             NotebookCell("c", "code", "   \n", None, ()),
             NotebookCell("d", "code", "x = " + "1" * 80, None, ())]
    assert describe_cell(cells, 0) == "cell 1 of 4 (markdown): # Sales"
    assert describe_cell(cells, 1) == "cell 2 of 4 [3]: import pandas as pd"
    assert describe_cell(cells, 2) == "cell 3 of 4 [ ] (empty)"
    long = describe_cell(cells, 3)
    assert long.startswith("cell 4 of 4 [ ]: x = 111") and long.endswith("…") and len(long) < 80


def test_notebook_edit_result_line_shortens_uuid_ids():
    from jupyter_agent.tools.notebook_edit import NotebookEditOutput, NotebookEditTool

    out = NotebookEditOutput("/n.ipynb", "4af4f662-3f7a-4c1e-9d0b-0a1b2c3d4e5f", "x", "code", "python", "replace", "live")
    assert NotebookEditTool().render_tool_result_message(out) == "Replace code cell 4af4f662… (open notebook)"
    short = NotebookEditOutput("/n.ipynb", "c1", "", None, "python", "delete", "disk")
    assert NotebookEditTool().render_tool_result_message(short) == "Delete cell c1 (file on disk)"
    placed = NotebookEditOutput("/n.ipynb", "4af4f662-3f7a", "x", "code", "python", "replace", "live", (3, 12))
    assert NotebookEditTool().render_tool_result_message(placed) == "Replace code cell 3 of 12 (open notebook)"


def test_a_fetch_shows_what_it_asks_of_the_page_not_json():
    html = tool_views.input_detail_html("WebFetch", {"url": "https://docs.python.org/3/", "prompt": "List the <b>new</b> APIs"})
    assert "Looks for: " in html and "List the &lt;b&gt;new&lt;/b&gt; APIs" in html
    assert '"url"' not in html  # the address is in the card's title


def test_result_bodies_by_shape():
    patch = {"structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}]}
    assert "+b" in tool_views.result_body_html("Edit", patch)
    nb = tool_views.result_body_html("NotebookEdit", {"original_source": "x = 1", "new_source": "x = 2"})
    assert "-x = 1" in nb and "+x = 2" in nb
    grep = tool_views.result_body_html("Grep", {"filenames": ["a.py", "b.py"]})
    assert "a.py" in grep and "b.py" in grep
    hits = {"content": "/w/proj/src/a.py:3:x = 1\n/w/proj-evil/b.py:1:x\n/etc/c:2:x"}
    shown = tool_views.result_body_html("Grep", hits, root="/w/proj/")
    assert "\nsrc/a.py:3:x = 1" in shown or ">src/a.py:3:x = 1" in shown
    assert "/w/proj-evil/b.py:1:x" in shown and "/etc/c:2:x" in shown  # outside: as they are
    from jupyter_agent.tools.bash import BashOutput

    started = BashOutput("Command running in background with ID: b1. Read new output with TaskOutput.",
                         output_path="/w/proj/.agent/b1.output", background_task_id="b1")
    body = tool_views.result_body_html("Bash", started, root="/w/proj")
    assert "Its output goes to .agent/b1.output" in body and "TaskOutput" not in body  # that was for the model
    files = tool_views.result_body_html("Grep", {"filenames": ["/w/proj/a.py", "/w/projx/b.py"]}, root="/w/proj")
    assert ">a.py\n/w/projx/b.py<" in files
    assert tool_views.result_body_html("Unknown", object()) == ""


def test_result_summary_read_lines_and_errors():
    assert tool_views.result_summary(None, "Read", {"num_lines": 42}, "", False) == "Read 42 lines"
    assert tool_views.result_summary(None, "Read", None, "a\nb\nc", False) == "Read 3 lines"
    assert tool_views.result_summary(None, "Bash", None, "Exit code 2\nboom", True) == "Exit code 2"


def test_real_tool_outputs_render(tmp_path):
    """The shapes the real Edit, Grep and Bash tools return (dataclasses with hunks/lines/output)."""
    from jupyter_agent.tools._diff import DiffHunk
    from jupyter_agent.tools.bash import BashOutput
    from jupyter_agent.tools.edit import EditOutput
    from jupyter_agent.tools.grep import GrepOutput

    edit = EditOutput("f.py", 1, (DiffHunk(2, 1, 2, 1, ("-old line", "+new line")),), "snippet")
    html = tool_views.result_body_html("Edit", edit)
    assert "@@ -2,1 +2,1 @@" in html and f'background:{render.ADDED_BG}">+new line' in html
    grep = GrepOutput("files_with_matches", ("src/a.py", "src/b.py"), 2, 0, False)
    assert "src/b.py" in tool_views.result_body_html("Grep", grep)
    bash = BashOutput("collected 3 items\n3 passed", exit_code=0)
    assert "3 passed" in tool_views.result_body_html("Bash", bash)


def test_a_cards_result_line_is_never_a_python_repr():
    """A tool without its own result line shows the text the model got, not ``Out(x=…)``."""
    from dataclasses import dataclass

    from jupyter_agent.core.tool import Tool
    from jupyter_agent.tools.plan_mode import ExitPlanModeOutput, ExitPlanModeTool

    @dataclass(frozen=True)
    class Out:
        rows: int

    class Counting(Tool):
        name = "Counting"

        def map_result_to_content(self, data, tool_use_id):
            return [{"type": "text", "text": f"\n{data.rows} rows counted\nmore detail"}]

    assert tool_views.result_summary(Counting(), "Counting", Out(3), "", False) == "3 rows counted"
    approved = ExitPlanModeOutput("## Plan\n1. x", "acceptEdits")
    assert tool_views.result_summary(ExitPlanModeTool(), "ExitPlanMode", approved, "", False) == \
        "Continuing in acceptEdits mode"


def test_a_notebook_run_reads_as_one():
    from jupyter_agent.tools.notebook_execute import (
        ExecutedCellOutput,
        NotebookExecuteInput,
        NotebookExecuteOutput,
        NotebookExecuteTool,
    )

    tool = NotebookExecuteTool()
    one = NotebookExecuteInput(notebook_path="/w/fix.ipynb", cell_ids=["mean-cell"])
    two = NotebookExecuteInput(notebook_path="/w/fix.ipynb", cell_ids=["a", "b"], timeout=5000)
    assert tool.render_tool_use_message(one) == "Run fix.ipynb cell mean-cell"
    assert tool.render_tool_use_message(two) == "Run fix.ipynb cells a, b"
    failed = {"output_type": "error", "ename": "E", "evalue": "", "traceback": []}
    ran = NotebookExecuteOutput("/w/fix.ipynb", (ExecutedCellOutput("a", "code", 1, ()),
                                                ExecutedCellOutput("b", "code", 2, (failed,))))
    assert tool.render_tool_result_message(ran) == "Ran 2 cells, 1 error"
    assert tool_views.input_detail_html("NotebookExecute", one.model_dump()) == ""  # all of it is in the title
    assert "timeout 5 s" in tool_views.input_detail_html("NotebookExecute", two.model_dump())


async def test_an_approval_question_keeps_its_lines():
    from jupyter_agent.core.permission_types import PermissionAsk
    from jupyter_agent.ui.approval import ApprovalPanel

    panel = ApprovalPanel(PermissionAsk("Run 1 cell of n.ipynb in the kernel?\n[c1]\nx = 1\nprint(x)"))
    assert "white-space:pre-wrap" in panel.message.value and "[c1]\nx = 1\nprint(x)" in panel.message.value


def test_code_and_errors_use_text_line_height_not_the_widgets():
    """An HTML widget's line height is a button's (28 px): diffs and wrapped errors set their own."""
    for html in (render.diff_html(["@@ -1 +1 @@", "-a", "+b"]), render.error_html("x " * 200), render.pre("a\nb")):
        assert "line-height:1.4" in html


def test_a_titled_tools_card_shows_only_what_its_title_does_not():
    """Read src/a.py's card body was the JSON of {"file_path": ...}: the title already says it."""
    assert tool_views.input_detail_html("Read", {"file_path": "/w/a.py"}) == ""
    assert "offset 10 · limit 50" in tool_views.input_detail_html("Read", {"file_path": "/w/a.py", "offset": 10, "limit": 50})
    grep = tool_views.input_detail_html("Grep", {"pattern": "x", "path": "/w", "output_mode": "content", "-n": True})
    assert 'output_mode &quot;content&quot; · -n true' in grep and "/w" not in grep
    assert tool_views.input_detail_html("Glob", {"pattern": "**/*.py", "path": "/w"}) == ""
    from jupyter_agent.tools.grep import GrepTool

    parsed = GrepTool.input_schema(pattern="x", output_mode="content", **{"-n": True})
    assert "-i" not in tool_views.input_detail_html("Grep", parsed)  # the schema's defaults are not shown
    short_list = tool_views.input_detail_html("Grep", {"pattern": "x", "glob": ["a", "b"]})
    assert 'glob [&quot;a&quot;, &quot;b&quot;]' in short_list  # a short list of words: in the line
    assert "anything 1" in tool_views.input_detail_html("mcp__s__t", {"anything": 1})  # unknown tools: all of it


def test_a_cards_input_reads_as_fields_not_json():
    """An MCP tool's (or any untitled tool's) card showed its input as a JSON dump; now short
    values share a line, long text is a block under its name, nested values stay JSON."""
    html = tool_views.input_detail_html("mcp__github__create_issue", {
        "repo": "me/app", "draft": False, "body": "Steps:\n1. run it\n2. <crash>",
        "labels": [{"name": "bug", "color": "red"}],
    })
    assert "repo &quot;me/app&quot; · draft false" in html
    assert "&gt;body<" not in html and ">body</span></div><pre" in html and "1. run it\n2. &lt;crash&gt;</pre>" in html
    assert ">labels</span></div><pre" in html and "&quot;color&quot;: &quot;red&quot;" in html
    assert "{" not in html.split("labels")[0]  # no JSON object around the whole input
    long = tool_views.input_detail_html("mcp__s__t", {"query": "word " * 30})
    assert ">query</span></div><pre" in long


def test_a_subagent_and_a_todo_list_show_what_they_are_about():
    """The Agent card showed the JSON of its input, TodoWrite the JSON of the list."""
    agent = tool_views.input_detail_html("Agent", {"description": "Count lines", "prompt": "count lines in a.txt",
                                                   "subagent_type": "general-purpose", "model": "haiku"})
    assert ">Prompt</span></div><pre" in agent and "count lines in a.txt</pre>" in agent
    assert "model &quot;haiku&quot;" in agent and "Count lines" not in agent and "general-purpose" not in agent
    todos = tool_views.input_detail_html("TodoWrite", {"todos": [
        {"content": "Load", "status": "completed", "activeForm": "Loading"},
        {"content": "Plot", "status": "in_progress", "activeForm": "Plotting"},
        {"content": "Save", "status": "pending", "activeForm": "Saving"}]})
    assert "☑ <s>Load</s>" in todos and "▶ <b>Plotting</b>" in todos and "☐ Save" in todos
    assert "activeForm" not in todos


def test_a_result_that_says_more_than_one_line_is_shown_in_the_card():
    """Only the first line of a subagent's report (or an MCP tool's answer) reached the card."""
    report = "Found 2 problems:\n\n- **a.py** misses an import\n- b.py divides by zero"
    agent = tool_views.result_body_html("Agent", "x", {}, None, report)
    assert render.RENDERED_HTML_CLASS in agent and "<strong>a.py</strong>" in agent and "<li>" in agent
    mcp = tool_views.result_body_html("mcp__s__t", None, {}, None, "line 1\n<line 2>")
    assert mcp.startswith("<pre") and "line 1\n&lt;line 2&gt;" in mcp
    assert tool_views.result_body_html("mcp__s__t", None, {}, None, "just one line") == ""
    assert tool_views.result_body_html("Read", None, {}, None, "1\tsecret\n2\tmore") == ""  # for the model
    assert tool_views.result_body_html("TodoWrite", None, {}, None, "Todos modified.\nKeep going.") == ""
    many = tool_views.result_body_html("mcp__s__t", None, {}, None, "\n".join(f"row {i}" for i in range(100)))
    assert "row 59" in many and "row 60" not in many and "… 40 more lines" in many


def test_an_errors_lines_after_the_first_are_shown():
    """A validation error's card read 'InputValidationError: Bash failed due to the following
    issue(s):' and hid the issues."""
    text = "InputValidationError: Bash failed due to the following issue(s):\nThe required parameter `command` is missing"
    body = tool_views.error_body_html(text)
    assert "The required parameter `command` is missing" in body and "InputValidationError" not in body
    assert tool_views.error_body_html("one line only") == ""


def test_result_texts_written_for_the_model_stay_off_the_card():
    """WebSearch's text is JSON links and a REMINDER to the model, TaskOutput's is tags, a
    WebFetch redirect is an instruction: the card shows the links, the output, nothing."""
    from jupyter_agent.tools.task_output import TaskOutputResult
    from jupyter_agent.tools.web_fetch import WebFetchOutput
    from jupyter_agent.tools.web_search import SearchHit, SearchResults, WebSearchOutput, format_output

    search = WebSearchOutput(query="q", results=["Some commentary", SearchResults(tool_use_id="s", content=[
        SearchHit(title="Pandas <docs>", url="https://pandas.pydata.org/x"), SearchHit(title="bad", url="javascript:alert(1)")])])
    html = tool_views.result_body_html("WebSearch", search, {}, None, format_output(search))
    assert '<a href="https://pandas.pydata.org/x" target="_blank" rel="noopener noreferrer">Pandas &lt;docs&gt;</a>' in html
    assert "javascript:" not in html and "REMINDER" not in html and "Links:" not in html
    empty = WebSearchOutput(query="q", results=[SearchResults(tool_use_id="s")])
    assert tool_views.result_body_html("WebSearch", empty, {}, None, format_output(empty)) == ""
    redirect = WebFetchOutput(url="https://a.example/", code=301, code_text="Moved", bytes=0, result="",
                              duration_ms=1, redirect_url="https://b.example/")
    assert tool_views.result_body_html("WebFetch", redirect, {}, None, "REDIRECT DETECTED: …\nPlease use WebFetch again") == ""
    task_out = TaskOutputResult("success", None, "epoch 1 loss 0.9\nepoch 2 loss 0.5")
    tagged = "<retrieval_status>success</retrieval_status>\n<output>\nepoch 1 loss 0.9\nepoch 2 loss 0.5\n</output>"
    body = tool_views.result_body_html("TaskOutput", task_out, {}, None, tagged)
    assert "epoch 1 loss 0.9\nepoch 2 loss 0.5" in body and "retrieval_status" not in body
    assert tool_views.result_body_html("TaskOutput", TaskOutputResult("not_ready", None, ""), {}, None, tagged) == ""
    for name in ("TodoWrite", "Skill", "EnterWorktree", "SendMessage", "CronCreate"):  # instructions, not news
        assert tool_views.result_body_html(name, None, {}, None, "Done.\nNow do the next thing.") == ""


def test_paths_in_a_line_are_shown_relative_to_the_folder():
    assert tool_views.relative_in("general-purpose: Read /w/proj/src/a.py", "/w/proj") == "general-purpose: Read src/a.py"
    assert tool_views.relative_in("x: Read /w/proj-evil/a.py and /w/proj/b", "/w/proj/") == "x: Read /w/proj-evil/a.py and b"
    assert tool_views.relative_in("x: Read /other/w/proj/a.py", "/w/proj") == "x: Read /other/w/proj/a.py"
    assert tool_views.relative_in("unchanged", None) == "unchanged"
