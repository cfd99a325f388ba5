"""What the model sees of a command's output: order, escapes, size limits, binary, progress."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.core.events import ToolCallProgress
from jupyter_agent.tools.bash import BashOutput, BashTool
from jupyter_agent.tools.shell.output import HEAD_CHARS, MAX_INLINE_CHARS, TAIL_CHARS
from tests.tasks.shell_support import bash, bash_context, call


async def test_stdout_and_stderr_are_merged_in_order(tmp_path, approve):
    ctx = bash_context(tmp_path)
    command = "for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done"
    outcome = await bash(ctx, approve, command)
    expected = "\n".join(f"out{i}\nerr{i}" for i in range(1, 6))
    assert outcome.text == expected


async def test_ansi_escapes_and_carriage_returns_are_cleaned(tmp_path, approve):
    ctx = bash_context(tmp_path)
    command = (
        r"printf '\033[1;31mred\033[0m plain\n'; "
        r"printf '\033]0;window title\007titled\n'; "
        r"printf 'progress 10%%\rprogress 100%%\n'; "
        r"printf '\033[2K\033[1Gcleared\r\n'"
    )
    outcome = await bash(ctx, approve, command)
    assert outcome.text == "red plain\ntitled\nprogress 100%\ncleared"


async def test_long_output_keeps_head_and_tail_and_saves_the_rest(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, r"seq 1 20000 | sed 's/$/ line/'; printf '\033[32mgreen end\033[0m\n'")
    text = outcome.text
    assert len(text) < MAX_INLINE_CHARS + 1000
    assert text.startswith("1 line\n2 line\n")
    assert text.endswith("20000 line\ngreen end")
    saved = Path(outcome.result.data.output_path)
    assert str(saved) in text and saved.is_relative_to(tmp_path / "session")
    full = saved.read_text()
    expected = "\n".join(f"{i} line" for i in range(1, 20001)) + "\ngreen end"
    assert full == expected + "\n"  # the saved copy is whole, and cleaned of escapes too
    head, _, tail = text.partition("characters omitted")
    assert len(head) <= HEAD_CHARS + 100 and len(tail) <= TAIL_CHARS + 400


async def test_just_under_the_limit_is_shown_whole(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, f"head -c {MAX_INLINE_CHARS - 1} /dev/zero | tr '\\0' a")
    assert outcome.text == "a" * (MAX_INLINE_CHARS - 1)
    assert outcome.result.data.output_path is None


async def test_huge_output_does_not_crash_or_flood(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "yes 'a fairly long line of output' | head -c 30000000")
    assert not outcome.is_error
    assert len(outcome.text) < MAX_INLINE_CHARS + 1000
    assert outcome.text.startswith("a fairly long line of output\n")
    assert Path(outcome.result.data.output_path).stat().st_size > 29_000_000


async def test_binary_output_is_summarized_not_decoded(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "head -c 20000 /dev/urandom; printf '\\0\\1\\2' ")
    assert outcome.text.startswith("(binary output: 20,003 bytes, not shown.")
    raw = Path(outcome.result.data.output_path)
    assert raw.stat().st_size == 20_003 and str(raw) in outcome.text


async def test_nul_bytes_in_text_do_not_crash(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(
        ctx, approve, "printf 'first/file.txt\\0second/file.txt\\0third/and/longer/path.txt\\0'"
    )
    assert not outcome.is_error
    assert outcome.text == "first/file.txt\\0second/file.txt\\0third/and/longer/path.txt\\0"


async def test_invalid_utf8_in_text_is_replaced(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "printf 'caf\\xe9 ol\\xc3\\xa9\\n'")
    assert outcome.text == "caf\ufffd olé"


async def test_output_of_a_non_regular_source_is_read(tmp_path, approve):
    """Reading from a FIFO and /proc (files with no size) works like any output."""
    ctx = bash_context(tmp_path)
    command = "mkfifo p; (echo through-fifo > p &) ; cat p; head -c 5 /proc/self/status"
    outcome = await bash(ctx, approve, command)
    assert outcome.text == "through-fifo\nName:"


async def test_progress_events_carry_output_lines(tmp_path, approve):
    ctx = bash_context(tmp_path)
    events: list = []
    command = "for i in 1 2 3; do echo step $i; sleep 0.3; done"
    outcome = await call(ctx, approve, "Bash", {"command": command}, events)
    progress = [e.progress for e in events if isinstance(e, ToolCallProgress)]
    lines = [p.data for p in progress]
    assert {p.tool_use_id for p in progress} == {outcome.tool_use_id}
    assert outcome.text == "step 1\nstep 2\nstep 3"
    assert lines and set(lines) <= {"step 1", "step 2", "step 3"}
    assert lines == sorted(lines)  # in output order, none twice


async def test_progress_is_throttled_for_floods(tmp_path, approve):
    ctx = bash_context(tmp_path)
    events: list = []
    outcome = await call(ctx, approve, "Bash", {"command": "seq 1 200000; sleep 1"}, events)
    lines = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert not outcome.is_error
    assert 0 < len(lines) <= 2_000  # at most the 50 newest lines per 0.2 s tick, not 200,000
    assert lines[-1] == "200000"


async def test_progress_lines_are_cut_for_the_live_view(tmp_path, approve):
    ctx = bash_context(tmp_path)
    events: list = []
    command = "head -c 40000 /dev/zero | tr '\\0' a; echo; sleep 1"
    outcome = await call(ctx, approve, "Bash", {"command": command}, events)
    lines = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert lines == ["a" * 1000 + "…"]
    assert "characters omitted" in outcome.text


async def test_progress_skips_ahead_when_output_outruns_it(tmp_path, approve):
    ctx = bash_context(tmp_path)
    events: list = []
    command = "head -c 300000 /dev/zero | tr '\\0' a; echo; echo last; sleep 1"
    await call(ctx, approve, "Bash", {"command": command}, events)
    lines = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert lines == ["…" + "a" * 999 + "…", "last"]  # the newest 64 KiB, marked as partial


async def test_one_enormous_line_is_cut_not_held(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo after")
    assert outcome.text.startswith("x" * 14_000)
    assert outcome.text.endswith("x\nafter")
    assert len(outcome.text) < MAX_INLINE_CHARS + 1000


async def test_output_beyond_64_mib_is_summed_up_from_the_raw_ends(tmp_path, approve):
    ctx = bash_context(tmp_path)
    command = "echo first; yes 'a line of filler text' | head -c 70000000; echo; echo last"
    outcome = await bash(ctx, approve, command, timeout=300_000)
    assert outcome.text.startswith("first\na line of filler text\n")
    assert outcome.text.endswith("a line of filler text\na li\nlast")  # head -c cut a line
    assert "bytes omitted" in outcome.text and "raw bytes" in outcome.text
    raw = Path(outcome.result.data.output_path)
    assert raw.suffix == ".log" and raw.stat().st_size > 70_000_000


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (BashOutput("hello\n", exit_code=0), "hello"),
        (BashOutput("", exit_code=0), "(no output)"),
        (BashOutput("epoch 1\nepoch 2\n\nepoch 3\n", exit_code=0), "3 lines"),
        (BashOutput("boom\n", exit_code=2), "Exit code 2 · boom"),
        (BashOutput("a\nb\n", timed_out=True, timeout_ms=5000), "Timed out after 5 s · 2 lines"),
        (BashOutput("", interrupted=True), "Interrupted · (no output)"),
        (BashOutput("", background_task_id="b1"), "Running in the background (b1)"),
    ],
)
def test_the_cards_one_line_says_how_it_ended(output, line):
    """Not the last 200 characters of the output cut mid-line: the body shows the output."""
    assert BashTool().render_tool_result_message(output) == line
