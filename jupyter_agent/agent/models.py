"""What we know about Claude models: context window, output limit, how thinking is requested.

Facts from Anthropic's model pages (Nov 2026): Claude Sonnet 5.5 (``claude-sonnet-5-5``) is the
current Sonnet, with a 1M-token window and adaptive thinking only (manual ``budget_tokens``
thinking is a 400 on Opus 4.7 and later, and on the 5-series).  Unknown models get conservative
defaults (200K window, manual thinking).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

CURRENT_SONNET = "claude-sonnet-5-5"

ThinkingStyle = Literal["manual", "adaptive"]


@dataclass(frozen=True)
class ModelInfo:
    context_window: int = 200_000
    max_output_tokens: int = 64_000
    thinking: ThinkingStyle = "manual"


_ADAPTIVE_1M = ModelInfo(1_000_000, 128_000, "adaptive")
_ADAPTIVE_200K = ModelInfo(200_000, 128_000, "adaptive")

# Prefix → facts; the longest matching prefix wins.
_MODELS: dict[str, ModelInfo] = {
    "claude-sonnet-5": _ADAPTIVE_1M,
    "claude-opus-5": _ADAPTIVE_1M,
    "claude-fable-5": _ADAPTIVE_1M,
    "claude-mythos": _ADAPTIVE_1M,
    "claude-haiku-5": _ADAPTIVE_200K,
    "claude-opus-4-7": _ADAPTIVE_200K,
    "claude-opus-4-8": _ADAPTIVE_200K,
    "claude-opus-4": ModelInfo(200_000, 32_000),
    "claude-sonnet-4": ModelInfo(200_000, 64_000),
    "claude-haiku-4": ModelInfo(200_000, 64_000),
    "claude-3-7-sonnet": ModelInfo(200_000, 64_000),
    "claude-3": ModelInfo(200_000, 8_192),
}


def normalize_model(model: str) -> str:
    """Bedrock / Vertex ids (``us.anthropic.claude-...-v1:0``, ``claude-...@2025...``) → API ids."""
    name = model.rsplit("/", 1)[-1]
    for prefix in ("us.", "eu.", "apac.", "global."):
        name = name.removeprefix(prefix)
    return name.removeprefix("anthropic.").split("@", 1)[0]


def model_info(model: str) -> ModelInfo:
    name = normalize_model(model)
    for prefix in sorted(_MODELS, key=len, reverse=True):
        if name.startswith(prefix):
            return _MODELS[prefix]
    return ModelInfo()


def thinking_param(model: str, budget: int | None) -> dict[str, Any] | None:
    """The request's ``thinking`` field.

    Adaptive models always get ``adaptive`` with a summarized display: their text between tool
    calls arrives as thinking, and the default display (omitted) would leave the user staring
    at silence.  Manual models think only when a budget is configured.
    """
    if model_info(model).thinking == "adaptive":
        return {"type": "adaptive", "display": "summarized"}
    if budget:
        return {"type": "enabled", "budget_tokens": budget}
    return None
