"""A session config pointed at a scripted server (the real SDK via ``base_url``), with every file
the session writes (transcripts, settings, home) under the test's ``tmp_path``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_agent.agent.config import SessionConfig
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
