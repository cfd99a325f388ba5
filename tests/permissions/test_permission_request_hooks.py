"""PermissionRequest hooks answer an ask in the user's place, and Notification hooks hear about
the questions that still reach the user: real command hooks through run_tool_use."""

from __future__ import annotations

import asyncio
import json

import pytest

from jupyter_agent.agent.approval import session_approver
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from tests.permissions.test_hooks import _script, _setup
from tests.permissions.tools import EditLike


def _answer(behavior: str | None, **extra) -> str:
    decision = {"behavior": behavior, **extra} if behavior else None
    out = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", **({"decision": decision} if decision else {})}}
    return f"d = json.load(sys.stdin)\nopen(sys.argv[0] + '.seen', 'a').write(json.dumps(d) + '\\n')\nprint(json.dumps({out!r}))\n"


def _request(script: str, matcher: str = "Bash") -> dict:
    return {"PermissionRequest": [{"matcher": matcher, "hooks": [{"type": "command", "command": script}]}]}


def _seen(script: str) -> list[dict]:
    try:
        with open(script + ".seen") as f:
            return [json.loads(line) for line in f]
    except FileNotFoundError:
        return []


async def _bash(ctx, command, approve):
    return await run_tool_use(ToolUseRequest("t1", "Bash", {"command": command}), ctx, approve)


async def test_a_deny_answers_for_the_user(world, approve):
    hook = _script(world.root, "deny.py", _answer("deny", message="No installs from the notebook."))
    tool, ctx = _setup(world, _request(hook))
    outcome = await _bash(ctx, "pip install requests", approve)
    assert outcome.is_error and "No installs from the notebook." in outcome.text
    assert approve.asks == [] and tool.calls == []
    [payload] = _seen(hook)
    assert payload["hook_event_name"] == "PermissionRequest" and payload["tool_input"] == {"command": "pip install requests"}
    assert payload["permission_suggestions"][0]["rules"] == ["Bash(pip install:*)"]


async def test_an_allow_answers_for_the_user_but_never_where_no_hook_may(world, approve):
    hook = _script(world.root, "allow.py", _answer("allow"))
    tool, ctx = _setup(world, _request(hook), ask=("Bash(git push:*)",))
    outcome = await _bash(ctx, "pip install requests", approve)
    assert not outcome.is_error and tool.calls == ["pip install requests"] and approve.asks == []
    await _bash(ctx, "git push origin main", approve)  # an ask rule: the user still decides
    assert [name for name, _ in approve.asks] == ["Bash"]
    assert (await _bash(ctx, "ls", approve)).is_error is False  # read-only: no ask, no hook
    assert len(_seen(hook)) == 2


async def test_a_protected_path_still_asks(world, approve):
    hook = _script(world.root, "allow.py", _answer("allow"))
    _tool, ctx = _setup(world, _request(hook, "Edit"), tool=EditLike())
    request = ToolUseRequest("t1", "Edit", {"file_path": str(world.project / ".claude" / "settings.json"), "content": "{}"})
    await run_tool_use(request, ctx, approve)
    assert [name for name, _ in approve.asks] == ["Edit"]


async def test_a_rewritten_input_is_checked_against_the_deny_rules_again(world, approve):
    rewrite = _script(world.root, "rewrite.py", _answer("allow", updatedInput={"command": "rm -rf build"}))
    tool, ctx = _setup(world, _request(rewrite), deny=("Bash(rm:*)",))
    outcome = await _bash(ctx, "make clean", approve)
    assert outcome.is_error and "Bash(rm:*)" in outcome.text and tool.calls == []
    safer = _script(world.root, "safer.py", _answer("allow", updatedInput={"command": "make -n clean"}))
    tool, ctx = _setup(world, _request(safer), deny=("Bash(rm:*)",))
    assert not (await _bash(ctx, "make clean", approve)).is_error
    assert tool.calls == ["make -n clean"] and approve.asks == []


async def test_no_answer_leaves_it_to_the_user_who_is_notified(world, approve):
    quiet = _script(world.root, "quiet.py", _answer(None))
    notify = _script(world.root, "notify.py", _answer(None))
    hooks = {**_request(quiet), "Notification": [{"matcher": "permission_prompt",
                                                    "hooks": [{"type": "command", "command": notify}]}]}
    tool, ctx = _setup(world, hooks)
    asking = session_approver(lambda: approve, lambda: None)  # a session's approver notifies
    assert not (await _bash(ctx, "pip install requests", asking)).is_error
    assert [name for name, _ in approve.asks] == ["Bash"] and tool.calls == ["pip install requests"]
    for _ in range(400):  # the notification runs beside the question, not before it
        if _seen(notify):
            break
        await asyncio.sleep(0.05)
    [note] = _seen(notify)
    assert note["notification_type"] == "permission_prompt" and note["message"] == "Claude needs your permission to use Bash"


@pytest.mark.parametrize("body", ["sys.exit(2)\n", "print('{broken')\n", "sys.exit(1)\n"])
async def test_a_blocking_or_broken_hook(world, approve, body):
    hook = _script(world.root, "h.py", "json.load(sys.stdin)\n" + body)
    tool, ctx = _setup(world, _request(hook))
    outcome = await _bash(ctx, "pip install requests", approve)
    if "exit(2)" in body:  # a block is a deny
        assert outcome.is_error and approve.asks == [] and tool.calls == []
    else:  # an error leaves the question to the user
        assert [name for name, _ in approve.asks] == ["Bash"]
