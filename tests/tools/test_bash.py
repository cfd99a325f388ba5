"""Bash through the whole tool pipeline: cwd persistence, environment, stdin, exit codes, input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.orchestration import ToolUseRequest
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.tasks.shell_support import bash, bash_context


async def test_output_and_exit_code(tmp_path, approve):
    ctx = bash_context(tmp_path)
    ok = await bash(ctx, approve, "echo hello")
    assert not ok.is_error and ok.text == "hello"
    failed = await bash(ctx, approve, "echo partial; exit 7")
    assert failed.text == "partial\nExit code 7"
    assert failed.result.data.exit_code == 7


async def test_no_output_is_said(tmp_path, approve):
    ctx = bash_context(tmp_path)
    assert (await bash(ctx, approve, "true")).text == "(no output)"


async def test_permission_is_asked_for_a_writing_command(tmp_path, approve):
    ctx = bash_context(tmp_path)
    await bash(ctx, approve, "touch made-here")
    assert [name for name, _ask in approve.asks] == ["Bash"]
    assert (tmp_path / "work" / "made-here").exists()


async def test_rejected_command_does_not_run(tmp_path, reject):
    ctx = bash_context(tmp_path)
    marker = tmp_path / "ran"
    outcome = await bash(ctx, reject, f"touch {marker}")
    assert outcome.is_error and "The user said no" in outcome.text
    assert not marker.exists()


async def test_cd_persists_between_calls(tmp_path, approve):
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "sub dir").mkdir()
    result = await run_tools(
        [
            ToolUseRequest("a", "Bash", {"command": 'cd "sub dir"'}),
            ToolUseRequest("b", "Bash", {"command": "pwd"}),
        ],
        ctx,
        approve,
    )
    assert result.outcomes[1].text == str((tmp_path / "work" / "sub dir").resolve())
    assert Path(result.context.cwd) == (tmp_path / "work" / "sub dir").resolve()


async def test_cd_persists_on_the_same_context_object(tmp_path, approve):
    """Even when the caller drops the context modifier (a parallel read-only batch)."""
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "sub").mkdir()
    await bash(ctx, approve, "cd sub")
    assert (await bash(ctx, approve, "pwd")).text == str(tmp_path / "work" / "sub")


async def test_cd_inside_a_failing_command_still_moves(tmp_path, approve):
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "sub").mkdir()
    outcome = await bash(ctx, approve, "cd sub && exit 4")
    assert outcome.text == "(no output)\nExit code 4"
    assert (await bash(ctx, approve, "pwd")).text == str(tmp_path / "work" / "sub")


async def test_a_directory_outside_the_working_directories_is_not_kept(tmp_path, approve):
    """As in Claude Code: a command may end outside the project (it was asked about), but the
    next one starts in the project directory again, and the result says so; a link inside the
    project that leads out counts as outside; the way back in needs no note."""
    ctx = bash_context(tmp_path)
    work = tmp_path / "work"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (work / "out").symlink_to(elsewhere)
    left = await bash(ctx, approve, f"cd {elsewhere} && pwd")
    assert left.text == f"{elsewhere}\nShell cwd was reset to {work}"
    assert (await bash(ctx, approve, "pwd")).text == str(work)
    assert (await bash(ctx, approve, "cd out")).text == f"(no output)\nShell cwd was reset to {work}"
    assert (await bash(ctx, approve, "pwd")).text == str(work)
    (work / "sub").mkdir()
    assert (await bash(ctx, approve, "cd sub && cd ..")).text == "(no output)"


async def test_after_another_tool_moved_the_session_the_shell_goes_back_there(tmp_path, approve):
    """A worktree (``EnterWorktree`` moves ``context.cwd``) is where a command that left the
    working directories leads back to, not the main checkout."""
    ctx = bash_context(tmp_path)
    tree = tmp_path / "work" / ".worktrees" / "feature"
    tree.mkdir(parents=True)
    moved = ctx.with_changes(cwd=tree)
    assert (await bash(moved, approve, "cd /")).text == f"(no output)\nShell cwd was reset to {tree}"
    assert (await bash(moved, approve, "pwd")).text == str(tree)


async def test_an_additional_directory_is_kept(tmp_path, approve):
    from dataclasses import replace

    ctx = bash_context(tmp_path)
    extra = tmp_path / "data"
    extra.mkdir()
    perm = replace(ctx.permission_context, additional_directories=(str(extra),))
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=perm))
    assert (await bash(ctx, approve, f"cd {extra}")).text == "(no output)"
    assert (await bash(ctx, approve, "pwd")).text == str(extra)


@pytest.mark.parametrize("where", ["kernel", "settings"])
async def test_maintain_project_working_dir_returns_after_every_command(tmp_path, approve, monkeypatch, where):
    """``CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR=1``: every command starts in the project
    directory, set in the kernel's environment or in a settings file's ``env`` block."""
    from jupyter_agent.tools.shell.environment import use_settings_env

    ctx = bash_context(tmp_path)
    work = tmp_path / "work"
    (work / "sub").mkdir()
    if where == "kernel":
        monkeypatch.setenv("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR", "1")
    else:
        monkeypatch.delenv("CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR", raising=False)
        use_settings_env(ctx, {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "true"})
    assert (await bash(ctx, approve, "cd sub && pwd")).text == f"{work / 'sub'}\nShell cwd was reset to {work}"
    assert (await bash(ctx, approve, "pwd")).text == str(work)


async def test_cd_into_a_name_with_edge_spaces_and_a_newline_persists(tmp_path, approve):
    """The shell reports its directory verbatim: a name ending in spaces, or holding a newline,
    is followed, not trimmed into some other folder."""
    ctx = bash_context(tmp_path)
    odd = tmp_path / "work" / " odd\nname  "
    odd.mkdir()
    await bash(ctx, approve, "cd \"$(printf ' odd\\nname  ')\"")
    assert (await bash(ctx, approve, "pwd")).text == str(odd.resolve())


async def test_commands_inherit_only_their_standard_descriptors(tmp_path, approve):
    """The pipe the shell reports its directory through is not passed on: a program sees
    stdin, stdout and stderr (and what it opens itself: ``ls`` its directory), nothing more."""
    ctx = bash_context(tmp_path)
    listed = await bash(ctx, approve, "ls /proc/self/fd")
    assert sorted(listed.text.split()) == ["0", "1", "2", "3"]


async def test_commands_leave_no_descriptor_or_file_behind(tmp_path, approve):
    """Finished, failed, interrupted-by-syntax, exec'd: the kernel's descriptors are as before
    and the session's bash folder holds no leftover files."""
    ctx = bash_context(tmp_path)
    await bash(ctx, approve, "true")
    before = set(os.listdir("/proc/self/fd"))
    for command in ("true", "cd / && exit 3", "echo 'unterminated", "exec true", "kill -9 $$"):
        await bash(ctx, approve, command)
    assert set(os.listdir("/proc/self/fd")) <= before
    assert os.listdir(ctx.session_dir / "bash") == []


async def test_environment_does_not_persist(tmp_path, approve):
    ctx = bash_context(tmp_path)
    await bash(ctx, approve, "export JA_TEST_VAR=set_here; JA_OTHER=x")
    outcome = await bash(ctx, approve, 'echo "[${JA_TEST_VAR-unset}] [${JA_OTHER-unset}]"')
    assert outcome.text == "[unset] [unset]"


async def test_users_environment_is_passed_but_jupyter_colour_forcing_is_not(
    tmp_path, approve, monkeypatch
):
    monkeypatch.setenv("JA_USER_SETTING", "from the kernel")
    monkeypatch.setenv("FORCE_COLOR", "1")
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, 'echo "$JA_USER_SETTING|${FORCE_COLOR-none}|$PAGER"')
    assert outcome.text == "from the kernel|none|cat"


async def test_stdin_is_closed(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "cat; read -r line || echo eof", timeout=20_000)
    assert outcome.text == "eof"
    assert outcome.result.data.timed_out is False


async def test_removed_cwd_falls_back_to_project_dir(tmp_path, approve):
    ctx = bash_context(tmp_path)
    doomed = tmp_path / "work" / "doomed"
    doomed.mkdir()
    await bash(ctx, approve, "cd doomed")
    doomed.rmdir()
    outcome = await bash(ctx, approve, "pwd")
    project = str((tmp_path / "work").resolve())
    assert outcome.text.splitlines()[0] == project
    assert "no longer exists" in outcome.text and "project directory" in outcome.text


async def test_context_cwd_set_by_another_tool_is_followed(tmp_path, approve):
    ctx = bash_context(tmp_path)
    await bash(ctx, approve, "cd /")
    elsewhere = tmp_path / "worktree"
    elsewhere.mkdir()
    moved = ctx.with_changes(cwd=elsewhere)  # e.g. EnterWorktree's context modifier
    assert (await bash(moved, approve, "pwd -P")).text == str(elsewhere.resolve())


async def test_syntax_error_is_reported_not_raised(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, "if then fi (")
    assert not outcome.is_error
    assert "syntax error" in outcome.text and "Exit code 2" in outcome.text


async def test_quotes_and_dollar_signs_reach_bash_verbatim(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await bash(ctx, approve, """printf '%s|' "$1" 'a b' "it's" '$HOME'; echo""")
    assert outcome.text == "|a b|it's|$HOME|"


async def test_malformed_input_is_a_clear_error(tmp_path, approve):
    ctx = bash_context(tmp_path)
    cases = [
        ({}, "`command` is missing"),
        ({"command": 42}, "command"),
        ({"command": "ls", "timeout": 600_001}, "timeout"),
        ({"command": "ls", "timeout": -1}, "timeout"),
        ({"command": "   "}, "The command is empty"),
        ({"command": "echo a\x00b"}, "NUL"),
        ({"command": "x" * 100_001}, "Write tool"),
    ]
    for payload, expected in cases:
        outcome = await bash_raw(ctx, approve, payload)
        assert outcome.is_error, payload
        assert expected in outcome.text, (payload, outcome.text)
    assert approve.asks == []  # nothing malformed got as far as permissions


async def bash_raw(ctx, approve, payload):
    from tests.tasks.shell_support import call

    return await call(ctx, approve, "Bash", payload)


async def test_schema_and_prompt_are_claude_codes():
    tool = BashTool()
    schema = tool.input_json_schema()
    assert set(schema["properties"]) == {"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}
    assert schema["required"] == ["command"]
    from jupyter_agent.core.context import ToolUseOptions

    prompt = await tool.prompt(ToolUseOptions())
    assert "run_in_background" in prompt and "Read" in prompt and "stdin" in prompt


def test_read_only_fails_closed_and_is_concurrency_safety(monkeypatch):
    import jupyter_agent.tools.bash as module

    tool = BashTool()
    monkeypatch.setattr(module, "is_read_only_command", lambda cmd, ctx: cmd == "ls")
    assert tool.is_read_only(BashInput(command="ls")) and tool.is_concurrency_safe(BashInput(command="ls"))
    assert not tool.is_read_only(BashInput(command="rm -rf x"))

    def broken(cmd, ctx):
        raise RuntimeError("analyzer crashed")

    monkeypatch.setattr(module, "is_read_only_command", broken)
    assert not tool.is_read_only(BashInput(command="ls"))
    assert tool.interrupt_behavior() == "cancel"


async def test_runs_in_the_session_environment_not_the_kernels_cwd(tmp_path, approve):
    ctx = bash_context(tmp_path)
    before = os.getcwd()
    (tmp_path / "work" / "sub").mkdir()
    outcome = await bash(ctx, approve, "cd sub && pwd")
    assert outcome.text == str(tmp_path / "work" / "sub") and os.getcwd() == before


async def test_permission_check_sees_the_shells_real_directory(tmp_path, approve, monkeypatch):
    import jupyter_agent.tools.bash as module

    seen = []

    async def spy(command, context):
        seen.append(Path(context.cwd))
        return await original(command, context)

    original = module.check_bash_permission_async
    monkeypatch.setattr(module, "check_bash_permission_async", spy)
    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "inner").mkdir()
    await bash(ctx, approve, "cd inner")  # ctx itself is not moved: the modifier is dropped
    await bash(ctx, approve, "ls")
    assert seen[-1] == (tmp_path / "work" / "inner").resolve()


async def test_unusable_session_dir_is_a_clear_error(tmp_path, approve):
    ctx = bash_context(tmp_path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the session directory should be")
    broken = ctx.with_changes(session_dir=blocker)
    outcome = await bash(broken, approve, "echo never")
    assert outcome.is_error and outcome.text.startswith("Could not run the command:")


async def test_both_directories_gone_falls_back_to_home(tmp_path, approve):
    project = tmp_path / "project"
    project.mkdir()
    ctx = bash_context(tmp_path).with_changes(cwd=project)
    await bash(ctx, approve, "pwd")
    project.rmdir()
    outcome = await bash(ctx, approve, "pwd -P")
    home = Path(os.path.expanduser("~")).resolve()
    assert outcome.text.splitlines()[0] == str(home)
    assert "Neither the working directory" in outcome.text


async def test_read_only_commands_run_as_one_parallel_batch(tmp_path, approve):
    from jupyter_agent.core.batches import is_call_concurrency_safe

    ctx = bash_context(tmp_path)
    (tmp_path / "work" / "listed.txt").write_text("x")
    calls = [
        ToolUseRequest("r1", "Bash", {"command": "ls"}),
        ToolUseRequest("r2", "Bash", {"command": "pwd"}),
        ToolUseRequest("r3", "Bash", {"command": "echo third"}),
    ]
    assert all(is_call_concurrency_safe(c, ctx) for c in calls)  # the analyzer proves them
    result = await run_tools(calls, ctx, approve)
    assert [o.text for o in result.outcomes] == [
        "listed.txt", str((tmp_path / "work").resolve()), "third"
    ]
    assert approve.asks == []
