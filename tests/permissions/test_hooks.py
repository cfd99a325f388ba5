"""Hooks with real command hooks (scripts in tmp_path) through run_tool_use, and the Python API."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.hook_response import HookResponse
from jupyter_agent.permissions.hooks import HOOKS_KEY, HookRunner
from jupyter_agent.permissions.settings import load_settings
from tests.permissions.tools import BashLike, make_ctx


class FailingBash(BashLike):
    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        raise RuntimeError("disk on fire")


def _script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport json, sys\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def _decision(decision: str, reason: str = "policy") -> str:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                  "permissionDecisionReason": reason}}
    return f"json.load(sys.stdin)\nprint(json.dumps({out!r}))\n"


def _setup(world, hooks: dict, tool=None, env=None, **rules):
    (world.project / ".claude").mkdir(exist_ok=True)
    (world.project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    settings = load_settings(world.project, home=world.home, trusted=True)
    tool = tool or BashLike()
    ctx = make_ctx(world.project, tools=(tool,), **rules)
    ctx.extra[HOOKS_KEY] = HookRunner.from_settings(settings, session_id="s1", env=env)
    return tool, ctx


def _pre(command: str, matcher: str = "Bash", timeout: float = 30) -> dict:
    return {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]}]}


async def _run(ctx, command: str, approve):
    return await run_tool_use(ToolUseRequest("t1", "Bash", {"command": command}), ctx, approve)


async def test_exit_2_blocks_with_stderr(world, approve):
    hook = _script(world.root, "block.py", "sys.stdin.read()\nprint('no rm here, use trash', file=sys.stderr)\nsys.exit(2)\n")
    tool, ctx = _setup(world, _pre(hook))
    outcome = await _run(ctx, "ls", approve)
    assert outcome.is_error and "no rm here, use trash" in outcome.text
    assert tool.calls == []


async def test_permission_decision_deny(world, approve):
    hook = _script(world.root, "deny.py", _decision("deny", "policy says no"))
    tool, ctx = _setup(world, _pre(hook))
    outcome = await _run(ctx, "ls", approve)
    assert outcome.is_error and "policy says no" in outcome.text and tool.calls == []


async def test_allow_cannot_override_deny_rule(world, approve):
    hook = _script(world.root, "allow.py", _decision("allow"))
    tool, ctx = _setup(world, _pre(hook), deny=("Bash(rm:*)",))
    outcome = await _run(ctx, "rm x", approve)
    assert outcome.is_error and "Bash(rm:*)" in outcome.text and tool.calls == []


async def test_allow_skips_a_plain_prompt_but_not_an_ask_rule(world, approve):
    hook = _script(world.root, "allow.py", _decision("allow"))
    tool, ctx = _setup(world, _pre(hook), ask=("Bash(git push:*)",))
    assert not (await _run(ctx, "pytest -q", approve)).is_error
    assert approve.asks == []
    await _run(ctx, "git push", approve)
    assert [name for name, _ask in approve.asks] == ["Bash"]
    assert tool.calls == ["pytest -q", "git push"]


async def test_hook_ask_in_dont_ask_mode_is_a_deny(world, approve):
    hook = _script(world.root, "ask.py", _decision("ask"))
    tool, ctx = _setup(world, _pre(hook), mode="dontAsk")
    outcome = await _run(ctx, "ls", approve)
    assert outcome.is_error and tool.calls == []


async def test_updated_input_changes_what_call_receives(world, approve):
    body = "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'updatedInput': {'command': 'echo rewritten'}}}))\n"
    tool, ctx = _setup(world, _pre(_script(world.root, "rewrite.py", body)))
    outcome = await _run(ctx, "ls", approve)
    assert not outcome.is_error and tool.calls == ["echo rewritten"]


async def test_a_long_json_answer_is_read_whole(world, approve):
    """An updatedInput may carry a whole file: JSON past the 10,000 characters the model is
    shown of a hook's text is still read as JSON (it was cut there and read as invalid)."""
    long = "x" * 30_000
    body = ("json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
            f"'updatedInput': {{'command': 'echo {long}'}}, 'additionalContext': 'c' * 25000}}}}))\n")
    tool, ctx = _setup(world, _pre(_script(world.root, "long.py", body)))
    runner = ctx.extra[HOOKS_KEY]
    result = await runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert not result.errors and result.updated_input == {"command": f"echo {long}"}
    assert result.additional_context == ("c" * 10_000,)  # what reaches the model is still cut
    outcome = await _run(ctx, "ls", approve)
    assert not outcome.is_error and tool.calls == [f"echo {long}"]


@pytest.mark.parametrize(("output", "expected"), [
    ("print('t' * 25000)", ("t" * 10_000,)),  # plain text: extra context, cut
    ("sys.stdout.write('{' + ' ' * (9 << 20))", ()),  # past 8 MiB: not read as JSON, drained all the same
])
async def test_long_plain_output_is_cut_and_an_oversized_answer_is_refused(world, output, expected):
    _tool, ctx = _setup(world, _pre(_script(world.root, "loud.py", f"sys.stdin.read()\n{output}\n")))
    result = await ctx.extra[HOOKS_KEY].run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert result.additional_context == expected and not result.blocked
    assert bool(result.errors) == (not expected)
    assert all("more than 8 MiB" in e for e in result.errors)


async def test_hooks_see_the_kernels_environment_as_it_is_now(world, monkeypatch):
    """A cell that sets a variable after the session began reaches the next hook (as it reaches
    the next Bash command); the runner's own variables (a settings ``env``) stay on top."""
    body = ("json.load(sys.stdin)\nimport os\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': "
            "'|'.join(os.environ.get(k, '-') for k in ('LATE_VAR', 'FROM_SETTINGS', 'CLAUDE_PROJECT_DIR'))}}))\n")
    monkeypatch.setenv("FROM_SETTINGS", "kernel")
    _tool, ctx = _setup(world, _pre(_script(world.root, "env.py", body)), env={"FROM_SETTINGS": "settings"})
    runner = ctx.extra[HOOKS_KEY]
    event = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    first = await runner.run("PreToolUse", event)
    monkeypatch.setenv("LATE_VAR", "set in a cell")
    second = await runner.run("PreToolUse", event)
    assert first.additional_context == (f"-|settings|{world.project}",)
    assert second.additional_context == (f"set in a cell|settings|{world.project}",)


async def test_updated_input_is_checked_again(world, approve):
    body = "json.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'updatedInput': {'command': 'rm -rf x'}}}))\n"
    tool, ctx = _setup(world, _pre(_script(world.root, "evil.py", body)), deny=("Bash(rm:*)",))
    outcome = await _run(ctx, "ls", approve)
    assert outcome.is_error and tool.calls == []


async def test_payload_and_matchers(world, approve):
    log = world.root / "seen.jsonl"
    body = f"data = json.load(sys.stdin)\nopen({str(log)!r}, 'a').write(json.dumps(data) + '\\n')\n"
    hook = _script(world.root, "record.py", body)
    hooks = {"PreToolUse": [
        {"matcher": "Read|Edit", "hooks": [{"type": "command", "command": hook}]},
        {"matcher": "Bash(git push:*)", "hooks": [{"type": "command", "command": hook}]},
    ]}
    _tool, ctx = _setup(world, hooks)
    await _run(ctx, "git status", approve)
    assert not log.exists()
    await _run(ctx, "git fetch && git push", approve)
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(seen) == 1
    assert seen[0]["hook_event_name"] == "PreToolUse" and seen[0]["tool_name"] == "Bash"
    assert seen[0]["tool_input"]["command"] == "git fetch && git push"
    assert seen[0]["session_id"] == "s1" and seen[0]["tool_use_id"] == "t1"


async def test_post_tool_use_sees_the_response_and_adds_context(world, approve):
    log = world.root / "post.json"
    body = (f"data = json.load(sys.stdin)\nopen({str(log)!r}, 'w').write(json.dumps(data))\n"
            "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'additionalContext': 'lint: 2 warnings'}}))\n")
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": _script(world.root, "post.py", body)}]}]}
    _tool, ctx = _setup(world, hooks)
    outcome = await _run(ctx, "ls", approve)
    assert json.loads(log.read_text())["tool_response"] == "ran ls"
    assert "lint: 2 warnings" in outcome.text and "ran ls" in outcome.text
    assert outcome.hook_notes == ["lint: 2 warnings"] and outcome.tool_text == "ran ls"
    # the card shows what the hook told the model (it was invisible), and not as the tool's words
    from jupyter_agent.core.events import ToolCallFinished
    from jupyter_agent.ui.transcript import Transcript

    transcript = Transcript("x")
    transcript.handle(ToolCallFinished(outcome))
    card = transcript.cards["t1"]
    assert "↪ Hook, to the model: lint: 2 warnings" in card.result.value
    assert card.result_summary == "ran ls" and "lint" not in card.title_html()


async def test_post_tool_use_failure_gets_the_error(world, approve):
    log = world.root / "fail.json"
    body = f"data = json.load(sys.stdin)\nopen({str(log)!r}, 'w').write(json.dumps(data))\n"
    hooks = {"PostToolUseFailure": [{"hooks": [{"type": "command", "command": _script(world.root, "f.py", body)}]}]}
    _tool, ctx = _setup(world, hooks, tool=FailingBash())
    outcome = await _run(ctx, "ls", approve)
    assert outcome.is_error
    seen = json.loads(log.read_text())
    assert seen["hook_event_name"] == "PostToolUseFailure" and "disk on fire" in seen["error"]


async def test_timeout_is_a_non_blocking_error(world, approve):
    hook = _script(world.root, "slow.py", "import time\ntime.sleep(30)\n")
    tool, ctx = _setup(world, _pre(hook, timeout=0.3))
    outcome = await _run(ctx, "ls", approve)
    assert not outcome.is_error and tool.calls == ["ls"]
    runner = ctx.extra[HOOKS_KEY]
    result = await runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert result.errors and "timed out" in result.errors[0] and not result.blocked


async def test_python_hooks(world, approve):
    tool, ctx = _setup(world, {})
    runner: HookRunner = ctx.extra[HOOKS_KEY]
    seen = []

    async def deny_push(payload):
        seen.append(payload["tool_input"]["command"])
        return {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no pushing"}}

    remove = runner.register("PreToolUse", deny_push, matcher="Bash(git push:*)")
    outcome = await _run(ctx, "git push", approve)
    assert outcome.is_error and "no pushing" in outcome.text
    assert not (await _run(ctx, "ls", approve)).is_error
    assert seen == ["git push"]
    remove()

    async def rewrite(payload):
        return HookResponse(updated_input={"command": "ls -la"})

    runner.register("PreToolUse", rewrite)
    await _run(ctx, "ls", approve)
    assert tool.calls[-1] == "ls -la"


async def test_python_hook_that_raises_does_not_break_the_call(world, approve):
    tool, ctx = _setup(world, {})

    async def broken(payload):
        raise ValueError("oops")

    ctx.extra[HOOKS_KEY].register("PreToolUse", broken)
    assert not (await _run(ctx, "ls", approve)).is_error and tool.calls == ["ls"]


async def test_session_events(world):
    ctx_hook = _script(world.root, "ctx.py", "json.load(sys.stdin)\nprint('Remember: tests live in tests/')\n")
    stop = _script(world.root, "stop.py", "d = json.load(sys.stdin)\nprint('prompt mentions secrets', file=sys.stderr) if 'secret' in d['prompt'] else None\nsys.exit(2 if 'secret' in d['prompt'] else 0)\n")
    hooks = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": ctx_hook}, {"type": "command", "command": stop}]}],
             "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": ctx_hook}]}]}
    _tool, ctx = _setup(world, hooks)
    runner: HookRunner = ctx.extra[HOOKS_KEY]
    ok = await runner.run("UserPromptSubmit", {"prompt": "fix the test"})
    assert not ok.blocked and ok.additional_context == ("Remember: tests live in tests/",)
    bad = await runner.run("UserPromptSubmit", {"prompt": "print the secret"})
    assert bad.blocked and "prompt mentions secrets" in bad.block_message
    assert (await runner.run("SessionStart", {"source": "startup"})).ran == 1
    assert (await runner.run("SessionStart", {"source": "resume"})).ran == 0
    assert (await runner.run("Stop", {"stop_hook_active": False})).ran == 0


@pytest.mark.parametrize(
    "hooks",
    [
        {"PreToolUse": {"matcher": "Bash"}},
        {"BeforeTool": []},
        {"PreToolUse": [{"matcher": "Bash", "hooks": []}]},
        {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}]},
        {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": -1}]}]},
        {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x"}]}]},
        {"PreToolUse": [{"matcher": "[", "hooks": [{"type": "command", "command": "x"}]}]},
    ],
)
def test_malformed_hooks_name_the_file(world, hooks):
    (world.project / ".claude").mkdir()
    path = world.project / ".claude" / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    with pytest.raises(AgentConfigError, match="settings.json"):
        load_settings(world.project, home=world.home)


async def test_rule_style_path_matcher_and_continue_false(world, approve):
    from tests.permissions.tools import EditLike

    body = "json.load(sys.stdin)\nprint(json.dumps({'continue': False, 'stopReason': 'freeze: release in progress'}))\n"
    hook = _script(world.root, "freeze.py", body)
    tool = EditLike()
    _tool, ctx = _setup(world, {"PreToolUse": [{"matcher": "Edit(src/**)", "hooks": [{"type": "command", "command": hook}]}]},
                        tool=tool, mode="acceptEdits")
    (world.project / "src").mkdir()
    stopped = await run_tool_use(ToolUseRequest("e1", "Edit", {"file_path": str(world.project / "src" / "m.py"), "content": "x"}), ctx, approve)
    assert stopped.is_error and "freeze: release in progress" in stopped.text
    assert not (world.project / "src" / "m.py").exists()
    other = await run_tool_use(ToolUseRequest("e2", "Edit", {"file_path": str(world.project / "a.py"), "content": "y"}), ctx, approve)
    assert not other.is_error and (world.project / "a.py").read_text() == "y"


async def test_python_hook_api_errors_and_regex_matchers(world):
    runner = HookRunner(cwd=world.project)
    with pytest.raises(AgentConfigError, match="Unknown hook event"):
        runner.register("BeforeEverything", lambda p: None)
    with pytest.raises(AgentConfigError, match="invalid matcher"):
        runner.register("PreToolUse", lambda p: None, matcher="[")
    seen: list[str] = []

    async def record(payload):
        seen.append(payload["tool_name"])

    async def slow(payload):
        import asyncio

        await asyncio.sleep(30)

    runner.register("PreToolUse", record, matcher="mcp__.*")
    runner.register("PreToolUse", slow, matcher="Slow", timeout=0.2)
    for name in ("mcp__github__create_issue", "Bash", "mcp__slack__post"):
        await runner.run("PreToolUse", {"tool_name": name, "tool_input": {}})
    assert seen == ["mcp__github__create_issue", "mcp__slack__post"]
    timed_out = await runner.run("PreToolUse", {"tool_name": "Slow", "tool_input": {}})
    assert not timed_out.blocked and "timed out" in timed_out.errors[0]


def _live(marker: str) -> list[str]:
    import psutil

    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(proc.info["cmdline"] or ()):
                found.append(" ".join(proc.info["cmdline"]))
        except psutil.Error:
            continue
    return found


async def test_a_hook_cancelled_while_it_starts_is_killed_not_waited_for(tmp_path):
    """asyncio alone, cancelled mid-start, would wait for the command to end by itself: here a
    shell whose child sleeps and whose stdin is never closed.  The whole group is killed."""
    import asyncio
    import uuid

    from jupyter_agent.permissions.hook_commands import run_command_hook
    from jupyter_agent.permissions.hooks_config import CommandHook

    marker = f"{400 + uuid.uuid4().int % 500}.{uuid.uuid4().int % 10**6:06d}"
    hook = CommandHook(command=f"sleep {marker}; cat", timeout=600)
    task = asyncio.ensure_future(run_command_hook(hook, {}, str(tmp_path), dict(os.environ)))
    await asyncio.sleep(0)  # inside create_subprocess_shell now
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=20)
    assert done == {task} and task.cancelled()
    for _ in range(400):
        if not _live(marker):
            break
        await asyncio.sleep(0.05)
    assert _live(marker) == []


async def test_closing_the_runner_stops_async_hooks_still_running(tmp_path):
    import asyncio
    import uuid

    marker = f"{400 + uuid.uuid4().int % 500}.{uuid.uuid4().int % 10**6:06d}"
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": f"sleep {marker}; true", "async": True}]}]}
    from jupyter_agent.permissions.hooks_config import parse_hooks

    runner = HookRunner(parse_hooks(hooks, tmp_path / "settings.json", "userSettings"), cwd=tmp_path)
    await runner.run("Stop", {})
    for _ in range(400):  # the hook's shell and its sleep are running
        if _live(marker):
            break
        await asyncio.sleep(0.05)
    assert _live(marker)
    await asyncio.wait_for(runner.aclose(grace=0.1), 20)
    assert runner.take_finished() == []
    # the shell is gone once aclose returns; its sleep, killed with the group, dies when next
    # scheduled (a moment later on a busy machine)
    assert not [line for line in _live(marker) if line.startswith("/bin/sh")]
    for _ in range(400):
        if not _live(marker):
            break
        await asyncio.sleep(0.05)
    assert _live(marker) == []
