"""Shared by the URL property tests (MCP URL lists, WebFetch domains and redirects): URLs made
by inserting parser-confusing pieces at random places into known starting URLs."""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import settings
from hypothesis import strategies as st

# URL_FUZZ_EXAMPLES=40000 URL_FUZZ_RANDOM=1 for a longer, randomised run; CI runs the fixed set
FUZZ_SETTINGS = settings(max_examples=int(os.environ.get("URL_FUZZ_EXAMPLES", "3000")), deadline=None,
                         derandomize=os.environ.get("URL_FUZZ_RANDOM") is None)


def insertions(bases: Sequence[str], pieces: Sequence[str], most: int = 3) -> st.SearchStrategy[str]:
    """One of ``bases`` with up to ``most`` of ``pieces`` inserted at random positions."""

    @st.composite
    def build(draw: st.DrawFn) -> str:
        url = draw(st.sampled_from(list(bases)))
        for _ in range(draw(st.integers(0, most))):
            at = draw(st.integers(0, len(url)))
            url = url[:at] + draw(st.sampled_from(list(pieces))) + url[at:]
        return url

    return build()
