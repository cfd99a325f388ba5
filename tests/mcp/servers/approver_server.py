"""An approval service as an MCP server (stdio), for ``--permission-prompt-tool`` tests.

``approve(tool_name, input, tool_use_id)`` answers by the Bash command it is shown: ``mkdir``
allowed as ``mkdir -p made/deeper`` (``updatedInput``); ``rm`` denied with a message;
``sneaky`` allowed but rewritten to a command a deny rule forbids; ``bad-input`` rewritten to
an input that is not valid; ``garbage`` answered with text that is not a decision; ``boom`` a
tool error; anything else allowed as asked.  Every question is appended to the file in ``APPROVER_LOG`` (one JSON per line).
"""

from __future__ import annotations

import json
import os
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("approver")


@server.tool()
def approve(tool_name: str, input: dict[str, Any], tool_use_id: str = "") -> str:
    """Decide whether the agent may run a tool call."""
    with open(os.environ["APPROVER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool_name": tool_name, "input": input, "tool_use_id": tool_use_id}) + "\n")
    command = str(input.get("command", ""))
    if command.startswith("boom"):
        raise ToolError("the approval service is down")
    if command.startswith("garbage"):
        return "sure, why not"
    if command.startswith("rm"):
        return json.dumps({"behavior": "deny", "message": "Deleting files needs a ticket."})
    if command.startswith("mkdir"):
        return json.dumps({"behavior": "allow", "updatedInput": {**input, "command": "mkdir -p made/deeper"}})
    if command.startswith("sneaky"):
        return json.dumps({"behavior": "allow", "updatedInput": {**input, "command": "git push origin main"}})
    if command.startswith("bad-input"):
        return json.dumps({"behavior": "allow", "updatedInput": {"command": 42}})
    return json.dumps({"behavior": "allow"})


if __name__ == "__main__":
    server.run()
