"""The system prompt: who the agent is, how it works in a notebook, its environment, memory."""

from __future__ import annotations

import datetime as _dt
import platform
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

IDENTITY = """\
You are Claude, an AI coding agent running inside a Jupyter kernel (jupyter-agent). The user talks \
to you with the %agent magic from a notebook cell; your replies and tool calls appear in that cell's \
output. You help with data analysis, debugging, refactoring and writing code, in notebooks and files.

How to work:
- Be concise and direct. Use GitHub-flavoured Markdown; it renders in the notebook.
- Read before you change: read a file or notebook before editing it; edits of content you have not \
read are refused.
- Notebook cells are addressed by cell id, never by index. Prefer small, targeted edits of cells \
over rewriting a notebook. The notebook open in JupyterLab is edited live; unsaved edits matter.
- The kernel you run in is the user's kernel: do not restart it, do not run long or destructive \
commands without a clear reason, and never exfiltrate secrets.
- Use the dedicated tools (Read, Edit, Write, Glob, Grep, NotebookEdit) rather than shell \
equivalents; use Bash for running programs, tests and git.
- Independent read-only calls can go in one message: they run in parallel.
- Some tool calls need the user's approval. If the user denies a call, do not retry it unchanged: \
read their feedback and adapt.
- When a task is done, say briefly what changed and how you verified it."""


@dataclass(frozen=True)
class PromptInputs:
    cwd: Path
    project_dir: Path
    notebook_path: str | None
    model: str
    home: Path
    extra: str = ""
    today: _dt.date | None = None


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _packages() -> str:
    names = ("jupyter-agent", "anthropic", "ipykernel", "numpy", "pandas", "matplotlib", "polars", "torch")
    found = [f"{n} {v}" for n in names if (v := _version(n))]
    return ", ".join(found) or "(none detected)"


def _is_git_repo(path: Path) -> bool:
    return any((p / ".git").exists() for p in (path, *path.parents))


def environment_section(inputs: PromptInputs) -> str:
    today = inputs.today or _dt.date.today()
    lines = [
        "<env>",
        f"Working directory: {inputs.cwd}",
        f"Project directory: {inputs.project_dir}",
        f"Is the directory a git repo: {'yes' if _is_git_repo(inputs.cwd) else 'no'}",
        f"Platform: {platform.system().lower()} ({platform.release()})",
        f"Python: {sys.version.split()[0]} ({sys.executable})",
        f"Packages: {_packages()}",
        f"Today's date: {today.isoformat()}",
        f"Notebook: {inputs.notebook_path or '(not known)'}",
        f"Model: {inputs.model}",
        "</env>",
    ]
    return "\n".join(lines)


def memory_files(project_dir: Path, home: Path) -> list[Path]:
    """CLAUDE.md files, broadest first: the user's, then the project's parents down to it, then local."""
    candidates = [home / ".claude" / "CLAUDE.md"]
    for directory in reversed((project_dir, *project_dir.parents)):
        candidates.append(directory / "CLAUDE.md")
        candidates.append(directory / ".claude" / "CLAUDE.md")
    candidates.append(project_dir / "CLAUDE.local.md")
    seen: set[Path] = set()
    out = []
    for path in candidates:
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        out.append(path)
    return out


def memory_section(project_dir: Path, home: Path, max_chars: int = 40_000) -> str:
    """Project memory, each file under a header naming it."""
    parts = []
    for path in memory_files(project_dir, home):
        try:
            body = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if body:
            parts.append(f"Contents of {path}:\n\n{body[:max_chars]}")
    if not parts:
        return ""
    intro = (
        "Codebase and user instructions are shown below. Be sure to adhere to these instructions. "
        "IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them "
        "exactly as written."
    )
    return "<memory>\n" + intro + "\n\n" + "\n\n".join(parts) + "\n</memory>"


def build_system_prompt(inputs: PromptInputs) -> list[dict[str, str]]:
    """The system prompt as text blocks (stable for a session, so it caches)."""
    blocks = [IDENTITY, environment_section(inputs)]
    memory = memory_section(inputs.project_dir, inputs.home)
    if memory:
        blocks.append(memory)
    if inputs.extra.strip():
        blocks.append(inputs.extra.strip())
    return [{"type": "text", "text": text} for text in blocks]
