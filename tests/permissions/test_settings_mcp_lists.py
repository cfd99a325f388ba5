"""``allowedMcpServers`` / ``deniedMcpServers`` in the user, project and local files: validated
(errors name the file), kept per file, the project's allow list held back until trusted."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.errors import AgentConfigError
from jupyter_agent.mcp.config import McpServerEntry, StdioServerConfig
from jupyter_agent.mcp.policy import load_mcp_policy
from jupyter_agent.permissions.settings import load_settings


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _stdio(name):
    return McpServerEntry(name, StdioServerConfig(command="srv"), "user")


def test_each_file_keeps_its_lists_and_an_untrusted_project_only_restricts(world, managed_policy):
    _write(world.home / ".claude" / "settings.json", {"allowedMcpServers": [{"serverName": "mine"}],
                                                      "env": {"V": "1"}})
    _write(world.project / ".claude" / "settings.json", {
        "allowedMcpServers": [{"serverName": "theirs"}], "deniedMcpServers": [{"serverName": "mine"}]})
    untrusted = load_settings(world.project, home=world.home, trusted=False)
    assert [(f.allowed is not None, len(f.denied)) for f in untrusted.mcp_lists] == [(True, 0), (False, 1)]
    assert untrusted.mcp_lists[0].env == (("V", "1"),)  # the user's env: deny entries may use it
    assert untrusted.held_back == (".claude/settings.json: allowedMcpServers theirs",)
    policy = load_mcp_policy(files=untrusted.mcp_lists)
    assert "deniedMcpServers" in policy.refusal(_stdio("mine"))  # the project can still block one
    assert "allowedMcpServers" in policy.refusal(_stdio("theirs"))  # but not add one yet
    trusted = load_mcp_policy(files=load_settings(world.project, home=world.home, trusted=True).mcp_lists)
    assert trusted.refusal(_stdio("theirs")) is None


@pytest.mark.parametrize(("lists", "message"), [
    ({"allowedMcpServers": {"serverName": "x"}}, "must list objects"),
    ({"deniedMcpServers": [{"serverName": "x", "serverUrl": "https://x"}]}, "one key each"),
    ({"deniedMcpServers": [{"serverCommand": "npx pkg"}]}, "serverCommand must be a non-empty list"),
    ({"allowedMcpServers": [{"serverUrl": ""}]}, "serverUrl must be a non-empty string"),
    ({"allowedMcpServers": [{"serverName": "claude.ai Slack"}]}, "serverName 'claude.ai Slack' may only use"),
])
def test_a_malformed_list_is_an_error_naming_the_file(world, managed_policy, lists, message):
    path = world.home / ".claude" / "settings.json"
    _write(path, lists)
    with pytest.raises(AgentConfigError) as err:
        load_settings(world.project, home=world.home)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_deny_entry_may_name_any_server_label(world, managed_policy):
    _write(world.home / ".claude" / "settings.json", {"deniedMcpServers": [{"serverName": "claude.ai Slack"}]})
    [lists] = load_settings(world.project, home=world.home).mcp_lists
    assert lists.denied[0].value == "claude.ai Slack"
