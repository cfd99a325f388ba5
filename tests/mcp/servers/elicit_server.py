"""An MCP server whose tools ask the user for input mid-call (elicitation), over stdio.

Each tool returns what the client answered as JSON (``{"action": …, "content": …}``) or the
error the client sent back, so a test can see exactly what reached the server.  Both ways the
protocol has to ask: on 2026-07-28 the tool returns an ``InputRequiredResult`` and reads the
answer when the client retries; with a client that connects the 2025-11-25 way (the
``initialize`` handshake) the server sends ``elicitation/create`` in the middle of the call.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
)

server = MCPServer("asker")

BOOKING = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 40},
        "email": {"type": "string", "format": "email", "description": "For the confirmation"},
        "guests": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
        "budget": {"type": "number", "minimum": 0},
        "vegetarian": {"type": "boolean", "default": False},
        "table": {"type": "string", "oneOf": [{"const": "in", "title": "Inside"}, {"const": "out", "title": "Terrace"}]},
        "extras": {"type": "array", "items": {"type": "string", "enum": ["cake", "wine", "flowers"]}, "maxItems": 2},
    },
    "required": ["name", "guests"],
}


def _modern(ctx: Context) -> bool:
    return (ctx.protocol_version or "") >= "2026"


def _echo(result) -> str:
    return json.dumps({"action": result.action, "content": result.content}, sort_keys=True)


async def _ask(ctx: Context, params) -> str | InputRequiredResult:
    if _modern(ctx):
        if not ctx.input_responses:  # first round: ask; the client retries with the answer
            return InputRequiredResult(input_requests={"ask": ElicitRequest(params=params)}, request_state="asked")
        return _echo(ctx.input_responses["ask"])
    session = ctx.request_context.session
    try:
        if isinstance(params, ElicitRequestURLParams):
            result = await session.elicit_url(params.message, params.url, params.elicitation_id or "",
                                              related_request_id=ctx.request_id)
        else:
            result = await session.elicit_form(params.message, params.requested_schema,
                                               related_request_id=ctx.request_id)
    except Exception as exc:  # the client refused the request itself (an error response)
        return json.dumps({"error": str(exc)})
    return _echo(result)


@server.tool()
async def book(ctx: Context) -> str | InputRequiredResult:
    """Book a table: asks the user for the details."""
    return await _ask(ctx, ElicitRequestFormParams(message="Details for your booking", requested_schema=BOOKING))


@server.tool()
async def nested(ctx: Context) -> str | InputRequiredResult:
    """Asks with a schema MCP does not allow (a nested object)."""
    schema = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    return await _ask(ctx, ElicitRequestFormParams(message="Where?", requested_schema=schema))


@server.tool()
async def login(ctx: Context, url: str = "https://auth.example.com/authorize?x=1") -> str | InputRequiredResult:
    """Asks the user to open a link (URL mode)."""
    return await _ask(ctx, ElicitRequestURLParams(message="Sign in to continue", url=url, elicitation_id="elicit-1"))


SIGN_IN = ElicitRequestURLParams(message="Sign in to read your files", url="https://auth.example.com/files?s=1",
                                 elicitation_id="files-1")
_signed_in: list[bool] = []


@server.tool()
async def private_files() -> str:
    """List your private files (needs a sign-in in the browser first)."""
    if not _signed_in:
        raise UrlElicitationRequiredError([SIGN_IN])
    return "notes.txt, plan.md, budget.xlsx"


@server.tool()
async def finish_sign_in(ctx: Context) -> str:
    """What the browser's sign-in does out of band: the user is signed in; the client is told."""
    _signed_in.append(True)
    if not _modern(ctx):
        await ctx.request_context.session.send_elicit_complete("files-1")
    return "signed in"


if __name__ == "__main__":
    server.run("stdio")
