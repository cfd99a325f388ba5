"""MCP prompts as commands: ``%agent /mcp__github__review_pr 123 "be strict"``.

A server's prompts (``prompts/list``) are commands named ``mcp__<server>__<prompt>``, as in
Claude Code.  The words after the name fill the prompt's arguments in the order the server
declares them (quotes group words; what is left over joins the last argument).  The server
renders the prompt (``prompts/get``) and its messages — text, images, embedded resources —
become the user's message for the turn.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.result import ContentBlock
from ..tools.mcp_tool import mcp_tool_name
from .convert import content_to_blocks

if TYPE_CHECKING:
    from .manager import McpManager


class McpPromptError(Exception):
    """The command names no prompt, lacks an argument, or the server failed: for the user."""


@dataclass(frozen=True)
class PromptCommand:
    name: str  # mcp__server__prompt
    server: str
    prompt: Any  # mcp_types.Prompt

    def usage(self) -> str:
        args = [a.name if a.required else f"[{a.name}]" for a in (self.prompt.arguments or [])]
        return " ".join([f"/{self.name}", *args])

    def describe(self) -> str:
        text = self.prompt.description or self.prompt.title or ""
        return f"{self.usage()}" + (f" — {text}" if text else "")


def prompt_commands(manager: McpManager | None) -> list[PromptCommand]:
    """Every connected server's prompts, as commands."""
    if manager is None:
        return []
    return [PromptCommand(mcp_tool_name(conn.name, p.name), conn.name, p)
            for conn in manager.connected() for p in conn.prompts]


def bind_arguments(command: PromptCommand, text: str) -> dict[str, str]:
    """The words after the command, by position, as the prompt's named arguments."""
    try:
        words = shlex.split(text)
    except ValueError:  # an unbalanced quote: plain words
        words = text.split()
    declared = list(command.prompt.arguments or [])
    if len(words) > len(declared) and declared:
        words = [*words[: len(declared) - 1], " ".join(words[len(declared) - 1:])]
    elif words and not declared:
        raise McpPromptError(f"/{command.name} takes no arguments (usage: {command.usage()}).")
    values = {a.name: w for a, w in zip(declared, words, strict=False)}
    missing = [a.name for a in declared if a.required and a.name not in values]
    if missing:
        raise McpPromptError(f"/{command.name} needs {', '.join(missing)} (usage: {command.usage()}).")
    return values


async def expand_mcp_prompt(manager: McpManager | None, text: str) -> list[ContentBlock]:
    """``/mcp__server__prompt args`` rendered by its server, as the blocks of a user message."""
    from .connection import McpCallError

    name, _, rest = text.strip()[1:].partition(" ")
    commands = prompt_commands(manager)
    command = next((c for c in commands if c.name == name), None)
    if command is None and manager is not None:  # a prompt the server added since it started?
        for conn in manager.connected():
            await conn.refresh_prompts()
        commands = prompt_commands(manager)
        command = next((c for c in commands if c.name == name), None)
    if command is None or manager is None:
        known = ", ".join(f"/{c.name}" for c in commands) or "none (no connected server offers prompts)"
        raise McpPromptError(f"Unknown MCP prompt /{name}. MCP prompts: {known}.")
    arguments = bind_arguments(command, rest.strip())
    try:
        result = await manager.connections[command.server].get_prompt(command.prompt.name, arguments)
    except McpCallError as exc:
        raise McpPromptError(str(exc)) from exc
    blocks: list[ContentBlock] = []
    for message in result.messages:
        content = message.content if isinstance(message.content, list) else [message.content]
        converted = content_to_blocks(list(content))
        if message.role == "assistant":  # said in the assistant's voice: marked, kept in order
            converted = [{"type": "text", "text": f"(assistant) {b.get('text', '')}"} if b.get("type") == "text"
                         else b for b in converted]
        blocks.extend(converted)
    if not blocks:
        raise McpPromptError(f"/{name}: the server's prompt is empty.")
    return blocks
