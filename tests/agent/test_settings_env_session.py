"""A session applies the settings files' ``env`` block: Bash commands and hook commands see it,
``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY`` there point the model client, ``%agent
--permissions`` names the variables (not their values), and an untrusted folder's block waits
until the folder is trusted."""

from __future__ import annotations

import json

from jupyter_agent.magics.reports import permissions_text
from jupyter_agent.testing import reply, tool_use
from jupyter_agent.tools.bash import BashTool

from .history_check import result_text, tool_results


def write_settings(folder, data, name="settings.json"):
    (folder / ".claude").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / name).write_text(json.dumps(data))


async def approve_all(tool, input, context, assistant_message, tool_use_id=None):
    from jupyter_agent.core.permission_types import PermissionAllow

    return PermissionAllow()


async def test_commands_and_hooks_see_the_variables_and_the_report_names_them(server, make_session, tmp_path):
    seen = tmp_path / "hook-saw.txt"
    hook = {"type": "command", "command": f'printf %s "$JA_TEAM_TOKEN" > "{seen}"'}
    write_settings(tmp_path, {"env": {"JA_TEAM_TOKEN": "s3cret-value", "JA_REGION": "eu"},
                              "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
                              "allowedHttpHookUrls": ["https://hooks.example.com/*"], "httpHookAllowedEnvVars": []})
    server.push(reply(tool_use("Bash", {"command": 'echo "token=$JA_TEAM_TOKEN region=$JA_REGION"'}, id="b1")),
                reply("done"))
    session, _ = make_session([BashTool()], can_use_tool=approve_all, trust_project=True)
    await session.submit("show the variables")
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result_text(result).strip() == "token=s3cret-value region=eu"
    assert seen.read_text() == "s3cret-value"
    report = permissions_text(session)
    assert "Environment from the settings files (env): JA_TEAM_TOKEN, JA_REGION" in report
    assert "s3cret-value" not in report
    assert "HTTP hooks may call only (allowedHttpHookUrls): https://hooks.example.com/*" in report
    assert "HTTP hooks may fill in only (httpHookAllowedEnvVars): none" in report


async def test_an_untrusted_folder_holds_its_variables_back(server, make_session, tmp_path, monkeypatch):
    monkeypatch.delenv("JA_TEAM_TOKEN", raising=False)
    write_settings(tmp_path, {"env": {"JA_TEAM_TOKEN": "from-the-repo"}})
    server.push(reply(tool_use("Bash", {"command": 'echo "token=[$JA_TEAM_TOKEN]"'}, id="b1")), reply("done"))
    asked = []

    async def refuse_trust(tool, input, context, assistant_message, tool_use_id=None):
        from jupyter_agent.core.permission_types import PermissionDeny

        asked.append(tool.name)
        if tool.name == "TrustFolder":
            return PermissionDeny(message="not now")
        return await approve_all(tool, input, context, assistant_message, tool_use_id)

    session, _ = make_session([BashTool()], can_use_tool=refuse_trust)
    await session.submit("show the variable")
    assert asked[0] == "TrustFolder"
    [result] = tool_results(server.message_requests[1].messages[-1])
    assert result_text(result).strip() == "token=[]"
    report = permissions_text(session)
    assert "Held back until you trust this folder: .claude/settings.json: env JA_TEAM_TOKEN" in report
    assert "Environment from the settings files" not in report


async def test_the_model_client_takes_its_address_and_key_from_the_env_block(server, make_session, tmp_path):
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "settings.json").write_text(json.dumps(
        {"env": {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "key-from-settings"}}))
    server.push(reply("hello"))
    session, _ = make_session(base_url=None, api_key=None)
    outcome = await session.submit("hi")
    assert outcome.error is None
    [request] = server.message_requests
    sent = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert sent.removeprefix("Bearer ") == "key-from-settings"
