"""``/name args`` → the command's prompt (for ``%agent /name args``), and the system-prompt list."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .command import PromptCommand


def find_command(name: str, commands: Iterable[Any]) -> PromptCommand | None:
    """A command or skill by name (a leading ``/`` is ignored)."""
    name = name.strip().lstrip("/")
    for command in commands:
        if isinstance(command, PromptCommand) and command.name == name:
            return command
    return None


def expand_command(text: str, commands: Iterable[Any]) -> str | None:
    """The expanded prompt if ``text`` is ``/name [args]`` naming a known command, else None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    match = re.match(r"/(\S+)\s*(.*)", stripped, re.DOTALL)
    command = find_command(match.group(1), commands) if match else None
    if command is None or match is None:
        return None
    return command.render(match.group(2))


def skills_prompt(commands: Iterable[Any]) -> str:
    """The system-prompt section listing the skills the model may invoke ('' when none)."""
    skills = [
        c for c in commands
        if isinstance(c, PromptCommand) and c.kind == "skill" and not c.disable_model_invocation
    ]
    if not skills:
        return ""
    lines = "\n".join(s.listing_line() for s in skills)
    return (
        "<available_skills>\n"
        f"{lines}\n"
        "</available_skills>\n"
        "When a task matches a skill's description, call the Skill tool with its name before "
        "starting; its instructions are then added to the conversation."
    )
