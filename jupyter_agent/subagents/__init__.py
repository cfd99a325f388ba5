"""Subagents: agent definitions (built-in and ``.claude/agents/*.md``) and the runner."""

from .definitions import (
    BUILT_IN_AGENTS,
    GENERAL_PURPOSE,
    AgentCatalog,
    AgentDefinition,
    load_agents,
    parse_agent_file,
)

__all__ = [
    "BUILT_IN_AGENTS",
    "GENERAL_PURPOSE",
    "AgentCatalog",
    "AgentDefinition",
    "load_agents",
    "parse_agent_file",
]
