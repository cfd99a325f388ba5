"""The scripted Anthropic-compatible model server and test helpers (shipped in the package)."""

from .script import (
    Fault,
    RawBlockPart,
    Reply,
    UsageOverride,
    block,
    drop_mid_stream,
    fault_status,
    malformed_stream,
    redacted_thinking,
    reply,
    text,
    thinking,
    tool_use,
    tool_use_raw,
)
from .server import RecordedRequest, ScriptedServer, first_user_text

__all__ = [
    "Fault",
    "RawBlockPart",
    "RecordedRequest",
    "Reply",
    "ScriptedServer",
    "UsageOverride",
    "block",
    "drop_mid_stream",
    "fault_status",
    "first_user_text",
    "malformed_stream",
    "redacted_thinking",
    "reply",
    "text",
    "thinking",
    "tool_use",
    "tool_use_raw",
]
