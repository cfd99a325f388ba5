"""An MCP server whose tool and prompt lists change while it runs: ``unlock`` adds the tool
``vault_read`` and the prompt ``vault_help``, ``lock`` removes them, each telling the client the
lists changed (``subscriptions/listen`` events on 2026-07-28, ``notifications/tools/list_changed``
and ``notifications/prompts/list_changed`` before); ``jam_prompts`` makes listing the prompts fail
from then on, and says they changed."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts import Prompt

server = MCPServer("dynamic")


def vault_read(key: str) -> str:
    """Read a secret from the vault (there after unlock)."""
    return f"secret for {key}"


def vault_help() -> str:
    """How to read from the vault (there after unlock)."""
    return "Use vault_read with the key you need."


@server.prompt()
def status() -> str:
    """Ask where the vault stands."""
    return "Say whether the vault is locked."


async def _changed(ctx: Context) -> None:
    if (ctx.protocol_version or "") >= "2026":
        await ctx.notify_tools_changed()
        await ctx.notify_prompts_changed()
    else:
        await ctx.request_context.session.send_tool_list_changed()
        await ctx.request_context.session.send_prompt_list_changed()


@server.tool()
async def unlock(ctx: Context) -> str:
    """Unlock the vault: adds the vault_read tool."""
    server.add_tool(vault_read)
    server.add_prompt(Prompt.from_function(vault_help))
    await _changed(ctx)
    return "unlocked"


@server.tool()
async def lock(ctx: Context) -> str:
    """Lock the vault: removes the vault_read tool."""
    server.remove_tool("vault_read")
    server.remove_prompt("vault_help")
    await _changed(ctx)
    return "locked"


@server.tool()
async def jam_prompts(ctx: Context) -> str:
    """Break prompts/list (every listing fails from now on) and say the prompts changed."""

    async def failing() -> list:
        raise RuntimeError("the prompt store is jammed")

    server.list_prompts = failing  # type: ignore[method-assign]
    await _changed(ctx)
    return "jammed"


if __name__ == "__main__":
    server.run("stdio")
