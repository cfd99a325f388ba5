"""Compaction for ``AgentSession``: summarize older turns when the context window fills up."""

from __future__ import annotations

from typing import Any

from .compact import Compaction, CompactionError, compact, estimate_tokens
from .events import AgentErrorEvent, Compacted


class CompactionMixin:
    """``maybe_compact`` after a request, ``compact_now`` inside a turn, ``compact`` on demand.

    Uses the session's ``config``, ``messages``, ``hooks``, ``log``, ``model_client``,
    ``emit``, ``build_request``, ``context_window``, ``_the_lock`` and ``_last_context_tokens``.
    """

    _last_context_tokens: int
    config: Any
    messages: list[dict[str, Any]]
    hooks: Any
    log: Any
    model_client: Any

    async def maybe_compact(self) -> None:
        """Compact when the last request came near the context window."""
        if self._last_context_tokens < self.config.compact_threshold * self.context_window:
            return
        try:
            await self._compact("auto")
        except CompactionError as err:
            self.emit(AgentErrorEvent(str(err), kind="compaction"))

    async def compact_now(self) -> bool:
        """Compact inside a turn (the model said the context window is exceeded)."""
        try:
            await self._compact("auto")
        except CompactionError as err:
            self.emit(AgentErrorEvent(str(err), kind="compaction"))
            return False
        return True

    async def compact(self) -> Compaction:
        """Summarize older turns now (waits for a running turn to finish)."""
        async with self._the_lock():
            return await self._compact("manual")

    async def _compact(self, trigger: str) -> Compaction:
        await self.hooks.pre_compact(trigger)
        base = await self.build_request()
        before = self._last_context_tokens or estimate_tokens(self.messages, base.system)
        result = await compact(self.model_client, base, self.config.keep_recent_turns, before)
        self.messages[:] = result.messages
        self._last_context_tokens = result.tokens_after
        self.log.write(
            "compaction", summary=result.summary, messages=result.messages,
            tokens_before=result.tokens_before, tokens_after=result.tokens_after,
        )
        self.emit(Compacted(result.tokens_before, result.tokens_after, result.summary))
        await self.hooks.post_compact(trigger, result.summary)
        context = await self.hooks.restart_after_compaction()  # SessionStart, source "compact"
        if context and self.messages:  # what the hooks re-add joins the summary
            self.messages[0]["content"][1:1] = [{"type": "text", "text": text} for text in context]
        return result
