"""TaskOutput: incremental reads of a background Bash command, waiting, status, errors."""

from __future__ import annotations

import re

from tests.tasks.shell_support import bash, bash_context, call, live_with, token


def task_id_of(outcome) -> str:
    found = re.search(r"ID: (bash_[0-9a-f]+)", outcome.text)
    assert found, outcome.text
    return found.group(1)


async def read(ctx, approve, task_id, **kw):
    return await call(ctx, approve, "TaskOutput", {"task_id": task_id, **kw})


async def test_background_command_returns_at_once_and_reads_incrementally(tmp_path, approve):
    ctx = bash_context(tmp_path)
    go = tmp_path / "go"
    command = f"echo one; while [ ! -e {go} ]; do sleep 0.05; done; echo two; exit 3"
    started = await bash(ctx, approve, command, run_in_background=True, description="wait for go")
    assert not started.is_error and "Output is being written to:" in started.text
    task_id = task_id_of(started)

    seen: list[str] = []

    async def peek() -> str:
        outcome = await read(ctx, approve, task_id, block=False)
        assert "<status>running</status>" in outcome.text
        assert "<retrieval_status>not_ready</retrieval_status>" in outcome.text
        seen.append(outcome.text)
        return outcome.text

    async def has_one() -> bool:
        return "<output>\none\n</output>" in await peek()

    assert await eventually_async(has_one)
    assert "one" not in await peek()  # already read: not repeated

    go.touch()
    done = await read(ctx, approve, task_id, timeout=30_000)
    assert "<retrieval_status>success</retrieval_status>" in done.text
    assert "<status>failed</status>" in done.text and "<exit_code>3</exit_code>" in done.text
    assert "<output>\ntwo\n</output>" in done.text
    again = await read(ctx, approve, task_id)
    assert "(no new output)" in again.text and "<exit_code>3</exit_code>" in again.text


async def eventually_async(predicate, attempts: int = 400) -> bool:
    import asyncio

    for _ in range(attempts):
        if await predicate():
            return True
        await asyncio.sleep(0.025)
    return False


async def test_blocking_read_times_out_on_a_running_task(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    task_id = task_id_of(await bash(ctx, approve, f"echo hi; sleep {mark}", run_in_background=True))
    outcome = await read(ctx, approve, task_id, timeout=300)
    assert "<retrieval_status>timeout</retrieval_status>" in outcome.text
    assert "<status>running</status>" in outcome.text
    await call(ctx, approve, "TaskStop", {"task_id": task_id})
    assert live_with(mark) == []


async def test_successful_task_reports_completed(tmp_path, approve):
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "sub").mkdir()
    await bash(ctx, approve, "cd sub")  # the background command starts in the session's cwd
    task_id = task_id_of(await bash(ctx, approve, "pwd; echo err >&2", run_in_background=True))
    outcome = await read(ctx, approve, task_id)
    assert "<status>completed</status>" in outcome.text and "<exit_code>0</exit_code>" in outcome.text
    assert f"<output>\n{tmp_path / 'work' / 'sub'}\nerr\n</output>" in outcome.text


async def test_big_background_output_shows_the_newest_part(tmp_path, approve):
    ctx = bash_context(tmp_path)
    task_id = task_id_of(await bash(ctx, approve, "seq 1 100000", run_in_background=True))
    outcome = await read(ctx, approve, task_id)
    assert "<status>completed</status>" in outcome.text
    assert "earlier" in outcome.text and "not shown" in outcome.text
    assert outcome.text.split("<output>\n", 1)[1].split("\n</output>")[0].endswith("\n100000")
    assert len(outcome.text) < 40_000


async def test_binary_background_output_is_not_decoded(tmp_path, approve):
    ctx = bash_context(tmp_path)
    task_id = task_id_of(await bash(ctx, approve, "head -c 50000 /dev/urandom", run_in_background=True))
    outcome = await read(ctx, approve, task_id)
    assert "binary output: 50,000 bytes" in outcome.text


async def test_unknown_task_and_bad_input_are_errors(tmp_path, approve):
    ctx = bash_context(tmp_path)
    unknown = await read(ctx, approve, "bash_ffff")
    assert unknown.is_error and "No task found with ID: bash_ffff" in unknown.text
    bad = await call(ctx, approve, "TaskOutput", {"task_id": "x", "timeout": -5})
    assert bad.is_error and "timeout" in bad.text
    missing = await call(ctx, approve, "TaskOutput", {})
    assert missing.is_error and "`task_id` is missing" in missing.text


async def test_task_output_is_read_only_and_needs_no_approval(tmp_path, approve):
    ctx = bash_context(tmp_path)
    task_id = task_id_of(await bash(ctx, approve, "echo x", run_in_background=True))
    asks_before = len(approve.asks)
    await read(ctx, approve, task_id)
    assert len(approve.asks) == asks_before


async def test_card_summary_names_status_and_new_lines(tmp_path, approve):
    from jupyter_agent.tools.task_output import TaskOutputTool

    ctx = bash_context(tmp_path)
    task_id = task_id_of(await bash(ctx, approve, "echo a; echo b; exit 1", run_in_background=True))
    outcome = await read(ctx, approve, task_id)
    summary = TaskOutputTool().render_tool_result_message(outcome.result.data)
    assert summary == f"{task_id}: failed, exit code 1 · 2 new lines"
