"""What the checkpoint session tests share: an approver that allows everything, a session config."""

from __future__ import annotations

from jupyter_agent.agent.config import SessionConfig
from jupyter_agent.agent.retry import RetryPolicy
from jupyter_agent.core.permission_types import PermissionAllow
from tests.support.sessions import scripted_config


async def approve(tool, input, context, ask, tool_use_id):
    return PermissionAllow()


def session_config(server, tmp_path) -> SessionConfig:
    """A session on the scripted ``server``, rooted at ``tmp_path``, settings files not read."""
    return scripted_config(server, tmp_path, load_settings=False, retry=RetryPolicy(max_retries=0))
