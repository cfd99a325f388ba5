"""Prices per model (USD per million tokens) and the cost of a usage record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .events import Usage
from .models import normalize_model


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float


def _price(input: float, output: float) -> ModelPrice:
    # Anthropic's rule: 5-minute cache writes cost 1.25x input, cache reads 0.1x input.
    return ModelPrice(input, output, input * 1.25, input * 0.1)


# Prefix → price (the longest matching prefix wins).  Anthropic's published list prices.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-sonnet-5": _price(2.0, 10.0),  # Sonnet 5 and 5.5
    "claude-opus-5-5": _price(4.0, 20.0),
    "claude-opus-5": _price(5.0, 25.0),
    "claude-fable-5": _price(10.0, 50.0),
    "claude-opus-4-5": _price(5.0, 25.0),
    "claude-opus-4-6": _price(5.0, 25.0),
    "claude-opus-4-7": _price(5.0, 25.0),
    "claude-opus-4-8": _price(5.0, 25.0),
    "claude-opus-4": _price(15.0, 75.0),  # Opus 4 and 4.1
    "claude-sonnet-4": _price(3.0, 15.0),  # Sonnet 4, 4.5, 4.6
    "claude-haiku-4": _price(1.0, 5.0),
    "claude-3-7-sonnet": _price(3.0, 15.0),
    "claude-3-5-sonnet": _price(3.0, 15.0),
    "claude-3-5-haiku": _price(0.8, 4.0),
    "claude-3-opus": _price(15.0, 75.0),
    "claude-3-haiku": _price(0.25, 1.25),
}


def price_for(model: str, prices: Mapping[str, ModelPrice] | None = None) -> ModelPrice | None:
    """The price of ``model``: overrides first (exact or prefix), then the default table."""
    name = normalize_model(model)
    for table in (prices or {}, DEFAULT_PRICES):
        if model in table:
            return table[model]
        for prefix in sorted(table, key=len, reverse=True):
            if name.startswith(prefix):
                return table[prefix]
    return None


def cost_usd(usage: Usage, model: str, prices: Mapping[str, ModelPrice] | None = None) -> float:
    """The cost of ``usage``; 0.0 for a model with no known price."""
    price = price_for(model, prices)
    if price is None:
        return 0.0
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    ) / 1_000_000
