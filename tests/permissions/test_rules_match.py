"""Rule specifier matching: Bash patterns, WebFetch domains, MCP names, Agent/Skill, paths."""

from __future__ import annotations

import os

import pytest
from pydantic import BaseModel

from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.core.registry import filter_tools_by_deny_rules
from jupyter_agent.core.tool import Tool
from jupyter_agent.permissions.bash_rules import compile_bash_pattern
from jupyter_agent.permissions.decide import has_permission_to_use_tool
from jupyter_agent.permissions.filesystem import is_in_working_directories, read_denied
from jupyter_agent.permissions.paths import BadPath, resolve_path
from jupyter_agent.permissions.rules import domain_rule_matches
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import AgentLike, EditLike, ReadLike, WebFetchLike, make_ctx


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("ls *", "ls -la", True),
        ("ls *", "ls", True),
        ("ls *", "lsof", False),
        ("git log:*", "git log --oneline", True),
        ("git log:*", "git logout", False),
        ("npm run test:*", "npm run test -- -x", True),
        ("npm run test *", "npm run test -- -x", True),
        ("npm run test:*", "npm run testing", False),
        ("git * main", "git push origin main", True),
        ("git * main", "git push origin dev", False),
        ("npm test", "npm test", True),
        ("npm test", "npm test --watch", False),
        ("*", "anything at all", True),
    ],
)
def test_bash_patterns(rule, command, matches):
    assert compile_bash_pattern(rule).matches(command) is matches


@pytest.mark.parametrize(
    ("rule", "url", "matches"),
    [
        ("domain:example.com", "https://example.com/a", True),
        ("domain:example.com", "https://EXAMPLE.com./a", True),
        ("domain:example.com", "https://docs.example.com/a", False),
        ("domain:example.com", "https://example.com.evil.net/", False),
        ("domain:*.example.com", "https://docs.example.com/", True),
        ("domain:*.example.com", "https://example.com/", False),
        ("domain:*.example.com", "https://evilexample.com/", False),
        ("domain:example.com", "https://user@evil.net/?example.com", False),
        ("example.com", "https://example.com/", False),
        # a host compares in the ASCII form it is looked up by
        ("domain:xn--bcher-kva.de", "https://bücher.de/", True),
        ("domain:bücher.de", "https://xn--bcher-kva.de/", True),
        ("domain:BÜCHER.de", "https://Bücher.DE./", True),
        ("domain:*.bücher.de", "https://shop.xn--bcher-kva.de/", True),
        ("domain:bücher.de", "https://buecher.de/", False),
    ],
)
def test_domain_rules(rule, url, matches):
    assert domain_rule_matches(rule, url) is matches


class _In(BaseModel):
    x: int = 0


def _mcp(name: str) -> Tool:
    return type("T", (Tool,), {"name": name, "input_schema": _In})()


@pytest.mark.parametrize(
    ("deny", "kept"),
    [
        ("mcp__github", ["mcp__slack__post"]),
        ("mcp__github__*", ["mcp__slack__post"]),
        ("mcp__github__create_issue", ["mcp__github__list", "mcp__slack__post"]),
    ],
)
def test_mcp_bare_deny_removes_tools(deny, kept):
    tools = [_mcp("mcp__github__create_issue"), _mcp("mcp__github__list"), _mcp("mcp__slack__post")]
    pc = ToolPermissionContext(deny_rules={"localSettings": (deny,)})
    assert [t.name for t in filter_tools_by_deny_rules(tools, pc)] == kept


@pytest.mark.parametrize(
    ("settings", "url", "expected"),
    [
        ({}, "https://example.com/", "ask"),
        ({"allow": ("WebFetch(domain:example.com)",)}, "https://example.com/x", "allow"),
        ({"allow": ("WebFetch(domain:example.com)",)}, "https://api.example.com/x", "ask"),
        ({"allow": ("WebFetch",), "deny": ("WebFetch(domain:evil.net)",)}, "https://evil.net/", "deny"),
        ({"ask": ("WebFetch(domain:example.com)",), "mode": "bypassPermissions"}, "https://example.com/", "ask"),
    ],
)
async def test_webfetch_rules(world, settings, url, expected):
    ctx = make_ctx(world.project, **settings)
    verdict = await has_permission_to_use_tool(WebFetchLike(), WebFetchLike.input_schema(url=url), ctx)
    assert verdict_name(verdict) == expected


async def test_webfetch_always_allow_suggests_the_domain(world):
    verdict = await has_permission_to_use_tool(
        WebFetchLike(), WebFetchLike.input_schema(url="https://docs.python.org/3/"), make_ctx(world.project)
    )
    assert verdict.suggestions[0].rules == ("WebFetch(domain:docs.python.org)",)


@pytest.mark.parametrize(
    ("deny", "subagent", "expected"),
    [("Agent(Explore)", "Explore", "deny"), ("Agent(Explore)", "Plan", "ask"), ("Task(Explore)", "Explore", "deny")],
)
async def test_agent_rules(world, deny, subagent, expected):
    ctx = make_ctx(world.project, deny=(deny,))
    verdict = await has_permission_to_use_tool(AgentLike(), AgentLike.input_schema(subagent_type=subagent), ctx)
    assert verdict_name(verdict) == expected


@pytest.mark.parametrize(
    ("rules", "path", "expected"),
    [
        ({"deny": ("Read(*.key)",)}, "{P}/sub/x.key", "deny"),
        ({"deny": ("Read(./sub/)",)}, "{P}/sub/deep/f.txt", "deny"),
        ({"deny": ("Read(//{O}/**)",)}, "{O}/data.txt", "deny"),
        ({"deny": ("Read(//{O}/**)",)}, "{P}/out-link", "deny"),
        ({"allow": ("Read(//{O}/**)",)}, "{O}/data.txt", "allow"),
        ({"allow": ("Read(//{O}/**)",)}, "{O}-evil/data.txt", "ask"),
        ({"ask": ("Read(./a.py)",)}, "{P}/a.py", "ask"),
        ({}, "{O}/data.txt", "ask"),
        ({}, "file://{P}/a.py", "allow"),
        ({}, "https://example.com/a.py", "deny"),
        ({}, "{P}/a\x00.py", "deny"),
    ],
)
async def test_read_paths(world, rules, path, expected):
    rules = {k: tuple(r.replace("{O}", str(world.outside).lstrip("/")) for r in v) for k, v in rules.items()}
    ctx = make_ctx(world.project, **rules)
    (world.root / "outside-evil").mkdir()
    path = path.replace("{P}", str(world.project)).replace("{O}", str(world.outside))
    verdict = await has_permission_to_use_tool(ReadLike(), ReadLike.input_schema(file_path=path), ctx)
    assert verdict_name(verdict) == expected, verdict


@pytest.mark.parametrize(
    ("rules", "path", "expected"),
    [
        ({"allow": ("Edit(./src/**)",)}, "{P}/src/app.py", "allow"),
        ({"allow": ("Edit(./src/**)",)}, "{P}/a.py", "ask"),
        ({"allow": ("Edit(./**)",)}, "{P}/out-link", "ask"),  # allowed link, real target outside
        ({"allow": ("Edit(./**)",)}, "{P}/.git/config", "ask"),  # protected beats allow
        ({"deny": ("Read(./a.py)",)}, "{P}/a.py", "deny"),  # a Read deny blocks writing too
        ({"ask": ("Edit(./a.py)",), "mode": "acceptEdits"}, "{P}/a.py", "ask"),
        ({"mode": "acceptEdits"}, "{P}/.vscode/settings.json", "ask"),
        ({"mode": "acceptEdits"}, "{P}/sub/.idea/x.xml", "ask"),
        ({"mode": "acceptEdits"}, "{P}/.husky/pre-commit", "ask"),  # runs on the next commit
        ({"mode": "bypassPermissions"}, "{P}/.husky/_/h", "ask"),
        ({"mode": "bypassPermissions"}, "{P}/.pre-commit-config.yaml", "ask"),  # its hooks too
        ({"mode": "acceptEdits"}, "{P}/sub/lefthook.yml", "ask"),
        ({"mode": "bypassPermissions"}, "{P}/.bashrc.d/aliases.sh", "ask"),  # sourced by Fedora's .bashrc
        ({"mode": "bypassPermissions"}, "{P}/.hg/hgrc", "ask"),  # Mercurial's [hooks] run on hg commands
        ({"mode": "acceptEdits"}, "{P}/sub/.sl/config", "ask"),  # Sapling's, likewise
        ({"mode": "bypassPermissions"}, "{P}/.jj/repo/config.toml", "ask"),  # Jujutsu's pager, fix tools
        ({"mode": "acceptEdits"}, "{P}/.yarnrc.yml", "ask"),  # yarnPath: the script run as yarn
        ({"mode": "bypassPermissions"}, "{P}/sub/yt-dlp.conf", "ask"),  # read where yt-dlp runs: --exec
        ({"mode": "acceptEdits"}, "{P}/.devcontainer/devcontainer.json", "ask"),  # postCreateCommand
        ({"mode": "acceptEdits"}, "{P}/hg-notes.txt", "allow"),
        ({"mode": "acceptEdits"}, "{P}/pre-commit-notes.yaml", "allow"),
        ({"mode": "acceptEdits"}, "{P}/linkdir/../escaped.py", "ask"),  # .. after a symlinked folder
        ({"mode": "acceptEdits"}, "{P}/sub/../a.py", "allow"),
    ],
)
async def test_write_paths(world, rules, path, expected):
    os.symlink(world.outside, world.project / "linkdir")
    ctx = make_ctx(world.project, **rules)
    path = path.replace("{P}", str(world.project))
    verdict = await has_permission_to_use_tool(EditLike(), EditLike.input_schema(file_path=path), ctx)
    assert verdict_name(verdict) == expected, verdict


def test_containment_is_by_components(world):
    evil = world.root / "proj-evil"
    evil.mkdir()
    ctx = make_ctx(world.project, additional=(world.outside,))
    assert is_in_working_directories(world.project / "a.py", ctx)
    assert is_in_working_directories(world.outside / "data.txt", ctx)
    assert not is_in_working_directories(evil / "x", ctx)
    assert not is_in_working_directories(str(world.project) + "/../proj-evil/x", ctx)
    assert not is_in_working_directories(world.project / "key", ctx)  # symlink to ~/.ssh


def test_resolve_rejects_nul_and_urls(world):
    with pytest.raises(BadPath):
        resolve_path("a\x00b", world.project)
    with pytest.raises(BadPath):
        resolve_path("http://example.com/x", world.project)
    assert resolve_path("file:///etc/hosts", world.project).lexical == "/etc/hosts"
    link = resolve_path("env-link", world.project)
    assert link.real == os.path.realpath(world.project / ".env") and link.lexical.endswith("env-link")


def test_read_denied_helper_for_search_tools(world):
    ctx = make_ctx(world.project, deny=("Read(./.env)",))
    assert read_denied(str(world.project / ".env"), ctx)
    assert read_denied("env-link", ctx)
    assert not read_denied("a.py", ctx)
