"""Prompt hooks in a whole session: the scripted model server answers both the turn and the
hook's question, through the real SDK."""

from __future__ import annotations

import asyncio
import json

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.permissions.hook_remote import PROMPT_SYSTEM
from jupyter_agent.tasklist import task_store_for
from jupyter_agent.testing import fault_status, reply, text, tool_use
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.task_create import TaskCreateTool
from jupyter_agent.tools.task_update import TaskUpdateTool

from .history_check import result_text, tool_results


def _session_hooks(tmp_path, hooks):
    (tmp_path / ".claude").mkdir(exist_ok=True)
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


async def test_a_prompt_hook_asks_the_sessions_model_and_blocks_a_tool(server, make_session, tmp_path):
    _session_hooks(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "Refuse anything that deletes files. Event: $ARGUMENTS", "model": "haiku"}]}]})
    (tmp_path / "keep.txt").write_text("x")
    server.push(
        reply(tool_use("Bash", {"command": "rm keep.txt"}, id="b1")),
        reply(text('{"ok": false, "reason": "Deleting files is not allowed here; move them to trash/."}')),
        reply(text("Understood.")),
    )
    session, _events = make_session([BashTool()], trust_project=True)
    outcome = await session.submit("tidy up")
    assert outcome.stop_reason == "end_turn" and (tmp_path / "keep.txt").exists()
    hook_request = server.message_requests[1]
    assert hook_request.body["model"] == "claude-haiku-5-5" and hook_request.body["system"] == PROMPT_SYSTEM
    asked = hook_request.messages[0]["content"]
    assert asked.startswith("Refuse anything that deletes files. Event: {") and '"command": "rm keep.txt"' in asked
    results = [b for b in server.message_requests[2].messages[-1]["content"] if b.get("type") == "tool_result"]
    assert results[0]["is_error"] and "move them to trash/" in json.dumps(results[0]["content"])


async def test_a_stop_prompt_hook_sends_the_agent_back_to_work(server, make_session, tmp_path):
    _session_hooks(tmp_path, {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did it run the tests?"}]}]})
    server.push(
        reply(text("All done.")),
        reply(text('{"ok": false, "reason": "You have not run the tests yet."}')),
        reply(text("Tests pass now.")),
        reply(text('{"ok": true}')),
    )
    session, _events = make_session([], trust_project=True)
    outcome = await session.submit("fix it")
    assert outcome.stop_reason == "end_turn"
    assert server.message_requests[1].body["model"] == session.config.model  # no small model configured
    assert "Did it run the tests?\n\nThe event:\n{" in server.message_requests[1].messages[0]["content"]
    follow_up = json.dumps(server.message_requests[2].messages[-1])
    assert "You have not run the tests yet." in follow_up
    assert len(server.message_requests) == 4


async def test_a_prompt_hook_whose_model_fails_is_reported_not_fatal(server, make_session, tmp_path):
    _session_hooks(tmp_path, {"UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "Is this safe?"}]}]})
    server.push(reply(text("no JSON here")), reply(text("Hello.")))
    session, events = make_session([], trust_project=True)
    outcome = await session.submit("hi")
    assert outcome.stop_reason == "end_turn"
    assert any("did not answer" in e.message for e in events.of(AgentErrorEvent))


async def test_compaction_hooks(server, make_session, tmp_path):
    """PreCompact and PostCompact run around a compaction (PostCompact sees the summary); the
    MCP elicitation events in the same settings are events here too (no notice about them)."""
    log = tmp_path / "compact.log"
    record = f"python3 -c \"import sys; open({str(log)!r}, 'a').write(sys.stdin.read() + chr(10))\""
    _session_hooks(tmp_path, {
        "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": record}]}],
        "PostCompact": [{"hooks": [{"type": "command", "command": record}]}],
        "ElicitationResult": [{"hooks": [{"type": "command", "command": "true"}]}],
        "Elicitation": [{"hooks": [{"type": "command", "command": "true"}]}],
    })
    session, events = make_session([], trust_project=True, keep_recent_turns=1)
    for i in range(3):
        server.push(reply(text(f"answer {i}")))
        await session.submit(f"question {i}")
    server.push(reply(text("SUMMARY: three questions.")))
    await session.compact()
    pre, post = (json.loads(line) for line in log.read_text().splitlines())
    assert (pre["hook_event_name"], pre["trigger"]) == ("PreCompact", "manual")
    assert (post["hook_event_name"], post["compact_summary"]) == ("PostCompact", "SUMMARY: three questions.")
    notices = [e.message for e in events.of(AgentErrorEvent) if e.kind == "settings"]
    assert notices == []


def _recorder(tmp_path, name):
    log = tmp_path / f"{name}.log"
    return f"python3 -c \"import sys; open({str(log)!r}, 'a').write(sys.stdin.read() + chr(10))\"", log


async def test_stop_failure_once_and_async_hooks(server, make_session, tmp_path):
    failure, failure_log = _recorder(tmp_path, "failure")
    stop, stop_log = _recorder(tmp_path, "stop")
    once, once_log = _recorder(tmp_path, "once")
    late, gate = tmp_path / "late.txt", tmp_path / "gate"
    # It finishes only once the test opens the gate (or after 20 s): would block, if it were waited for.
    slow = (f"i=0; while [ ! -e {gate} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
            f"echo late > {late}; echo no >&2; exit 2")
    _session_hooks(tmp_path, {
        "StopFailure": [{"hooks": [{"type": "command", "command": failure}]}],
        "Stop": [{"hooks": [{"type": "command", "command": stop}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": once, "once": True},
                                        {"type": "command", "command": slow, "async": True}]}],
    })
    session, _events = make_session([], trust_project=True)
    server.push(reply(text("First answer.")))
    outcome = await session.submit("one")
    assert outcome.stop_reason == "end_turn" and not late.exists()  # the async hook did not hold the turn
    gate.touch()
    [stopped] = [json.loads(line) for line in stop_log.read_text().splitlines()]
    assert stopped["last_assistant_message"] == "First answer."
    server.push(fault_status(401))
    outcome = await session.submit("two")
    assert outcome.stop_reason == "error" and not stop_log.read_text().count("\n") > 1  # no Stop for a failure
    [failed] = [json.loads(line) for line in failure_log.read_text().splitlines()]
    assert failed["hook_event_name"] == "StopFailure" and failed["error"]
    assert len(once_log.read_text().splitlines()) == 1  # "once": the first prompt only
    for _ in range(400):
        if late.exists():
            break
        await asyncio.sleep(0.05)
    assert late.read_text().strip() == "late"  # it did run, in the background


async def test_task_hooks_can_refuse_a_task_and_keep_one_open(server, make_session, tmp_path):
    no_deploys = ("python3 -c \"import json,sys; d=json.load(sys.stdin); "
                  "sys.exit(print('No deploy tasks here.', file=sys.stderr) or 2) if 'deploy' in d['task_subject'] else 0\"")
    tests_first = (f"python3 -c \"import os,sys; sys.exit(0 if os.path.exists({str(tmp_path / 'passed')!r}) "
                   "else print('Run the tests before closing a task.', file=sys.stderr) or 2)\"")
    _session_hooks(tmp_path, {"TaskCreated": [{"hooks": [{"type": "command", "command": no_deploys}]}],
                              "TaskCompleted": [{"hooks": [{"type": "command", "command": tests_first}]}]})
    server.push(
        reply(tool_use("TaskCreate", {"subject": "Fix the parser", "description": "d"}, id="c1"),
              tool_use("TaskCreate", {"subject": "deploy to prod", "description": "d"}, id="c2")),
        reply(tool_use("TaskUpdate", {"taskId": "1", "status": "completed"}, id="u1")),
        reply(text("Done.")),
    )
    session, _events = make_session([TaskCreateTool(), TaskUpdateTool()], trust_project=True)
    await session.submit("plan it")
    created = {r["tool_use_id"]: r for r in tool_results(server.message_requests[1].messages[-1])}
    assert not created["c1"].get("is_error")
    assert created["c2"]["is_error"] and "No deploy tasks here." in result_text(created["c2"])
    [closing] = tool_results(server.message_requests[2].messages[-1])
    assert closing["is_error"] and "Run the tests before closing a task." in result_text(closing)
    tasks = (await task_store_for(session.context).list()).tasks
    assert [(t.subject, t.status) for t in tasks] == [("Fix the parser", "pending")]  # the refused one is gone
    (tmp_path / "passed").write_text("")
    server.push(reply(tool_use("TaskUpdate", {"taskId": "1", "status": "completed"})), reply(text("Closed.")))
    await session.submit("close it")
    assert [t.status for t in (await task_store_for(session.context).list()).tasks] == ["completed"]


async def test_instructions_loaded_names_each_memory_file_once(server, make_session, tmp_path):
    loaded, log = _recorder(tmp_path, "loaded")
    _session_hooks(tmp_path, {"InstructionsLoaded": [{"matcher": "session_start",
                                                      "hooks": [{"type": "command", "command": loaded}]}]})
    (tmp_path / "CLAUDE.md").write_text("Use pandas.\n")
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "CLAUDE.md").write_text("Be brief.\n")
    session, _events = make_session([], trust_project=True)
    for prompt in ("one", "two"):
        server.push(reply(text("ok")))
        await session.submit(prompt)
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(e["file_path"], e["memory_type"]) for e in seen] == [
        (str(tmp_path / "home" / ".claude" / "CLAUDE.md"), "User"), (str(tmp_path / "CLAUDE.md"), "Project")]
    assert "Use pandas." in json.dumps(server.message_requests[0].body["system"])


async def test_cwd_changed_hears_of_a_cd_that_stays(server, make_session, tmp_path):
    changed, log = _recorder(tmp_path, "cwd")
    _session_hooks(tmp_path, {"CwdChanged": [{"hooks": [{"type": "command", "command": changed}]}]})
    (tmp_path / "sub").mkdir()
    server.push(reply(tool_use("Bash", {"command": "cd sub"}, id="a"), tool_use("Bash", {"command": "pwd"}, id="b")),
                reply(text("ok")))
    session, _events = make_session([BashTool()], trust_project=True, mode="bypassPermissions")
    await session.submit("go into sub")
    [moved] = [json.loads(line) for line in log.read_text().splitlines()]  # `pwd` moved nowhere
    assert (moved["old_cwd"], moved["new_cwd"]) == (str(tmp_path), str(tmp_path / "sub"))


async def test_session_start_after_compaction_re_adds_context(server, make_session, tmp_path):
    reminder = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                  "additionalContext": "Reminder: the data is in UTF-16."}})
    (tmp_path / "hook.json").write_text(reminder)
    _session_hooks(tmp_path, {"SessionStart": [{"matcher": "compact", "hooks": [
        {"type": "command", "command": f"cat {tmp_path / 'hook.json'}"}]}]})
    session, _events = make_session([], trust_project=True, keep_recent_turns=1)
    for i in range(3):
        server.push(reply(text(f"answer {i}")))
        await session.submit(f"question {i}")
    assert "UTF-16" not in json.dumps(server.message_requests[0].messages)  # "startup" does not match
    server.push(reply(text("SUMMARY.")))
    await session.compact()
    server.push(reply(text("ok")))
    await session.submit("go on")
    first = server.message_requests[-1].messages[0]["content"]
    assert "SUMMARY." in first[0]["text"] and first[1]["text"] == "Reminder: the data is in UTF-16."
