"""The Bash parser is used from several threads at once (worker threads, subshell callbacks)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from jupyter_agent.permissions.bash_parse import parse_uncached


def test_parsing_from_many_threads_gives_the_same_answers():
    commands = [f"git status && ls -la dir{i} | grep x{i}; echo $(cat f{i})" for i in range(400)]
    expected = [parse_uncached(c) for c in commands]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(5):
            assert list(pool.map(parse_uncached, commands)) == expected
