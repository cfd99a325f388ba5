"""``CLAUDE_ENV_FILE``: SessionStart and CwdChanged command hooks leave variables for the Bash
commands that follow — in a whole session (scripted model, real hooks, real bash), and on the
runner alone."""

from __future__ import annotations

import json
import sys
import textwrap

from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.magics.reports import permissions_text
from jupyter_agent.permissions.hook_env import HookEnvironment
from jupyter_agent.permissions.hooks import HookRunner
from jupyter_agent.permissions.hooks_config import parse_hooks
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool
from tests.permissions.tools import decide_bash, make_ctx

from .history_check import result_text, tool_results


async def approve_all(tool, input, context, assistant_message, tool_use_id=None):
    return PermissionAllow()


def write_hooks(folder, hooks):
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def command(text: str) -> dict:
    return {"type": "command", "command": text}


def script(folder, name: str, body: str) -> str:
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport json, os, sys\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


def results(server, request: int) -> list[str]:
    return [result_text(r).strip() for r in tool_results(server.message_requests[request].messages[-1])]


async def test_a_session_start_hook_sets_unsets_and_extends_path_for_every_command(server, make_session, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("JA_DROP_ME", "still here")
    lines = ["export JA_FOO='from the hook'", "JA_PLAIN=assigned", 'export PATH="/opt/ja-tools:$PATH"',
             "unset JA_DROP_ME"]
    writes = "; ".join(f"echo {json.dumps(line)} >> \"$CLAUDE_ENV_FILE\"" for line in lines)
    write_hooks(tmp_path, {"SessionStart": [{"matcher": "startup", "hooks": [command(writes)]}]})
    probe = 'echo "$JA_FOO|$JA_PLAIN|${JA_DROP_ME-gone}"; echo "$PATH"'
    server.push(reply(tool_use("Bash", {"command": probe}, id="b1")), reply(tool_use("Bash", {"command": probe}, id="b2")),
                reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("show the variables")
    for request in (1, 2):  # every command, not only the first
        [out] = results(server, request)
        values, path = out.splitlines()
        assert values == "from the hook|assigned|gone"
        assert path.startswith("/opt/ja-tools:") and len(path) > len("/opt/ja-tools:")
    env_dir = session.context.session_dir / ".claude" / "session-env"
    assert [p.name for p in env_dir.iterdir()] == ["sessionstart-hook-1.sh"]
    assert ("Environment for Bash from hooks (CLAUDE_ENV_FILE; -: unset): "
            "JA_FOO, JA_PLAIN, PATH, -JA_DROP_ME") in permissions_text(session)


async def test_what_would_change_how_bash_reads_a_line_is_not_carried_over(server, make_session, tmp_path):
    """Functions, exported functions, BASH_ENV and CDPATH from the file never reach a command:
    the permission check read ``ls`` as the program ls."""
    lines = ["ls() { echo hijacked; }", "export -f ls", "export BASH_ENV=/tmp/ja-evil.sh", "export CDPATH=/",
             "export JA_KEPT=yes"]
    writes = "; ".join(f"echo {json.dumps(line)} >> \"$CLAUDE_ENV_FILE\"" for line in lines)
    write_hooks(tmp_path, {"SessionStart": [{"hooks": [command(writes)]}]})
    server.push(reply(tool_use("Bash", {"command": 'type -t ls; echo "[$BASH_ENV][$CDPATH][$JA_KEPT]"'}, id="b1")),
                reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("go")
    [out] = results(server, 1)
    assert out.splitlines() == ["file", "[][][yes]"]


async def test_cwd_changed_hooks_run_in_the_directory_entered_and_set_its_variables(server, make_session, tmp_path):
    """A direnv-like hook: it runs in the folder ``cd`` went to (and says so in ``cwd``), and
    what it sets holds there only."""
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
    hook = script(tmp_path, "direnv_like.py", """
        event = json.load(sys.stdin)
        assert event["cwd"] == os.getcwd() == event["new_cwd"], (event, os.getcwd())
        if os.getcwd().endswith("/one"):
            with open(os.environ["CLAUDE_ENV_FILE"], "a") as f:
                f.write("export JA_WHERE=$PWD\\n")
    """)
    seen = tmp_path / "pre.txt"
    write_hooks(tmp_path, {"CwdChanged": [{"hooks": [command(hook)]}],
                           "PreToolUse": [{"hooks": [command(f'pwd >> "{seen}"')]}]})
    probe = 'echo "[${JA_WHERE-none}]"'
    server.push(reply(tool_use("Bash", {"command": "cd one"}, id="b1")),
                reply(tool_use("Bash", {"command": probe}, id="b2")),
                reply(tool_use("Bash", {"command": "cd ../two"}, id="b3")),
                reply(tool_use("Bash", {"command": probe}, id="b4")), reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("move around")
    assert results(server, 2) == [f"[{tmp_path / 'one'}]"]
    assert results(server, 4) == ["[none]"]  # the variables of the folder left behind are dropped
    assert seen.read_text().split() == [str(tmp_path), str(tmp_path / "one"), str(tmp_path / "one"),
                                        str(tmp_path / "two")]


def _runner(tmp_path, hooks: dict) -> HookRunner:
    runner = HookRunner(parse_hooks(hooks, tmp_path / "settings.json", "userSettings"), cwd=tmp_path)
    runner.env_files = HookEnvironment(tmp_path / "session" / ".claude" / "session-env")
    return runner


async def test_a_compact_hook_does_not_drop_what_the_startup_hook_set(tmp_path, monkeypatch):
    monkeypatch.setenv("PS1", "$ ")  # bash drops it outside an interactive shell: that is not the file's doing
    runner = _runner(tmp_path, {"SessionStart": [
        {"matcher": "startup", "hooks": [command("echo 'export JA_A=1' >> \"$CLAUDE_ENV_FILE\"")]},
        {"matcher": "compact", "hooks": [command("echo 'export JA_B=2' >> \"$CLAUDE_ENV_FILE\"")]},
    ]})
    await runner.run("SessionStart", {"source": "startup"})
    assert runner.env_files.overlay() == ({"JA_A": "1"}, frozenset())
    await runner.run("SessionStart", {"source": "compact"})
    assert runner.env_files.overlay() == ({"JA_A": "1", "JA_B": "2"}, frozenset())
    await runner.run("SessionStart", {"source": "startup"})  # the startup hook's file is rewritten, not added to
    assert runner.env_files.overlay()[0] == {"JA_A": "1", "JA_B": "2"}


async def test_a_cwd_changed_hook_extends_the_path_the_session_start_hook_set(tmp_path):
    runner = _runner(tmp_path, {
        "SessionStart": [{"hooks": [command("echo 'export PATH=\"/opt/ja-a:$PATH\"' >> \"$CLAUDE_ENV_FILE\"")]}],
        "CwdChanged": [{"hooks": [command("echo 'export PATH=\"/opt/ja-b:$PATH\"' >> \"$CLAUDE_ENV_FILE\"")]}],
    })
    await runner.run("SessionStart", {"source": "startup"})
    await runner.run("CwdChanged", {"old_cwd": "/x", "new_cwd": "/y"})
    path = runner.env_files.overlay()[0]["PATH"]
    assert path.startswith("/opt/ja-b:/opt/ja-a:") and path.count("/opt/ja-a") == 1


async def test_only_session_start_and_cwd_changed_hooks_get_a_file(tmp_path):
    seen = tmp_path / "seen.txt"
    hook = command(f'printf "[%s]" "${{CLAUDE_ENV_FILE-unset}}" >> "{seen}"')
    runner = _runner(tmp_path, {event: [{"hooks": [hook]}] for event in ("PreToolUse", "Stop", "SessionStart")})
    await runner.run("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    await runner.run("Stop", {})
    await runner.run("SessionStart", {"source": "startup"})
    assert seen.read_text() == f"[unset][unset][{runner.env_files.folder}/sessionstart-hook-1.sh]"


async def test_a_file_bash_cannot_read_is_reported_and_what_came_before_is_kept(tmp_path):
    notices: list[str] = []
    runner = _runner(tmp_path, {"SessionStart": [{"hooks": [
        command("printf 'export JA_OK=1\\nif then\\n' >> \"$CLAUDE_ENV_FILE\"")]}]})
    runner.on_notice = notices.append
    await runner.run("SessionStart", {"source": "startup"})
    assert runner.env_files.overlay() == ({"JA_OK": "1"}, frozenset())
    assert len(notices) == 1 and "CLAUDE_ENV_FILE" in notices[0] and "syntax error" in notices[0]


async def test_the_env_files_are_protected_from_the_agent(tmp_path):
    """Every Bash command reads them: a write there asks in every mode, acceptEdits included."""
    project = tmp_path / "project"
    project.mkdir()
    env_file = tmp_path / "sessions" / "s1" / ".claude" / "session-env" / "sessionstart-hook-1.sh"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("export JA_A=1\n")
    for mode in ("acceptEdits", "bypassPermissions"):
        ctx = make_ctx(project, mode=mode, additional=(tmp_path / "sessions",))
        decision = await decide_bash(ctx, f"echo 'ls() {{ rm -rf ~; }}' >> {env_file}")
        assert decision.behavior == "ask" and ".claude" in decision.message


async def test_a_link_planted_in_place_of_an_env_file_is_not_followed(tmp_path):
    runner = _runner(tmp_path, {"SessionStart": [{"hooks": [
        command("echo 'export JA_A=1' >> \"${CLAUDE_ENV_FILE:-/dev/null}\"; echo ran")]}]})
    runner.env_files.folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("export JA_FROM_VICTIM=1\n")
    (runner.env_files.folder / "sessionstart-hook-1.sh").symlink_to(victim)
    notices: list[str] = []
    runner.on_notice = notices.append
    outcome = await runner.run("SessionStart", {"source": "startup"})
    assert outcome.additional_context == ("ran",) and not outcome.errors and notices == []
    assert victim.read_text() == "export JA_FROM_VICTIM=1\n"  # not written through, not read either
    assert runner.env_files.overlay() == ({}, frozenset())
