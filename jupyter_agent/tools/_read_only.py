"""ReadOnlyTool: the base of tools that change nothing (read-only, safe to run alongside others)."""

from __future__ import annotations

from ..core.tool import InputT, OutputT, Tool


class ReadOnlyTool(Tool[InputT, OutputT]):
    """Read-only for every input, so it may run concurrently with other such calls."""

    def is_read_only(self, input: InputT) -> bool:
        return True

    def is_concurrency_safe(self, input: InputT) -> bool:
        return True
