"""The ``%agent`` magics (see ``agent_magics.AgentMagics``)."""

from __future__ import annotations

from .agent_magics import AgentMagics

__all__ = ["AgentMagics"]
