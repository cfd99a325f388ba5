"""Finding skills and custom commands on disk, in Claude Code's layout.

- Skills: ``<root>/.claude/skills/<name>/SKILL.md`` (front matter ``name``, ``description``).
- Commands: ``<root>/.claude/commands/**/*.md``; ``frontend/component.md`` is ``frontend:component``.

Roots: the user's home (``~/.claude``) first, then the project; the project wins on a name clash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .command import CommandSource, PromptCommand
from .frontmatter import MarkdownDoc, meta_list, meta_text, parse_markdown

_NAME = re.compile(r"^[a-z0-9][a-z0-9_:.-]*$", re.IGNORECASE)
MAX_SKILL_FILE_BYTES = 1_000_000


@dataclass
class Discovery:
    """What was found, plus a line per file that was skipped and why."""

    commands: dict[str, PromptCommand] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _read(path: Path, found: Discovery) -> str | None:
    try:
        if path.stat().st_size > MAX_SKILL_FILE_BYTES:
            found.errors.append(f"{path}: larger than {MAX_SKILL_FILE_BYTES:,} bytes, skipped")
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        found.errors.append(f"{path}: cannot read ({exc})")
        return None


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:200]
    return ""


def _parse(md: Path, found: Discovery) -> MarkdownDoc | None:
    """The file's front matter and body (a front-matter problem is noted, the body still used)."""
    text = _read(md, found)
    if text is None:
        return None
    doc = parse_markdown(text)
    if doc.error:
        found.errors.append(f"{md}: {doc.error}")
    return doc


def _options(meta: dict[str, Any]) -> dict[str, Any]:
    """The front-matter fields skills and commands share."""
    return {
        "argument_hint": meta_text(meta, "argument-hint", "argument_hint"),
        "allowed_tools": meta_list(meta, "allowed-tools"),
        "model": meta_text(meta, "model"),
        "disable_model_invocation": meta.get("disable-model-invocation") is True,
    }


def load_skill(skill_md: Path, source: CommandSource, found: Discovery) -> PromptCommand | None:
    doc = _parse(skill_md, found)
    if doc is None:
        return None
    name = meta_text(doc.meta, "name") or skill_md.parent.name
    if not _NAME.match(name):
        found.errors.append(f"{skill_md}: invalid skill name {name!r}")
        return None
    description = meta_text(doc.meta, "description") or _first_line(doc.body)
    if not description:
        found.errors.append(f"{skill_md}: a skill needs a description (front matter `description`)")
        return None
    return PromptCommand(
        name=name,
        description=description,
        body=doc.body,
        kind="skill",
        source=source,
        path=skill_md,
        when_to_use=meta_text(doc.meta, "when_to_use", "when-to-use"),
        **_options(doc.meta),
    )


def load_command(md: Path, root: Path, source: CommandSource, found: Discovery) -> PromptCommand | None:
    doc = _parse(md, found)
    if doc is None:
        return None
    name = ":".join(md.relative_to(root).with_suffix("").parts)
    if not _NAME.match(name):
        found.errors.append(f"{md}: invalid command name {name!r}")
        return None
    return PromptCommand(
        name=name,
        description=meta_text(doc.meta, "description") or _first_line(doc.body) or name,
        body=doc.body,
        kind="command",
        source=source,
        path=md,
        **_options(doc.meta),
    )


def _scan(claude_dir: Path, source: CommandSource, found: Discovery) -> None:
    skills_dir = claude_dir / "skills"
    if skills_dir.is_dir():
        for skill_md in sorted(skills_dir.glob("*/SKILL.md")):
            if skill := load_skill(skill_md, source, found):
                found.commands[skill.name] = skill
    commands_dir = claude_dir / "commands"
    if commands_dir.is_dir():
        for md in sorted(commands_dir.rglob("*.md")):
            if md.is_file() and (command := load_command(md, commands_dir, source, found)):
                found.commands[command.name] = command


def discover_commands(project_dir: Path | None, *, home: Path | None = None) -> Discovery:
    """Skills and commands from ``~/.claude`` then ``<project>/.claude`` (the project wins)."""
    found = Discovery()
    user_root = (home if home is not None else Path.home()) / ".claude"
    _scan(user_root, "user", found)
    if project_dir is not None:
        project_root = project_dir / ".claude"
        if project_root.resolve() != user_root.resolve():
            _scan(project_root, "project", found)
    return found


def load_commands(project_dir: Path | None, *, home: Path | None = None) -> tuple[PromptCommand, ...]:
    """The commands tuple for ``ToolUseOptions.commands`` (skills and custom commands)."""
    return tuple(discover_commands(project_dir, home=home).commands.values())
