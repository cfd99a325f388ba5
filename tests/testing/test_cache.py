"""Prompt-cache accounting: reads only for prefixes written before, lookback, minimum size."""

from __future__ import annotations

from jupyter_agent.testing.cache import PromptCache, count_input_tokens

CC = {"type": "ephemeral"}


def body(n_messages: int, *, mark_last: bool = True, system_mark: bool = True, model: str = "m") -> dict:
    system = [{"type": "text", "text": "S" * 4000}]
    if system_mark:
        system[0]["cache_control"] = CC
    messages = []
    for i in range(n_messages):
        role = "user" if i % 2 == 0 else "assistant"
        messages.append({"role": role, "content": [{"type": "text", "text": f"message {i} " + "x" * 400}]})
    if mark_last and messages:
        messages[-1]["content"][-1]["cache_control"] = CC
    return {"model": model, "system": system, "messages": messages}


def test_first_request_writes_second_reads():
    cache = PromptCache(min_cacheable_tokens=0)
    first = cache.account(body(1))
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens == first.total
    second = cache.account(body(3))
    assert second.cache_read_input_tokens == first.total  # the whole earlier prefix
    assert second.cache_creation_input_tokens == second.total - first.total
    assert second.input_tokens == 0


def test_without_breakpoints_nothing_is_cached():
    cache = PromptCache(min_cacheable_tokens=0)
    b = body(3, mark_last=False, system_mark=False)
    for _ in range(2):
        usage = cache.account(b)
        assert usage.cache_read_input_tokens == usage.cache_creation_input_tokens == 0
        assert usage.input_tokens == count_input_tokens(b)


def test_changed_prefix_misses():
    cache = PromptCache(min_cacheable_tokens=0)
    cache.account(body(3))
    other = body(3)
    other["system"][0]["text"] = "T" * 4000
    assert cache.account(other).cache_read_input_tokens == 0


def test_model_is_part_of_the_key():
    cache = PromptCache(min_cacheable_tokens=0)
    cache.account(body(3, model="a"))
    assert cache.account(body(3, model="b")).cache_read_input_tokens == 0


def test_lookback_is_limited_to_twenty_blocks():
    cache = PromptCache(min_cacheable_tokens=0)
    cache.account(body(1, system_mark=False))
    far = body(30, system_mark=False)  # the only breakpoint is 29 blocks after the cached one
    assert cache.account(far).cache_read_input_tokens == 0
    near = body(15, system_mark=False)
    cache2 = PromptCache(min_cacheable_tokens=0)
    cache2.account(body(1, system_mark=False))
    assert cache2.account(near).cache_read_input_tokens > 0


def test_short_prefixes_are_not_cached():
    cache = PromptCache(min_cacheable_tokens=100_000)
    cache.account(body(1))
    usage = cache.account(body(1))
    assert usage.cache_read_input_tokens == 0 and usage.cache_creation_input_tokens == 0
