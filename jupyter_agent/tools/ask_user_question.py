"""AskUserQuestion: multiple-choice questions for the user, answered in the question widget.

Contract with the UI (the question widget answers ``can_use_tool``)
--------------------------------------------------------------------
The pipeline calls ``can_use_tool(tool, input, context, ask, tool_use_id)`` with
``tool.name == "AskUserQuestion"`` and ``input.questions`` (each: ``question``, ``header``,
``options`` [{``label``, ``description``}], ``multiSelect``).  The widget answers with

* ``PermissionAllow(updated_input={"questions": [...same...], "answers": {question: answer}})``
  (``answers_input(input, answers)`` builds it).  An answer is the chosen label, several labels
  joined by ", " for multiSelect, or the user's free text ("Other").  Every question needs an
  answer; unanswered ones are reported to the model as such.
* ``PermissionDeny(message)`` — the user dismissed the questions; the model reads ``message``.

Where no one can answer (``dontAsk`` mode, or ``options.is_non_interactive``) the tool denies
itself before anything is shown, with ``NO_ONE_TO_ASK``.  A headless approval timeout is the
session's ``can_use_tool`` returning a ``PermissionDeny`` that says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionDeny, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.verdicts import SAFETY, sticky_ask

NO_ONE_TO_ASK = (
    "No one can answer questions in this session (it runs without asking the user: {why}). "
    "Do not ask again: make a reasonable assumption, say which one, and continue."
)


class QuestionOption(BaseModel):
    label: str = Field(min_length=1, description="The choice shown to the user (1-5 words)")
    description: str = Field(description="What this choice means or implies")


class Question(BaseModel):
    question: str = Field(min_length=1, description="The complete question, ending with '?'")
    header: str = Field(min_length=1, max_length=12, description="A very short label (max 12 chars)")
    options: list[QuestionOption] = Field(min_length=2, max_length=4, description="2-4 choices")
    multiSelect: bool = Field(  # noqa: N815 - Claude Code's wire name
        False, description="Allow choosing several options"
    )


class AskUserQuestionInput(BaseModel):
    questions: list[Question] = Field(min_length=1, max_length=4, description="1-4 questions")
    # Filled in by the question widget through updated_input, never by the model.
    answers: SkipJsonSchema[dict[str, str] | None] = None


@dataclass(frozen=True)
class AskUserQuestionOutput:
    questions: list[Question]
    answers: dict[str, str]


def answers_input(input: AskUserQuestionInput, answers: dict[str, str]) -> PermissionAllow:
    """The allow the question widget returns once the user has answered."""
    questions = [q.model_dump() for q in input.questions]
    return PermissionAllow(updated_input={"questions": questions, "answers": dict(answers)})


class AskUserQuestionTool(Tool[AskUserQuestionInput, AskUserQuestionOutput]):
    """Ask the user 1-4 multiple-choice questions while you work: to clarify an ambiguous
    request, learn a preference, or choose between approaches. Each question has 2-4 options;
    the user can always answer in their own words instead. Put a recommended option first and
    add "(Recommended)" to its label. Do not use it to ask for plan approval (use ExitPlanMode)."""

    name = "AskUserQuestion"
    input_schema = AskUserQuestionInput

    def is_read_only(self, input: AskUserQuestionInput) -> bool:
        return True

    async def validate_input(self, input: AskUserQuestionInput, context: ToolUseContext) -> ValidationResult:
        if input.answers is not None:
            return ValidationError("An unexpected parameter `answers` was provided; the user gives the answers.")
        texts = [q.question for q in input.questions]
        if len(set(texts)) != len(texts):
            return ValidationError("Question texts must be unique; merge or reword the duplicates.")
        for q in input.questions:
            labels = [o.label for o in q.options]
            if len(set(labels)) != len(labels):
                return ValidationError(f"Option labels must be unique within a question: {q.question!r}.")
        return VALID

    async def check_permissions(self, input: AskUserQuestionInput, context: ToolUseContext) -> PermissionResult:
        if context.permission_context.mode == "dontAsk":
            return PermissionDeny(NO_ONE_TO_ASK.format(why="dontAsk mode"))
        if context.permission_context.prompts_off_by is not None:
            return PermissionDeny(NO_ONE_TO_ASK.format(why="the settings say permissions.denyInsteadOfPrompting"))
        if context.options.is_non_interactive:
            return PermissionDeny(NO_ONE_TO_ASK.format(why="non-interactive run"))
        message = "Answer questions?" if len(input.questions) > 1 else input.questions[0].question
        # Sticky: no mode, allow rule or hook may answer in the user's place.
        return sticky_ask(message, SAFETY, "only the user can answer")

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if input.answers is None:  # allowed without the question widget: nobody answered
            raise ToolError("The questions were not shown to the user, so there are no answers. "
                            "Make a reasonable assumption, say which one, and continue.")
        return ToolResult(AskUserQuestionOutput(list(input.questions), dict(input.answers)))

    def map_result_to_content(self, data: AskUserQuestionOutput, tool_use_id: str):
        parts = []
        for q in data.questions:
            answer = data.answers.get(q.question)
            parts.append(f'"{q.question}"="{answer}"' if answer else f'"{q.question}"=(no answer)')
        text = (
            f"User has answered your questions: {', '.join(parts)}. "
            "You can now continue with the user's answers in mind."
        )
        return [{"type": "text", "text": text}]

    def render_tool_result_message(self, output: AskUserQuestionOutput) -> str:
        return "; ".join(f"{q} → {a}" for q, a in output.answers.items()) or "(no answers)"
