"""Skill {skill, args?}: add a skill's (or custom command's) instructions to the conversation."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionResult,
)
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..permissions.rules import skill_rule_matches
from ..skills.command import PromptCommand
from ..skills.expand import find_command
from ._content_rules import decide_by_content_rules


class SkillInput(BaseModel):
    skill: str = Field(description='The skill name. E.g., "pdf" or "review-pr"')
    args: str | None = Field(None, description="Optional arguments for the skill")


class SkillOutput(BaseModel):
    success: bool
    command_name: str
    allowed_tools: list[str] = Field(default_factory=list)


def _invocable(context: ToolUseContext) -> list[PromptCommand]:
    return [
        c for c in context.options.commands
        if isinstance(c, PromptCommand) and not c.disable_model_invocation
    ]


class SkillTool(Tool[SkillInput, SkillOutput]):
    """Execute a skill within the main conversation.

When users ask you to perform tasks, check if any of the available skills match. Skills provide
specialized capabilities and domain knowledge. The available skills are listed in the system
prompt under <available_skills>.

How to invoke:
- Use this tool with the skill name and optional arguments, e.g. `skill: "pdf"` or
  `skill: "review-pr", args: "123"`
- When a skill matches the user's request, invoke it BEFORE generating any other response
- The skill's instructions are added to the conversation; follow them
- Only use skills listed in <available_skills>; do not invoke a skill that is already running"""

    name = "Skill"
    input_schema = SkillInput

    def is_concurrency_safe(self, input: SkillInput) -> bool:
        return False

    async def validate_input(self, input: SkillInput, context: ToolUseContext) -> ValidationResult:
        name = input.skill.strip().lstrip("/")
        if not name:
            return ValidationError("Invalid skill format: give a skill name.")
        command = find_command(name, context.options.commands)
        if command is None:
            known = ", ".join(c.name for c in _invocable(context)) or "(none)"
            return ValidationError(f"Unknown skill: {name}. Available skills: {known}")
        if command.disable_model_invocation:
            return ValidationError(
                f"Skill {name} cannot be used with the Skill tool: it is for the user to run as /{name}."
            )
        return VALID

    async def check_permissions(self, input: SkillInput, context: ToolUseContext) -> PermissionResult:
        name = input.skill.strip().lstrip("/")
        return decide_by_content_rules(
            context, self.name, lambda c: skill_rule_matches(c, name),
            denied=lambda rule: f"Permission to use skill {name} has been denied by rule {rule}.",
            needs_approval=lambda rule: f"Skill {name} requires approval (rule {rule}).",
            question=f"Use skill {name}?", suggest=f"Skill({name})",
        )

    def render_tool_use_message(self, input: SkillInput) -> str:
        return f"Skill {input.skill}" + (f" {input.args}" if input.args else "")

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        command = find_command(input.skill, context.options.commands)
        if command is None:  # validate_input ran first; the commands changed in between
            raise LookupError(f"Unknown skill: {input.skill}")
        content: list[dict[str, Any]] = [
            {"type": "text", "text": f"<command-message>{command.name} is running…</command-message>\n"
                                     f"<command-name>{command.name}</command-name>"
                                     + (f"\n<command-args>{input.args}</command-args>" if input.args else "")},
            {"type": "text", "text": command.render(input.args or "")},
        ]
        output = SkillOutput(success=True, command_name=command.name, allowed_tools=list(command.allowed_tools))
        return ToolResult(output, new_messages=[{"role": "user", "content": content}])  # type: ignore[list-item]

    def map_result_to_content(self, data: SkillOutput, tool_use_id: str):
        from ..core.result import text_block

        return [text_block(f"Launching skill: {data.command_name}")]
