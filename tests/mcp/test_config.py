"""Loading MCP server configuration: .mcp.json, user settings, Python, env expansion, errors."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.mcp.config import (
    HttpServerConfig,
    McpConfigError,
    StdioServerConfig,
    config_to_json,
    expand_env,
    load_mcp_config,
    parse_server,
)


def test_project_user_and_python_sources_merge(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    (home / ".claude/settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {
        "shared": {"command": "user-cmd"}, "mine": {"type": "sse", "url": "http://h/sse"}}}))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "shared": {"command": "proj-cmd", "args": ["-v"], "env": {"K": "${TOKEN}"}},
        "api": {"type": "http", "url": "https://api/mcp", "headers": {"Authorization": "Bearer ${TOKEN:-none}"}}}}))
    cfg = load_mcp_config(project, home=home, extra={"py": {"command": "py-cmd"}}, environ={"TOKEN": "s3"})
    assert cfg.errors == []
    assert set(cfg.servers) == {"shared", "mine", "api", "py"}
    shared = cfg.servers["shared"]
    assert shared.scope == "project"
    assert shared.config == StdioServerConfig(command="proj-cmd", args=("-v",), env={"K": "s3"})
    assert cfg.servers["mine"].config == HttpServerConfig(url="http://h/sse", type="sse")
    assert cfg.servers["api"].config.headers == {"Authorization": "Bearer s3"}
    assert cfg.servers["py"].scope == "session"


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("bad name", {"command": "x"}, "may only use"),
        ("a", {"type": "ws", "url": "x"}, "unknown type 'ws'"),
        ("a", {"command": 3}, "command must be a string"),
        ("a", {"command": "x", "args": "-v"}, "args must be a list"),
        ("a", {"type": "http"}, "url must be a string"),
        ("a", {"command": "${NOPE}"}, "NOPE is not set"),
        ("a", ["x"], "expected an object"),
    ],
)
def test_bad_entries_are_clear_errors(name, raw, message):
    with pytest.raises(McpConfigError, match=message):
        parse_server(name, raw, environ={})


def test_broken_file_and_entry_reported_not_fatal(tmp_path):
    (tmp_path / ".mcp.json").write_text("{not json")
    cfg = load_mcp_config(tmp_path, home=tmp_path / "nohome")
    assert cfg.servers == {} and "cannot read MCP configuration" in cfg.errors[0]
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"ok": {"command": "x"}, "bad": {"type": "?"}}}))
    cfg = load_mcp_config(tmp_path, home=tmp_path / "nohome")
    assert list(cfg.pending) == ["ok"] and len(cfg.errors) == 1 and "bad" in cfg.errors[0]


def test_expand_env_and_round_trip():
    assert expand_env("a${X}b${Y:-dflt}", {"X": "1"}) == "a1bdflt"
    cfg = StdioServerConfig(command="c", args=("a",), env={"E": "1"}, cwd="/w")
    assert parse_server("n", config_to_json(cfg), {}) == cfg


def _project_with_servers(tmp_path):
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "a": {"command": "a-cmd"}, "b": {"command": "b-cmd"}, "c": {"command": "c-cmd"}}}))
    return project, home


def test_project_servers_need_approval(tmp_path):
    from jupyter_agent.mcp import McpManager
    from jupyter_agent.permissions.trust import trust_folder

    project, home = _project_with_servers(tmp_path)
    cfg = load_mcp_config(project, home=home)
    assert cfg.servers == {} and set(cfg.pending) == {"a", "b", "c"}
    # the committed project settings cannot approve the project's own servers
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    assert load_mcp_config(project, home=home).servers == {}
    (project / ".claude/settings.local.json").write_text(json.dumps(
        {"enabledMcpjsonServers": ["a"], "disabledMcpjsonServers": ["b"]}))
    # a cloned repository can ship settings.local.json too: its approvals wait for folder trust
    cfg = load_mcp_config(project, home=home)
    assert cfg.servers == {} and set(cfg.pending) == {"a", "c"}  # b's rejection counts anyway
    trust_folder(project, home)
    cfg = load_mcp_config(project, home=home)
    assert set(cfg.servers) == {"a"} and set(cfg.pending) == {"c"}
    manager = McpManager.from_config(cfg)
    assert [s.status for s in manager.status()] == ["pending", "needs-approval"]
    assert manager.approve(["c", "zzz"], project_dir=project) == ["c"]
    assert set(manager.connections) == {"a", "c"} and manager.pending == {}
    saved = json.loads((project / ".claude/settings.local.json").read_text())
    assert saved["enabledMcpjsonServers"] == ["a", "c"] and saved["disabledMcpjsonServers"] == ["b"]
    assert set(load_mcp_config(project, home=home).servers) == {"a", "c"}


def test_user_setting_enables_all_project_servers(tmp_path):
    project, home = _project_with_servers(tmp_path)
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    assert set(load_mcp_config(project, home=home).servers) == {"a", "b", "c"}


def test_mcp_option_from_json_or_file(tmp_path):
    from jupyter_agent.mcp import parse_mcp_option

    assert parse_mcp_option('{"calc": {"command": "c"}}', tmp_path) == {"calc": {"command": "c"}}
    (tmp_path / "servers.json").write_text('{"mcpServers": {"x": {"type": "http", "url": "http://h"}}}')
    assert parse_mcp_option("servers.json", tmp_path) == {"x": {"type": "http", "url": "http://h"}}
    for bad, words in [("{nope", "not valid JSON"), ("missing.json", "cannot read"), ('{"mcpServers": 1}', "must be an object")]:
        with pytest.raises(McpConfigError, match=words):
            parse_mcp_option(bad, tmp_path)
