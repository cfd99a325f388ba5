"""Agent definitions: the built-in types and custom agents from ``.claude/agents/*.md``.

A custom agent is a Markdown file whose front matter names it; the body is its system prompt::

    ---
    name: test-runner
    description: Runs the tests and reports failures. Use after changing code.
    tools: Read, Grep, Glob, Bash      # optional; default: every tool the parent has
    model: haiku                       # optional; sonnet | opus | haiku | inherit | a model id
    ---
    You run the project's tests ...

Project agents (``<project>/.claude/agents``) override user agents (``~/.claude/agents``),
which override built-ins of the same name.  Files that do not parse are reported, not fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

AgentSource = Literal["built-in", "user", "project"]
GENERAL_PURPOSE = "general-purpose"

# Tools no subagent gets: they talk to the user, steer the session, or spawn more agents.
NEVER_FOR_SUBAGENTS = frozenset(
    {
        "Agent",
        "AskUserQuestion",
        "EnterPlanMode",
        "ExitPlanMode",
        "EnterWorktree",
        "ExitWorktree",
        "TeamCreate",
        "TeamDelete",
        "CronCreate",
        "CronDelete",
    }
)

# Tools that cannot change anything: an agent limited to these is read-only (enforced).
READ_ONLY_TOOL_NAMES = frozenset(
    {"Read", "Glob", "Grep", "WebFetch", "WebSearch", "TaskGet", "TaskList", "NotebookRead",
     "ListMcpResourcesTool", "ReadMcpResourceTool", "ToolSearch"}
)

MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None  # None: every tool the parent has
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None  # None / "inherit": the parent's model
    read_only: bool = False  # every call must be read-only (enforced, not just asked for)
    source: AgentSource = "built-in"
    path: Path | None = None


@dataclass
class AgentCatalog:
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentDefinition | None:
        return self.agents.get(name)

    def describe(self) -> str:
        """One line per agent, for the Agent tool's prompt."""
        lines = []
        for agent in self.agents.values():
            tools = ", ".join(agent.tools) if agent.tools is not None else "all tools"
            lines.append(f"- {agent.name}: {agent.description} (Tools: {tools})")
        return "\n".join(lines)


_REPORT = (
    "When you are done, reply with a concise report of what you found or did: it is all the "
    "caller sees. Give absolute file paths and relevant snippets; do not ask questions."
)

BUILT_IN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        GENERAL_PURPOSE,
        "General-purpose agent for researching complex questions, searching for code, and "
        "executing multi-step tasks.",
        "You are an agent working for a coding assistant inside a Jupyter kernel. Complete the "
        "task you are given fully, using the tools available. " + _REPORT,
    ),
    AgentDefinition(
        "Explore",
        "Fast read-only agent for exploring codebases: find files by pattern, search code for "
        "keywords, answer questions about the code.",
        "You are a read-only code exploration agent. Search and read to answer the question; "
        "you cannot change files or run anything that writes. " + _REPORT,
        tools=("Read", "Glob", "Grep", "Bash", "NotebookRead", "WebFetch", "WebSearch", "TaskGet", "TaskList"),
        read_only=True,
    ),
    AgentDefinition(
        "Plan",
        "Read-only software architect agent for designing implementation plans: explores the "
        "code and returns a step-by-step plan with the files to change.",
        "You are a software architect. Explore the code read-only and design an implementation "
        "plan: numbered steps, files to change, risks, how to verify. You cannot change files. "
        + _REPORT,
        tools=("Read", "Glob", "Grep", "Bash", "NotebookRead", "WebFetch", "WebSearch", "TaskGet", "TaskList"),
        read_only=True,
    ),
)


def parse_agent_file(text: str, path: Path, source: AgentSource) -> AgentDefinition:
    """The definition in one agent file; raises ValueError naming what is wrong."""
    if not text.startswith("---"):
        raise ValueError("missing front matter (the file must start with '---')")
    _, sep, rest = text.partition("\n")
    header, found, body = rest.partition("\n---")
    if not sep or not found:
        raise ValueError("front matter is not closed with '---'")
    meta = yaml.safe_load(header) or {}
    if not isinstance(meta, dict):
        raise ValueError("front matter must be a mapping of keys to values")
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("front matter needs a 'name'")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("front matter needs a 'description'")
    prompt = body.partition("\n")[2].strip()
    if not prompt:
        raise ValueError("the agent's system prompt (the body after the front matter) is empty")
    model = meta.get("model")
    tools = _tool_list(meta.get("tools"))
    return AgentDefinition(
        name=name.strip(),
        description=" ".join(description.split()),
        prompt=prompt,
        tools=tools,
        disallowed_tools=_tool_list(meta.get("disallowedTools")) or (),
        model=None if model in (None, "inherit") else MODEL_ALIASES.get(str(model), str(model)),
        read_only=tools is not None and set(tools) <= READ_ONLY_TOOL_NAMES,
        source=source,
        path=path,
    )


def _tool_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        items = [v.strip() for v in value.split(",")]
    elif isinstance(value, list):
        items = [str(v).strip() for v in value]
    else:
        raise ValueError("'tools' must be a comma-separated string or a list")
    names = tuple(v for v in items if v)
    return None if names in ((), ("*",)) else names


def load_agents(project_dir: Path | None, home: Path | None = None) -> AgentCatalog:
    """Built-ins, then user agents, then project agents (later ones win by name)."""
    catalog = AgentCatalog({a.name: a for a in BUILT_IN_AGENTS})
    home = home if home is not None else Path.home()
    folders: list[tuple[Path, AgentSource]] = [(home / ".claude" / "agents", "user")]
    if project_dir is not None:
        folders.append((Path(project_dir) / ".claude" / "agents", "project"))
    for folder, source in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                agent = parse_agent_file(path.read_text(encoding="utf-8"), path, source)
            except (OSError, ValueError, yaml.YAMLError) as exc:
                catalog.errors.append(f"{path}: {exc}")
                continue
            builtin = catalog.agents.get(agent.name)
            if builtin is not None and builtin.read_only:
                # Explore and Plan are trusted to be read-only (plan mode, parallel runs).
                catalog.errors.append(f"{path}: the name {agent.name!r} is reserved for a built-in agent")
                continue
            catalog.agents[agent.name] = agent
    return catalog
