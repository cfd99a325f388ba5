"""``@`` mentions in a prompt: ``%agent explain @src/app.py`` sends the file along.

As in Claude Code, ``@path`` (or ``@"a path with spaces"``) names a file or folder, relative to
the session's current folder, absolute, or ``~/…``; ``@server:scheme://…`` names a resource of a
connected MCP server.  Each is read when the turn starts — a file by the real ``Read`` tool (so
notebooks, images and PDFs come as ``Read`` gives them, its size limits hold, and the file then
counts as read: the agent may edit it without reading it again), a folder as its listing, a
resource by ``ReadMcpResourceTool`` — and goes along with the prompt.

The user typed the mention, so reading it is not asked about (a file outside the working folders
too); deny rules still hold — a denied file is not attached, and the prompt says so.  A word that
names nothing (``@dataclass``, ``@ada``, an e-mail address) stays plain text.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.orchestration import ToolUseRequest, run_tool_use
from ..core.permission_types import PermissionAllow, UserDecision

if TYPE_CHECKING:
    from .session import AgentSession

MAX_MENTIONS = 10
MAX_LISTING = 200  # entries of a mentioned folder
_MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"\n]+)"|([^\s"]+))')
_TRAILING = ".,;:!?)]}'"
_RESOURCE = re.compile(r"^([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*://\S+)$")


def find_mentions(text: str) -> list[str]:
    """The mentioned names, in order, each once (a sentence's final ``.`` or ``,`` is not part
    of an unquoted one)."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        quoted, bare = match.groups()
        name = quoted if quoted is not None else bare.rstrip(_TRAILING)
        if name and name not in found:
            found.append(name)
    return found


async def _user_mentioned(tool: Any, input: Any, context: Any, ask: Any, tool_use_id: str) -> UserDecision:
    """The approver of a mention: the user asked for this file by naming it."""
    return PermissionAllow(reason="mentioned by the user")


async def attach_mentions(session: AgentSession, typed: str) -> list[dict[str, Any]]:
    """Blocks to send after the prompt: what each mention names, read now."""
    blocks: list[dict[str, Any]] = []
    names = find_mentions(typed)
    if any(_RESOURCE.match(n) for n in names):  # the servers start (as for a request) to be read from
        session.context = await session.tool_pool.ensure(session.context, session.emit)
    for name in names[:MAX_MENTIONS]:
        blocks.extend(await _attach(session, name))
    if len(names) > MAX_MENTIONS:
        blocks.append(_note(f"Only the first {MAX_MENTIONS} @ mentions were attached; read the others if needed."))
    return blocks


async def _attach(session: AgentSession, name: str) -> list[dict[str, Any]]:
    resource = _RESOURCE.match(name)
    mcp = getattr(session.tool_pool, "mcp", None)
    if resource and mcp is not None and resource.group(1) in mcp.connections:
        server, uri = resource.groups()
        return await _read(session, name, "ReadMcpResourceTool", {"server": server, "uri": uri})
    path = _resolve(session, name)
    if path is None:
        return []  # names nothing: plain text
    if path.is_dir():
        from ..permissions.filesystem import read_denied

        if read_denied(str(path), session.context):
            return [_note(f"The user mentioned the folder @{name}; it was not listed: a deny rule covers it.")]
        listing = _listing(path, lambda entry: read_denied(entry, session.context))
        return [_note(f"The user mentioned the folder @{name} ({path}). Its entries:\n{listing}")]
    return await _read(session, name, "Read", {"file_path": str(path)})


def _resolve(session: AgentSession, name: str) -> Path | None:
    from ..tools.shell.state import shell_state

    if "\x00" in name:
        return None
    here = Path(shell_state(session.context).cwd)
    path = Path(os.path.expanduser(name))
    path = path if path.is_absolute() else here / path
    try:
        return path if path.exists() else None
    except OSError:
        return None


async def _read(session: AgentSession, name: str, tool: str, input: dict[str, Any]) -> list[dict[str, Any]]:
    if session.context.find_tool(tool) is None:
        return [_note(f"The user mentioned @{name}, but the {tool} tool is not available in this session to read it.")]
    request = ToolUseRequest(f"mention_{uuid.uuid4().hex[:12]}", tool, input)
    outcome = await run_tool_use(request, session.context, _user_mentioned, on_event=session.emit)
    if outcome.is_error:
        return [_note(f"The user mentioned @{name}; it could not be attached: {outcome.text}")]
    head = _note(f"The user mentioned @{name}: {tool} was called with {json.dumps(input, ensure_ascii=False)} "
                 "and returned:")
    return [head, *(dict(b) for b in outcome.content)]


def _listing(path: Path, denied: Callable[[str], bool]) -> str:
    """The folder's entries (folders with a ``/``), without those a deny rule covers."""
    try:
        entries = sorted((e for e in os.scandir(path) if not denied(e.path)), key=lambda e: e.name)
    except OSError as exc:
        return f"(cannot list it: {exc})"
    lines = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries[:MAX_LISTING]]
    if len(entries) > MAX_LISTING:
        lines.append(f"… and {len(entries) - MAX_LISTING} more")
    return "\n".join(lines) or "(empty)"


def _note(text: str) -> dict[str, Any]:
    return {"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}
