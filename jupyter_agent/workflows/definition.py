"""Workflow files: YAML (``.yaml``/``.yml``) or Markdown with YAML front matter (``.md``).

::

    description: Lint, test, then summarize
    inputs:
      path: {description: What to test, default: tests}
    steps:
      - id: test
        tool: Bash
        input: {command: "pytest -q {{ inputs.path }}"}
      - id: summary
        agent: general-purpose          # or omit `agent` for a plain prompt step
        prompt: "Summarize: {{ steps.test.output }}"

In a ``.md`` file the same keys go in the front matter; the body is the description if the
front matter has none.  Later folders win by name: ``~/.claude/workflows`` then the project's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ..skills.frontmatter import parse_markdown

StepKind = Literal["tool", "agent"]
SUFFIXES = (".md", ".yaml", ".yml")
DEFAULT_AGENT = "general-purpose"
NAME_RE = re.compile(r"^[A-Za-z0-9][\w.-]*$")


class WorkflowError(ValueError):
    """A workflow file that cannot be used; the message says why and where."""


@dataclass(frozen=True)
class Step:
    id: str
    kind: StepKind
    title: str
    tool: str | None = None
    input: dict[str, Any] = field(default_factory=dict)
    agent: str = DEFAULT_AGENT
    prompt: str = ""


@dataclass(frozen=True)
class InputSpec:
    name: str
    description: str = ""
    default: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Workflow:
    name: str
    description: str
    inputs: tuple[InputSpec, ...]
    steps: tuple[Step, ...]
    path: Path


def _inputs(raw: Any) -> tuple[InputSpec, ...]:
    if raw is None:
        return ()
    if isinstance(raw, list):
        return tuple(InputSpec(str(n)) for n in raw)
    if not isinstance(raw, dict):
        raise WorkflowError("`inputs` must be a list of names or a mapping of name → {description, default}")
    out = []
    for name, spec in raw.items():
        spec = spec if isinstance(spec, dict) else {"description": str(spec or "")}
        default = spec.get("default")
        out.append(InputSpec(str(name), str(spec.get("description", "")), None if default is None else str(default)))
    return tuple(out)


def _step(raw: Any, index: int) -> Step:
    if not isinstance(raw, dict):
        raise WorkflowError(f"step {index + 1} is not a mapping")
    step_id = str(raw.get("id") or f"step{index + 1}")
    title = str(raw.get("name") or raw.get("description") or step_id)
    if raw.get("tool"):
        if "prompt" in raw or "agent" in raw:
            raise WorkflowError(f"step {step_id!r}: a tool step has no prompt/agent")
        inp = raw.get("input") or {}
        if not isinstance(inp, dict):
            raise WorkflowError(f"step {step_id!r}: `input` must be a mapping")
        return Step(step_id, "tool", title, tool=str(raw["tool"]), input=inp)
    if not isinstance(raw.get("prompt"), str) or not raw["prompt"].strip():
        raise WorkflowError(f"step {step_id!r}: needs `tool` (+ `input`) or `prompt` (+ optional `agent`)")
    return Step(step_id, "agent", title, agent=str(raw.get("agent") or DEFAULT_AGENT), prompt=raw["prompt"])


def parse_workflow(text: str, path: Path) -> Workflow:
    if path.suffix == ".md":
        doc = parse_markdown(text)
        if doc.error:
            raise WorkflowError(f"{path}: {doc.error}")
        meta, body = doc.meta, doc.body
    else:
        try:
            meta = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise WorkflowError(f"{path}: invalid YAML: {exc}") from exc
        body = ""
        if not isinstance(meta, dict):
            raise WorkflowError(f"{path}: the file is not a mapping")
    steps = meta.get("steps")
    if not isinstance(steps, list) or not steps:
        raise WorkflowError(f"{path}: needs a non-empty `steps` list")
    try:
        parsed = tuple(_step(s, i) for i, s in enumerate(steps))
        inputs = _inputs(meta.get("inputs"))
    except WorkflowError as exc:
        raise WorkflowError(f"{path}: {exc}") from None
    ids = [s.id for s in parsed]
    if len(set(ids)) != len(ids):
        raise WorkflowError(f"{path}: step ids must be unique ({', '.join(ids)})")
    description = str(meta.get("description") or body.split("\n\n")[0] or path.stem).strip()
    return Workflow(str(meta.get("name") or path.stem), description, inputs, parsed, path)


@dataclass
class WorkflowCatalog:
    workflows: dict[str, Workflow] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def load_workflows(project_dir: Path | None, home: Path | None = None) -> WorkflowCatalog:
    catalog = WorkflowCatalog()
    folders = [(home if home is not None else Path.home()) / ".claude" / "workflows"]
    if project_dir is not None:
        folders.append(Path(project_dir) / ".claude" / "workflows")
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file()):
            try:
                wf = parse_workflow(path.read_text(encoding="utf-8"), path)
            except (WorkflowError, OSError, UnicodeDecodeError) as exc:
                catalog.errors.append(str(exc))
                continue
            catalog.workflows[wf.name] = wf
    return catalog
