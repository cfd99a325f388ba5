"""PromptCommand: a skill (``SKILL.md`` folder) or a custom command (``commands/*.md``)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CommandKind = Literal["skill", "command"]
CommandSource = Literal["project", "user", "session"]
_POSITIONAL = re.compile(r"\$(\d+)")


@dataclass(frozen=True)
class PromptCommand:
    """Instructions that expand into a user message, for the model (Skill) or the user (/name)."""

    name: str
    description: str
    body: str
    kind: CommandKind = "command"
    source: CommandSource = "project"
    path: Path | None = None
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    when_to_use: str | None = None
    disable_model_invocation: bool = False

    @property
    def base_dir(self) -> Path | None:
        """A skill's folder (its optional files live there)."""
        if self.path is None:
            return None
        return self.path.parent

    def render(self, args: str = "") -> str:
        """The body with ``$ARGUMENTS`` and ``$1``… substituted (arguments appended if unused)."""
        args = args.strip()
        text = self.body
        used = "$ARGUMENTS" in text or bool(_POSITIONAL.search(text))
        text = text.replace("$ARGUMENTS", args)
        if _POSITIONAL.search(text):
            try:
                words = shlex.split(args)
            except ValueError:
                words = args.split()
            text = _POSITIONAL.sub(lambda m: _nth(words, int(m.group(1))), text)
        if args and not used:
            text = f"{text}\n\nARGUMENTS: {args}"
        if self.kind == "skill" and self.base_dir is not None:
            text = f"Base directory for this skill: {self.base_dir}\n\n{text}"
        return text

    def listing_line(self) -> str:
        """``- name: description`` (plus when to use it) for the system prompt."""
        extra = f" - {self.when_to_use}" if self.when_to_use else ""
        return f"- {self.name}: {self.description}{extra}"


def _nth(words: list[str], n: int) -> str:
    return words[n - 1] if 1 <= n <= len(words) else ""
