"""The tool pool: deny rules, deferral policy, tools_for_request and the system-prompt list."""

from __future__ import annotations

import pytest

from jupyter_agent.core.context import AppState
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.mcp import McpManager, assemble_tool_pool, tools_for_request, with_discovered
from jupyter_agent.mcp.pool import DeferPolicy, deferred_tools_prompt
from jupyter_agent.tools.mcp_resources import ListMcpResourcesTool, ReadMcpResourceTool
from tests.support.tools import SleepTool

from .conftest import demo_stdio_entry


@pytest.fixture
async def manager(tmp_path):
    m = McpManager([demo_stdio_entry()])
    yield m
    await m.aclose()


async def test_pool_starts_servers_and_applies_deny_rules(manager):
    deny = ToolPermissionContext(deny_rules={"userSettings": ("mcp__demo__crash", "Sleep")})
    pool = await assemble_tool_pool([SleepTool(), ListMcpResourcesTool(), ReadMcpResourceTool()],
                                    manager, deny, DeferPolicy("never"))
    names = [t.name for t in pool]
    assert "Sleep" not in names and "mcp__demo__crash" not in names
    assert "mcp__demo__add" in names and "ListMcpResourcesTool" in names
    whole = ToolPermissionContext(deny_rules={"userSettings": ("mcp__demo",)})
    pool = await assemble_tool_pool([SleepTool()], manager, whole, DeferPolicy("never"))
    assert [t.name for t in pool] == ["Sleep"]


async def test_resource_tools_dropped_without_resource_servers():
    pool = await assemble_tool_pool([ListMcpResourcesTool(), ReadMcpResourceTool(), SleepTool()],
                                    None, ToolPermissionContext())
    assert [t.name for t in pool] == ["Sleep"]


@pytest.mark.parametrize(("policy", "count", "deferred"), [
    (DeferPolicy("never"), 50, False), (DeferPolicy("always"), 1, True),
    (DeferPolicy("auto", 10), 10, False), (DeferPolicy("auto", 10), 11, True),
])
def test_defer_policy(policy, count, deferred):
    assert policy.defer_mcp(count) is deferred


def test_defer_policy_from_env(monkeypatch):
    monkeypatch.setenv("JUPYTER_AGENT_TOOL_SEARCH", "auto:3")
    assert DeferPolicy.from_env() == DeferPolicy("auto", 3)
    monkeypatch.setenv("JUPYTER_AGENT_TOOL_SEARCH", "off")
    assert DeferPolicy.from_env().mode == "never"


async def test_tools_for_request_sends_discovered_only(manager):
    from jupyter_agent.tools.tool_search import ToolSearchTool

    pool = await assemble_tool_pool([SleepTool(), ToolSearchTool()], manager, ToolPermissionContext(),
                                    DeferPolicy("always"))
    state = AppState()
    sent, deferred = tools_for_request(pool, state)
    assert [t.name for t in sent] == ["Sleep", "ToolSearch"]
    assert "mcp__demo__add" in deferred
    assert "mcp__demo__add" in deferred_tools_prompt(deferred)
    state = with_discovered(state, ["mcp__demo__add"])
    sent, deferred = tools_for_request(pool, state)
    assert [t.name for t in sent] == ["Sleep", "ToolSearch", "mcp__demo__add"]
    assert "mcp__demo__add" not in deferred
    # nothing deferred: ToolSearch is not sent and the prompt section is empty
    pool = await assemble_tool_pool([SleepTool(), ToolSearchTool()], manager, ToolPermissionContext(),
                                    DeferPolicy("never"))
    sent, deferred = tools_for_request(pool, AppState())
    assert "ToolSearch" not in [t.name for t in sent] and deferred == []
    assert deferred_tools_prompt(deferred) == ""


async def test_api_tools_for_request_follows_discovery(manager):
    from jupyter_agent.core.context import ToolUseOptions
    from jupyter_agent.mcp import api_tools_for_request
    from jupyter_agent.tools.tool_search import ToolSearchTool

    pool = await assemble_tool_pool([ToolSearchTool()], manager, ToolPermissionContext(), DeferPolicy("always"))
    options = ToolUseOptions(tools=tuple(pool))
    tools, prompt = await api_tools_for_request(pool, AppState(), options)
    assert [t["name"] for t in tools] == ["ToolSearch"] and "mcp__demo__add" in prompt
    tools, prompt = await api_tools_for_request(pool, with_discovered(AppState(), ["mcp__demo__add"]), options)
    assert [t["name"] for t in tools] == ["ToolSearch", "mcp__demo__add"]
    assert tools[1]["input_schema"]["required"] == ["a", "b"] and "mcp__demo__add" not in prompt


async def test_without_toolsearch_nothing_is_deferred(manager):
    """Deferred tools are reached only through ToolSearch: a pool without it sends them all."""
    from jupyter_agent.mcp.pool import is_deferred
    from jupyter_agent.tools.tool_search import ToolSearchTool

    pool = await assemble_tool_pool([SleepTool()], manager, ToolPermissionContext(), DeferPolicy("always"))
    assert any(t.name.startswith("mcp__") for t in pool) and not any(is_deferred(t) for t in pool)
    searchable = await assemble_tool_pool([ToolSearchTool()], manager, ToolPermissionContext(), DeferPolicy("always"))
    assert all(is_deferred(t) for t in searchable if t.name.startswith("mcp__"))
