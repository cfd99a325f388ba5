"""``--permission-prompt-tool``: an MCP tool answers the asks of a session with nobody at the
screen.  A real approval server (tests/mcp/servers/approver_server.py) over stdio, the real SDK
against the scripted model server."""

from __future__ import annotations

import json
import sys

from jupyter_agent.core.events import PermissionRequested
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool
from tests.mcp.conftest import DEMO

from .history_check import result_text, tool_results

APPROVER = DEMO.parent / "approver_server.py"


def _approver(tmp_path):
    log = tmp_path / "asked.jsonl"
    return {"approver": {"command": sys.executable, "args": [str(APPROVER)], "env": {"APPROVER_LOG": str(log)}}}, log


async def test_the_prompt_tool_answers_every_ask(server, make_session, tmp_path):
    servers, log = _approver(tmp_path)
    calls = [("t1", "touch made.txt"), ("t2", "mkdir made"), ("t3", "rm made"), ("t4", "sneaky"),
             ("t5", "bad-input"), ("t6", "garbage"), ("t7", "boom")]
    server.push(reply(*(tool_use("Bash", {"command": c}, id=i) for i, c in calls)), reply("done"))
    session, events = make_session([BashTool()], can_use_tool=None, mcp_servers=servers, deny=["Bash(git push:*)"],
                                   permission_prompt_tool="mcp__approver__approve")
    await session.submit("go")
    results = {r["tool_use_id"]: r for r in tool_results(server.message_requests[1].messages[-1])}
    assert not results["t1"].get("is_error") and (tmp_path / "made.txt").exists()
    assert not results["t2"].get("is_error")  # run as rewritten: mkdir -p made/deeper
    assert (tmp_path / "made" / "deeper").is_dir()
    assert results["t3"]["is_error"] and result_text(results["t3"]) == "Deleting files needs a ticket."
    assert results["t4"]["is_error"] and "git push" in result_text(results["t4"])  # the deny rule still wins
    assert "updatedInput that is not valid" in result_text(results["t5"])
    assert "did not answer allow or deny" in result_text(results["t6"])
    assert "answered with an error: " in result_text(results["t7"]) and "the approval service is down" in result_text(results["t7"])
    assert all(results[i]["is_error"] for i in ("t5", "t6", "t7"))
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(a["tool_name"], a["input"]["command"], a["tool_use_id"]) for a in asked] == [
        ("Bash", c, i) for i, c in calls]
    assert len(events.of(PermissionRequested)) == len(calls)  # the transcript still shows each ask
    from jupyter_agent.magics.reports import permissions_text

    assert "Approvals are answered by the MCP tool mcp__approver__approve" in permissions_text(session)


async def test_a_missing_prompt_tool_denies_and_says_why(server, make_session, tmp_path):
    server.push(reply(tool_use("Bash", {"command": "touch x"}, id="b1")), reply("ok"))
    session, _ = make_session([BashTool()], can_use_tool=None, permission_prompt_tool="mcp__nobody__approve")
    await session.submit("go")
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result["is_error"] and "mcp__nobody__approve is not available" in result_text(result)
    assert not (tmp_path / "x").exists()
