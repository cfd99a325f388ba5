"""The permission panel inside a tool card: Approve / Always allow / Deny plus a feedback box."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any, Union

import ipywidgets as widgets

from ..core.permission_types import PermissionAsk, PermissionUpdate
from . import render
from .decision import PendingAnswer
from .tool_views import display_path

FEEDBACK_PLACEHOLDER = "Tell the model why, or what to do instead (optional)"


@dataclass(frozen=True)
class Approved:
    pass


@dataclass(frozen=True)
class AlwaysAllowed:
    update: PermissionUpdate


@dataclass(frozen=True)
class Denied:
    feedback: str = ""


@dataclass(frozen=True)
class Stopped:
    """The turn was stopped while the request was waiting."""


ApprovalChoice = Union[Approved, AlwaysAllowed, Denied, Stopped]

_DESTINATION_FILES = {
    "localSettings": ".claude/settings.local.json",
    "projectSettings": ".claude/settings.json",
    "userSettings": "~/.claude/settings.json",
    "session": "this session",
    "cliArg": "this session",
}


def rule_label(update: PermissionUpdate) -> str:
    return ", ".join(update.rules)


_FOLDER_RULE = re.compile(r"(Edit|Read)\(/(/.+)/\*\*\)")


def button_label(update: PermissionUpdate, root: Any = None) -> str:
    """The Always-allow button's text.  A folder rule for this session says what it does in
    words ("Always allow edits in this folder this session") instead of spelling an absolute
    path; the exact rule is in the tooltip and in the audit line."""
    match = _FOLDER_RULE.fullmatch(update.rules[0]) if len(update.rules) == 1 else None
    if update.destination not in ("session", "cliArg"):
        return f"Always allow {rule_label(update)}"
    if match is None:  # kept for this session only: say so (a saved rule's file is in the tooltip)
        return f"Always allow {rule_label(update)} this session"
    shown = display_path(match.group(2), root)
    where = "this folder" if shown == "." else f"{shown}/"
    return f"Always allow {'edits' if match.group(1) == 'Edit' else 'reads'} in {where} this session"


def describe_choice(choice: ApprovalChoice) -> str:
    """The audit line for a decision: ``Approved``, ``Always allowed Bash(pytest:*)``…"""
    match choice:
        case Approved():
            return "Approved"
        case AlwaysAllowed(update=update):
            where = _DESTINATION_FILES.get(update.destination, update.destination)
            return f"Always allowed {rule_label(update)} (saved to {where})"
        case Denied(feedback=feedback):
            return f"Denied: {feedback}" if feedback else "Denied"
        case Stopped():
            return "Stopped before an answer"
    return str(choice)


class ApprovalPanel(widgets.VBox):
    """Buttons for one permission ask; ``await panel.wait()`` gives the user's choice."""

    def __init__(self, ask: PermissionAsk, loop: asyncio.AbstractEventLoop | None = None, root: Any = None) -> None:
        self.ask = ask
        self.pending: PendingAnswer[ApprovalChoice] = PendingAnswer(loop)
        # a question may span lines (the cells a NotebookExecute would run): keep them
        self.message = widgets.HTML(
            f'<div style="white-space:pre-wrap;line-height:1.4"><b>{render.escape(ask.message)}</b></div>'
            if ask.message else "")
        self.approve = widgets.Button(description="Approve", button_style="success", icon="check")
        self.deny = widgets.Button(description="Deny", button_style="danger", icon="times")
        self.update = ask.suggestions[0] if ask.suggestions else None
        buttons: list[widgets.Widget] = [self.approve]
        self.always: widgets.Button | None = None
        if self.update is not None:
            where = _DESTINATION_FILES.get(self.update.destination, self.update.destination)
            self.always = widgets.Button(
                description=button_label(self.update, root),
                tooltip=f"Save the rule {rule_label(self.update)} to {where} and run",
                layout=widgets.Layout(width="auto"),
            )
            buttons.append(self.always)
        buttons.append(self.deny)
        self.feedback = widgets.Textarea(
            placeholder=FEEDBACK_PLACEHOLDER, rows=2, layout=widgets.Layout(width="98%")
        )
        self.status = widgets.HTML()
        self.buttons = widgets.HBox(buttons)
        super().__init__(children=[self.message, self.buttons, self.feedback, self.status])
        self.add_class("jupyter-agent-approval")
        self.approve.on_click(lambda _b: self.pending.answer(Approved()))
        self.deny.on_click(lambda _b: self.pending.answer(Denied(self.feedback.value.strip())))
        if self.always is not None and self.update is not None:
            update = self.update
            self.always.on_click(lambda _b: self.pending.answer(AlwaysAllowed(update)))
        self.pending.on_answer(self._show_choice)

    async def wait(self) -> ApprovalChoice:
        return await self.pending.wait()

    def dismiss(self) -> None:
        """Close the request without an answer (the turn was stopped)."""
        self.pending.answer(Stopped())

    describe = staticmethod(describe_choice)  # the card's audit line (ToolCard.ask_form)

    def _show_choice(self, choice: ApprovalChoice) -> None:
        for button in (self.approve, self.deny, self.always):
            if button is not None:
                button.disabled = True
        self.feedback.disabled = True
        # Answered: the question and the answer stay; the buttons and the empty box go, so a
        # running command's output is not followed by controls that no longer do anything.
        self.buttons.layout.display = "none"
        self.feedback.layout.display = "none"
        colour = render.ERROR_FG if isinstance(choice, Denied | Stopped) else "#1a7f37"
        self.status.value = f'<span style="color:{colour}">{render.escape(describe_choice(choice))}</span>'
