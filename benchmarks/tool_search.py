"""Token saving of deferred tools: what one request carries with 50 MCP tools, deferred vs. not.

A real MCP server (written here, run over stdio) offers 50 tools with realistic schemas.  The
session's pool is assembled twice through the real code path (``assemble_tool_pool`` →
``tools_for_request`` → ``to_api_tool``): once with deferral off, once on (the deferred names
then go to the system prompt and ToolSearch is sent instead).  Sizes are JSON characters of
the ``tools`` parameter plus the prompt section; tokens are estimated as characters / 4.
The figure is the share of the MCP-related request size saved.  Goal: at least 80 %.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_agent.core.context import AppState, ToolUseOptions  # noqa: E402
from jupyter_agent.core.permission_types import ToolPermissionContext  # noqa: E402
from jupyter_agent.core.registry import RegistryConfig, get_all_base_tools  # noqa: E402
from jupyter_agent.mcp import McpManager, assemble_tool_pool, deferred_tools_prompt, tools_for_request  # noqa: E402
from jupyter_agent.mcp.pool import DeferPolicy  # noqa: E402

N_TOOLS = 50
GOAL = 0.80
SERVICES = ["crm", "billing", "tickets", "wiki", "calendar", "storage", "analytics", "search", "mail", "chat"]
VERBS = ["list", "get", "create", "update", "delete"]

SERVER = '''
from typing import Literal
from pydantic import Field
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench")

def make(name, service, verb):
    async def tool(
        id: str = Field(description=f"The {service} record identifier, as returned by list_{service}"),
        fields: list[str] = Field(default_factory=list, description="Fields to include in the response"),
        limit: int = Field(20, ge=1, le=500, description="Maximum number of records to return"),
        order: Literal["asc", "desc"] = Field("desc", description="Sort order by modification time"),
        dry_run: bool = Field(False, description="Validate the request without applying any change"),
    ) -> str:
        return name
    tool.__name__ = name
    tool.__doc__ = (f"{verb.capitalize()} {service} records in the company's {service} system. "
                    f"Use this to {verb} {service} data on behalf of the user; results are paginated "
                    f"and respect the user's access rights. Returns JSON.")
    server.tool(name=name)(tool)

for service in SERVICES:
    for verb in VERBS:
        make(f"{verb}_{service}", service, verb)
server.run()
'''


def _server_script(directory: Path) -> Path:
    path = directory / "bench_server.py"
    path.write_text(f"SERVICES = {SERVICES!r}\nVERBS = {VERBS!r}\n{SERVER}")
    return path


async def _request_size(pool, options) -> tuple[int, int, list[str]]:
    sent, deferred = tools_for_request(pool, AppState())
    tools = [await t.to_api_tool(options) for t in sent]
    return len(json.dumps(tools)), len(deferred_tools_prompt(deferred)), deferred


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        script = _server_script(Path(tmp))
        manager = McpManager()
        manager.add_servers({"bench": {"command": sys.executable, "args": [str(script)]}})
        base = get_all_base_tools(RegistryConfig())
        options = ToolUseOptions(tools=tuple(base))
        try:
            perms = ToolPermissionContext()
            full = await assemble_tool_pool(base, manager, perms, DeferPolicy("never"))
            lazy = await assemble_tool_pool(base, manager, perms, DeferPolicy("auto", 10))
            n_mcp = sum(1 for t in full if t.name.startswith("mcp__"))
            assert n_mcp == N_TOOLS, f"expected {N_TOOLS} MCP tools, got {n_mcp}"
            base_tools = [await t.to_api_tool(options) for t in tools_for_request(base, AppState())[0]]
            base_size = len(json.dumps(base_tools))
            full_tools, full_prompt, _ = await _request_size(full, options)
            lazy_tools, lazy_prompt, deferred = await _request_size(lazy, options)
        finally:
            await manager.aclose()
    full_total, lazy_total = full_tools + full_prompt, lazy_tools + lazy_prompt
    mcp_full = full_total - base_size
    mcp_lazy = lazy_total - base_size
    saved = 1 - mcp_lazy / mcp_full
    print(f"{N_TOOLS} MCP tools; {len(base_tools)} built-in tools sent in both cases ({base_size:,} chars)")
    print(f"not deferred: tools {full_tools:,} chars + prompt {full_prompt:,} = {full_total:,} (~{full_total // 4:,} tokens)")
    print(f"deferred:     tools {lazy_tools:,} chars + prompt {lazy_prompt:,} = {lazy_total:,} (~{lazy_total // 4:,} tokens)"
          f"; {len(deferred)} deferred names listed")
    print(f"MCP part: {mcp_full:,} → {mcp_lazy:,} chars (the deferred-name list; ToolSearch is sent in "
          "both runs since the MCP resource tools are always deferred)")
    print(f"whole request tools+prompt ratio deferred/not = {lazy_total / full_total:.2f}")
    verdict = "pass" if saved >= GOAL else "fall short"
    print(f"RESULT tool_search mcp_saving={saved:.2f} goal={GOAL:.2f} {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
