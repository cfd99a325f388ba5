"""Sandbox test fixtures: a Bash session with the sandbox on, and a folder outside /tmp."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from jupyter_agent.sandbox.bwrap import probe
from jupyter_agent.sandbox.settings import APP_STATE_KEY, SandboxSettings
from tests.tasks.shell_support import bash_context


def sandboxed_context(tmp_path: Path, **settings):
    ctx = bash_context(tmp_path)
    value = SandboxSettings(enabled=True, **settings)
    ctx.set_app_state(lambda s: replace(s, extra={**s.extra, APP_STATE_KEY: value}))
    return ctx


@pytest.fixture
async def bwrap_ok():
    available = await probe()
    if not available.ok:
        pytest.skip(f"bubblewrap cannot sandbox here: {available.reason}")
    return available


@pytest.fixture
def outside():
    """A folder that is neither under the working directory nor under /tmp (hidden in the sandbox)."""
    path = Path(tempfile.mkdtemp(prefix="sandbox-outside-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
