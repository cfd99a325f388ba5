"""A small MCP server written with the SDK's MCPServer (FastMCP), run over stdio or HTTP.

Usage: python demo_server.py [stdio | http PORT | sse PORT]; env DEMO_PID_FILE records the process id.
"""

from __future__ import annotations

import base64
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer("demo", instructions="Demo server: use add for sums.")
NOTES: dict[str, str] = {}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def write_note(key: str, text: str) -> str:
    """Store a note under a key."""
    NOTES[key] = text
    return f"stored {key}"


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_everything() -> str:
    """Pretend to delete everything."""
    NOTES.clear()
    return "deleted"


@server.tool()
def pixel() -> Image:
    """Return a 1x1 PNG image."""
    return Image(data=PNG_1X1, format="png")


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ToolError(f"failed because {reason}")


@server.tool()
def big(n: int) -> str:
    """Return n characters of text."""
    return "x" * n


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def whoami(ctx: Context) -> str:
    """Echo the Authorization header the client sent (HTTP transports only)."""
    headers = ctx.headers or {}
    return headers.get("authorization", "(no authorization header)")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress at each step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


@server.tool()
def crash() -> str:
    """Kill the server process in the middle of the call."""
    sys.stdout.flush()
    os._exit(3)


@server.resource("note://hello", mime_type="text/plain", description="A greeting")
def hello() -> str:
    return "hello from the demo server"


@server.resource("image://pixel", mime_type="image/png")
def pixel_resource() -> bytes:
    return PNG_1X1


@server.prompt(title="Review a pull request", description="Review a pull request with the given focus.")
def review_pr(number: str, focus: str = "correctness") -> list:
    """Two messages: the request, and an image the reviewer should look at."""
    from mcp.server.mcpserver.prompts.base import UserMessage
    from mcp_types import ImageContent

    return [UserMessage(f"Review pull request #{number}, focusing on {focus}."),
            UserMessage(ImageContent(type="image", data=base64.b64encode(PNG_1X1).decode(), mime_type="image/png"))]


@server.prompt()
def dialogue() -> list:
    """A prompt written as a short exchange."""
    from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage

    return [UserMessage("Is the build green?"), AssistantMessage("It was red this morning."), UserMessage("Fix it.")]


@server.tool()
def new_prompt(name: str) -> str:
    """Add a prompt named ``name`` (a server whose prompts change while it runs)."""
    server.add_prompt(Prompt.from_function(lambda: f"The {name} prompt.", name=name))
    return f"added {name}"


@server.prompt()
def standup() -> str:
    """What did we do yesterday?"""
    return "Summarize yesterday's commits."


if __name__ == "__main__":
    pid_file = os.environ.get("DEMO_PID_FILE")
    if pid_file:
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) > 2 and sys.argv[1] == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
