"""Honest prompt-cache accounting for the scripted server.

The request is flattened into units in the API's prefix order (tools, system blocks, message
content blocks).  Every unit carrying ``cache_control`` is a breakpoint.  A later request reads
from the cache the longest prefix ending at a position that was written before, looking back at
most ``LOOKBACK`` units from each breakpoint (as the API does); the rest up to the last breakpoint
is written to the cache; units after the last breakpoint are plain input.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

LOOKBACK = 20


def estimate_tokens(text: str) -> int:
    """About four characters a token, at least one."""
    return max(1, len(text) // 4)


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int

    @property
    def total(self) -> int:
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


@dataclass(frozen=True)
class _Unit:
    canonical: str
    tokens: int
    breakpoint: bool


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in value]
    return value


def _unit(prefix: str, block: Any) -> _Unit:
    has_bp = isinstance(block, dict) and block.get("cache_control") is not None
    canonical = prefix + json.dumps(_strip_cache_control(block), sort_keys=True, ensure_ascii=False)
    return _Unit(canonical, estimate_tokens(canonical), has_bp)


def request_units(body: dict[str, Any]) -> list[_Unit]:
    """The request as cacheable units, in prefix order."""
    units = [_unit("tool:", tool) for tool in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str):
        units.append(_unit("system:", {"type": "text", "text": system}))
    elif isinstance(system, list):
        units.extend(_unit("system:", block) for block in system)
    for message in body.get("messages") or []:
        role = message.get("role", "?")
        content = message.get("content")
        if isinstance(content, str):
            units.append(_unit(f"{role}:", {"type": "text", "text": content}))
        else:
            units.extend(_unit(f"{role}:", block) for block in content or [])
    return units


def count_input_tokens(body: dict[str, Any]) -> int:
    return sum(u.tokens for u in request_units(body))


class PromptCache:
    """Prefixes written so far (by hash), shared by every request the server sees."""

    def __init__(self, min_cacheable_tokens: int = 1024) -> None:
        self.min_cacheable_tokens = min_cacheable_tokens
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._written.clear()

    def account(self, body: dict[str, Any]) -> CacheUsage:
        """Usage for this request; writes its breakpoint prefixes to the cache."""
        units = request_units(body)
        hashes, cumulative = _prefix_hashes(str(body.get("model", "")), units)
        total = cumulative[-1] if cumulative else 0
        breakpoints = [i for i, u in enumerate(units) if u.breakpoint]
        if not breakpoints:
            return CacheUsage(total, 0, 0)
        with self._lock:
            read_at = self._longest_hit(hashes, breakpoints)
            last = breakpoints[-1]
            cacheable = [b for b in breakpoints if cumulative[b] >= self.min_cacheable_tokens]
            for b in cacheable:
                self._written.add(hashes[b])
        read = cumulative[read_at] if read_at >= 0 else 0
        if not cacheable:
            return CacheUsage(total - read, read, 0)
        # Monotonic prefix sizes: when any breakpoint is cacheable, the last one is.
        return CacheUsage(total - cumulative[last], read, cumulative[last] - read)

    def _longest_hit(self, hashes: list[str], breakpoints: list[int]) -> int:
        best = -1
        for bp in breakpoints:
            for j in range(bp, max(-1, bp - LOOKBACK - 1), -1):
                if j <= best:
                    break
                if hashes[j] in self._written:
                    best = j
                    break
        return best


def _prefix_hashes(model: str, units: list[_Unit]) -> tuple[list[str], list[int]]:
    digest = hashlib.sha256(model.encode())
    hashes: list[str] = []
    cumulative: list[int] = []
    running = 0
    for unit in units:
        digest.update(unit.canonical.encode())
        hashes.append(digest.copy().hexdigest())
        running += unit.tokens
        cumulative.append(running)
    return hashes, cumulative
