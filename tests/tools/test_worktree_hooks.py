"""WorktreeCreate / WorktreeRemove hooks: a worktree made by your own command (another version
control system, a copy, a container volume) instead of ``git worktree add``, and removed by it."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.orchestration import ToolUseRequest
from jupyter_agent.permissions.hooks import HOOKS_KEY, HookRunner
from jupyter_agent.permissions.hooks_config import parse_hooks
from jupyter_agent.tools.worktree import EnterWorktreeTool, ExitWorktreeTool, get_worktree
from tests.support.tools import make_context


def _script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport json, os, sys\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def _ctx(project: Path, tmp_path: Path, hooks: dict):
    ctx = make_context([EnterWorktreeTool(), ExitWorktreeTool()], project).with_changes(session_dir=tmp_path / "s")
    ctx.extra[HOOKS_KEY] = HookRunner(parse_hooks(hooks, tmp_path / "settings.json", "userSettings"), cwd=project)
    return ctx


def _hooks(create: str, remove: str | None = None) -> dict:
    hooks = {"WorktreeCreate": [{"hooks": [{"type": "command", "command": create}]}]}
    if remove is not None:
        hooks["WorktreeRemove"] = [{"hooks": [{"type": "command", "command": remove}]}]
    return hooks


async def test_a_worktree_create_hook_makes_the_worktree_outside_git(tmp_path, approve):
    project = tmp_path / "project"  # not a git repository
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    store, log = tmp_path / "copies", tmp_path / "hooks.log"
    create = _script(tmp_path, "create.py", f"""
        event = json.load(sys.stdin)
        target = os.path.join({str(store)!r}, event["name"])
        os.makedirs(target)
        open(os.path.join(target, "notes.txt"), "w").write(open("notes.txt").read())
        open({str(log)!r}, "a").write("create " + event["name"] + " in " + os.getcwd() + "\\n")
        print("preparing...", file=sys.stderr)
        print(target)
    """)
    remove = _script(tmp_path, "remove.py", f"""
        event = json.load(sys.stdin)
        open({str(log)!r}, "a").write("remove " + event["worktree_path"] + "\\n")
    """)
    ctx = _ctx(project, tmp_path, _hooks(create, remove))
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "trial"})], ctx, approve)
    out = run.outcomes[0]
    assert not out.is_error, out.text
    target = store / "trial"
    assert run.context.cwd == target and (target / "notes.txt").read_text() == "hello\n"
    assert "made by a WorktreeCreate hook" in out.text
    assert target in ctx.permission_context.additional_directories  # a working directory while in it

    run = await run_tools([ToolUseRequest("x", "ExitWorktree", {"action": "remove"})], run.context, approve)
    assert not run.outcomes[0].is_error, run.outcomes[0].text
    assert run.context.cwd == project and get_worktree(ctx.get_app_state()) is None
    assert log.read_text().splitlines() == [f"create trial in {project}", f"remove {target}"]


async def test_keeping_a_hooked_worktree_runs_no_remove_hook(tmp_path, approve):
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "remove.log"
    ctx = _ctx(project, tmp_path, _hooks(f"mkdir -p {tmp_path}/wt && echo {tmp_path}/wt", f"cat >> {log}"))
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "k"})], ctx, approve)
    run = await run_tools([ToolUseRequest("x", "ExitWorktree", {"action": "keep"})], run.context, approve)
    assert not run.outcomes[0].is_error and (tmp_path / "wt").is_dir() and not log.exists()


async def test_a_failing_or_unclear_create_hook_makes_no_worktree(tmp_path, approve):
    project = tmp_path / "project"
    project.mkdir()
    cases = [
        ("echo 'no disk space' >&2; exit 1", "WorktreeCreate hook failed"),
        ("echo 'not allowed here' >&2; exit 2", "not allowed here"),
        ("true", "did not print the path"),
        (f"echo {tmp_path}/missing", "is not a folder"),
        ("echo relative/path", "is not an absolute path"),
    ]
    for command, message in cases:
        ctx = _ctx(project, tmp_path, _hooks(command))
        run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "w"})], ctx, approve)
        out = run.outcomes[0]
        assert out.is_error and message in out.text, (command, out.text)
        assert run.context.cwd == project and get_worktree(ctx.get_app_state()) is None


async def test_the_json_answer_may_name_the_path(tmp_path, approve):
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "wt").mkdir()
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "WorktreeCreate", "worktreePath": str(tmp_path / "wt")}})
    ctx = _ctx(project, tmp_path, _hooks(f"echo '{answer}'"))
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "j"})], ctx, approve)
    assert not run.outcomes[0].is_error and run.context.cwd == tmp_path / "wt"
