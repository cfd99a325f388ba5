"""Reliability fixtures: an isolated HOME / project / session folder under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.testing import ScriptedServer, reply


@pytest.fixture(scope="session")
def model_server():
    """A scripted model that answers every request with a short text (for subagents)."""
    with ScriptedServer() as server:
        server.set_fallback(lambda body: reply("Done."))
        yield server


@pytest.fixture
def isolated(tmp_path, monkeypatch, model_server) -> Path:
    """tmp_path/project as the project, HOME and the agent's home inside tmp_path; a local model."""
    for name in ("project", "home", "session"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(tmp_path / "home" / ".jupyter-agent"))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model_server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path
