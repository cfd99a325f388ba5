"""A session config, and a subagent runtime, pointed at a scripted server (the real SDK via
``base_url``), with every file they write (transcripts, settings, home) under the test's
``tmp_path``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.subagents.runtime import SubagentRuntime
from jupyter_agent.testing import ScriptedServer


def scripted_config(server: ScriptedServer, tmp_path: Path, **overrides: Any) -> SessionConfig:
    """cwd ``tmp_path``, sessions in ``tmp_path/sessions``, home ``tmp_path/home``; ``overrides``
    (e.g. ``retry=``, ``load_settings=False``) replace any field."""
    fields: dict[str, Any] = dict(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        cwd=tmp_path,
        sessions_dir=tmp_path / "sessions",
        home=tmp_path / "home",
        base_url=server.url,
        api_key="test-key",
    )
    fields.update(overrides)
    return SessionConfig(**fields)


def scripted_runtime(server: ScriptedServer, tmp_path: Path, **client_options: Any) -> SubagentRuntime:
    """A SubagentRuntime (what the Agent, Team and Workflow tools run subagents with) on the
    scripted ``server``: the real SDK client, no retries, project ``tmp_path``, home
    ``tmp_path/home``.  ``client_options`` go to ``AsyncAnthropic`` (e.g. ``http_client=``);
    close the client with ``runtime.client.close()`` where the test cares about sockets."""
    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0, **client_options)
    return SubagentRuntime(client=client, retry=RetryPolicy(max_retries=0), model="claude-sonnet-5-5",
                           project_dir=tmp_path, home=tmp_path / "home")
