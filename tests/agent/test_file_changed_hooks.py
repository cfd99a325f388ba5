"""FileChanged hooks: watched files (the names a matcher lists, in the session's folder, and the
``watchPaths`` a SessionStart hook gives) looked at before every turn and every batch of tool
calls; with CLAUDE_ENV_FILE, a direnv-like ``.envrc`` reload (scripted model, real hooks, bash)."""

from __future__ import annotations

import json

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .history_check import result_text, tool_results


async def approve_all(tool, input, context, assistant_message, tool_use_id=None):
    return PermissionAllow()


def write_hooks(folder, hooks):
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def results(server, request: int) -> list[str]:
    return [result_text(r).strip() for r in tool_results(server.message_requests[request].messages[-1])]


async def test_an_envrc_created_changed_and_deleted_reloads_the_variables(server, make_session, tmp_path):
    log = tmp_path / "events.log"
    reload = (f"python3 -c \"import json, sys; e = json.load(sys.stdin); open({str(log)!r}, 'a').write("
              f"e['change_type'] + ' ' + e['event'] + ' ' + e['file_path'] + chr(10))\"; "
              '[ -f .envrc ] && cat .envrc >> "$CLAUDE_ENV_FILE"; true')
    write_hooks(tmp_path, {"FileChanged": [{"matcher": ".envrc|.env", "hooks": [{"type": "command", "command": reload}]}]})
    probe = 'echo "[${JA_MODE-unset}]"'
    server.push(reply(tool_use("Bash", {"command": "echo 'export JA_MODE=dev' > .envrc"}, id="b1")),
                reply(tool_use("Bash", {"command": probe}, id="b2")), reply("ok"))
    session, _events = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("make an envrc")
    assert results(server, 2) == ["[dev]"]  # the agent's own edit, seen before its next command
    (tmp_path / ".envrc").write_text("export JA_MODE=production-like\n")  # edited by you between prompts
    server.push(reply(tool_use("Bash", {"command": probe}, id="b3")), reply("ok"))
    await session.submit("again")
    assert results(server, 4) == ["[production-like]"]
    (tmp_path / ".envrc").unlink()
    server.push(reply(tool_use("Bash", {"command": probe}, id="b4")), reply("ok"))
    await session.submit("and again")
    assert results(server, 6) == ["[unset]"]
    envrc = tmp_path / ".envrc"
    assert log.read_text().splitlines() == [f"created add {envrc}", f"modified change {envrc}",
                                            f"deleted unlink {envrc}"]


async def test_watch_paths_from_a_session_start_hook_are_watched(server, make_session, tmp_path):
    data = tmp_path / "data" / "input.csv"
    data.parent.mkdir()
    data.write_text("a,b\n")
    log = tmp_path / "changed.log"
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": [str(data), "relative.txt"]}})
    write_hooks(tmp_path, {
        "SessionStart": [{"hooks": [{"type": "command", "command": f"echo '{answer}'"}]}],
        "FileChanged": [{"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}],
    })
    session, _events = make_session([], can_use_tool=approve_all, trust_project=True)
    server.push(reply("ok"))
    await session.submit("one")
    server.push(reply("ok"))
    await session.submit("two")  # watched from now on
    assert not log.exists()
    data.write_text("a,b\n1,2\n")
    server.push(reply("ok"))
    await session.submit("three")
    [event] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert (event["hook_event_name"], event["file_path"], event["change_type"]) == ("FileChanged", str(data), "modified")


async def test_a_file_of_another_folder_is_watched_from_when_the_session_gets_there(server, make_session, tmp_path):
    """After a ``cd``, the matcher's names are looked for in the new folder; finding a file there
    is no change (it existed before the session looked)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_text("X=1\n")
    log = tmp_path / "changed.log"
    write_hooks(tmp_path, {"FileChanged": [{"matcher": ".env", "hooks": [{"type": "command", "command": f"cat >> {log}"}]}]})
    server.push(reply(tool_use("Bash", {"command": "cd sub"}, id="b1")),
                reply(tool_use("Bash", {"command": "echo X=2 > .env"}, id="b2")),
                reply(tool_use("Bash", {"command": "true"}, id="b3")), reply("ok"))
    session, _events = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("go")
    events = [json.loads(x) for x in log.read_text().replace("}{", "}\n{").splitlines()]
    assert [(e["file_path"], e["change_type"]) for e in events] == [(str(tmp_path / "sub" / ".env"), "modified")]
