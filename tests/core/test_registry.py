from __future__ import annotations

import pytest

from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.core.registry import (
    SEED_TOOL_SPECS,
    RegistryConfig,
    filter_tools_by_deny_rules,
    get_all_base_tools,
)
from jupyter_agent.core.tool import Tool
from tests.support.tools import SleepInput

_TARGETS: dict[str, str] = {}


def _make(name: str) -> type[Tool]:
    cls = type(f"{name}Tool", (Tool,), {"name": name, "input_schema": SleepInput})
    globals()[cls.__name__] = cls
    _TARGETS[name] = f"{__name__}:{cls.__name__}"
    return cls


for _spec in SEED_TOOL_SPECS:
    _make(_spec.name)
_make("mcp__fs__read_file")
_make("mcp__fs__write_file")
_make("mcp__git__status")


def names(cfg: RegistryConfig) -> list[str]:
    return [t.name for t in get_all_base_tools(cfg, targets=_TARGETS)]


def test_seed_order_on_linux_without_flags():
    got = names(RegistryConfig(platform="linux"))
    assert got[:10] == ["Agent", "TaskOutput", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "NotebookEdit", "WebFetch"]
    assert "PowerShell" not in got
    for flagged in ("WebBrowser", "Monitor", "CtxInspect", "TerminalCapture", "Snip", "Workflow", "ListPeers", "VerifyPlanExecution", "TeamCreate"):
        assert flagged not in got


def test_powershell_replaces_bash_on_windows():
    got = names(RegistryConfig(platform="win32"))
    assert "PowerShell" in got and "Bash" not in got


def test_embedded_search_drops_glob_and_grep():
    got = names(RegistryConfig(platform="linux", embedded_search=True))
    assert "Glob" not in got and "Grep" not in got and "Read" in got


def test_feature_flags_enable_tools():
    got = names(RegistryConfig(platform="linux", feature_flags=frozenset({"web_browser", "ctx_inspect"})))
    assert "WebBrowser" in got and "CtxInspect" in got and "Monitor" not in got


def test_flags_from_environment():
    cfg = RegistryConfig.from_env({"JUPYTER_AGENT_FEATURES": "monitor_tool, snip_tool", "JUPYTER_AGENT_EMBEDDED_SEARCH": "1"})
    assert cfg.feature_flags == {"monitor_tool", "snip_tool"} and cfg.embedded_search


def test_unknown_flag_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown feature flag"):
        RegistryConfig.from_env({"JUPYTER_AGENT_FEATURES": "tele_port"})


def test_disabled_tool_is_left_out():
    cls = _make("Read")
    cls.is_enabled = lambda self: False
    try:
        assert "Read" not in names(RegistryConfig(platform="linux"))
    finally:
        del cls.is_enabled


def test_unimplemented_tools_are_not_listed():
    assert [t.name for t in get_all_base_tools(RegistryConfig(), targets={})] == []


def _ctx(*deny: str) -> ToolPermissionContext:
    return ToolPermissionContext(deny_rules={"projectSettings": tuple(deny)})


@pytest.mark.parametrize(
    ("deny", "removed"),
    [
        (("WebFetch",), {"WebFetch"}),
        (("WebFetch()",), {"WebFetch"}),
        (("WebFetch(*)",), {"WebFetch"}),
        (("WebFetch(domain:x.com)",), set()),
        (("Bash(rm:*)",), set()),
        (("mcp__fs",), {"mcp__fs__read_file", "mcp__fs__write_file"}),
        (("mcp__fs__*",), {"mcp__fs__read_file", "mcp__fs__write_file"}),
        (("mcp__fs__write_file",), {"mcp__fs__write_file"}),
        (("mcp__f",), set()),
        (("Bash", "Read"), {"Bash", "Read"}),
        (("Bash(",), set()),  # malformed rules remove nothing here (settings loading reports them)
    ],
)
def test_filter_tools_by_deny_rules(deny, removed):
    tools = [_make_tool(n) for n in ("Bash", "Read", "WebFetch", "mcp__fs__read_file", "mcp__fs__write_file", "mcp__git__status")]
    kept = {t.name for t in filter_tools_by_deny_rules(tools, _ctx(*deny))}
    assert kept == {t.name for t in tools} - removed


def _make_tool(name: str) -> Tool:
    from jupyter_agent.core.registry import load_tool

    return load_tool(_TARGETS[name])
