from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.worktree import EnterWorktreeTool, ExitWorktreeTool, get_worktree
from tests.support.tools import make_context

ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "PATH": "/usr/bin:/bin", "HOME": "/tmp",
}


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for k, v in ENV.items():
        if k.startswith("GIT_"):
            monkeypatch.setenv(k, v)
    root = tmp_path / "repo"
    root.mkdir()
    sh(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("print('hi')\n")
    sh(root, "add", "app.py")
    sh(root, "commit", "-q", "-m", "init")
    return root


def _ctx(repo: Path, tmp_path: Path):
    return make_context([EnterWorktreeTool(), ExitWorktreeTool()], repo).with_changes(session_dir=tmp_path / "s")


async def test_enter_then_keep(repo, tmp_path, approve):
    ctx = _ctx(repo, tmp_path)
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "feature"})], ctx, approve)
    out = run.outcomes[0]
    assert not out.is_error, out.text
    wt_path = repo / ".worktrees" / "feature"
    assert run.context.cwd == wt_path
    assert (wt_path / "app.py").read_text() == "print('hi')\n"
    assert sh(wt_path, "branch", "--show-current").strip() == "worktree-feature"
    assert sh(repo, "status", "--porcelain") == ""  # the worktrees dir is excluded
    assert [name for name, _ in approve.asks] == ["EnterWorktree"]

    run = await run_tools([ToolUseRequest("x", "ExitWorktree", {"action": "keep"})], run.context, approve)
    assert "kept at" in run.outcomes[0].text
    assert run.context.cwd == repo and wt_path.exists()
    assert get_worktree(ctx.get_app_state()) is None


async def test_remove_refuses_uncommitted_changes_unless_discarding(repo, tmp_path, approve):
    ctx = _ctx(repo, tmp_path)
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {})], ctx, approve)
    wt = get_worktree(ctx.get_app_state())
    assert wt.path.parent == repo / ".worktrees" and wt.branch.startswith("worktree-wt-")
    (wt.path / "app.py").write_text("print('changed')\n")
    (wt.path / "new.txt").write_text("x")

    refused = await run_tool_use(ToolUseRequest("x1", "ExitWorktree", {"action": "remove"}), run.context, approve)
    assert refused.is_error and "2 uncommitted file change(s)" in refused.text and "discard_changes" in refused.text
    assert wt.path.exists() and get_worktree(ctx.get_app_state()) == wt

    run = await run_tools(
        [ToolUseRequest("x2", "ExitWorktree", {"action": "remove", "discard_changes": True})], run.context, approve
    )
    assert not run.outcomes[0].is_error, run.outcomes[0].text
    assert "discarded 2 uncommitted" in run.outcomes[0].text
    assert not wt.path.exists() and run.context.cwd == repo
    assert wt.branch not in sh(repo, "branch")
    assert (repo / "app.py").read_text() == "print('hi')\n"


async def test_remove_refuses_new_commits(repo, tmp_path, approve):
    ctx = _ctx(repo, tmp_path)
    await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "c"})], ctx, approve)
    wt = get_worktree(ctx.get_app_state())
    (wt.path / "b.txt").write_text("b")
    sh(wt.path, "add", "b.txt")
    sh(wt.path, "commit", "-q", "-m", "b")
    out = await run_tool_use(ToolUseRequest("x", "ExitWorktree", {"action": "remove"}), ctx, approve)
    assert out.is_error and "1 commit(s) not on the original branch" in out.text


async def test_clean_remove_needs_no_discard(repo, tmp_path, approve):
    ctx = _ctx(repo, tmp_path)
    await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "clean"})], ctx, approve)
    out = await run_tool_use(ToolUseRequest("x", "ExitWorktree", {"action": "remove"}), ctx, approve)
    assert not out.is_error and "Removed the worktree" in out.text
    assert not (repo / ".worktrees" / "clean").exists()


async def test_errors(repo, tmp_path, approve, reject):
    ctx = _ctx(repo, tmp_path)
    cases = [
        ("ExitWorktree", {"action": "keep"}, "nothing to exit"),
        ("EnterWorktree", {"name": "../evil"}, "Invalid worktree name"),
        ("ExitWorktree", {"action": "delete"}, "action"),
    ]
    for name, inp, needle in cases:
        out = await run_tool_use(ToolUseRequest("i", name, inp), ctx, approve)
        assert out.is_error and needle in out.text, out.text
    denied = await run_tool_use(ToolUseRequest("d", "EnterWorktree", {"name": "x"}), ctx, reject)
    assert denied.is_error and not (repo / ".worktrees" / "x").exists()
    await run_tool_use(ToolUseRequest("e", "EnterWorktree", {"name": "one"}), ctx, approve)
    twice = await run_tool_use(ToolUseRequest("e2", "EnterWorktree", {"name": "two"}), ctx, approve)
    assert twice.is_error and "Already in worktree" in twice.text


async def test_not_a_git_repo(tmp_path, approve):
    plain = tmp_path / "plain"
    plain.mkdir()
    ctx = make_context([EnterWorktreeTool()], plain)
    out = await run_tool_use(ToolUseRequest("e", "EnterWorktree", {}), ctx, approve)
    assert out.is_error and "not inside a git repository" in out.text


async def test_bash_runs_in_the_worktree_after_entering(repo, tmp_path, approve):
    from jupyter_agent.tools.bash import BashTool

    ctx = make_context([EnterWorktreeTool(), ExitWorktreeTool(), BashTool()], repo).with_changes(session_dir=tmp_path / "s")
    run = await run_tools(
        [
            ToolUseRequest("e", "EnterWorktree", {"name": "bashy"}),
            ToolUseRequest("b", "Bash", {"command": "pwd && git branch --show-current"}),
            ToolUseRequest("x", "ExitWorktree", {"action": "keep"}),
            ToolUseRequest("b2", "Bash", {"command": "pwd"}),
        ],
        ctx,
        approve,
    )
    texts = [o.text for o in run.outcomes]
    assert not any(o.is_error for o in run.outcomes), texts
    wt = repo / ".worktrees" / "bashy"
    assert str(wt.resolve()) in texts[1] and "worktree-bashy" in texts[1]
    assert texts[3].strip().splitlines()[0] == str(repo.resolve())


async def test_entering_from_a_subfolder_lands_in_the_same_subfolder(repo, tmp_path, approve):
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("x = 1\n")
    sh(repo, "add", "pkg/mod.py")
    sh(repo, "commit", "-q", "-m", "pkg")
    ctx = make_context([EnterWorktreeTool()], repo / "pkg").with_changes(session_dir=tmp_path / "s")
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "sub"})], ctx, approve)
    assert run.context.cwd == repo / ".worktrees" / "sub" / "pkg"
    assert get_worktree(ctx.get_app_state()).original_cwd == repo / "pkg"


async def test_accept_edits_writes_in_the_worktree_without_asking(repo, tmp_path):
    from dataclasses import replace

    from jupyter_agent.tools.write import WriteTool
    from tests.conftest import RecordingApprover

    (repo / "notebooks").mkdir()
    ctx = make_context([EnterWorktreeTool(), ExitWorktreeTool(), WriteTool()], repo / "notebooks")
    ctx = ctx.with_changes(session_dir=tmp_path / "s")
    # The project is a subfolder of the repo, so the worktree lies outside it.
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(
        s.tool_permission_context, mode="acceptEdits", project_dir=repo / "notebooks")))
    approver = RecordingApprover()
    run = await run_tools([ToolUseRequest("e", "EnterWorktree", {"name": "edits"})], ctx, approver)
    wt = repo / ".worktrees" / "edits"
    out = await run_tool_use(
        ToolUseRequest("w", "Write", {"file_path": str(wt / "new.py"), "content": "x = 1\n"}), run.context, approver)
    assert not out.is_error, out.text
    assert [name for name, _ in approver.asks] == ["EnterWorktree"]  # the write did not ask
    assert wt in ctx.permission_context.additional_directories
    await run_tools([ToolUseRequest("x", "ExitWorktree", {"action": "keep"})], run.context, approver)
    assert wt not in ctx.permission_context.additional_directories
