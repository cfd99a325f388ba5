"""Small answers of ``%agent``: cost so far, the tool list, session status, ``--compact``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AgentConfigError
from ..ui import render

if TYPE_CHECKING:
    from ..agent.session import AgentSession


class Text(str):
    """A string that displays as plain text (no quotes) when a magic returns it."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))


def first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def cost_text(session: AgentSession | None) -> str:
    if session is None:
        return "No agent session yet."
    u = session.usage
    return (
        f"Session {session.id} · {session.config.model}\n"
        f"input {u.input_tokens:,} · output {u.output_tokens:,} · cache read {u.cache_read_input_tokens:,}"
        f" · cache write {u.cache_creation_input_tokens:,} tokens\n"
        f"cost ${session.cost_usd:.4f}"
    )


def tools_text(session: AgentSession) -> str:
    tools = session.context.options.tools
    lines = [f"{len(tools)} tools the model can call:" if tools else "The model can call no tools in this session."]
    for tool in tools:
        lines.append(f"  {tool.name:<22} {tool_summary(tool, session.context.options)}".rstrip())
    errors = getattr(session, "load_errors", None) or []
    lines.extend(f"  (not loaded: {e})" for e in errors)
    manager = getattr(getattr(session, "tool_pool", None), "mcp", None)
    if manager is not None:
        from ..mcp.prompts import prompt_commands

        statuses = manager.status()
        if statuses:
            lines.append("MCP servers:")
            lines.extend(f"  {s.line()}" + (" — starts with the next prompt" if s.status == "pending" else "")
                         for s in statuses)
        commands = prompt_commands(manager)
        if commands:
            lines.append(f"{len(commands)} MCP prompts you can run (%agent /name args):")
            lines.extend(f"  {first_line(c.describe(), 110)}" for c in commands)
    return "\n".join(lines)


def tool_summary(tool: Any, options: Any, limit: int = 100) -> str:
    """What a tool does, in one line for people: its ``summary``, else the first sentence of the
    instructions the model reads (never a class docstring: a wrapper's would describe the
    wrapper)."""
    text = getattr(tool, "summary", "") or _prompt_now(tool, options)
    kept: list[str] = []  # the first paragraph, up to a list that follows it
    for line in text.strip().split("\n\n")[0].splitlines():
        line = line.strip()
        if kept and line.startswith(("-", "•", "*")):
            break
        kept.append(line.lstrip("-•* "))
    first = re.split(r"(?<=[.!?])\s", " ".join(kept), maxsplit=1)[0].rstrip(":")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _prompt_now(tool: Any, options: Any) -> str:
    """The tool's prompt when it is at hand — a coroutine that returns without waiting on
    anything; one that would wait (reads files on a thread, asks a server) gives ""."""
    try:
        coro = tool.prompt(options)
    except Exception:
        return ""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value if isinstance(done.value, str) else ""
    except Exception:
        return ""
    coro.close()
    return ""


def session_text(session: AgentSession, resumed: bool = False) -> str:
    """The session's status line; for a resumed one, what it held: the prompts so far and the
    last exchange, so you can tell you picked up the right one."""
    perm = session.context.permission_context
    policy = getattr(getattr(session, "settings", None), "managed", None)
    head = (
        f"{'Resumed session' if resumed else 'Agent session'} {session.id} · model {session.config.model}"
        f" · mode {perm.mode}"
        + (f" · managed settings {policy.path}" if policy is not None else "")
    )
    if not resumed:
        return head
    from ..agent.saved_sessions import read_saved_session

    try:
        saved = read_saved_session(Path(session.transcript_path))
    except OSError:
        return head
    lines = [head, f"  {_count(len(saved.prompts), 'prompt')} so far, ${saved.cost_usd:.4f}"]
    if saved.last_prompt:
        lines.append(f"  last asked: {_quoted(saved.last_prompt, 100)}")
    if saved.last_reply:
        lines.append(f"  last reply: {_quoted(saved.last_reply, 100)}")
    return "\n".join(lines)


def sessions_text(sessions_dir: Path, current: str | None, now: float | None = None,
                  found: list[Any] | None = None) -> str:
    """``%agent --sessions``: the project's saved sessions (``found``, else read), newest first."""
    import time

    from ..agent.saved_sessions import saved_sessions

    found = saved_sessions(sessions_dir) if found is None else found
    if not found:
        return f"No saved sessions in {sessions_dir}."
    now = time.time() if now is None else now
    from ..ui.tool_views import display_path

    lines = [f"Saved sessions, newest first ({display_path(str(sessions_dir))}):"]
    for saved in found:
        mark = "  ← this kernel's session" if saved.id == current else ""
        notebook = f"  {Path(saved.notebook).name}" if saved.notebook else ""
        lines.append(
            f"  {saved.id}  {_ago(now - saved.modified):>8}  {_count(len(saved.prompts), 'prompt'):>10}"
            f"  ${saved.cost_usd:.4f}{notebook}{mark}"
        )
        lines.append(f"      first: {_quoted(saved.first_prompt, 90)}")
        if len(saved.prompts) > 1:
            lines.append(f"      last:  {_quoted(saved.last_prompt, 90)}")
    lines.append("Continue one with %agent --resume=ID (--resume alone: the newest).")
    return "\n".join(lines)


def resume_target(sessions_dir: Path, notebook: str | None) -> str | None:
    """The session ``--resume`` alone continues: the newest one started from this notebook (a
    folder holds several notebooks, each with its own conversation), else the project's newest."""
    import os

    from ..agent.saved_sessions import saved_sessions

    found = saved_sessions(sessions_dir)
    if notebook:
        here = os.path.abspath(notebook)
        mine = next((s for s in found if s.notebook and os.path.abspath(s.notebook) == here), None)
        if mine is not None:
            return mine.id
    return found[0].id if found else None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _quoted(text: str, limit: int) -> str:
    one = " ".join(text.split())
    return f"“{one if len(one) <= limit else one[: limit - 1] + '…'}”"


def _ago(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def update_permissions(
    session: AgentSession, mode: str | None, allow: list[str], deny: list[str], add_dirs: tuple[Path, ...] = ()
) -> None:
    """Change the live session's mode, add session rules and working directories.
    ``AgentConfigError`` (nothing changed): bypassPermissions is disabled by a settings file, or
    allow rules under the managed settings' allowManagedPermissionRulesOnly."""
    if allow and session.context.permission_context.managed_rules_only:
        from ..permissions.settings import managed_only_message

        raise AgentConfigError(managed_only_message(getattr(session, "settings", None), allow))

    if mode == "auto" and hasattr(session, "auto_mode"):
        session.auto_mode.resume()  # a paused reviewer decides again

    def _update(state: Any) -> Any:
        perm = state.tool_permission_context
        if mode:
            perm = replace(perm, mode=mode)
        if add_dirs:
            perm = replace(perm, additional_directories=tuple(dict.fromkeys((*perm.additional_directories, *add_dirs))))
        if allow:
            rules = dict(perm.allow_rules)
            rules["session"] = tuple(dict.fromkeys((*rules.get("session", ()), *allow)))
            perm = replace(perm, allow_rules=rules)
        if deny:
            rules = dict(perm.deny_rules)
            rules["session"] = tuple(dict.fromkeys((*rules.get("session", ()), *deny)))
            perm = replace(perm, deny_rules=rules)
        return replace(state, tool_permission_context=perm)

    session.context.set_app_state(_update)


def compact_widget(session: AgentSession) -> Any:
    """Start compaction as a task; the returned widget reports its result."""
    import asyncio

    import ipywidgets as widgets

    status = widgets.HTML(render.muted("Compacting the conversation…"))

    async def _run() -> None:
        try:
            result = await session.compact()
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            status.value = render.error_html(text if "ompact" in text else f"Compaction failed: {text}")
            return
        status.value = render.escape(
            f"Compacted: {result.tokens_before} → {result.tokens_after} tokens."
        )

    asyncio.get_running_loop().create_task(_run())
    return status


def rewind_widget(
    session: AgentSession | None, turns: int, on_rewound: Callable[[list[str], bool], None] | None = None,
) -> Any:
    """Rewind files and cells as a task; the returned widget reports what was restored.
    ``on_rewound(turn_ids, forgotten)``: told which turns were undone, and whether the
    conversation went back too."""
    import asyncio

    import ipywidgets as widgets

    if session is None:
        return Text("No agent session yet: nothing to rewind.")
    status = widgets.HTML(render.muted(f"Rewinding the last {_count(turns, 'turn')}…"
                                       if turns > 1 else "Rewinding the last turn…"))

    async def _run() -> None:
        from ..checkpoints.install import rewind_session

        try:
            report = await rewind_session(session, turns)
        except Exception as exc:
            status.value = render.error_html(f"Rewind failed: {exc or type(exc).__name__}")
            return
        status.value = "<pre>" + render.escape(report.summary()) + "</pre>"
        if on_rewound is not None and report.turns:
            on_rewound(report.turns, report.forgotten)

    asyncio.get_running_loop().create_task(_run())
    return status


_SOURCE_LABELS = {"cliArg": "session option", "session": "this session", "policySettings": "managed settings"}


def _source_label(session: AgentSession, source: str) -> str:
    from ..permissions.settings import FILE_SOURCES, settings_path

    if source not in FILE_SOURCES:
        return _SOURCE_LABELS.get(source, source)
    project = session.config.resolved_project_dir()
    path = settings_path(source, project, session.config.home)  # type: ignore[arg-type]
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def permissions_text(session: AgentSession) -> str:
    """``%agent --permissions``: the mode, working directories and every rule in effect, by source."""
    perm = session.context.permission_context
    project = perm.project_dir or session.config.resolved_project_dir()
    lines = [f"Session {session.id} · mode {perm.mode}",
             "Working directories: " + ", ".join([f"{project} (project)", *map(str, perm.additional_directories)])]
    settings = getattr(session, "settings", None)
    policy = getattr(settings, "managed", None)
    if policy is not None:
        only = " (only its allow rules apply)" if perm.managed_rules_only else ""
        lines.append(f"Managed settings: {policy.path}{only}")
    if perm.block_outside_reads:
        lines.append("Reads outside the working directories are refused (blockReadsOutsideWorkingDirectories)")
    if perm.block_outside_writes:
        lines.append("Writes outside the working directories are refused (blockWritesOutsideWorkingDirectories; "
                     "Bash asks about them in every mode)")
    if perm.prompts_off_by is not None:
        lines.append(f"Nothing is asked: a call that needs approval is denied (denyInsteadOfPrompting, "
                     f"{perm.prompts_off_by})")
    lines.append(_sandbox_line(session))
    if tool := getattr(session.config, "permission_prompt_tool", None):
        lines.append(f"Approvals are answered by the MCP tool {tool} (--permission-prompt-tool), not by you; "
                     "the folder-trust card still asks you")
    from ..permissions.hooks import HOOKS_KEY, HookRunner
    from ..tools.shell.environment import settings_env

    if env := settings_env(session.context):  # names only: the values may be keys
        lines.append("Environment from the settings files (env): " + ", ".join(env))
    helper = getattr(session, "key_helper", None)
    if helper is not None:
        lines.append(f"API key: from apiKeyHelper in {helper.source} (run {helper.runs}x so far; again after "
                     f"{helper.ttl_s:g} s or on a 401)")
    runner = session.context.extra.get(HOOKS_KEY)
    if isinstance(runner, HookRunner) and (names := runner.env_files.names()):
        lines.append("Environment for Bash from hooks (CLAUDE_ENV_FILE; -: unset): "
                     + ", ".join(names))
    reviewer = getattr(session, "auto_mode", None)
    if perm.mode == "auto" and reviewer is not None:
        allowed = sum(1 for _tool, ok in reviewer.decided if ok)
        state = ("paused after its refusals: you are asked (%agent --mode auto resumes it)" if reviewer.paused
                 else "decides what would ask you")
        lines.append(f"Auto mode: the reviewer {state}; so far {allowed} approved, "
                     f"{len(reviewer.decided) - allowed} refused")
        configured = getattr(settings, "auto_mode", None) or {}
        if configured:
            sections = ", ".join(f"{name} ({len([e for e in rules if e != '$defaults'])}"
                                 f"{' + built-in' if '$defaults' in rules else ''})" for name, rules in configured.items())
            lines.append(f"Auto mode's rules from the settings files (autoMode): {sections}; other sections built in")
    rows = [(behavior, rule, _source_label(session, source))
            for behavior in ("deny", "ask", "allow") for source, rule in perm.rules(behavior)]  # type: ignore[arg-type]
    if rows:
        width = max(len(rule) for _, rule, _ in rows)
        lines.append("Rules (deny, then ask, then allow; the first match wins):")
        lines.extend(f"  {behavior:<5}  {rule:<{width}}  {label}" for behavior, rule, label in rows)
    else:
        lines.append("No rules: anything not read-only is asked about.")
    for path, rules in getattr(settings, "ignored_allow", ()):
        lines.append(f"Ignored (allowManagedPermissionRulesOnly): {', '.join(rules)} in {path}")
    lines.extend(f"Held back until you trust this folder: {item}" for item in session.trust.held_back)
    from ..permissions.hooks import get_hook_runner

    runner = get_hook_runner(session.context)
    hooks = runner.describe(project) if runner is not None else []
    if hooks:
        lines.append("Hooks:")
        lines.extend(f"  {line}" for line in hooks)
    policy = getattr(runner, "http_policy", None)
    if policy is not None and policy.urls is not None:
        lines.append("HTTP hooks may call only (allowedHttpHookUrls): " + (", ".join(policy.urls) or "no URL"))
    if policy is not None and policy.env_vars is not None:
        lines.append("HTTP hooks may fill in only (httpHookAllowedEnvVars): " + (", ".join(policy.env_vars) or "none"))
    mcp = getattr(session.tool_pool, "mcp", None)
    mcp_policy = getattr(mcp, "policy", None)
    if mcp_policy is not None and (mcp_lines := mcp_policy.summary()):
        lines.append("MCP servers:")
        lines.extend(f"  {line}" for line in mcp_lines)
    lines.append('Remove a rule: %agent --forget "RULE"')
    return "\n".join(lines)


def _sandbox_line(session: AgentSession) -> str:
    from ..sandbox.settings import sandbox_settings

    try:
        sandbox = sandbox_settings(session.context)
    except AgentConfigError as exc:
        return f"Sandbox: the settings cannot be read ({exc})"
    if not sandbox.enabled:
        return "Sandbox: off (Bash commands run as you; %agent --sandbox turns it on)"
    hosts = ", ".join(sandbox.allowed_domains) or "none"
    only = "; only the administrator's" if sandbox.managed_domains_only else "; others are asked about"
    return f"Sandbox: on for Bash (bubblewrap) · hosts reached unasked: {hosts}{only}"


def forget_rule(session: AgentSession, rule: str) -> str:
    """``%agent --forget RULE``: remove ``rule`` from the session and from the user, project and
    local settings files (atomically; the rest of each file is kept).  The managed settings'
    rules stay.  ``AgentConfigError`` when the rule is nowhere to be removed."""
    from ..permissions.settings import FILE_SOURCES, settings_path
    from ..permissions.updates import remove_rule_from_file

    perm = session.context.permission_context
    tables = {"allow_rules": perm.allow_rules, "ask_rules": perm.ask_rules, "deny_rules": perm.deny_rules}
    where: dict[str, None] = {}
    changed: dict[str, Any] = {}
    for name, table in tables.items():
        kept = {}
        for source, rules in table.items():
            if rule in rules and source != "policySettings":
                where[_source_label(session, source)] = None
                rules = tuple(r for r in rules if r != rule)
            kept[source] = rules
        changed[name] = kept
    project = session.config.resolved_project_dir()
    for source in FILE_SOURCES:
        if remove_rule_from_file(settings_path(source, project, session.config.home), rule):  # type: ignore[arg-type]
            where[_source_label(session, source)] = None
    managed = any(rule in table.get("policySettings", ()) for table in tables.values())
    if not where:
        why = "it is the administrator's (managed settings)" if managed else "no settings file or session has it"
        raise AgentConfigError(f"{rule} cannot be removed: {why}. %agent --permissions lists the rules.")
    session.context.set_app_state(lambda state: replace(state, tool_permission_context=replace(
        state.tool_permission_context, **changed)))
    note = " The managed settings' own copy of it stays." if managed else ""
    return f"Removed {rule} from {', '.join(where)}.{note}"
