"""Model facts, thinking parameters and prices (table-driven)."""

from __future__ import annotations

import pytest

from jupyter_agent.agent.events import Usage
from jupyter_agent.agent.models import model_info, thinking_param
from jupyter_agent.agent.pricing import ModelPrice, cost_usd, price_for


@pytest.mark.parametrize(
    ("model", "window", "style"),
    [
        ("claude-sonnet-5-5", 1_000_000, "adaptive"),
        ("claude-opus-4-7", 200_000, "adaptive"),
        ("claude-sonnet-4-5-20250929", 200_000, "manual"),
        ("us.anthropic.claude-sonnet-5-5-v1:0", 1_000_000, "adaptive"),
        ("claude-sonnet-5-5@20260928", 1_000_000, "adaptive"),
        ("some-unknown-model", 200_000, "manual"),
    ],
)
def test_model_info(model, window, style):
    info = model_info(model)
    assert (info.context_window, info.thinking) == (window, style)


@pytest.mark.parametrize(
    ("model", "budget", "expected"),
    [
        ("claude-sonnet-5-5", None, {"type": "adaptive", "display": "summarized"}),
        ("claude-sonnet-5-5", 4096, {"type": "adaptive", "display": "summarized"}),
        ("claude-sonnet-4-6", 4096, {"type": "enabled", "budget_tokens": 4096}),
        ("claude-sonnet-4-6", None, None),
    ],
)
def test_thinking_param(model, budget, expected):
    assert thinking_param(model, budget) == expected


@pytest.mark.parametrize(
    ("model", "input", "output"),
    [
        ("claude-sonnet-5-5", 2.0, 10.0),
        ("claude-opus-5-5", 4.0, 20.0),
        ("claude-opus-5", 5.0, 25.0),
        ("claude-opus-4-1-20250805", 15.0, 75.0),
        ("claude-opus-4-5", 5.0, 25.0),
        ("claude-sonnet-4-5-20250929", 3.0, 15.0),
        ("claude-haiku-4-5", 1.0, 5.0),
    ],
)
def test_prices(model, input, output):
    price = price_for(model)
    assert (price.input, price.output) == (input, output)
    assert price.cache_read == pytest.approx(input / 10)
    assert price.cache_write == pytest.approx(input * 1.25)


def test_cost_of_usage_and_overrides():
    usage = Usage(1_000_000, 1_000_000, 1_000_000, 1_000_000)
    assert cost_usd(usage, "claude-sonnet-5-5") == pytest.approx(2 + 10 + 0.2 + 2.5)
    assert cost_usd(usage, "mystery-model") == 0.0
    custom = {"mystery-model": ModelPrice(1, 1, 1, 1)}
    assert cost_usd(usage, "mystery-model", custom) == pytest.approx(4.0)
