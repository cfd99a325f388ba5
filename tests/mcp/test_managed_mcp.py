"""Which MCP servers may start: ``allowedMcpServers`` / ``deniedMcpServers`` (managed settings and
the user's, project's and local files), ``allowManagedMcpServersOnly``, the exclusive
``managed-mcp.json`` and ``managedMcpServers``; a real demo server where one must start."""

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
    ({"allowedMcpServers": []}, _entry("good"), "allowedMcpServers"),  # an empty list: none
    ({"allowedMcpServers": [{"serverName": "good"}]}, _entry("good"), None),
    ({"allowedMcpServers": [{"serverName": "good"}], "deniedMcpServers": [{"serverName": "good"}]},
     _entry("good"), "deniedMcpServers"),  # the deny list wins
    ({"allowedMcpServers": [{"serverCommand": ["npx", "-y", "pkg"]}]}, _entry("x", "npx", ["-y", "pkg"]), None),
    ({"allowedMcpServers": [{"serverCommand": ["npx", "-y", "pkg"]}]}, _entry("x", "npx", ["-y", "pkg", "--evil"]),
     "allowedMcpServers"),  # the exact command line
    ({"allowedMcpServers": [{"serverUrl": "https://*.corp.example/*"}]}, _entry("x", url="https://mcp.corp.example/v1"),
     None),
    ({"allowedMcpServers": [{"serverUrl": "https://*.corp.example/*"}]}, _entry("x", url="https://corp.example.evil/v1"),
     "allowedMcpServers"),
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
    assert any("'shipped' was not started: it matches deniedMcpServers" in e for e in manager.config_errors)


async def test_an_allowed_server_really_starts_and_a_denied_one_never_runs(policy, tmp_path):
    _settings(policy, allowedMcpServers=[{"serverName": "demo"}])  # no command entries: names count
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


def _http(name, url):
    return _entry(name, url=url)


# Claude Code's documented cases (managed-mcp docs, "How a server is evaluated"): a remote server
# must match a serverUrl entry and a stdio server a serverCommand entry once the allow list has
# one of that kind; serverName counts only for a kind with no such entries.
URLS = [{"serverUrl": "https://mcp.example.com/*"}, {"serverUrl": "https://*.internal.example.com/*"}]
COMMANDS = [{"serverCommand": ["npx", "-y", "approved-package"]}]
MIXED = [{"serverName": "github"}, {"serverCommand": ["npx", "-y", "approved-package"]}]
NAMES = [{"serverName": "github"}, {"serverName": "internal-tool"}]


@pytest.mark.parametrize(("allowed", "entry", "starts"), [
    (URLS, _http("a", "https://mcp.example.com/api"), True),
    (URLS, _http("a", "https://api.internal.example.com/mcp"), True),
    (URLS, _http("a", "https://external.example.com/mcp"), False),
    (URLS, _entry("github", "anything"), False),  # no name or command entries to match
    (COMMANDS, _entry("x", "npx", ["-y", "approved-package"]), True),
    (COMMANDS, _entry("x", "node", ["server.js"]), False),
    (COMMANDS, _http("my-api", "https://my.example/mcp"), False),  # no name entries
    (MIXED, _entry("local-tool", "npx", ["-y", "approved-package"]), True),
    (MIXED, _entry("local-tool", "node", ["server.js"]), False),
    (MIXED, _entry("github", "node", ["server.js"]), False),  # stdio must match a command now
    (MIXED, _http("github", "https://anything.example/mcp"), True),  # no URL entries: the name
    (MIXED, _http("other-api", "https://anything.example/mcp"), False),
    (NAMES, _entry("github", "any-command"), True),
    (NAMES, _entry("internal-tool", "any-command"), True),
    (NAMES, _http("other", "https://x.example/mcp"), False),
])
def test_each_transport_is_held_to_its_own_kind_of_entry(policy, allowed, entry, starts):
    _settings(policy, allowedMcpServers=allowed)
    reason = load_mcp_policy().refusal(entry)
    assert (reason is None) is starts, reason


def test_the_deny_list_overrides_a_wildcard_allow(policy):
    _settings(policy, allowedMcpServers=[{"serverUrl": "https://*.example.com/*"}],
              deniedMcpServers=[{"serverUrl": "https://staging.example.com/*"}])
    found = load_mcp_policy()
    assert found.refusal(_http("a", "https://mcp.example.com/api")) is None
    assert "deniedMcpServers" in found.refusal(_http("a", "https://staging.example.com/api"))
    assert "allowedMcpServers" in found.refusal(_http("a", "https://other.com/mcp"))


@pytest.mark.parametrize(("pattern", "url", "matches"), [
    ("https://mcp.example.com/*", "https://MCP.Example.COM/api", True),  # hosts: any case
    ("https://mcp.example.com/*", "https://mcp.example.com./api", True),  # a trailing dot
    ("https://mcp.example.com/*", "https://mcp.example.com:443/api", True),  # the default port
    ("https://mcp.example.com/*", "https://mcp.example.com:8443/api", False),
    ("https://mcp.example.com/*", "https://mcp.example.com", True),
    ("https://mcp.example.com", "https://mcp.example.com/any/path?q=1", True),  # no path: all paths
    ("https://mcp.example.com/API/*", "https://mcp.example.com/api/x", False),  # paths keep case
    ("*://mcp.example.com/*", "http://mcp.example.com/x", True),
    ("http://localhost:*/*", "http://localhost:8123/mcp", True),
    ("http://localhost:*/*", "http://localhost/mcp", True),  # any port: the default one too
    ("https://mcp.example.com:443/*", "https://mcp.example.com/x", True),
    ("https://mcp.example.com:8443/*", "https://mcp.example.com/x", False),
    ("https://*.example.com/*", "https://evil%2Enet%2Fx.example.com/", False),  # encoded host: unclear
    ("https://mcp.example.com/*", "https://mcp.example.com.evil.net/x", False),
    ("https://mcp.example.com/*", "https://mcp.example.com@evil.net/x", False),  # user info, not host
    ("https://*.example.com/*", "https://evil.net\\@x.example.com/", False),  # read as evil.net elsewhere
    ("https://*.example.com/*", "https://evil.net#@x.example.com/", False),
    ("https://*.example.com/*", "https://example.com/", False),  # subdomains only
])
def test_url_patterns(policy, pattern, url, matches):
    _settings(policy, allowedMcpServers=[{"serverUrl": pattern}])
    assert (load_mcp_policy().refusal(_http("a", url)) is None) is matches


def test_a_deny_pattern_without_a_port_covers_every_port(policy):
    _settings(policy, deniedMcpServers=[{"serverUrl": "https://*.untrusted.example/*"}])
    found = load_mcp_policy()
    assert found.refusal(_http("a", "https://a.untrusted.example:8443/mcp")) is not None
    assert found.refusal(_http("a", "https://A.Untrusted.Example./mcp")) is not None
    assert found.refusal(_http("a", "https://odd\\@a.untrusted.example/")) is not None  # unclear: kept out


def test_policy_entries_expand_variables(policy):
    _settings(policy, allowedMcpServers=[
        {"serverCommand": ["${TOOLS}/server", "--port", "${PORT:-8000}"]},
        {"serverUrl": "https://${MCP_HOST}/*"},  # the environment must not pick an allowed host
        {"serverUrl": "https://docs.example/${TEAM}/*"},
        {"serverCommand": ["${UNSET_VAR}/x"]},  # unset: the entry is ignored
    ], deniedMcpServers=[{"serverCommand": ["${ALSO_UNSET}/evil"]}])  # unset in a deny: any value
    env = {"TOOLS": "/opt/tools", "MCP_HOST": "evil.net", "TEAM": "a*"}
    found = load_mcp_policy(environ=env)
    assert found.refusal(_entry("x", "/opt/tools/server", ["--port", "8000"])) is None
    assert found.refusal(_entry("x", "/elsewhere/server", ["--port", "8000"])) is not None
    assert found.refusal(_http("x", "https://evil.net/mcp")) is not None
    assert found.refusal(_http("x", "https://docs.example/a*/mcp")) is None
    assert found.refusal(_http("x", "https://docs.example/abc/mcp")) is not None  # a value's * is literal
    assert found.refusal(_entry("x", "/anything/x")) is not None
    assert "deniedMcpServers" in found.refusal(_entry("x", "/some/where/evil"))


def test_managed_mcp_json_servers_skip_the_allow_list_unless_they_use_variables(policy):
    (policy / "managed-mcp.json").write_text(json.dumps({"mcpServers": {
        "fixed": {"command": "corp-mcp"}, "templated": {"command": "${HOME}/bin/corp"},
        "blocked": {"command": "corp-old"}}}))
    _settings(policy, allowedMcpServers=[{"serverCommand": ["npx", "-y", "pkg"]}],
              deniedMcpServers=[{"serverName": "blocked"}])
    found = load_mcp_policy()
    assert found.refusal(_entry("fixed", "corp-mcp", scope="managed")) is None
    assert "allowedMcpServers" in found.refusal(_entry("templated", "/home/u/bin/corp", scope="managed"))
    assert "deniedMcpServers" in found.refusal(_entry("blocked", "corp-old", scope="managed"))
    assert "managed-mcp.json decides" in found.refusal(_entry("fixed", "corp-mcp", scope="user"))


def _lists(where, allowed=None, denied=()):
    from jupyter_agent.permissions.mcp_lists import SettingsLists, parse_server_list

    return SettingsLists(where, None if allowed is None else parse_server_list(allowed, "allowedMcpServers", where),
                         parse_server_list(list(denied), "deniedMcpServers", where))


def test_the_settings_files_lists_join_the_managed_ones(policy):
    _settings(policy, allowedMcpServers=[{"serverName": "corp"}])
    user = _lists("~/.claude/settings.json", allowed=[{"serverName": "mine"}], denied=[{"serverName": "corp"}])
    found = load_mcp_policy(files=[user])
    assert found.refusal(_entry("mine")) is None  # a soft allow list: the user widened it
    assert "deniedMcpServers" in found.refusal(_entry("corp"))  # and blocked one for themselves
    assert "allowedMcpServers" in found.refusal(_entry("other"))
    _settings(policy, allowedMcpServers=[{"serverName": "corp"}], allowManagedMcpServersOnly=True)
    strict = load_mcp_policy(files=[user])
    assert "allowedMcpServers" in strict.refusal(_entry("mine"))  # only the managed list counts
    assert "deniedMcpServers" in strict.refusal(_entry("corp"))  # deny lists always join
    _settings(policy)  # no managed list: the user's own list restricts their servers
    alone = load_mcp_policy(files=[_lists("user", allowed=[{"serverName": "mine"}])])
    assert alone.refusal(_entry("mine")) is None and alone.refusal(_entry("else")) is not None


def test_a_deny_entry_fills_an_unset_variable_from_the_users_env_block(policy):
    from jupyter_agent.permissions.mcp_lists import SettingsLists, parse_server_list

    denied = parse_server_list([{"serverUrl": "https://${BAD_HOST}/*"}, {"serverCommand": ["${TOOL:-old-tool}"]}],
                               "deniedMcpServers", "user")
    user_env = (("BAD_HOST", "bad.example"), ("TOOL", "new-tool"))
    found = load_mcp_policy(files=[SettingsLists("user", None, denied, user_env)], environ={})
    assert found.refusal(_http("a", "https://bad.example/mcp")) is not None
    assert found.refusal(_http("a", "https://good.example/mcp")) is None
    assert found.refusal(_entry("a", "old-tool")) is not None  # the entry's own default comes first
    assert found.refusal(_entry("a", "new-tool")) is None
    started_with = load_mcp_policy(files=[SettingsLists("user", None, denied, user_env)], environ={"BAD_HOST": "x.example"})
    assert started_with.refusal(_http("a", "https://bad.example/mcp")) is None  # the start-up value wins


def test_managed_mcp_servers_are_provided_beside_the_users_own(policy, tmp_path):
    _settings(policy, allowedMcpServers=[{"serverName": "mine"}], managedMcpServers={
        "search": {"type": "http", "url": "https://search.example.com/mcp"},
        "dup": {"type": "streamable-http", "url": "https://corp.example/dup", "headers": {"X-Key": "k"}},
        "plain": {"type": "http", "url": "http://search.example.com/mcp"},
        "prog": {"type": "http", "url": "https://x.example", "command": "rm"},
        "templ": {"type": "http", "url": "https://x.example", "headers": {"A": "${TOKEN}"}},
        "bad name": {"type": "http", "url": "https://x.example"},
        "hidden": {"type": "http", "url": "https://x.example/\u200b"},
    })
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {
        "mine": {"command": "my-mcp"}, "dup": {"command": "users-own"}}}))
    cfg = load_mcp_config(None, home=home)
    assert {n: e.scope for n, e in cfg.servers.items()} == {"mine": "user", "dup": "managed", "search": "managed"}
    assert cfg.servers["dup"].config.url == "https://corp.example/dup"
    notices = [e for e in cfg.errors if "managedMcpServers" in e]
    assert len(notices) == 5 and all("was not loaded" in e for e in notices)
    for name, why in [("plain", "https://"), ("prog", "'command'"), ("templ", "${VAR}"), ("bad name", "letters"),
                      ("hidden", "invisible")]:
        assert any(repr(name) in e and why in e for e in notices), name
    found = cfg.policy
    assert all(found.refusal(cfg.servers[n]) is None for n in ("mine", "dup", "search"))  # provided: no allow entry


def test_with_managed_mcp_json_the_provided_servers_still_load_and_the_file_wins_a_name(policy, tmp_path):
    (policy / "managed-mcp.json").write_text(json.dumps({"mcpServers": {"dup": {"command": "file-server"}}}))
    _settings(policy, managedMcpServers={"dup": {"type": "http", "url": "https://corp.example/dup"},
                                         "search": {"type": "sse", "url": "https://search.example/sse"}})
    cfg = load_mcp_config(None, home=tmp_path / "nohome", extra={"own": {"command": "x"}})
    manager = McpManager.from_config(cfg)
    assert set(manager.connections) == {"dup", "search"}
    assert manager.connections["dup"].entry.config.command == "file-server"
    assert any("'own' was not started" in e for e in manager.config_errors)


def test_a_project_server_named_like_a_provided_one_is_not_offered_for_approval(policy, tmp_path):
    _settings(policy, managedMcpServers={"search": {"type": "http", "url": "https://search.example.com/mcp"}})
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"search": {"command": "impostor"},
                                                                    "own": {"command": "x"}}}))
    cfg = load_mcp_config(tmp_path, home=tmp_path / "home")
    assert set(cfg.pending) == {"own"} and cfg.servers["search"].scope == "managed"


def test_the_list_form_of_managed_mcp_servers_is_claude_desktops_and_not_loaded(policy, tmp_path):
    _settings(policy, managedMcpServers=[{"name": "x", "url": "https://x.example"}])
    cfg = load_mcp_config(None, home=tmp_path / "nohome")
    assert cfg.servers == {} and any("Claude Desktop" in e for e in cfg.errors)


def test_use_policy_admits_what_a_wider_policy_allows(policy, tmp_path):
    _settings(policy, allowedMcpServers=[{"serverName": "corp"}])
    manager = McpManager([_entry("corp"), _entry("projects")], pending={"shipped": _entry("shipped", scope="project")})
    assert set(manager.connections) == {"corp"} and manager.pending == {}
    assert sum("was not started" in e for e in manager.config_errors) == 2
    wider = load_mcp_policy(files=[_lists(".claude/settings.json", allowed=[{"serverName": "projects"},
                                                                             {"serverName": "shipped"}])])
    assert manager.use_policy(wider) == ["projects"]
    assert set(manager.connections) == {"corp", "projects"} and set(manager.pending) == {"shipped"}
    assert not any("was not started" in e for e in manager.config_errors)
