"""Property-based fuzzing of every registered tool's input through ``run_tool_use``.

Arbitrary JSON, wrong types, huge strings, NUL bytes and odd paths: a call never raises, always
ends as one tool result for its tool_use id, and never writes outside the test's directory (the
session runs in acceptEdits mode in tmp_path/project, and every ask is answered "no").
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny, ToolPermissionContext
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool

EXAMPLES = int(os.environ.get("JUPYTER_AGENT_FUZZ_EXAMPLES", "30"))
CALL_LIMIT_S = 30.0


class Refuse:
    """``can_use_tool`` that answers every ask with no, and counts them."""

    def __init__(self) -> None:
        self.asks = 0

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.asks += 1
        return PermissionDeny("No (fuzzing).")


def _odd_paths(outside: Path) -> st.SearchStrategy[str]:
    return st.sampled_from([
        "", ".", "..", "/", "~", "~/x.txt", "../escape.txt", "../../escape.txt", "a/../../escape.txt",
        "/etc/passwd", "/etc/jupyter-agent-fuzz.txt", str(outside / "victim.txt"), str(outside),
        "x\x00y", "nul\x00.txt", "\u202e.txt", "dir/", "x" * 5000, "~/../escape.txt",
        "/proc/self/mem", "/dev/zero", "notes.ipynb", "file.txt", "sub/new.txt", "*", "**/*",
        "file.txt", "file.txt", str(Path.cwd() / "file.txt"), "hello", "world",
        "ls", "cat file.txt", "echo hi > out.txt", f"echo x > {outside}/victim.txt", "cat ../escape.txt",
        "printf 'a\\0b'", "head -c 100000 /dev/zero", "cd .. && touch escape.txt", "sleep 0.01 &",
    ])


def _json() -> st.SearchStrategy[Any]:
    leaves = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=40)
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)


def _value(outside: Path) -> st.SearchStrategy[Any]:
    big = st.integers(10_000, 200_000).map(lambda n: "A" * n)
    return _json() | _odd_paths(outside) | big | st.text(alphabet=st.characters(codec="utf-8"), max_size=200)


def _types(schema: dict[str, Any]) -> set[str]:
    found = {schema["type"]} if isinstance(schema.get("type"), str) else set(schema.get("type") or [])
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        found |= _types(option)
    return found


def _typed(schema: dict[str, Any], outside: Path) -> st.SearchStrategy[Any]:
    """A value of the schema's type (so calls get past validation), odd where it can be."""
    options: list[st.SearchStrategy[Any]] = []
    kinds = _types(schema)
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    if "string" in kinds:
        options += [_odd_paths(outside), st.text(max_size=30)]
    if "integer" in kinds:
        options.append(st.integers(-5, 10**7))
    if "number" in kinds:
        options.append(st.floats(-5, 1e7))
    if "boolean" in kinds:
        options.append(st.booleans())
    if "array" in kinds:
        options.append(st.lists(_odd_paths(outside) | _json(), max_size=3))
    if "null" in kinds:
        options.append(st.none())
    return st.one_of(options) if options else _json()


def _inputs(tool: Any, outside: Path) -> st.SearchStrategy[Any]:
    """Well-typed odd values, the tool's field names with arbitrary values, or any JSON at all."""
    schema = tool.input_json_schema()
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    typed = st.fixed_dictionaries(
        {p: _typed(props[p], outside) for p in props if p in required},
        optional={p: _typed(props[p], outside) for p in props if p not in required},
    )
    garbage = st.fixed_dictionaries({}, optional={p: _value(outside) for p in props})
    return typed | typed | garbage | _json()


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            try:
                st_ = os.lstat(path)
            except OSError:
                continue
            found[path] = (st_.st_size, st_.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def outside():
    path = Path(tempfile.mkdtemp(prefix="fuzz-outside-", dir="/var/tmp"))
    (path / "victim.txt").write_text("untouched")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(TOOL_TARGETS))
def test_tool_survives_arbitrary_input(name, isolated, outside):
    tool = load_tool(TOOL_TARGETS[name])
    project = isolated / "project"
    (project / "file.txt").write_text("hello\nworld\n")
    root_before = sorted(os.listdir("/"))
    top_before = sorted(os.listdir(isolated))
    outside_before = _snapshot(outside)
    loop = asyncio.new_event_loop()
    refuse = Refuse()
    counter = iter(range(10**9))
    ran: list[str] = []

    def make_context() -> ToolUseContext:
        perms = ToolPermissionContext(mode="acceptEdits", project_dir=project)
        ctx = ToolUseContext(options=ToolUseOptions(tools=(tool,)), cwd=project, session_dir=isolated / "session")
        ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms, todos=s.todos, extra=s.extra))
        return ctx

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
    @given(payload=_inputs(tool, outside))
    def check(payload: Any) -> None:
        tool_use_id = f"toolu_fuzz{next(counter)}"
        req = ToolUseRequest(tool_use_id, name, payload)
        outcome = loop.run_until_complete(asyncio.wait_for(run_tool_use(req, make_context(), refuse), CALL_LIMIT_S))
        assert outcome.tool_use_id == tool_use_id and outcome.tool_name == name
        assert outcome.content and all(isinstance(b, dict) and "type" in b for b in outcome.content)
        if outcome.is_error:
            assert any(b.get("text") for b in outcome.content if b["type"] == "text")
        else:
            ran.append(tool_use_id)

    try:
        check()
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    print(f"{name}: {len(ran)} of {next(counter)} fuzzed calls succeeded, {refuse.asks} asks refused")
    assert sorted(os.listdir("/")) == root_before
    assert sorted(os.listdir(isolated)) == top_before
    assert _snapshot(outside) == outside_before
    assert not Path("/etc/jupyter-agent-fuzz.txt").exists()
