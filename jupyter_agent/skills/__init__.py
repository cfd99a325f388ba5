"""Skills (``.claude/skills/<name>/SKILL.md``) and custom commands (``.claude/commands/*.md``)."""

from __future__ import annotations

from .command import PromptCommand
from .discover import Discovery, discover_commands, load_commands
from .expand import expand_command, find_command, skills_prompt

__all__ = [
    "Discovery",
    "PromptCommand",
    "discover_commands",
    "expand_command",
    "find_command",
    "load_commands",
    "skills_prompt",
]
