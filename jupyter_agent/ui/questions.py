"""Widgets for tools that ask the user: AskUserQuestion and ExitPlanMode's plan approval.

Protocol (the tools arrive in a later issue; their ``check_permissions`` returns an ask):
- AskUserQuestion: the form's answer is ``PermissionAllow(updated_input={**input, "answers":
  {question_text: answer}})``; multi-select answers are joined with ", ", "Other" is free text.
- ExitPlanMode: approve → ``PermissionAllow`` and the session's mode becomes the chosen one;
  keep planning → ``PermissionDeny`` carrying the user's feedback.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Union

import ipywidgets as widgets

from . import render
from .decision import PendingAnswer

OTHER = "Other"
PLAN_MODES = ("acceptEdits", "default")


@dataclass(frozen=True)
class Answers:
    answers: dict[str, str]


@dataclass(frozen=True)
class PlanApproved:
    mode: str


@dataclass(frozen=True)
class KeepPlanning:
    feedback: str


PlanChoice = Union[PlanApproved, KeepPlanning]


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


class _Question(widgets.VBox):
    """One question: its options (single or multi select) and an "Other" text box."""

    def __init__(self, question: Any) -> None:
        self.text = str(_get(question, "question", ""))
        self.multi = bool(_get(question, "multiSelect", _get(question, "multi_select", False)))
        raw = _get(question, "options") or []
        self.labels = [str(_get(o, "label", str(o))) for o in raw]
        # each option with its description beside it, not in a list above the buttons
        shown = [f"{label} — {desc}" if desc else label
                 for label, desc in zip(self.labels, (str(_get(o, "description", "") or "") for o in raw), strict=True)]
        header = str(_get(question, "header", ""))
        self.label = widgets.HTML((f"<b>{render.escape(header)}</b> " if header else "") + render.escape(self.text))
        if self.multi:
            self.choices: list[widgets.Checkbox] = [
                widgets.Checkbox(description=text, indent=False, layout=widgets.Layout(width="auto")) for text in shown
            ]
            picker: widgets.Widget = widgets.VBox(self.choices)
        else:
            self.select = widgets.RadioButtons(
                options=[*zip(shown, self.labels, strict=True), (OTHER, OTHER)], value=None,
                layout=widgets.Layout(width="auto"),
            )
            picker = self.select
        self.other = widgets.Text(placeholder="Other (type your own answer)")
        super().__init__([self.label, picker, self.other])

    def answer(self) -> str:
        other = self.other.value.strip()
        if self.multi:
            picked = [label for label, c in zip(self.labels, self.choices, strict=True) if c.value]
            return ", ".join(picked + ([other] if other else []))
        if self.select.value == OTHER or (self.select.value is None and other):
            return other
        return str(self.select.value or "")


class QuestionForm(widgets.VBox):
    """AskUserQuestion: 1-4 questions, then Submit."""

    def __init__(self, questions: list[Any], loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.pending: PendingAnswer[Answers | None] = PendingAnswer(loop)
        self.questions = [_Question(q) for q in questions]
        self.submit = widgets.Button(description="Submit answers", button_style="primary")
        self.status = widgets.HTML()
        super().__init__([*self.questions, self.submit, self.status])
        self.submit.on_click(lambda _b: self.pending.answer(self.collect()))
        self.pending.on_answer(self._done)

    def collect(self) -> Answers:
        return Answers({q.text: q.answer() for q in self.questions})

    async def wait(self) -> Answers | None:
        """The answers, or None when the questions were dismissed (the turn was stopped)."""
        return await self.pending.wait()

    def dismiss(self) -> None:
        self.pending.answer(None)

    @staticmethod
    def describe(answers: Answers | None) -> str:
        """The card's audit line."""
        return "Answered: " + "; ".join(answers.answers.values()) if answers else "Dismissed"

    def _done(self, answers: Answers | None) -> None:
        self.submit.disabled = True
        if answers is None:
            self.status.value = "Dismissed"
            return
        lines = "".join(
            f"<div>{render.escape(q)} → <b>{render.escape(a or '(no answer)')}</b></div>"
            for q, a in answers.answers.items()
        )
        self.status.value = lines


class PlanApproval(widgets.VBox):
    """ExitPlanMode: the plan as Markdown; approve with a mode, or keep planning with feedback."""

    def __init__(self, plan: str, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.pending: PendingAnswer[PlanChoice] = PendingAnswer(loop)
        self.plan = widgets.HTML(render.markdown_html(plan))
        self.plan.add_class(render.RENDERED_HTML_CLASS)
        self.mode = widgets.Dropdown(options=list(PLAN_MODES), value="acceptEdits", description="Then:")
        self.approve = widgets.Button(description="Approve plan", button_style="success")
        self.keep = widgets.Button(description="Keep planning")
        self.feedback = widgets.Textarea(placeholder="What should change in the plan?", rows=2)
        self.status = widgets.HTML()
        super().__init__(
            [self.plan, widgets.HBox([self.mode, self.approve, self.keep]), self.feedback, self.status]
        )
        self.approve.on_click(lambda _b: self.pending.answer(PlanApproved(str(self.mode.value))))
        self.keep.on_click(lambda _b: self.pending.answer(KeepPlanning(self.feedback.value.strip())))
        self.pending.on_answer(self._done)

    async def wait(self) -> PlanChoice:
        return await self.pending.wait()

    def dismiss(self) -> None:
        self.pending.answer(KeepPlanning("The user stopped the turn."))

    @staticmethod
    def describe(choice: PlanChoice) -> str:
        """The card's audit line."""
        if isinstance(choice, PlanApproved):
            return f"Plan approved (mode {choice.mode})"
        return f"Keep planning: {choice.feedback}"

    def _done(self, choice: PlanChoice) -> None:
        for w in (self.approve, self.keep, self.mode, self.feedback):
            w.disabled = True
        if isinstance(choice, PlanApproved):
            self.status.value = f"Plan approved; mode → <b>{render.escape(choice.mode)}</b>"
        else:
            self.status.value = f"Keep planning: {render.escape(choice.feedback or '(no feedback)')}"
