"""Pure helpers on the message list: keep it valid for the API (roles, tool_use ↔ tool_result)."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
INTERRUPT_TEXT = "[Request interrupted by user]"
INTERRUPTED_TOOL = "Interrupted by user: the tool call was not run."


def content_blocks(message: Message) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def append_user_blocks(messages: list[Message], blocks: list[dict[str, Any]]) -> None:
    """Add ``blocks`` as user content: merged into a trailing user message, else a new one."""
    if not blocks:
        return
    if messages and messages[-1].get("role") == "user":
        messages[-1] = {"role": "user", "content": content_blocks(messages[-1]) + list(blocks)}
    else:
        messages.append({"role": "user", "content": list(blocks)})


def split_reminder(prompt: str) -> tuple[str, str]:
    """(the ``<system-reminder>`` the magic put in front of a prompt, what the user typed)."""
    end = "</system-reminder>"
    if prompt.startswith("<system-reminder>") and end in prompt:
        cut = prompt.index(end) + len(end)
        return prompt[:cut], prompt[cut:].strip()
    return "", prompt.strip()


def truncate_messages(messages: list[Message], count: int, tail_blocks: int | None = None) -> None:
    """Keep the first ``count`` messages; with ``tail_blocks``, the last of them (a user message)
    keeps only its first ``tail_blocks`` blocks: what a later prompt merged into it goes too."""
    del messages[max(0, count):]
    if tail_blocks is not None and messages and messages[-1].get("role") == "user":
        blocks = content_blocks(messages[-1])
        if 0 < tail_blocks < len(blocks):
            messages[-1] = {"role": "user", "content": blocks[:tail_blocks]}


def answered_tool_ids(message: Message) -> set[str]:
    return {b["tool_use_id"] for b in content_blocks(message) if b.get("type") == "tool_result"}


def dangling_tool_uses(messages: list[Message]) -> list[str]:
    """tool_use ids of the last assistant message that have no tool_result after them."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") != "assistant":
            continue
        ids = [b["id"] for b in content_blocks(messages[i]) if b.get("type") == "tool_use"]
        answered: set[str] = set()
        for later in messages[i + 1 :]:
            answered |= answered_tool_ids(later)
        return [t for t in ids if t not in answered]
    return []


def close_dangling_tool_uses(messages: list[Message], text: str = INTERRUPTED_TOOL) -> int:
    """Give every unanswered tool_use an error tool_result; returns how many were added."""
    missing = dangling_tool_uses(messages)
    results = [
        {"type": "tool_result", "tool_use_id": t, "content": [{"type": "text", "text": text}], "is_error": True}
        for t in missing
    ]
    if results and messages[-1].get("role") == "user":
        # tool_results must open the user message that follows the tool_use
        messages[-1] = {"role": "user", "content": results + content_blocks(messages[-1])}
    elif results:
        messages.append({"role": "user", "content": results})
    return len(results)


def starts_turn(message: Message) -> bool:
    """A user message carrying something other than tool results (a prompt)."""
    if message.get("role") != "user":
        return False
    return any(b.get("type") != "tool_result" for b in content_blocks(message))


def split_turns(messages: list[Message]) -> list[list[Message]]:
    """The conversation cut at each prompt; the first turn starts at the first message."""
    turns: list[list[Message]] = []
    for message in messages:
        if not turns or starts_turn(message):
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def message_text(message: Message) -> str:
    return "\n".join(b.get("text", "") for b in content_blocks(message) if b.get("type") == "text")


THINKING_TYPES = ("thinking", "redacted_thinking")


def strip_thinking(messages: list[Message]) -> int:
    """Drop thinking blocks (they are bound to the model that wrote them); returns how many."""
    dropped = 0
    for i, message in enumerate(messages):
        if message.get("role") != "assistant" or isinstance(message.get("content"), str):
            continue
        kept = [b for b in message["content"] if b.get("type") not in THINKING_TYPES]
        if len(kept) == len(message["content"]):
            continue
        dropped += len(message["content"]) - len(kept)
        messages[i] = {**message, "content": kept or [{"type": "text", "text": "(thought silently)"}]}
    return dropped
