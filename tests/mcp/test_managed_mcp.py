"""The administrator's MCP controls: ``allowedMcpServers`` / ``deniedMcpServers`` in the managed
settings and the exclusive ``managed-mcp.json``; a real demo server where one must start."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.mcp import McpManager
from jupyter_agent.mcp.config import HttpServerConfig, McpServerEntry, StdioServerConfig, load_mcp_config
from jupyter_agent.mcp.policy import McpPolicy, load_mcp_policy

from .conftest import demo_stdio_entry


@pytest.fixture
def policy(managed_policy):
    return managed_policy


def _settings(folder, **data):
    (folder / "managed-settings.json").write_text(json.dumps(data))


def _entry(name, command="srv", args=(), url=None, scope="user"):
    config = HttpServerConfig(url=url) if url else StdioServerConfig(command=command, args=tuple(args))
    return McpServerEntry(name, config, scope)


@pytest.mark.parametrize(("data", "entry", "refused"), [
    ({}, _entry("any"), None),
    ({"deniedMcpServers": [{"serverName": "evil"}]}, _entry("evil"), "deniedMcpServers"),
    ({"deniedMcpServers": [{"serverName": "evil"}]}, _entry("good"), None),
    ({"allowedMcpServers": []}, _entry("good"), "not in allowedMcpServers"),  # an empty list: none
    ({"allowedMcpServers": [{"serverName": "good"}]}, _entry("good"), None),
    ({"allowedMcpServers": [{"serverName": "good"}], "deniedMcpServers": [{"serverName": "good"}]},
     _entry("good"), "deniedMcpServers"),  # the deny list wins
    ({"allowedMcpServers": [{"serverCommand": ["npx", "-y", "pkg"]}]}, _entry("x", "npx", ["-y", "pkg"]), None),
    ({"allowedMcpServers": [{"serverCommand": ["npx", "-y", "pkg"]}]}, _entry("x", "npx", ["-y", "pkg", "--evil"]),
     "not in allowedMcpServers"),  # the exact command line
    ({"allowedMcpServers": [{"serverUrl": "https://*.corp.example/*"}]}, _entry("x", url="https://mcp.corp.example/v1"),
     None),
    ({"allowedMcpServers": [{"serverUrl": "https://*.corp.example/*"}]}, _entry("x", url="https://corp.example.evil/v1"),
     "not in allowedMcpServers"),
    ({"deniedMcpServers": [{"serverUrl": "http://*"}]}, _entry("x", url="http://plain/mcp"), "deniedMcpServers"),
])
def test_allowed_and_denied_servers(policy, data, entry, refused):
    _settings(policy, **data)
    reason = load_mcp_policy().refusal(entry)
    assert (reason is None) if refused is None else (refused in reason and repr(entry.name) in reason)


@pytest.mark.parametrize("text", ["{broken", json.dumps({"allowedMcpServers": "github"}),
                                  json.dumps({"deniedMcpServers": [{"serverName": "a", "serverUrl": "b"}]})])
def test_a_policy_that_cannot_be_read_starts_nothing(policy, text):
    (policy / "managed-settings.json").write_text(text)
    reason = load_mcp_policy().refusal(_entry("any"))
    assert reason is not None and "managed settings cannot be read" in reason


def test_managed_mcp_json_is_the_only_source(policy, tmp_path):
    (policy / "managed-mcp.json").write_text(json.dumps({"mcpServers": {"corp": {"command": "corp-mcp"}}}))
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "my-mcp"}}}))
    cfg = load_mcp_config(project, home=home, extra={"corp": {"command": "impostor"}, "py": {"command": "py"}})
    assert cfg.servers["corp"].scope == "managed" and cfg.servers["corp"].config.command == "corp-mcp"
    manager = McpManager.from_config(cfg)
    assert set(manager.connections) == {"corp"}
    assert sum("managed-mcp.json decides" in e for e in manager.config_errors) == 2  # mine, py
    assert manager.add_servers({"later": {"command": "x"}}) == [
        "MCP server 'later' was not started: the administrator's managed-mcp.json decides which MCP servers run"]
    assert "later" not in manager.connections


def test_an_empty_managed_mcp_json_runs_no_server(policy):
    (policy / "managed-mcp.json").write_text("{}")
    assert "managed-mcp.json decides" in load_mcp_policy().refusal(_entry("any"))


def test_pending_project_servers_the_policy_denies_are_not_offered(policy, tmp_path):
    _settings(policy, deniedMcpServers=[{"serverName": "shipped"}])
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"shipped": {"command": "x"}, "other": {"command": "y"}}}))
    manager = McpManager.from_config(load_mcp_config(tmp_path, home=tmp_path / "home"))
    assert set(manager.pending) == {"other"}
    assert any("'shipped' was not started: deniedMcpServers" in e for e in manager.config_errors)


async def test_an_allowed_server_really_starts_and_a_denied_one_never_runs(policy, tmp_path):
    _settings(policy, allowedMcpServers=[{"serverName": "demo"}, {"serverCommand": ["other-program"]}])
    pid_file = tmp_path / "denied.pid"
    manager = McpManager([demo_stdio_entry("demo"), demo_stdio_entry("other", pid_file=pid_file)],
                         log_dir=tmp_path / "logs")
    try:
        await manager.ensure_started()
        assert [c.name for c in manager.connected()] == ["demo"]
        assert "mcp__demo__add" in {t.name for t in manager.tools()}
        assert not pid_file.exists()  # the refused server was never started
        assert any("'other' was not started" in e for e in manager.config_errors)
    finally:
        await manager.aclose()


def test_no_policy_no_change():
    assert McpPolicy().refusal(_entry("x")) is None
