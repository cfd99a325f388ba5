"""Checkpoints on a real AgentSession: two scripted turns edit a file, then rewind them."""

from __future__ import annotations

from jupyter_agent.agent.session import AgentSession
from jupyter_agent.checkpoints import install_checkpoints, rewind_session
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool
from tests.checkpoints.support import approve, session_config


async def test_rewind_turns_of_a_session(tmp_path):
    app = tmp_path / "app.py"
    app.write_text("DEBUG = False\n")

    with ScriptedServer() as server:
        server.push(
            reply(tool_use("Read", {"file_path": str(app)})),
            reply(tool_use("Edit", {"file_path": str(app), "old_string": "False", "new_string": "True"})),
            reply(text("Debug is on.")),
            reply(tool_use("Write", {"file_path": str(tmp_path / "notes.md"), "content": "# notes\n"})),
            reply(text("Notes written.")),
        )
        config = session_config(server, tmp_path)
        session = AgentSession(config, can_use_tool=approve, tools=[ReadTool(), EditTool(), WriteTool()])
        store = install_checkpoints(session)
        try:
            assert (await session.submit("turn debug on")).stop_reason == "end_turn"
            assert (await session.submit("write notes")).stop_reason == "end_turn"
            assert app.read_text() == "DEBUG = True\n" and (tmp_path / "notes.md").exists()
            assert [len(t.files) for t in store.turns] == [1, 1]
            report = await rewind_session(session, 2)
        finally:
            await session.aclose()
    assert app.read_text() == "DEBUG = False\n"
    assert not (tmp_path / "notes.md").exists()
    assert [o.action for o in report.outcomes] == ["deleted", "restored"]
    assert store.turns == []


async def test_rewind_also_takes_the_conversation_back(tmp_path):
    """The model forgets the rewound turns: the next request and a resumed session have the
    history from before them."""
    from jupyter_agent.agent.events import Compacted

    app = tmp_path / "app.py"
    app.write_text("x = 1\n")

    with ScriptedServer() as server:
        server.push(
            reply(text("Hello.")),
            reply(tool_use("Read", {"file_path": str(app)})),
            reply(tool_use("Edit", {"file_path": str(app), "old_string": "x = 1", "new_string": "x = 2"})),
            reply(text("Edited.")),
            reply(text("Fresh start.")),
        )
        config = session_config(server, tmp_path)
        session = AgentSession(config, can_use_tool=approve, tools=[ReadTool(), EditTool()])
        store = install_checkpoints(session)
        try:
            await session.submit("say hello")
            before = [dict(m) for m in session.messages]
            await session.submit("set x to 2")
            assert app.read_text() == "x = 2\n" and len(session.messages) > len(before)
            report = await rewind_session(session, 1)
            assert app.read_text() == "x = 1\n"
            assert session.messages == before
            assert "back to before that turn" in report.conversation and report.conversation in report.summary()
            await session.submit("what now?")
            sent = server.message_requests[-1].messages
            assert "set x to 2" not in str(sent) and "say hello" in str(sent)
            resumed = AgentSession.resume(session.id, config, tools=[ReadTool(), EditTool()])
            assert resumed.messages == session.messages
            await resumed.aclose()
            # after a compaction the old positions mean nothing: files rewind, the conversation stays
            session.emit(Compacted(100, 10, "summary"))
            kept = list(session.messages)
            assert all(t.message_count is None for t in store.turns)
            report = await rewind_session(session, 1)
            assert session.messages == kept and "kept" in report.conversation
        finally:
            await session.aclose()


async def test_rewind_after_a_compaction_forgets_the_prompt_merged_into_the_summary(tmp_path):
    """After a compaction the history is one user message (the summary) and the next prompt is
    merged into it: rewinding that turn takes the prompt out of it too, here and when resumed."""
    with ScriptedServer() as server:
        server.push(
            reply(text("Hello.")),
            reply(text("The user said hello.")),  # the compaction's summary
            reply(text("Here is a secret plan.")),
            reply(text("Fresh.")),
        )
        config = session_config(server, tmp_path)
        session = AgentSession(config, can_use_tool=approve, tools=[ReadTool()])
        install_checkpoints(session)
        try:
            await session.submit("say hello")
            await session.compact()
            compacted = [dict(m) for m in session.messages]
            assert len(compacted) == 1 and compacted[0]["role"] == "user"
            await session.submit("make a secret plan")
            assert "make a secret plan" in str(session.messages[0])  # merged into the summary's message
            report = await rewind_session(session, 1)
            assert session.messages == compacted, session.messages
            assert report.summary().startswith("Rewound 1 turn.")
            assert "back to before that turn" in report.conversation
            resumed = AgentSession.resume(session.id, config, tools=[ReadTool()])
            assert resumed.messages == compacted
            await resumed.aclose()
            await session.submit("again")
            sent = str(server.message_requests[-1].messages)
            assert "secret plan" not in sent and "again" in sent and "The user said hello." in sent
        finally:
            await session.aclose()


async def test_a_resumed_session_rewinds_a_prompt_merged_into_a_stopped_turns_results(tmp_path):
    """When the history ends with a user message (a stopped turn's tool results; here a block
    recorded between turns) the next prompt is merged into it; the saved checkpoint remembers how
    many blocks it had, so a resumed session's rewind keeps those and drops the prompt."""
    from jupyter_agent.checkpoints.store import get_store

    with ScriptedServer() as server:
        server.push(reply(text("One.")), reply(text("Two.")))
        config = session_config(server, tmp_path)
        session = AgentSession(config, can_use_tool=approve, tools=[ReadTool()])
        install_checkpoints(session)
        await session.submit("first")
        session.record_user_blocks([{"type": "text", "text": "a note left by the user"}])
        before = [dict(m) for m in session.messages]
        await session.submit("second")
        await session.aclose()
        resumed = AgentSession.resume(session.id, config, can_use_tool=approve, tools=[ReadTool()])
        try:
            assert [t.tail_blocks for t in get_store(resumed.context.get_app_state()).turns] == [None, 1]
            await rewind_session(resumed, 1)
            assert resumed.messages == before
            again = AgentSession.resume(session.id, config, tools=[ReadTool()])
            assert again.messages == before
            await again.aclose()
        finally:
            await resumed.aclose()
