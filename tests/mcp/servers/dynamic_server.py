"""An MCP server whose tool list changes while it runs: ``unlock`` adds ``vault_read`` and
``lock`` removes it, each telling the client the list changed (a ``subscriptions/listen``
event on 2026-07-28, a ``notifications/tools/list_changed`` before)."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("dynamic")


def vault_read(key: str) -> str:
    """Read a secret from the vault (there after unlock)."""
    return f"secret for {key}"


async def _changed(ctx: Context) -> None:
    if (ctx.protocol_version or "") >= "2026":
        await ctx.notify_tools_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()


@server.tool()
async def unlock(ctx: Context) -> str:
    """Unlock the vault: adds the vault_read tool."""
    server.add_tool(vault_read)
    await _changed(ctx)
    return "unlocked"


@server.tool()
async def lock(ctx: Context) -> str:
    """Lock the vault: removes the vault_read tool."""
    server.remove_tool("vault_read")
    await _changed(ctx)
    return "locked"


if __name__ == "__main__":
    server.run("stdio")
