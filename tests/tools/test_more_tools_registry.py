"""The nine tools of issue 10 are registered behind their flags / conditions with usable API specs."""

from __future__ import annotations

from jupyter_agent.core.context import ToolUseOptions
from jupyter_agent.core.registry import KNOWN_FEATURE_FLAGS, RegistryConfig, get_all_base_tools
from jupyter_agent.triggers import ENABLE_ENV

FLAGGED = {"Snip": "snip_tool", "Workflow": "workflow_tool", "Monitor": "monitor_tool", "CtxInspect": "ctx_inspect",
           "TerminalCapture": "terminal_capture", "WebBrowser": "web_browser"}


def _names(**kw):
    return [t.name for t in get_all_base_tools(RegistryConfig(**kw))]


def test_each_flag_turns_on_its_tool_only(monkeypatch):
    monkeypatch.delenv(ENABLE_ENV, raising=False)
    base = _names(platform="linux")
    assert "LSP" in base and not set(FLAGGED) & set(base)
    for tool, flag in FLAGGED.items():
        assert set(_names(platform="linux", feature_flags=frozenset({flag}))) - set(base) == {tool}


async def test_every_new_tool_has_a_prompt_and_a_clean_schema(monkeypatch):
    monkeypatch.setenv(ENABLE_ENV, "1")
    tools = get_all_base_tools(RegistryConfig(platform="linux", feature_flags=KNOWN_FEATURE_FLAGS))
    tools += [t for t in get_all_base_tools(RegistryConfig(platform="win32")) if t.name == "PowerShell"]
    ours = {t.name: t for t in tools if t.name in {*FLAGGED, "LSP", "RemoteTrigger", "PowerShell"}}
    assert len(ours) == 9
    for tool in ours.values():
        spec = await tool.to_api_tool(ToolUseOptions())
        assert len(spec["description"]) > 200, tool.name  # teaches when to use it
        schema = spec["input_schema"]
        assert schema["type"] == "object" and "title" not in schema and schema["properties"], tool.name
