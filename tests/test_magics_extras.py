# ruff: noqa: F811  (the ip/server fixtures are imported from test_magics_turns)
"""%agent /command, --rewind and --mcp in an in-process IPython shell against the scripted model."""

from __future__ import annotations

import asyncio
import json

import pytest
from IPython.core.error import UsageError

from jupyter_agent.magics.options import parse_options
from jupyter_agent.testing import reply, text, tool_use
from tests.test_magics_turns import _run, ip, server  # noqa: F401  (fixtures)


@pytest.mark.parametrize(
    ("line", "rewind", "prompt"),
    [("--rewind", 1, ""), ("--rewind 3", 3, ""), ("--rewind=2", 2, ""), ("fix it", None, "fix it")],
)
def test_rewind_option(line, rewind, prompt):
    opts = parse_options(line)
    assert (opts.rewind, opts.prompt) == (rewind, prompt)
    assert opts.action == ("rewind" if rewind else None)


@pytest.mark.parametrize("line", ["--rewind 0", "--rewind fix the bug", "--rewind --stop"])
def test_rewind_misuse_is_a_usage_error(line):
    with pytest.raises(UsageError):
        parse_options(line)


def test_mcp_option_is_repeatable():
    opts = parse_options("--mcp a.json --mcp '{\"x\": {\"command\": \"y\"}}' hello")
    assert opts.mcp == ["a.json", '{"x": {"command": "y"}}'] and opts.prompt == "hello"


async def test_custom_command_expands_with_arguments(ip, server, tmp_path):
    commands = tmp_path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS politely.\n")
    server.push(reply(text("Hello, Ada!")))
    ip.run_line_magic("agent", "--new")
    await _run(ip, "/greet Ada Lovelace", "cell-cmd")
    sent = json.dumps(server.message_requests[-1].messages[-1]["content"])
    assert "Say hello to Ada Lovelace politely." in sent


async def test_unknown_command_names_the_known_ones(ip, tmp_path):
    commands = tmp_path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("Say hello to $ARGUMENTS.\n")
    ip.run_line_magic("agent", "--new")
    with pytest.raises(UsageError, match="unknown command /nope.*/greet"):
        ip.run_line_magic("agent", "/nope x")


async def test_an_mcp_prompt_is_run_by_its_server(ip, server):
    """``/mcp__server__prompt`` is no custom command: the magic passes it on, the server (started
    for the turn) renders it."""
    import sys

    from tests.mcp.conftest import DEMO

    config = json.dumps({"demo": {"command": sys.executable, "args": [str(DEMO)]}})
    server.push(reply(text("Yesterday: three commits.")))
    ip.run_line_magic("agent", f"--new --mcp '{config}'")
    await _run(ip, "/mcp__demo__standup", "cell-mcp-prompt")
    reminder, prompt = server.message_requests[-1].messages[-1]["content"][:2]
    assert "typed in the %agent cell with id cell-mcp-prompt" in reminder["text"]  # the cell's context stays
    assert prompt["text"] == "Summarize yesterday's commits."


async def test_a_path_at_the_start_is_not_a_command(ip, server):
    server.push(reply(text("Looked.")))
    ip.run_line_magic("agent", "--new")
    await _run(ip, "/tmp/data.csv has bad rows", "cell-path")
    sent = json.dumps(server.message_requests[-1].messages[-1]["content"])
    assert "/tmp/data.csv has bad rows" in sent


async def test_rewind_restores_the_file_the_last_turn_changed(ip, server, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("original\n")
    server.push(
        reply(tool_use("Read", {"file_path": str(target)})),
        reply(tool_use("Write", {"file_path": str(target), "content": "rewritten\n"})),
        reply(text("Done.")),
    )
    ip.run_line_magic("agent", "--new --mode acceptEdits")
    turn = await _run(ip, "rewrite notes", "cell-w")
    saved = []
    turn.transcript.on_done(lambda t: saved.append(t.static_html()))  # as the cell's saved copy is kept
    assert target.read_text() == "rewritten\n"
    widget = ip.run_line_magic("agent", "--rewind")
    for _ in range(300):
        if "Rewinding" not in widget.value:
            break
        await asyncio.sleep(0.01)
    assert target.read_text() == "original\n"
    assert "notes.txt" in widget.value
    # the rewound turn's transcript says so, live and in the saved copy (it read as if it still held)
    note = "↶ Rewound by %agent --rewind: the files and cells it changed were restored; the model no longer sees"
    assert turn.transcript.rewound and note in turn.transcript.static_html()
    assert saved and note in saved[-1]


async def test_mcp_servers_reach_a_new_session(ip, tmp_path):
    spec = {"mcpServers": {"demo": {"command": "python", "args": ["-c", "pass"]}}}
    (tmp_path / "servers.json").write_text(json.dumps(spec))
    ip.run_line_magic("agent", "--new --mcp servers.json")
    session = ip._jupyter_agent_magics.session
    assert "demo" in session.config.mcp_servers
    assert session.tool_pool.mcp is not None


async def test_bad_mcp_value_is_a_usage_error(ip):
    with pytest.raises(UsageError, match="--mcp"):
        ip.run_line_magic("agent", "--new --mcp '{not json'")


async def test_sandbox_option_turns_the_sandbox_on_for_the_session(ip, tmp_path):
    from jupyter_agent.sandbox.settings import sandbox_settings

    assert parse_options("--sandbox run the tests").sandbox and parse_options("--sandbox x").prompt == "x"
    ip.run_line_magic("agent", "--new")
    session = ip._jupyter_agent_magics.session
    assert not sandbox_settings(session.context).enabled  # no settings file turns it on here
    ip.run_line_magic("agent", "--sandbox")  # on the running session, from the next command
    assert session.config.sandbox and sandbox_settings(session.context).enabled
    ip.run_line_magic("agent", "--new --sandbox")
    fresh = ip._jupyter_agent_magics.session
    assert fresh is not session and sandbox_settings(fresh.context).enabled


async def test_mcp_servers_join_a_running_session_that_started_without_any(ip, server, tmp_path):
    """``%agent --mcp`` after a turn: the session gets an MCP manager, the server starts before
    the next request, and that request carries its tools."""
    import sys

    from tests.mcp.conftest import DEMO

    server.push(reply(text("first")), reply(text("second")))
    ip.run_line_magic("agent", "--new")
    await _run(ip, "hello", "cell-a")
    session = ip._jupyter_agent_magics.session
    assert session.tool_pool.mcp is None
    spec = json.dumps({"demo": {"command": sys.executable, "args": [str(DEMO)]}})
    ip.run_line_magic("agent", f"--mcp '{spec}'")
    await _run(ip, "again", "cell-b")
    first, second = (r.body for r in server.message_requests)
    assert not any(t["name"].startswith("mcp__") for t in first.get("tools", []))
    assert "mcp__demo__add" in {t["name"] for t in second["tools"]}


def test_the_router_keeps_only_the_turns_a_rewind_can_reach():
    """Every turn's transcript was kept for --rewind to mark, for the kernel's whole life."""
    from jupyter_agent.agent import events as ev
    from jupyter_agent.checkpoints.store import MAX_TURNS
    from jupyter_agent.magics.turns import Turn, TurnRouter
    from jupyter_agent.ui.transcript import Transcript

    router = TurnRouter(lambda: None)
    for i in range(MAX_TURNS + 5):
        router.add(Turn(Transcript(f"p{i}"), None))
        router.dispatch(ev.TurnStarted(f"t{i}", f"p{i}"))
    assert len(router.by_turn_id) == MAX_TURNS and "t4" not in router.by_turn_id and "t5" in router.by_turn_id
