"""Checks that a message list is one the Messages API accepts (roles, tool_use ↔ tool_result)."""

from __future__ import annotations

from typing import Any


def blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    assert messages, "empty history"
    assert messages[0]["role"] == "user", "history must start with a user message"
    for prev, cur in zip(messages, messages[1:], strict=False):
        assert prev["role"] != cur["role"], f"two {cur['role']} messages in a row"
    for i, message in enumerate(messages):
        assert blocks(message), f"message {i} is empty"
        if message["role"] != "assistant":
            continue
        uses = [b["id"] for b in blocks(message) if b["type"] == "tool_use"]
        if not uses:
            continue
        assert i + 1 < len(messages), f"tool_use {uses} at the end of history without results"
        following = blocks(messages[i + 1])
        results = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
        assert results == uses, f"tool results {results} do not answer tool uses {uses} in order"
        leading = [b["type"] for b in following[: len(results)]]
        assert leading == ["tool_result"] * len(results), "tool_results must open the user message"


def tool_results(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in blocks(message) if b["type"] == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
