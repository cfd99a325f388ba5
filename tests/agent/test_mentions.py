"""@ mentions: ``explain @app.py`` sends the file along, read by the real Read tool."""

from __future__ import annotations

import json
import sys

import pytest

from jupyter_agent.agent.mentions import find_mentions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.testing import reply, text, tool_use
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.read import ReadTool


def test_what_counts_as_a_mention():
    assert find_mentions('look at @src/app.py, then @"my notes.txt". Mail ada@example.com or @ada.') == [
        "src/app.py", "my notes.txt", "ada"]
    assert find_mentions("@a @a (@b) end") == ["a"]  # "(@b)" is not at a word start
    assert find_mentions("no mentions here") == []


def _sent(server) -> list[dict]:
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in server.message_requests[0].messages[0]["content"]]


async def test_a_mentioned_file_goes_along_and_counts_as_read(server, make_session, tmp_path, approve):
    app = tmp_path / "app.py"
    app.write_text("def main():\n    return 41\n")
    session, _ = make_session([ReadTool(), EditTool()], can_use_tool=approve, load_settings=False)
    server.push(
        reply(text("It returns 41."), tool_use("Edit", {"file_path": str(app), "old_string": "41", "new_string": "42"})),
        reply(text("Fixed.")),
    )
    outcome = await session.submit("why does @app.py return 41? Make it 42.", typed=True)
    assert outcome.text == "Fixed."
    sent = _sent(server)
    assert sent[0] == {"type": "text", "text": "why does @app.py return 41? Make it 42."}
    assert f'Read was called with {json.dumps({"file_path": str(app)})}' in sent[1]["text"]
    assert "def main():" in sent[2]["text"] and "return 41" in sent[2]["text"]
    # the mention counted as reading it: the Edit was allowed without a Read first
    [result] = [b for b in server.message_requests[1].messages[-1]["content"] if b.get("type") == "tool_result"]
    assert not result.get("is_error"), result
    assert app.read_text() == "def main():\n    return 42\n"


async def test_a_folder_is_listed_and_words_that_name_nothing_stay_text(server, make_session, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("x\n")
    (tmp_path / "data" / "raw").mkdir()
    session, _ = make_session([ReadTool()], load_settings=False)
    server.push(reply(text("ok")))
    await session.submit("use @data/ and @dataclass, ask @ada", typed=True)
    sent = _sent(server)
    assert len(sent) == 2 and "The user mentioned the folder @data/" in sent[1]["text"]
    assert sent[1]["text"].endswith("Its entries:\na.csv\nraw/\n</system-reminder>")


async def test_a_denied_file_is_not_attached_and_the_prompt_says_so(server, make_session, tmp_path):
    (tmp_path / ".env").write_text("TOKEN=secret\n")
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(./.env)"]}}))
    session, _ = make_session([ReadTool()], trust_project=True)
    server.push(reply(text("ok")))
    await session.submit("what is in @.env", typed=True)
    sent = json.dumps(_sent(server))
    assert "secret" not in sent and "it could not be attached" in sent and "Read(./.env)" in sent


async def test_a_file_outside_the_project_is_read_without_asking(server, make_session, tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "notes.md"
    outside.write_text("# Notes\nship it\n")
    asked = []

    async def approver(tool, input, context, ask, tool_use_id):
        asked.append(tool.name)
        from jupyter_agent.core.permission_types import PermissionDeny

        return PermissionDeny("no")

    session, _ = make_session([ReadTool()], can_use_tool=approver, load_settings=False)
    server.push(reply(text("ok")))
    await session.submit(f"summarize @{outside}", typed=True)
    assert "ship it" in json.dumps(_sent(server)) and asked == []  # typed by the user: not asked


async def test_an_mcp_resource_is_read_from_its_server(server, make_session, tmp_path):
    from jupyter_agent.tools.mcp_resources import ListMcpResourcesTool, ReadMcpResourceTool
    from tests.mcp.conftest import DEMO

    session, _ = make_session([ListMcpResourcesTool(), ReadMcpResourceTool()], load_settings=False,
                              mcp_servers={"demo": {"command": sys.executable, "args": [str(DEMO)]}})
    server.push(reply(text("ok")))
    await session.submit("summarize @demo:note://hello please", typed=True)
    sent = _sent(server)
    assert 'ReadMcpResourceTool was called with {"server": "demo", "uri": "note://hello"}' in sent[1]["text"]
    assert sent[2]["text"] == "hello from the demo server"


async def test_a_blocked_prompt_reads_nothing(server, make_session, tmp_path):
    """UserPromptSubmit hooks run before the mentions are read."""
    secret = tmp_path / "big.txt"
    secret.write_text("payload\n")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}))
    session, events = make_session([ReadTool()], trust_project=True)
    outcome = await session.submit("read @big.txt", typed=True)
    assert outcome.stop_reason == "blocked" and server.message_requests == []
    from jupyter_agent.core.events import ToolCallStarted

    assert not events.of(ToolCallStarted)


@pytest.mark.parametrize("words", ["@missing.txt", "email me@home.org"])
async def test_nothing_to_attach_sends_the_prompt_alone(server, make_session, words):
    session, _ = make_session([ReadTool()], load_settings=False)
    server.push(reply(text("ok")))
    await session.submit(words, typed=True)
    assert _sent(server) == [{"type": "text", "text": words}]


async def test_run_tool_use_still_needs_a_read_before_an_edit(tmp_path):
    """The control: without the mention the Edit of an unread file is refused."""
    from tests.support.tools import make_context

    app = tmp_path / "app.py"
    app.write_text("x = 41\n")
    ctx = make_context([EditTool()], tmp_path)

    async def allow(*_a):
        from jupyter_agent.core.permission_types import PermissionAllow

        return PermissionAllow()

    out = await run_tool_use(ToolUseRequest("e", "Edit", {"file_path": str(app), "old_string": "41",
                                                          "new_string": "42"}), ctx, allow)
    assert out.is_error and "read" in out.text.lower()


async def test_a_prompt_the_agent_sent_itself_reads_nothing(server, make_session, tmp_path, tmp_path_factory):
    """A scheduled job's prompt (the model wrote it with CronCreate) or a teammate's message is
    not the user typing: its @ mentions and /mcp__ commands stay text, so a job cannot read a
    file outside the project without the question a Read would ask."""
    secret = tmp_path_factory.mktemp("elsewhere") / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    session, _ = make_session([ReadTool()], load_settings=False)
    server.push(reply(text("ok")), reply(text("ok")))
    await session.submit(f"every hour: summarize @{secret}")  # as the scheduler submits
    await session.submit("/mcp__demo__standup")
    assert _sent(server) == [{"type": "text", "text": f"every hour: summarize @{secret}"}]
    assert server.message_requests[1].messages[-1]["content"][0]["text"] == "/mcp__demo__standup"


async def test_prompt_notes_go_along_with_a_typed_prompt_and_a_failing_one_is_left_out(server, make_session):
    """``session.prompt_notes`` (the magics add the notebooks open in JupyterLab) are asked as a
    typed prompt's turn starts; one that fails does not stop the turn; an untyped prompt (a
    scheduled job, a teammate's message) gets none."""
    session, _ = make_session(load_settings=False)
    calls: list[str] = []

    async def open_note() -> str:
        calls.append("asked")
        return f"<system-reminder>\nAlso open in JupyterLab: other.ipynb (asked {len(calls)})\n</system-reminder>"

    async def broken() -> str:
        raise RuntimeError("the page is gone")

    async def nothing() -> str:
        return ""

    session.prompt_notes += [broken, open_note, nothing]
    server.push(reply(text("ok")), reply(text("ok again")))
    assert (await session.submit("fix the plot in the other notebook", typed=True)).text == "ok"
    sent = _sent(server)
    assert sent == [{"type": "text", "text": "fix the plot in the other notebook"},
                    {"type": "text", "text": "<system-reminder>\nAlso open in JupyterLab: other.ipynb (asked 1)"
                                             "\n</system-reminder>"}]
    assert (await session.submit("a scheduled job's prompt")).text == "ok again"
    assert calls == ["asked"]
    assert server.message_requests[1].messages[-1]["content"][-1]["text"] == "a scheduled job's prompt"
