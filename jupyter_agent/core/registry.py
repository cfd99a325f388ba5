"""The tool registry (seed section "Tool 注册"): every base tool in the seed's order.

Tools are imported lazily from ``TOOL_TARGETS`` so that ``%load_ext`` stays fast; a tool's
presence depends on its condition (platform, feature flag, embedded search, worktree mode).
``filter_tools_by_deny_rules`` then removes tools the user denied by bare name.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..permissions.rules import RuleSyntaxError, parse_rule, rule_applies_to_whole_tool
from .permission_types import ToolPermissionContext
from .tool import Tool

FEATURE_FLAGS_ENV = "JUPYTER_AGENT_FEATURES"
EMBEDDED_SEARCH_ENV = "JUPYTER_AGENT_EMBEDDED_SEARCH"

# Flags that exist (seed: "条件加载 / Feature Flag 控制", plus the issue-defined ones).
KNOWN_FEATURE_FLAGS = frozenset(
    {
        "verify_plan_execution",
        "snip_tool",
        "list_peers",
        "workflow_tool",
        "monitor_tool",
        "ctx_inspect",
        "terminal_capture",
        "web_browser",
        "agent_swarms",
        "sleep",
        "brief",
    }
)


@dataclass(frozen=True)
class RegistryConfig:
    """What decides which tools exist in this session."""

    feature_flags: frozenset[str] = frozenset()
    platform: str = sys.platform
    embedded_search: bool = False
    worktree_mode: bool = True

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, flags: Iterable[str] = ()
    ) -> RegistryConfig:
        env = os.environ if environ is None else environ
        from_env = {f.strip() for f in env.get(FEATURE_FLAGS_ENV, "").split(",") if f.strip()}
        unknown = (from_env | set(flags)) - KNOWN_FEATURE_FLAGS
        if unknown:
            raise ValueError(
                f"Unknown feature flag(s): {', '.join(sorted(unknown))}. "
                f"Known: {', '.join(sorted(KNOWN_FEATURE_FLAGS))}."
            )
        embedded = env.get(EMBEDDED_SEARCH_ENV, "").lower() in ("1", "true", "yes")
        return cls(feature_flags=frozenset(from_env | set(flags)), embedded_search=embedded)


Condition = Callable[[RegistryConfig], bool]


def _always(_: RegistryConfig) -> bool:
    return True


def _flag(name: str) -> Condition:
    return lambda cfg: name in cfg.feature_flags


def _windows(cfg: RegistryConfig) -> bool:
    return cfg.platform.startswith("win")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    when: Condition = field(default=_always)


# The seed's order (getAllBaseTools, then the rest of its lists); conditions per the seed.
SEED_TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("Agent"),
    ToolSpec("TaskOutput"),
    ToolSpec("Bash", lambda c: not _windows(c)),
    ToolSpec("PowerShell", _windows),
    ToolSpec("Glob", lambda c: not c.embedded_search),
    ToolSpec("Grep", lambda c: not c.embedded_search),
    ToolSpec("Read"),
    ToolSpec("Edit"),
    ToolSpec("Write"),
    ToolSpec("NotebookEdit"),
    ToolSpec("WebFetch"),
    ToolSpec("TodoWrite"),
    ToolSpec("WebSearch"),
    ToolSpec("AskUserQuestion"),
    ToolSpec("Skill"),
    ToolSpec("EnterPlanMode"),
    ToolSpec("ExitPlanMode"),
    ToolSpec("EnterWorktree", lambda c: c.worktree_mode),
    ToolSpec("ExitWorktree", lambda c: c.worktree_mode),
    ToolSpec("TeamCreate", _flag("agent_swarms")),
    ToolSpec("TeamDelete", _flag("agent_swarms")),
    ToolSpec("SendMessage"),
    ToolSpec("Sleep", _flag("sleep")),
    ToolSpec("CronCreate"),
    ToolSpec("CronList"),
    ToolSpec("CronDelete"),
    ToolSpec("TaskStop"),
    ToolSpec("TaskCreate"),
    ToolSpec("TaskGet"),
    ToolSpec("TaskUpdate"),
    ToolSpec("TaskList"),
    ToolSpec("ListMcpResourcesTool"),
    ToolSpec("ReadMcpResourceTool"),
    ToolSpec("ToolSearch"),
    ToolSpec("LSP"),
    ToolSpec("Brief", _flag("brief")),
    ToolSpec("RemoteTrigger"),
    ToolSpec("VerifyPlanExecution", _flag("verify_plan_execution")),
    ToolSpec("Snip", _flag("snip_tool")),
    ToolSpec("ListPeers", _flag("list_peers")),
    ToolSpec("Workflow", _flag("workflow_tool")),
    ToolSpec("Monitor", _flag("monitor_tool")),
    ToolSpec("CtxInspect", _flag("ctx_inspect")),
    ToolSpec("TerminalCapture", _flag("terminal_capture")),
    ToolSpec("WebBrowser", _flag("web_browser")),
    # Not in the seed (only an in-kernel agent can offer them): after it, so its order holds.
    ToolSpec("NotebookExecute"),
    ToolSpec("KernelInspect"),
)

# Tool name → "module:Class" for every tool that is implemented.  Later issues add lines here.
TOOL_TARGETS: dict[str, str] = {
    "Bash": "jupyter_agent.tools.bash:BashTool",
    "TaskOutput": "jupyter_agent.tools.task_output:TaskOutputTool",
    "TaskStop": "jupyter_agent.tools.task_stop:TaskStopTool",
    "TodoWrite": "jupyter_agent.tools.todo_write:TodoWriteTool",
    "TaskCreate": "jupyter_agent.tools.task_create:TaskCreateTool",
    "TaskGet": "jupyter_agent.tools.task_get:TaskGetTool",
    "TaskUpdate": "jupyter_agent.tools.task_update:TaskUpdateTool",
    "TaskList": "jupyter_agent.tools.task_list:TaskListTool",
    "EnterPlanMode": "jupyter_agent.tools.plan_mode:EnterPlanModeTool",
    "ExitPlanMode": "jupyter_agent.tools.plan_mode:ExitPlanModeTool",
    "AskUserQuestion": "jupyter_agent.tools.ask_user_question:AskUserQuestionTool",
    "EnterWorktree": "jupyter_agent.tools.worktree:EnterWorktreeTool",
    "ExitWorktree": "jupyter_agent.tools.worktree:ExitWorktreeTool",
    "ListMcpResourcesTool": "jupyter_agent.tools.mcp_resources:ListMcpResourcesTool",
    "ReadMcpResourceTool": "jupyter_agent.tools.mcp_resources:ReadMcpResourceTool",
    "ToolSearch": "jupyter_agent.tools.tool_search:ToolSearchTool",
    "WebFetch": "jupyter_agent.tools.web_fetch:WebFetchTool",
    "Skill": "jupyter_agent.tools.skill:SkillTool",
    "WebSearch": "jupyter_agent.tools.web_search:WebSearchTool",
    "CronCreate": "jupyter_agent.tools.cron:CronCreateTool",
    "CronList": "jupyter_agent.tools.cron:CronListTool",
    "CronDelete": "jupyter_agent.tools.cron:CronDeleteTool",
    "Sleep": "jupyter_agent.tools.sleep:SleepTool",
    "Read": "jupyter_agent.tools.read:ReadTool",
    "Write": "jupyter_agent.tools.write:WriteTool",
    "Edit": "jupyter_agent.tools.edit:EditTool",
    "Glob": "jupyter_agent.tools.glob:GlobTool",
    "Grep": "jupyter_agent.tools.grep:GrepTool",
    "NotebookEdit": "jupyter_agent.tools.notebook_edit:NotebookEditTool",
    "NotebookExecute": "jupyter_agent.tools.notebook_execute:NotebookExecuteTool",
    "KernelInspect": "jupyter_agent.tools.kernel_inspect:KernelInspectTool",
    "Agent": "jupyter_agent.tools.agent_tool:AgentTool",
    "Brief": "jupyter_agent.tools.brief:BriefTool",
    "VerifyPlanExecution": "jupyter_agent.tools.verify_plan:VerifyPlanExecutionTool",
    "TeamCreate": "jupyter_agent.tools.team:TeamCreateTool",
    "TeamDelete": "jupyter_agent.tools.team:TeamDeleteTool",
    "SendMessage": "jupyter_agent.tools.send_message:SendMessageTool",
    "ListPeers": "jupyter_agent.tools.list_peers:ListPeersTool",
    "CtxInspect": "jupyter_agent.tools.ctx_inspect:CtxInspectTool",
    "Monitor": "jupyter_agent.tools.monitor:MonitorTool",
    "Snip": "jupyter_agent.tools.snip:SnipTool",
    "TerminalCapture": "jupyter_agent.tools.terminal_capture:TerminalCaptureTool",
    "LSP": "jupyter_agent.tools.lsp:LSPTool",
    "RemoteTrigger": "jupyter_agent.tools.remote_trigger:RemoteTriggerTool",
    "Workflow": "jupyter_agent.tools.workflow:WorkflowTool",
    "PowerShell": "jupyter_agent.tools.powershell:PowerShellTool",
    "WebBrowser": "jupyter_agent.tools.web_browser:WebBrowserTool",
}


def load_tool(target: str) -> Tool[Any, Any]:
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls()


def get_all_base_tools(
    config: RegistryConfig | None = None,
    *,
    specs: Sequence[ToolSpec] = SEED_TOOL_SPECS,
    targets: Mapping[str, str] | None = None,
) -> list[Tool[Any, Any]]:
    """Every implemented base tool whose condition holds and which is enabled, in seed order."""
    cfg = config or RegistryConfig.from_env()
    table = TOOL_TARGETS if targets is None else targets
    tools: list[Tool[Any, Any]] = []
    for spec in specs:
        target = table.get(spec.name)
        if target is None or not spec.when(cfg):
            continue
        tool = load_tool(target)
        if tool.is_enabled():
            tools.append(tool)
    return tools


def get_deny_rule_for_tool(
    permission_context: ToolPermissionContext, tool: Tool[Any, Any]
) -> str | None:
    """The bare-name deny rule that removes ``tool`` entirely (``WebFetch``, ``mcp__server``)."""
    for _source, text in permission_context.rules("deny"):
        try:
            rule = parse_rule(text)
        except RuleSyntaxError:
            continue
        if rule_applies_to_whole_tool(rule, tool.name) or any(
            rule_applies_to_whole_tool(rule, alias) for alias in tool.aliases
        ):
            return text
    return None


def filter_tools_by_deny_rules(
    tools: Iterable[Tool[Any, Any]], permission_context: ToolPermissionContext
) -> list[Tool[Any, Any]]:
    """Drop every tool denied by a bare-name rule; the model never sees it."""
    return [t for t in tools if get_deny_rule_for_tool(permission_context, t) is None]
