"""In-process widget tests: clicks through ``button.click()``, on the loop thread and others."""

from __future__ import annotations

import asyncio
import threading

import pytest

from jupyter_agent.core.permission_types import PermissionAsk, PermissionUpdate
from jupyter_agent.ui.approval import AlwaysAllowed, ApprovalPanel, Approved, Denied, Stopped
from jupyter_agent.ui.blocks import ThinkingBlock
from jupyter_agent.ui.markdown_stream import StreamingMarkdown, safe_cut
from jupyter_agent.ui.questions import Answers, KeepPlanning, PlanApproval, PlanApproved, QuestionForm
from jupyter_agent.ui.throttle import Throttle
from jupyter_agent.ui.tool_card import ToolCard, progress_lines

ASK = PermissionAsk(
    "Run pytest?", suggestions=(PermissionUpdate(rules=("Bash(pytest:*)",), destination="localSettings"),)
)


async def test_approve_click_resolves_the_wait():
    panel = ApprovalPanel(ASK)
    panel.approve.click()
    assert await asyncio.wait_for(panel.wait(), 5) == Approved()
    assert panel.approve.disabled and panel.deny.disabled
    assert "Approved" in panel.status.value
    # the question and the answer stay; the controls that no longer do anything go
    assert panel.buttons.layout.display == "none" and panel.feedback.layout.display == "none"
    assert panel.message.layout.display != "none" and panel.message.value


async def test_deny_sends_the_feedback_text():
    panel = ApprovalPanel(ASK)
    panel.feedback.value = "  use tox instead  "
    panel.deny.click()
    assert await asyncio.wait_for(panel.wait(), 5) == Denied("use tox instead")
    assert "Denied: use tox instead" in panel.status.value


async def test_always_allow_states_the_rule_and_returns_the_update():
    panel = ApprovalPanel(ASK)
    assert panel.always is not None
    assert "Bash(pytest:*)" in panel.always.description
    assert ".claude/settings.local.json" in panel.always.tooltip
    panel.always.click()
    assert await asyncio.wait_for(panel.wait(), 5) == AlwaysAllowed(ASK.suggestions[0])


async def test_no_always_button_without_a_suggestion():
    panel = ApprovalPanel(PermissionAsk("Run it?"))
    assert panel.always is None


async def test_click_on_another_thread_wakes_the_loop():
    """A subshell thread clicks: the answer must still reach the loop (call_soon_threadsafe)."""
    panel = ApprovalPanel(ASK)
    clicker = threading.Thread(target=panel.approve.click)
    clicker.start()
    clicker.join()
    assert await asyncio.wait_for(panel.wait(), 5) == Approved()


async def test_first_answer_wins():
    panel = ApprovalPanel(ASK)
    panel.deny.click()
    panel.approve.click()
    assert await asyncio.wait_for(panel.wait(), 5) == Denied("")
    await asyncio.sleep(0)
    assert panel.pending.future.result() == Denied("")


async def test_stop_closes_an_open_panel():
    panel = ApprovalPanel(ASK)
    panel.dismiss()
    assert await asyncio.wait_for(panel.wait(), 5) == Stopped()
    assert panel.approve.disabled


def test_safe_cut_never_splits_a_code_fence():
    text = "para one\n\n```\ncode\n\nmore code\n```\n\npara two\n\ntail"
    cut = safe_cut(text, 1)
    assert text[:cut].endswith("para two\n\n")
    inside = text.index("more code")
    assert not (text.index("```") < safe_cut(text[:inside], 1) < inside)


async def test_streaming_markdown_coalesces_deltas():
    block = StreamingMarkdown(interval=10, freeze_chars=200)
    for i in range(40):
        for word in f"Paragraph {i} with some words in it.\n\n".split(" "):
            block.append(word + " ")
    # 320 deltas inside one interval: one immediate render, the rest waits for the timer.
    assert block.throttle.flushes == 1
    block.finish()
    assert block.throttle.flushes == 2
    assert "Paragraph 39 with" in "".join(child.value for child in block.children)


async def test_streaming_markdown_freezes_finished_chunks():
    block = StreamingMarkdown(interval=0.005, freeze_chars=200)
    for i in range(30):
        block.append(f"Paragraph {i} with some words in it.\n\n")
        await asyncio.sleep(0.01)
    block.finish()
    # Earlier chunks are frozen in their own widgets; each flush re-rendered only the tail.
    assert len(block.children) >= 4
    assert all(len(child.value) < 800 for child in block.children)
    html = "".join(child.value for child in block.children)
    for i in range(30):
        assert f"<p>Paragraph {i} with some words in it.</p>" in html
    assert block.static_html().count("<p>") == 30


async def test_throttle_coalesces_pokes_within_an_interval():
    calls: list[int] = []
    throttle = Throttle(lambda: calls.append(1), interval=0.05)
    for _ in range(100):
        throttle.poke()
    assert len(calls) == 1  # the first poke flushes at once
    await asyncio.sleep(0.08)
    assert len(calls) == 2  # the other 99 became one delayed flush


async def test_thinking_starts_collapsed():
    block = ThinkingBlock(interval=0)
    block.append("Let me *think*.")
    block.finish()
    assert block.content.layout.display == "none"
    assert "<em>think</em>" in block.content.value
    block.toggle.value = True
    assert block.content.layout.display == "block"
    assert "<details" in block.static_html()


def test_progress_lines_accepts_many_shapes():
    assert progress_lines("a\nb") == ["a", "b"]
    assert progress_lines({"lines": ["x", "y"]}) == ["x", "y"]
    assert progress_lines({"output": "o1\no2"}) == ["o1", "o2"]
    assert progress_lines(None) == []


async def test_tool_card_lifecycle_collapses_when_done():
    card = ToolCard("t1", "Bash")
    card.set_input({"command": "pytest -q"})
    assert "Bash: pytest -q" in card.title.value
    card.start()
    assert "running" in card.title.value
    card.add_progress("collected 3 items")
    card.add_progress({"output": "3 passed"})
    card._tail_throttle.flush_now()
    assert "3 passed" in card.tail_view.value
    card.finish(is_error=False, summary="3 passed in 0.1s")
    assert card.state == "done" and card.toggle.value is False
    assert card.body.layout.display == "none"
    assert "3 passed in 0.1s" in card.title.value
    assert "collected 3 items" in card.static_html()


async def test_tool_card_error_is_red():
    card = ToolCard("t2", "Read")
    card.finish(is_error=True, summary="File does not exist.")
    assert "color:#d1242f" in card.title_html() and "File does not exist." in card.title_html()
    assert card.state == "error" and card.result.value == ""  # the title says it: not said twice


async def test_question_form_single_multi_and_other():
    form = QuestionForm(
        [
            {"question": "Which db?", "header": "DB", "options": [{"label": "pg", "description": "Postgres"},
                                                                 {"label": "lite", "description": "SQLite"}]},
            {"question": "Which extras?", "header": "Extras", "multiSelect": True,
             "options": [{"label": "auth", "description": ""}, {"label": "api", "description": ""}]},
            {"question": "Name?", "header": "Name", "options": [{"label": "a", "description": ""},
                                                               {"label": "b", "description": ""}]},
        ]
    )
    single, multi, other = form.questions
    single.select.value = "pg"
    multi.choices[0].value = True
    multi.choices[1].value = True
    other.select.value = "Other"
    other.other.value = "my-own"
    form.submit.click()
    answers = await asyncio.wait_for(form.wait(), 5)
    assert answers == Answers({"Which db?": "pg", "Which extras?": "auth, api", "Name?": "my-own"})
    assert form.submit.disabled


async def test_plan_approval_and_keep_planning():
    approve = PlanApproval("# Plan\n1. do it")
    assert "<h1>Plan</h1>" in approve.plan.value
    approve.mode.value = "default"
    approve.approve.click()
    assert await asyncio.wait_for(approve.wait(), 5) == PlanApproved("default")

    keep = PlanApproval("plan")
    keep.feedback.value = "add tests first"
    keep.keep.click()
    assert await asyncio.wait_for(keep.wait(), 5) == KeepPlanning("add tests first")


async def test_markdown_widgets_carry_jupyterlabs_rendered_markdown_class():
    """Tables, headings and code in the answer, the thinking and a plan look as in a Markdown
    cell (JupyterLab styles ``.jp-RenderedHTMLCommon`` descendants only)."""
    assert "jp-RenderedHTMLCommon" in StreamingMarkdown()._dom_classes
    assert "jp-RenderedHTMLCommon" in ThinkingBlock().content._dom_classes
    assert "jp-RenderedHTMLCommon" in PlanApproval("# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |").plan._dom_classes


def test_a_cards_toggle_has_room_for_its_chevron():
    """A 32 px button with the theme's padding cut the chevron off to "..": no padding now."""
    toggle = ToolCard("tu", "Read").toggle
    assert toggle.layout.padding == "0" and toggle.description == ""


@pytest.mark.parametrize(
    ("rules", "destination", "label"),
    [
        (("Edit(//w/proj/**)",), "session", "Always allow edits in this folder this session"),
        (("Edit(//w/proj/src/**)",), "session", "Always allow edits in src/ this session"),
        (("Read(//data/shared/**)",), "session", "Always allow reads in /data/shared/ this session"),
        (("Bash(pytest:*)",), "localSettings", "Always allow Bash(pytest:*)"),
        (("Edit(//w/proj/**)",), "localSettings", "Always allow Edit(//w/proj/**)"),  # saved: the rule itself
        (("WebFetch(domain:example.com)",), "localSettings", "Always allow WebFetch(domain:example.com)"),
        (("NotebookExecute",), "session", "Always allow NotebookExecute this session"),  # not saved: say so
    ],
)
async def test_the_always_button_says_what_a_session_folder_rule_does(rules, destination, label):
    ask = PermissionAsk("Edit?", suggestions=(PermissionUpdate(rules=rules, destination=destination),))
    panel = ApprovalPanel(ask, root="/w/proj")
    assert panel.always is not None and panel.always.description == label
    assert rules[0] in panel.always.tooltip  # the exact rule is one hover away
    panel.always.click()
    assert isinstance(await asyncio.wait_for(panel.wait(), 5), AlwaysAllowed)
    assert rules[0] in panel.status.value  # and in the audit line
