"""The model a session's ``prompt`` hooks ask (``permissions/hook_remote.py``): one request on
the session's own client, to the hook's ``model`` (an alias such as ``haiku`` or a model id),
else the small fast model (``JUPYTER_AGENT_SMALL_MODEL`` / ``ANTHROPIC_SMALL_FAST_MODEL``), else
the session's model."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from ..permissions.hook_remote import PROMPT_SYSTEM, PromptModel

if TYPE_CHECKING:
    from .session import AgentSession

MAX_TOKENS = 1024


def hook_model_name(model: str | None, main_model: str) -> str:
    from ..subagents.definitions import MODEL_ALIASES
    from ..tools.web_fetch import SMALL_MODEL_ENVS  # the same small model WebFetch uses

    if model:
        return MODEL_ALIASES.get(model, model)
    return next((os.environ[e] for e in SMALL_MODEL_ENVS if os.environ.get(e)), main_model)


def session_prompt_model(session: AgentSession) -> PromptModel:
    async def ask(text: str, model: str | None, timeout: float) -> str:
        params: dict[str, Any] = {
            "model": hook_model_name(model, session.config.model),
            "max_tokens": MAX_TOKENS,
            "system": PROMPT_SYSTEM,
            "messages": [{"role": "user", "content": text}],
        }
        message = await asyncio.wait_for(session.model_client.client.messages.create(**params), timeout)
        session.add_side_usage(message, params["model"])
        return "".join(getattr(block, "text", "") for block in message.content)

    return ask
