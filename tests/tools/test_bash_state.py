"""Which directory the next command starts in, when the shell and the context disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.tools.shell.state import ShellState

A, B, W = Path("/a"), Path("/a/b"), Path("/worktree")


@pytest.mark.parametrize(
    ("shell_cwd", "seen", "context_cwd", "expected", "why"),
    [
        (A, A, A, A, "nothing moved"),
        (B, B, B, B, "Bash moved, its modifier was applied"),
        (B, A, A, B, "Bash moved in a parallel batch: its modifier was dropped"),
        (B, A, W, W, "another tool moved the context since"),
        (W, W, A, A, "another tool moved it back"),
        (A, None, A, A, "first call"),
    ],
)
def test_follow_context(shell_cwd, seen, context_cwd, expected, why):
    state = ShellState(cwd=shell_cwd, project_dir=A, seen_context_cwd=seen)
    state.follow_context(context_cwd)
    assert state.cwd == expected, why
    assert state.seen_context_cwd == context_cwd


def test_start_dir_keeps_an_existing_directory(tmp_path):
    state = ShellState(cwd=tmp_path, project_dir=tmp_path)
    assert state.start_dir() == (tmp_path, None)


def test_start_dir_falls_back_and_remembers_it(tmp_path):
    gone = tmp_path / "gone"
    state = ShellState(cwd=gone, project_dir=tmp_path)
    start, note = state.start_dir()
    assert start == tmp_path and state.cwd == tmp_path
    assert note is not None and str(gone) in note
