"""Demo mode: a scripted conversation for the quickstart when no ANTHROPIC_API_KEY is set.

    url, server = start_demo_server()
    %agent --base-url {url} ...            # or SessionConfig(base_url=url, api_key="demo")

Every prompt gets the same short, real agent turn, using only the tools the request offers:
read the notebook (or a file), ask to run a Bash command (an approval card), add a markdown
cell to the notebook right below the ``%agent`` cell that asked (or write a notes file), then
answer using what the tools returned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from .script import Reply, reply, text, tool_use
from .server import ScriptedServer

DEMO_API_KEY = "demo-no-key-needed"
_STREAM = {"chunk_chars": 6, "delay_s": 0.005}

Step = Callable[[dict[str, Any]], Reply | None]


def _env_value(body: dict[str, Any], label: str) -> str | None:
    system = body.get("system")
    text_ = system if isinstance(system, str) else "\n".join(b.get("text", "") for b in system or [])
    match = re.search(rf"^{re.escape(label)}: (.+)$", text_, re.MULTILINE)
    value = match.group(1).strip() if match else None
    return None if not value or value.startswith("(") else value


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {t.get("name", "") for t in body.get("tools") or []}


def _read_step(body: dict[str, Any]) -> Reply | None:
    target = _env_value(body, "Notebook")
    if "Read" not in _tool_names(body) or target is None:
        return None
    return reply(text("Let me look at the notebook first."), tool_use("Read", {"file_path": target}), **_STREAM)


def _bash_step(body: dict[str, Any]) -> Reply | None:
    if "Bash" not in _tool_names(body):
        return None
    call = tool_use("Bash", {"command": "pip list", "description": "List the packages installed here"})
    return reply(text("Now I'll check which packages this kernel's environment has."), call, **_STREAM)


# the line the magics put in a prompt's <system-reminder> (magics/cell_context.py)
_ASKING_CELL = re.compile(r"^This request was typed in the %agent cell with id (\S+?)(?: \(execution count \d+\))?\.$",
                          re.MULTILINE)


def _asking_cell(body: dict[str, Any]) -> str | None:
    """The id of the ``%agent`` cell the current prompt was typed in, when the prompt says."""
    first = _current_turn(body)[:1]
    content = first[0].get("content") if first else None
    texts = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content or [])
    match = _ASKING_CELL.search(texts)
    return match.group(1) if match else None


def _edit_step(body: dict[str, Any]) -> Reply | None:
    names = _tool_names(body)
    notebook = _env_value(body, "Notebook")
    note = "## Notes from the agent\n\nThis cell was added by the jupyter-agent demo (scripted model)."
    if notebook and "NotebookEdit" in names and "Read" in names:
        args = {"notebook_path": notebook, "new_source": note, "cell_type": "markdown", "edit_mode": "insert"}
        below = _asking_cell(body)
        if below is not None:  # inserted after that cell; without an id, at the top
            args["cell_id"] = below
        where = "right below your %agent cell" if below else "at the top of the notebook"
        return reply(text(f"I'll add a short markdown cell {where}."), tool_use("NotebookEdit", args), **_STREAM)
    cwd = _env_value(body, "Working directory")
    if cwd and "Write" in names:
        path = str(PurePath(cwd) / "agent_demo_notes.md")
        return reply(text("I'll write a short notes file."), tool_use("Write", {"file_path": path, "content": note + "\n"}), **_STREAM)
    return None


STEPS: tuple[Step, ...] = (_read_step, _bash_step, _edit_step)


def _current_turn(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages") or []
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content")
        blocks = [{"type": "text"}] if isinstance(content, str) else content or []
        if messages[i].get("role") == "user" and any(b.get("type") != "tool_result" for b in blocks):
            return messages[i:]
    return messages


def _results(turn: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    out = []
    for message in turn:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                texts = inner if isinstance(inner, str) else " ".join(b.get("text", "") for b in inner or [])
                out.append((texts.strip(), bool(block.get("is_error"))))
    return out


def _final(turn: list[dict[str, Any]]) -> Reply:
    lines = ["Here is what happened in this demo turn:"]
    for result, is_error in _results(turn):
        first = result.splitlines()[0][:160] if result else "(no output)"
        lines.append(f"- {'a call was refused or failed: ' if is_error else ''}{first}")
    if len(lines) == 1:
        lines.append("- no tools were available, so I only answered.")
    lines.append(
        "\nThis is the scripted demo model. Set `ANTHROPIC_API_KEY` and start a new session "
        "to talk to Claude."
    )
    return reply("\n".join(lines), **_STREAM)


def demo_responder(body: dict[str, Any]) -> Reply:
    """The next reply for this request, from where the current turn stands."""
    turn = _current_turn(body)
    done = sum(1 for m in turn if m.get("role") == "assistant")
    plan = [r for r in (step(body) for step in STEPS) if r is not None]
    return plan[done] if done < len(plan) else _final(turn)


def start_demo_server() -> tuple[str, ScriptedServer]:
    """Start a scripted server that plays the demo for every prompt; returns (base_url, server)."""
    server = ScriptedServer()
    server.set_fallback(demo_responder)
    server.start()
    return server.url, server


__all__ = ["DEMO_API_KEY", "demo_responder", "start_demo_server"]
