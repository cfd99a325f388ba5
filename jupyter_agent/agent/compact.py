"""Compaction: the model summarizes older turns; recent turns stay verbatim.

The summary request reuses the session's system prompt and tools (so its prefix is read from the
cache) with tool use switched off.  The file-state cache is not touched: what the agent has read
stays known, so edits keep working after a compaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from ..errors import AgentError
from .history import (
    Message,
    append_user_blocks,
    close_dangling_tool_uses,
    content_blocks,
    split_turns,
)
from .model import ModelClient, ModelRequest

COMPACT_INSTRUCTION = """\
Your task is to write a detailed summary of the conversation so far, so that the work can continue \
without it. Do not call any tools. Cover, in order:
1. The user's requests and intents, in full.
2. Key technical concepts, decisions and constraints.
3. Files and notebook cells examined or changed (paths, cell ids) and why; include short code \
snippets where they matter.
4. Errors met and how they were fixed; user feedback, especially corrections.
5. Pending tasks, and exactly what was being worked on last.
6. The next step, if any, quoting the most recent request.
Reply with the summary only."""

SUMMARY_INTRO = (
    "This session is being continued from a previous conversation that was compacted to save "
    "context. The summary below covers the earlier part of the conversation; the most recent "
    "turns follow verbatim.\n\n<summary>\n{summary}\n</summary>"
)


class CompactionError(AgentError):
    """The summary could not be produced; the conversation is left unchanged."""


@dataclass(frozen=True)
class Compaction:
    summary: str
    messages: list[Message]
    summarized_messages: int
    tokens_before: int
    tokens_after: int


def estimate_tokens(messages: list[Message], system: list[dict[str, Any]] | None = None) -> int:
    """About four characters a token over the JSON of the conversation."""
    size = len(json.dumps(messages, ensure_ascii=False, default=str))
    if system:
        size += sum(len(b.get("text", "")) for b in system)
    return size // 4


def plan_split(messages: list[Message], keep_recent_turns: int) -> tuple[list[Message], list[Message]]:
    """(messages to summarize, messages to keep); at least one turn is summarized when possible."""
    turns = split_turns(messages)
    if not turns:
        return [], []
    keep = max(0, min(keep_recent_turns, len(turns) - 1))
    cut = len(turns) - keep
    older = [m for turn in turns[:cut] for m in turn]
    recent = [m for turn in turns[cut:] for m in turn]
    return older, recent


def _drop_orphan_results(first: Message, recent: list[Message]) -> list[dict[str, Any]]:
    """tool_results whose tool_use was summarized away would make the request invalid."""
    known = {b["id"] for m in recent for b in content_blocks(m) if b.get("type") == "tool_use"}
    return [b for b in content_blocks(first) if b.get("type") != "tool_result" or b.get("tool_use_id") in known]


def rebuild(summary: str, recent: list[Message]) -> list[Message]:
    intro = {"type": "text", "text": SUMMARY_INTRO.format(summary=summary)}
    if not recent:
        return [{"role": "user", "content": [intro]}]
    first = _drop_orphan_results(recent[0], recent)
    return [{"role": "user", "content": [intro, *first]}, *recent[1:]]


async def compact(
    model: ModelClient, base: ModelRequest, keep_recent_turns: int, tokens_before: int | None = None
) -> Compaction:
    """Summarize the older turns of ``base.messages``; raises ``CompactionError`` on failure."""
    older, recent = plan_split(base.messages, keep_recent_turns)
    if not older:
        raise CompactionError("Nothing to compact yet: the conversation is empty.")
    to_summarize = [dict(m) for m in older]
    close_dangling_tool_uses(to_summarize)
    append_user_blocks(to_summarize, [{"type": "text", "text": COMPACT_INSTRUCTION}])
    request = replace(base, messages=to_summarize, tool_choice={"type": "none"}, thinking_budget=None)
    try:
        reply = await model.complete(request)
    except Exception as exc:
        raise CompactionError(f"Compaction failed: {exc}") from exc
    summary = reply.text.strip()
    if not summary:
        raise CompactionError("Compaction failed: the model returned an empty summary.")
    new_messages = rebuild(summary, recent)
    before = tokens_before if tokens_before is not None else estimate_tokens(base.messages, base.system)
    after = estimate_tokens(new_messages, base.system)
    return Compaction(summary, new_messages, len(older), before, after)
