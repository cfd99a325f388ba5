"""The transcript fed by the real tool pipeline, with the widget permission handler answering."""

from __future__ import annotations

import asyncio
import json

from jupyter_agent.agent import events as ev
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAsk, PermissionUpdate
from jupyter_agent.core.tool import ToolProgress
from jupyter_agent.ui.permission_handler import REJECT_MESSAGE, WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript
from tests.support.tools import GuardedTool, ProgressTool, make_context


class SuggestingTool(GuardedTool):
    name = "Suggesting"

    async def check_permissions(self, input, context):
        return PermissionAsk(f"Write {input.path}?", suggestions=(PermissionUpdate(rules=("Suggesting(ok/**)",)),))


async def _panel(transcript: Transcript, tool_use_id: str):
    for _ in range(500):
        card = transcript.cards.get(tool_use_id)
        if card is not None and card.approval is not None:
            return card.approval
        await asyncio.sleep(0.01)
    raise AssertionError("no approval panel appeared")


def _setup(tmp_path, tool):
    ctx = make_context([tool], tmp_path)
    transcript = Transcript("please write", model="test-model", find_tool=ctx.find_tool)
    handler = WidgetPermissionHandler(lambda: transcript, project_dir=tmp_path)
    return ctx, transcript, handler


def _run(ctx, transcript, handler, tool_use_id, name, input):
    req = ToolUseRequest(tool_use_id, name, input)
    return asyncio.create_task(run_tool_use(req, ctx, handler, on_event=transcript.handle))


async def test_approve_runs_the_tool_and_is_recorded(tmp_path):
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    run = _run(ctx, transcript, handler, "tu1", "Guarded", {"path": "ok/a.txt", "text": "hi"})
    panel = await _panel(transcript, "tu1")
    card = transcript.cards["tu1"]
    assert card.state == "asking" and "Write ok/a.txt?" in panel.message.value
    panel.approve.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error and outcome.text == "wrote ok/a.txt: hi"
    assert card.state == "done"
    html = transcript.static_html()
    assert "Approved" in html and "wrote ok/a.txt: hi" in html


async def test_deny_with_feedback_reaches_the_model(tmp_path):
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    run = _run(ctx, transcript, handler, "tu2", "Guarded", {"path": "ok/b.txt"})
    panel = await _panel(transcript, "tu2")
    panel.feedback.value = "write to ok/c.txt instead"
    panel.deny.click()
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.is_error
    assert "the user said:\nwrite to ok/c.txt instead" in outcome.text
    assert outcome.text.startswith(REJECT_MESSAGE.split(".")[0])
    card = transcript.cards["tu2"]
    assert card.state == "denied"
    assert "Denied: write to ok/c.txt instead" in transcript.static_html()
    # the card says what the user did, not the instructions meant for the model
    assert card.result_summary == "" and "STOP what you are doing" not in card.title_html()
    assert "doesn&#x27;t want to proceed" not in transcript.static_html()


async def test_a_plain_denial_shows_only_denied(tmp_path):
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    run = _run(ctx, transcript, handler, "tu2b", "Guarded", {"path": "ok/b.txt"})
    (await _panel(transcript, "tu2b")).deny.click()
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.text == REJECT_MESSAGE  # the model still gets the whole instruction
    title = transcript.cards["tu2b"].title_html()
    assert "<i>Denied</i>" in title and "proceed" not in title


async def test_always_allow_saves_the_rule(tmp_path):
    ctx, transcript, handler = _setup(tmp_path, SuggestingTool())
    run = _run(ctx, transcript, handler, "tu3", "Suggesting", {"path": "ok/d.txt"})
    panel = await _panel(transcript, "tu3")
    assert "Suggesting(ok/**)" in panel.always.description
    panel.always.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error
    in_memory = [rule for _src, rule in ctx.permission_context.rules("allow")]
    settings = tmp_path / ".claude" / "settings.local.json"
    assert "Suggesting(ok/**)" in in_memory  # applies to this session at once
    assert "Suggesting(ok/**)" in json.loads(settings.read_text())["permissions"]["allow"]  # and is saved
    assert "Always allowed Suggesting(ok/**)" in transcript.static_html()


async def test_stop_button_closes_the_ask_and_calls_on_stop(tmp_path):
    stopped: list[bool] = []
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    transcript.on_stop = lambda: stopped.append(True)
    run = _run(ctx, transcript, handler, "tu4", "Guarded", {"path": "ok/e.txt"})
    await _panel(transcript, "tu4")
    transcript.stop_button.click()  # from the loop thread, scheduled thread-safely
    outcome = await asyncio.wait_for(run, 5)
    assert stopped == [True]
    assert outcome.is_error and "stopped the turn" in outcome.text


async def test_the_turn_says_when_it_waits_for_the_user_and_when_that_is_over(tmp_path):
    """``on_ask`` (the magics notify the page) hears what the turn waits for, and the callable
    it returned is called once the ask is over: answered, or closed by a stop.  A failing hook
    is no failure of the ask."""
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    asked: list[str] = []
    over: list[str] = []

    def on_ask(what):
        asked.append(what)
        return lambda: over.append(what)

    transcript.on_ask = on_ask
    run = _run(ctx, transcript, handler, "tu6", "Guarded", {"path": "ok/n.txt", "text": "x"})
    panel = await _panel(transcript, "tu6")
    assert asked == [f"approve {transcript.cards['tu6'].summary}"] and over == []
    assert "jupyter-agent-ask" in panel._dom_classes  # what the page looks for on screen
    panel.approve.click()
    await asyncio.wait_for(run, 5)
    assert over == asked

    transcript.on_ask = lambda what: 1 / 0  # broken: the ask still works
    run = _run(ctx, transcript, handler, "tu7", "Guarded", {"path": "ok/m.txt"})
    await _panel(transcript, "tu7")
    transcript.on_ask = on_ask
    run2 = _run(ctx, transcript, handler, "tu8", "Guarded", {"path": "ok/o.txt"})
    await _panel(transcript, "tu8")
    transcript.stop_button.click()  # the stop closes both asks
    for task in (run, run2):
        assert (await asyncio.wait_for(task, 5)).is_error
    assert len(asked) == 2 and over == asked


async def test_no_transcript_means_a_clear_denial(tmp_path):
    tool = GuardedTool()
    ctx = make_context([tool], tmp_path)
    handler = WidgetPermissionHandler(lambda: None)
    outcome = await run_tool_use(ToolUseRequest("tu5", "Guarded", {"path": "ok/f"}), ctx, handler)
    assert outcome.is_error and "no notebook cell is showing this turn" in outcome.text


async def test_events_build_text_cards_todos_and_footer(tmp_path):
    ctx, transcript, handler = _setup(tmp_path, ProgressTool())
    transcript.handle(ev.TurnStarted("turn1", "please write"))
    transcript.handle(ev.TextDelta("Let me **check**."))
    await _run(ctx, transcript, handler, "tu6", "Progress", {"steps": 3})
    transcript.handle(ev.TextDelta("All done."))
    transcript.handle(ev.TodosUpdated([{"content": "Check", "status": "completed", "activeForm": "Checking"}]))
    usage = ev.Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=50)
    transcript.handle(ev.UsageUpdated(usage, usage, 0.0012, 0.0012))
    done: list[str] = []
    transcript.on_done(lambda t: done.append(t.static_html()))
    transcript.handle(ev.TurnEnded("turn1", "end_turn", 1.5, usage))
    assert transcript.done and done
    kinds = [type(b).__name__ for b in transcript.blocks]
    assert kinds == ["StreamingMarkdown", "ToolCard", "StreamingMarkdown"]
    assert "step 2" in transcript.cards["tu6"].static_html()
    assert "☑" in transcript.todo_view.value
    assert "test-model · 1.5s · in 100 · out 20 · cache 50r/0w · $0.0012 · end_turn" in transcript.footer.value
    assert "<strong>check</strong>" in done[0] and "All done." in done[0]
    button = transcript.stop_button
    assert button.disabled and button.description == "Done"
    assert button.icon == "check" and button.button_style == ""  # no orange "stop" look once done


async def test_unfinished_cards_are_closed_when_the_turn_ends(tmp_path):
    transcript = Transcript("x")
    transcript.handle(ev.ToolUseStreaming("tu7", "Bash", '{"command": "sleep'))
    transcript.finish("interrupted")
    card = transcript.cards["tu7"]
    assert card.state == "stopped" and card.result_summary == "Stopped" and "■" in card.title_html()
    assert transcript.stop_button.description == "Stopped"


class TickingTool(ProgressTool):
    """Prints two lines, then runs until it is stopped."""

    name = "Ticking"

    def interrupt_behavior(self) -> str:
        return "cancel"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        for i in (1, 2):
            on_progress(ToolProgress("", f"tick {i}"))
        await asyncio.sleep(60)


async def test_a_call_the_user_stopped_is_stopped_not_failed_and_shows_where(tmp_path):
    """Stop is the user's choice, not the tool's failure: a grey ■ Stopped (it was a red ✖ and
    three sentences meant for the model), open on the output it had printed."""
    from jupyter_agent.ui import render

    ctx, transcript, handler = _setup(tmp_path, TickingTool())
    run = _run(ctx, transcript, handler, "tu8", "Ticking", {"steps": 0})
    for _ in range(1000):
        await asyncio.sleep(0.01)
        if len(transcript.cards.get("tu8").tail if "tu8" in transcript.cards else ()) == 2:
            break
    ctx.abort_controller.abort("interrupted")
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.is_error and outcome.text.startswith("Interrupted by user")  # the model is told as before
    card = transcript.cards["tu8"]
    title = card.title_html()
    assert card.state == "stopped" and "■" in title and "Stopped" in title and render.ERROR_FG not in title
    assert card.toggle.value is True and "tick 2" in card.tail_view.value
    assert "Interrupted by user" not in card.static_html()


async def test_a_queued_turn_says_so_until_it_starts():
    from jupyter_agent.magics.turns import Turn, TurnRouter

    router = TurnRouter(lambda: None)
    first, second = Transcript("one"), Transcript("two")
    router.add(Turn(first, "c1"))
    router.dispatch(ev.TurnStarted("t1", "one"))
    router.add(Turn(second, "c2"))
    assert "queued behind the running turn" in second.footer.value
    router.dispatch(ev.TextDelta("for one"))
    router.dispatch(ev.TurnEnded("t1", "end_turn", 0.1, ev.Usage()))
    router.dispatch(ev.TurnStarted("t2", "two"))
    router.dispatch(ev.TextDelta("for two"))
    assert "running" in second.footer.value and "queued" not in second.footer.value
    assert first.blocks[0].text == "for one" and second.blocks[0].text == "for two"
    assert first.done and not second.done


class MidCallAskTool(GuardedTool):
    """Runs without asking, then asks mid-call (as a sandboxed command asks about a host)."""

    name = "MidCallAsk"

    def __init__(self) -> None:
        self.resume = asyncio.Event()

    async def check_permissions(self, input, context):
        from jupyter_agent.core.permission_types import PermissionAllow

        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        from jupyter_agent.core.tool import ToolResult
        from jupyter_agent.sandbox.network import asker

        answer = await asker(self, input, context, can_use_tool)(PermissionAsk(f"Reach {input.path}?"))
        await self.resume.wait()
        return ToolResult(f"{type(answer).__name__} for {input.path}")


async def test_a_question_asked_mid_call_shows_on_its_card_and_the_card_runs_on(tmp_path):
    tool = MidCallAskTool()
    ctx, transcript, handler = _setup(tmp_path, tool)
    run = _run(ctx, transcript, handler, "tu9", "MidCallAsk", {"path": "pypi.org"})
    panel = await _panel(transcript, "tu9")  # on this call's card: the tool does not know its id
    card = transcript.cards["tu9"]
    assert card.state == "asking" and "Reach pypi.org?" in panel.message.value
    panel.approve.click()
    for _ in range(1000):
        if card.state != "asking":
            break
        await asyncio.sleep(0.01)
    assert card.state == "running"
    tool.resume.set()
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.text == "PermissionAllow for pypi.org" and card.state == "done"


async def test_a_question_on_a_finished_card_leaves_it_finished(tmp_path):
    """A background command asks after its call's card is done (its network, say)."""
    from jupyter_agent.ui.tool_card import ToolCard

    card = ToolCard("tu10", "Bash")
    card.start()
    card.finish(is_error=False, summary="started in the background")
    panel = card.ask(PermissionAsk("Network request outside the sandbox: pypi.org (port 443)."))
    assert card.state == "asking"
    panel.approve.click()
    await asyncio.wait_for(panel.wait(), 5)
    assert card.state == "done" and card.decision == "Approved"


async def test_a_call_refused_before_it_starts_still_names_its_file(tmp_path):
    """The model's input is known when its message ends: a call refused at validation (here a
    real one: NotebookEdit of a notebook not read yet) keeps a title that says what it was for."""
    from jupyter_agent.tools.notebook_edit import NotebookEditTool

    tool = NotebookEditTool()
    ctx = make_context([tool], tmp_path)
    transcript = Transcript("edit", find_tool=ctx.find_tool, root=tmp_path)
    handler = WidgetPermissionHandler(lambda: transcript, project_dir=tmp_path)
    nb = tmp_path / "analysis.ipynb"
    nb.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    raw = {"notebook_path": str(nb), "edit_mode": "insert", "cell_type": "code", "new_source": "x = 1"}
    transcript.handle(ev.ToolUseStreaming("tu9", "NotebookEdit", ""))
    transcript.handle(ev.AssistantMessageDone(
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu9", "name": "NotebookEdit", "input": raw}]},
        "tool_use",
    ))
    outcome = await _run(ctx, transcript, handler, "tu9", "NotebookEdit", raw)
    assert outcome.is_error and "has not been read" in outcome.text
    card = transcript.cards["tu9"]
    assert card.summary == "NotebookEdit analysis.ipynb"
    assert "has not been read" in card.result_summary and "x = 1" in card.static_html()


def _bash_finished(transcript, tool_use_id, output):
    from jupyter_agent.core.events import ToolCallFinished
    from jupyter_agent.core.orchestration import ToolCallOutcome
    from jupyter_agent.core.result import ToolResult
    from jupyter_agent.tools.bash import BashTool

    tool = BashTool()
    transcript.card(tool_use_id, "Bash", tool)
    content = tool.map_result_to_content(output, tool_use_id)
    transcript.handle(ToolCallFinished(ToolCallOutcome(tool_use_id, "Bash", content, result=ToolResult(output))))
    return transcript.cards[tool_use_id]


async def test_a_command_that_failed_shows_as_failed_and_stays_open_on_its_output():
    """The model gets a non-zero exit as a normal result; the card marks it failed (✖, red) and
    keeps the output in view, where a command that worked collapses to its line."""
    from jupyter_agent.tools.bash import BashOutput

    transcript = Transcript("x")
    failed = _bash_finished(transcript, "b1", BashOutput("Traceback...\nValueError: bad\n", exit_code=1))
    assert failed.state == "error" and failed.toggle.value is True
    assert "✖" in failed.title_html() and "Exit code 1 · 2 lines" in failed.title_html()
    assert "ValueError: bad" in failed.result.value
    slow = _bash_finished(transcript, "b2", BashOutput("", timed_out=True, timeout_ms=2000))
    assert slow.state == "error" and "Timed out after 2 s" in slow.title_html()
    worked = _bash_finished(transcript, "b3", BashOutput("ok\n", exit_code=0))
    assert worked.state == "done" and worked.toggle.value is False and "✔" in worked.title_html()


async def test_a_cell_replace_asks_with_a_diff_of_the_cell_as_it_is(tmp_path):
    """NotebookEdit's input has only the new source: the approval card shows the cell as it
    is now against it, so the person approving sees what goes."""
    import nbformat

    from jupyter_agent.tools.notebook_edit import NotebookEditTool
    from jupyter_agent.tools.read import ReadTool

    path = tmp_path / "fix.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def mean(v):\n    return sum(v) / len(v)", id="m")])
    nbformat.write(nb, path)
    ctx, transcript, handler = _setup(tmp_path, NotebookEditTool())
    ctx.options = type(ctx.options)(tools=(*ctx.options.tools, ReadTool()))
    read = await run_tool_use(ToolUseRequest("r1", "Read", {"file_path": str(path)}), ctx, handler)
    assert not read.is_error, read.text
    new = "def mean(v):\n    return sum(v) / len(v) if v else float('nan')"
    run = _run(ctx, transcript, handler, "e1", "NotebookEdit", {"notebook_path": str(path), "cell_id": "m", "new_source": new})
    panel = await _panel(transcript, "e1")
    detail = transcript.cards["e1"].detail.value
    assert "replace cell 1 of 1 [ ]: def mean(v):" in detail  # where it is, not its id
    assert "-    return sum(v) / len(v)" in detail and "+    return sum(v) / len(v) if v else float(&#x27;nan&#x27;)" in detail
    panel.approve.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error, outcome.text
    assert "-    return sum(v) / len(v)" in transcript.cards["e1"].static_html()  # kept after it ran
    assert nbformat.read(path, 4).cells[0].source == new


async def test_a_cell_insert_asks_naming_the_cell_it_goes_after(tmp_path):
    """An insert names its anchor by id only: the card says which cell that is in the notebook."""
    import nbformat

    from jupyter_agent.tools.notebook_edit import NotebookEditTool
    from jupyter_agent.tools.read import ReadTool

    path = tmp_path / "sales.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Sales 2026", id="t"),
                                         nbformat.v4.new_code_cell("df = load()", id="9f1c0d2e-aa17-4c3b")])
    nb.cells[1].execution_count = 4
    nbformat.write(nb, path)
    ctx, transcript, handler = _setup(tmp_path, NotebookEditTool())
    ctx.options = type(ctx.options)(tools=(*ctx.options.tools, ReadTool()))
    assert not (await run_tool_use(ToolUseRequest("r1", "Read", {"file_path": str(path)}), ctx, handler)).is_error
    run = _run(ctx, transcript, handler, "i1", "NotebookEdit", {
        "notebook_path": str(path), "cell_id": "9f1c0d2e-aa17-4c3b", "new_source": "## Notes\nTotals by month",
        "cell_type": "markdown", "edit_mode": "insert"})
    panel = await _panel(transcript, "i1")
    detail = transcript.cards["i1"].detail.value
    assert "insert a markdown cell after cell 2 of 2 [4]: df = load()" in detail and "9f1c0d2e" not in detail
    assert "+## Notes" in detail and "+Totals by month" in detail
    panel.approve.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error, outcome.text
    assert [c.source for c in nbformat.read(path, 4).cells][-1] == "## Notes\nTotals by month"


async def test_an_edit_that_ran_shows_its_change_once(tmp_path):
    """The card showed the input's diff, then the result's diff of the same lines under it."""
    from jupyter_agent.tools.edit import EditTool
    from jupyter_agent.tools.read import ReadTool

    path = tmp_path / "clean.py"
    path.write_text("import pandas as pd\n\ndef clean(df):\n    return df.dropna()\n")
    ctx, transcript, handler = _setup(tmp_path, EditTool())
    ctx.options = type(ctx.options)(tools=(*ctx.options.tools, ReadTool()))
    assert not (await run_tool_use(ToolUseRequest("r1", "Read", {"file_path": str(path)}), ctx, handler)).is_error
    run = _run(ctx, transcript, handler, "e1", "Edit", {"file_path": str(path), "old_string": "    return df.dropna()",
                                                         "new_string": "    return df.dropna(how='all')"})
    (await _panel(transcript, "e1")).approve.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error, outcome.text
    html = transcript.cards["e1"].static_html()
    assert html.count("-    return df.dropna()") == 1 and "def clean(df):" in html  # the result's, with context


async def test_a_malformed_calls_card_says_what_was_wrong(tmp_path):
    """The model's input misses a field: the card read only the error's first line ('… failed
    due to the following issue(s):') and hid the issue itself."""
    ctx, transcript, handler = _setup(tmp_path, GuardedTool())
    outcome = await _run(ctx, transcript, handler, "tv1", "Guarded", {"text": "x"})
    assert outcome.is_error and "InputValidationError" in outcome.text
    card = transcript.cards["tv1"]
    assert card.result_summary.startswith("InputValidationError: Guarded failed")
    issue = outcome.text.splitlines()[1]
    assert "path" in issue and render_escape(issue) in card.result.value and card.state == "error"
    denied = await _run(ctx, transcript, handler, "tv2", "Guarded", {"path": "deny/x"})
    assert denied.is_error and transcript.cards["tv2"].result_html == ""  # a denial: its line only


def render_escape(text: str) -> str:
    from jupyter_agent.ui import render

    return render.escape(text)
