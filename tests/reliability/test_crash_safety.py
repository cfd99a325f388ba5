"""kill -9 in the middle of Write / Edit / NotebookEdit (disk backend), in a real subprocess.

A child process runs an agent session against the scripted server, which keeps answering with
Read + Write, Read + Edit (replace_all over the whole file) and NotebookEdit calls on three files.
The child is SIGKILLed at varying moments.  Every file must then be an old or a new version,
whole and valid (the notebook still parses and validates), and the session resumes from its
transcript with a valid history.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import signal
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.session import AgentSession
from jupyter_agent.testing import ScriptedServer, reply, tool_use
from tests.agent.history_check import assert_valid_history

CHILD = Path(__file__).with_name("_crash_child.py")
ROOT = Path(__file__).resolve().parents[2]
LINES = 4_000  # ~25 kB per file; the kill lands at varying points of the calls
KILL_AFTER_REQUESTS = (3, 5, 8, 12)


class Editor:
    """The scripted model: each request gets the next edit, cycling over the three files."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.step = itertools.count()
        self.version = {"w": 0, "e": 0, "n": 0}

    def __call__(self, body: dict) -> object:
        step = next(self.step)
        kind = "wen"[step % 3]
        old, new = self.version[kind], self.version[kind] + 1
        self.version[kind] = new
        if kind == "w":
            path = str(self.project / "written.txt")
            return reply(tool_use("Read", {"file_path": path}),
                         tool_use("Write", {"file_path": path, "content": f"w{new}\n" * LINES}))
        if kind == "e":
            path = str(self.project / "edited.txt")
            return reply(tool_use("Read", {"file_path": path}),
                         tool_use("Edit", {"file_path": path, "old_string": f"e{old}", "new_string": f"e{new}",
                                           "replace_all": True}))
        path = str(self.project / "book.ipynb")
        return reply(tool_use("NotebookEdit", {"notebook_path": path, "cell_id": "c1",
                                               "new_source": f"x = {new}\n" * LINES}))


def _setup(project: Path) -> None:
    project.mkdir()
    (project / "written.txt").write_text("w0\n" * LINES)
    (project / "edited.txt").write_text("e0\n" * LINES)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x = 0\n" * LINES)
    cell["id"] = "c1"
    nb.cells.append(cell)
    nbformat.write(nb, project / "book.ipynb")


def _uniform(text: str, pattern: str) -> bool:
    lines = text.splitlines()
    return len(lines) == LINES and len(set(lines)) == 1 and re.fullmatch(pattern, lines[0]) is not None


def _assert_whole(project: Path) -> None:
    assert _uniform((project / "written.txt").read_text(), r"w\d+")
    assert _uniform((project / "edited.txt").read_text(), r"e\d+")
    nb = nbformat.read(project / "book.ipynb", as_version=4)
    nbformat.validate(nb)
    assert [c["id"] for c in nb.cells] == ["c1"]
    assert _uniform(nb.cells[0]["source"], r"x = \d+")
    others = {p.name for p in project.iterdir()} - {"written.txt", "edited.txt", "book.ipynb"}
    # A kill between the temp file's creation and its rename leaves that temp file behind.
    stray = [n for n in others if not re.fullmatch(r"\.(written\.txt|edited\.txt|book\.ipynb)\..+\.tmp", n)]
    assert stray == [], stray
    if others:
        print(f"left-over temp files after kill -9: {sorted(others)}")


async def _run_and_kill(server: ScriptedServer, project: Path, sessions: Path, after: int) -> None:
    start = len(server.message_requests)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(CHILD), str(project), str(sessions), server.url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env, cwd=str(project),
    )
    try:
        assert (await asyncio.wait_for(child.stdout.readline(), 60)).strip() == b"ready"
        for _ in range(3000):
            if len(server.message_requests) - start >= after:
                break
            await asyncio.sleep(0.005)
        assert len(server.message_requests) - start >= after, "the child stopped making requests"
        await asyncio.sleep((after % 4) * 0.003)  # land at different points inside a call
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


async def test_kill_9_mid_edit_leaves_whole_files_and_a_resumable_session(server, tmp_path):
    project, sessions = tmp_path / "project", tmp_path / "sessions"
    _setup(project)
    editor = Editor(project)
    server.set_fallback(editor)
    for after in KILL_AFTER_REQUESTS:
        await _run_and_kill(server, project, sessions, after)
        _assert_whole(project)
    assert sum(editor.version.values()) >= sum(KILL_AFTER_REQUESTS)  # edits really happened
    changed = (project / "written.txt").read_text() != "w0\n" * LINES
    assert changed or (project / "edited.txt").read_text() != "e0\n" * LINES

    server.set_fallback(None)
    config = SessionConfig(
        model="claude-sonnet-5-5", max_tokens=1024, cwd=project, sessions_dir=sessions,
        home=tmp_path / "home", base_url=server.url, api_key="test-key", mode="bypassPermissions",
    )
    resumed = AgentSession.resume(None, config=config)
    assert_valid_history(resumed.messages)
    server.push(reply("back after the crash"))
    outcome = await resumed.submit("Are you there?")
    assert outcome.text == "back after the crash"
    assert_valid_history(resumed.messages)
    await resumed.aclose()
