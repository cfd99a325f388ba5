"""``%agent`` / ``%%agent``: one agent session per kernel, one transcript widget per cell run.

The magic parses its options, shows the transcript and submits the prompt; the turn then runs
as a task on the kernel's event loop and only changes widget state.  Settings are traitlets:
``%config AgentMagics.model = "claude-opus-5-5"``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from traitlets import Bool, Enum, Float, Int, List, TraitError, Unicode, default, observe, validate

from ..core.permission_types import PERMISSION_MODES
from . import cell_context, reports
from .interpolate import interpolate
from .options import AgentOptions, help_text, parse_options, usage_text

if TYPE_CHECKING:  # imported lazily: %load_ext must stay fast
    from ..agent.session import AgentSession
    from .turns import TurnRouter


@magics_class
class AgentMagics(Magics):
    """The ``%agent`` magics and their settings."""

    model = Unicode(help="Model of new sessions (default: $JUPYTER_AGENT_MODEL or the SDK default).").tag(config=True)
    mode = Enum(list(PERMISSION_MODES), "default", help="Permission mode of new sessions.").tag(config=True)
    allow = List(Unicode(), help="Extra allow rules for new sessions, e.g. 'Bash(pytest:*)'.").tag(config=True)
    deny = List(Unicode(), help="Extra deny rules for new sessions, e.g. 'Read(./.env)'.").tag(config=True)
    approval_timeout = Float(None, allow_none=True, help="Deny an unanswered ask after this many seconds.").tag(config=True)
    permission_prompt_tool = Unicode(
        None, allow_none=True, help="An MCP tool (mcp__server__tool) that answers approvals instead of a person."
    ).tag(config=True)
    base_url = Unicode(None, allow_none=True, help="Messages API base URL (default: ANTHROPIC_BASE_URL).").tag(config=True)
    api_key = Unicode(None, allow_none=True, help="API key (default: ANTHROPIC_API_KEY).").tag(config=True)
    max_turns = Int(100, help="Model requests allowed in one turn.").tag(config=True)
    thinking_budget = Int(None, allow_none=True, help="Extended thinking budget in tokens.").tag(config=True)
    project_dir = Unicode(None, allow_none=True, help="Project root (default: the kernel's cwd).").tag(config=True)
    stream_interval = Float(0.15, help="Seconds between transcript updates while text streams.").tag(config=True)
    show_context = Bool(True, help="Tell the agent the notebook path, cell id, last error and the other open notebooks.").tag(config=True)
    sandbox = Bool(False, help="Run new sessions' Bash commands in the bubblewrap sandbox.").tag(config=True)
    preload = Bool(
        True, help="At %load_ext, import the model SDK on a background thread, so the first %agent "
        "does not wait for it (set in ipython_config.py; a %config after loading is too late)."
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        # Set before the traitlets init: loading config may fire the observers below.
        self.session: AgentSession | None = None
        self.router: TurnRouter | None = None
        self._unsubscribe: Any = None
        self.current_cell_id: str | None = None
        self.uninstall_interrupt: Callable[[], None] | None = None  # see interrupt.install
        super().__init__(shell=shell, **kwargs)

    @default("approval_timeout")
    def _default_approval_timeout(self) -> float | None:
        value = os.environ.get("JUPYTER_AGENT_APPROVAL_TIMEOUT")  # headless runs set it
        return float(value) if value else None

    @default("permission_prompt_tool")
    def _default_permission_prompt_tool(self) -> str | None:
        from ..agent.prompt_tool import PROMPT_TOOL_ENV

        return os.environ.get(PROMPT_TOOL_ENV) or None  # headless runs set it

    @default("model")
    def _default_model(self) -> str:
        from ..agent.config import SessionConfig

        return os.environ.get("JUPYTER_AGENT_MODEL") or SessionConfig.__dataclass_fields__["model"].default

    # -- the magic -----------------------------------------------------------------------------

    @no_var_expand
    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> Any:
        opts = parse_options(line, cell)
        match opts.action:
            case "help":
                return reports.Text(help_text())
            case "stop":
                return self._stop()
            case "cost":
                return reports.Text(reports.cost_text(self.session))
            case "tools":
                return reports.Text(reports.tools_text(self._ensure_session(opts)))
            case "permissions":
                return reports.Text(reports.permissions_text(self._ensure_session(opts)))
            case "compact":
                return self._compact()
            case "rewind":
                if self.session is not None:
                    _require_loop()
                return reports.rewind_widget(self.session, opts.rewind or 1,
                                             self.router.mark_rewound if self.router is not None else None)
            case "sessions":
                return self._sessions_listing(opts)
        resume_note = None
        if opts.resume == "":
            target = reports.resume_target(self._sessions_dir(opts), cell_context.notebook_path(self.shell))
            if target is not None and self.session is not None and target == self.session.id:
                # the one it would resume is running here: keep it (re-running the cell is no switch)
                opts = dataclasses.replace(opts, resume=None)
                resume_note = (f"Session {self.session.id} is already this kernel's session (the newest saved "
                               "one). %agent --sessions lists the others; %agent --resume=ID switches to one.")
            elif target is not None:
                opts = dataclasses.replace(opts, resume=target)
        kept: list[str] = []  # {fields} left as written: pasted code is not an error
        prompt = interpolate(opts.prompt, self.shell.user_ns, kept)
        session = self._ensure_session(opts)
        forgotten = self._forget(session, opts.forget)
        prompt = _expand_command(prompt, session)
        if not prompt:
            if forgotten:
                return reports.Text("\n".join(forgotten))
            if resume_note is not None:
                return reports.Text(resume_note)
            if opts.new or opts.resume is not None or opts.model or opts.mode or opts.allow or opts.deny or opts.add_dir \
                    or opts.approval_timeout is not None or opts.mcp or opts.trust or opts.sandbox \
                    or opts.permission_prompt_tool:
                return reports.Text(reports.session_text(session, resumed=opts.resume is not None))
            raise UsageError(f"%agent: what should the agent do? Write a prompt after %agent.\n\n{usage_text()}")
        self._start_turn(session, prompt, kept)
        return None

    agent.__doc__ = usage_text()

    # -- sessions ------------------------------------------------------------------------------

    def _session_config(self, opts: AgentOptions) -> Any:
        from ..agent.config import SessionConfig

        cwd = Path.cwd()
        return SessionConfig(
            model=opts.model or self.model,
            cwd=cwd,
            project_dir=Path(self.project_dir) if self.project_dir else cwd,
            mode=opts.mode or self.mode,  # type: ignore[arg-type]
            allow=[*self.allow, *opts.allow],
            deny=[*self.deny, *opts.deny],
            additional_directories=[Path(d) for d in opts.add_dir],
            max_turns=self.max_turns,
            thinking_budget=self.thinking_budget,
            base_url=self.base_url,
            api_key=self.api_key,
            notebook_path=cell_context.notebook_path(self.shell),
            approval_timeout=self.approval_timeout if opts.approval_timeout is None else opts.approval_timeout,
            permission_prompt_tool=opts.permission_prompt_tool or self.permission_prompt_tool,
            mcp_servers=_mcp_servers(opts.mcp, cwd) or None,
            trust_project=opts.trust,
            sandbox=opts.sandbox or self.sandbox,
        )

    def _sessions_listing(self, opts: AgentOptions) -> Any:
        """``--sessions``: the listing as text that shows as a picker with Resume buttons."""
        from ..agent.saved_sessions import saved_sessions
        from ..ui.session_picker import SessionsListing

        folder = self._sessions_dir(opts)
        found = saved_sessions(folder)
        current = self.session.id if self.session is not None else None
        return SessionsListing(reports.sessions_text(folder, current, found=found), found, current,
                               self._resume_clicked)

    def _resume_clicked(self, session_id: str) -> str:
        """A Resume button of the picker: ``%agent --resume=ID``, but never over a running turn
        (a stray click must not interrupt work the way typing the magic deliberately does)."""
        router = self.router
        if router is not None and (router.active is not None or router.queue):
            raise RuntimeError("A turn is running: let it finish or stop it (%agent --stop), then resume.")
        if self.session is not None and self.session.id == session_id:
            return f"Session {session_id} is already this kernel's session."
        session = self._ensure_session(AgentOptions(resume=session_id))
        return reports.session_text(session, resumed=True)

    def _sessions_dir(self, opts: AgentOptions) -> Path:
        """Where this project's transcripts are: the running session's folder, else a new one's."""
        if self.session is not None:
            return Path(self.session.transcript_path).parent
        return Path(self._session_config(opts).resolved_sessions_dir())

    def _ensure_session(self, opts: AgentOptions) -> AgentSession:
        from ..agent.session import AgentSession

        if opts.new or opts.resume is not None or self.session is None or self._key_arrived(self.session):
            config = self._session_config(opts)
            if opts.resume is not None:
                try:
                    session = AgentSession.resume(opts.resume or None, config=config)
                except (FileNotFoundError, LookupError, ValueError) as exc:
                    raise UsageError(f"%agent --resume: {exc}") from None
            else:
                from ..errors import AgentConfigError

                try:
                    session = AgentSession(config)
                except AgentConfigError as exc:  # a misconfiguration: the user's to fix
                    raise UsageError(f"%agent: {exc}") from None
            self._attach(session)
            return session
        assert self.session is not None
        self._apply_changes(self.session, opts)
        return self.session

    def _key_arrived(self, session: AgentSession) -> bool:
        """The session started without an API key and never got a reply, and now there is one
        (``%env ANTHROPIC_API_KEY=…`` or ``%config AgentMagics.api_key`` after the first try):
        a new session picks it up — the SDK client read the environment when it was made."""
        client = getattr(session.model_client, "client", None)
        keyless = (session.config.client is None and getattr(session, "key_helper", None) is None
                   and getattr(client, "api_key", None) is None and getattr(client, "auth_token", None) is None)
        if not keyless or any(m.get("role") == "assistant" for m in session.messages if isinstance(m, dict)):
            return False
        from ..agent.api_key_helper import key_given

        return key_given(self.api_key, {})

    def _attach(self, session: AgentSession) -> None:
        from ..ui.permission_handler import WidgetPermissionHandler
        from .turns import TurnRouter

        self._detach()
        router = TurnRouter(session.stop)
        self._unsubscribe = session.subscribe(router.dispatch)
        project = session.config.project_dir
        session.can_use_tool = WidgetPermissionHandler(
            router.active_transcript, project_dir=Path(project) if project else None
        )
        session.prompt_notes.append(lambda: self._open_notebooks_note(session))
        self.session, self.router = session, router

    async def _open_notebooks_note(self, session: AgentSession) -> str:
        """Told with each prompt: the other notebooks open in JupyterLab ("fix the plot in the
        other notebook" needs no search), as the pages last said — no round trip."""
        own = cell_context.notebook_path(self.shell)
        if not self.show_context or own is None:  # not run by a Jupyter server: no pages
            return ""
        from ..notebook import OPEN_NOTE_WAIT, open_notebooks

        paths = await open_notebooks(wait=OPEN_NOTE_WAIT)
        return cell_context.open_notebooks_note(paths, own, session.context.cwd)

    def _detach(self) -> None:
        old = self.session
        if old is None:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self.router is not None:
            for turn in [*self.router.queue, *([self.router.active] if self.router.active else [])]:
                turn.transcript.finish("interrupted")
        old.stop()
        _schedule(old.aclose())
        self.session = self.router = None

    def _apply_changes(self, session: AgentSession, opts: AgentOptions) -> None:
        """``--model/--mode/--allow/--deny`` on a running session change it from the next request."""
        if opts.model:
            session.config.model = opts.model
        if opts.approval_timeout is not None:
            session.config.approval_timeout = opts.approval_timeout
        if opts.permission_prompt_tool:  # from the next ask on
            session.config.permission_prompt_tool = opts.permission_prompt_tool
        if opts.trust:  # applied (and recorded) at the start of the next turn
            session.config.trust_project = True
        if opts.sandbox:  # from the next command on
            from ..sandbox.settings import turn_on

            session.config.sandbox = True
            turn_on(session.context)
        if opts.mode or opts.allow or opts.deny or opts.add_dir:
            from ..errors import AgentConfigError

            try:
                reports.update_permissions(session, opts.mode, opts.allow, opts.deny, tuple(map(Path, opts.add_dir)))
            except AgentConfigError as exc:  # nothing was changed
                raise UsageError(f"%agent: {exc}") from None
        if opts.mcp:
            servers = _mcp_servers(opts.mcp, Path.cwd())
            manager = session.tool_pool.mcp
            if manager is None:  # a session that started without MCP gets a manager now
                from ..agent.toolpool import empty_mcp_manager
                from ..tools.shell.environment import settings_env

                manager = session.tool_pool.mcp = empty_mcp_manager(
                    session.context.session_dir, lambda: settings_env(session.context), session.settings)
            problems = manager.add_servers(servers)
            if problems:  # the others were added
                raise UsageError("%agent --mcp: " + "; ".join(problems))

    @staticmethod
    def _forget(session: AgentSession, rules: list[str]) -> list[str]:
        """``--forget RULE``: what was removed, rule by rule (UsageError at the first that cannot be)."""
        from ..errors import AgentConfigError

        done = []
        for rule in rules:
            try:
                done.append(reports.forget_rule(session, rule))
            except AgentConfigError as exc:
                raise UsageError("%agent --forget: " + "\n".join([*done, str(exc)])) from None
        return done

    @observe("model")
    def _model_changed(self, change: dict[str, Any]) -> None:
        if self.session is not None:
            self.session.config.model = change["new"]

    @validate("mode")
    def _check_mode(self, proposal: Any) -> str:
        """A new mode applies to the running session too; a mode a settings file disables is
        refused (the session and this setting keep their mode)."""
        value = str(proposal["value"])
        if self.session is not None:
            from ..errors import AgentConfigError

            try:
                reports.update_permissions(self.session, value, [], [])
            except AgentConfigError as exc:
                raise TraitError(f"AgentMagics.mode: {exc}") from None
        return value

    # -- turns ---------------------------------------------------------------------------------

    def _start_turn(self, session: AgentSession, prompt: str, kept: list[str] | None = None) -> None:

        from ..ui.live_display import LiveDisplay
        from ..ui.transcript import Transcript
        from .turns import Turn

        _require_loop()
        assert self.router is not None
        router = self.router
        cell_id = self.cell_id()
        router.stop_cell(cell_id)
        transcript = Transcript(
            # the context of the moment: the turn replaces it (MCP tools join when their servers start)
            prompt, model=session.config.model, find_tool=lambda name: session.context.find_tool(name),
            interval=self.stream_interval,
            root=session.context.cwd,
        )
        if kept:  # said before anything else: the model gets those braces as they were typed
            reasons = [reason.split(" Write ")[0] for reason in kept[:3]]
            more = f" (and {len(kept) - 3} more)" if len(kept) > 3 else ""
            transcript.note("Sent as written: " + " ".join(reasons) + more
                            + " Write {{ and }} to send braces without this note.")
        turn = Turn(transcript, cell_id)
        transcript.on_stop = lambda: router.stop(turn)
        router.add(turn)
        if cell_id:
            _schedule(self._watch_cells())
            transcript.on_ask = lambda what: self._notify_waiting(cell_id, what)
        label = f"%agent {reports.first_line(prompt)}"
        display = turn.display = LiveDisplay(transcript, transcript.static_html(), label, shell=self.shell)
        transcript.on_done(lambda t: display.update(t.static_html(), f"{label} [{t.stop_reason}]"))
        reminder = cell_context.gather(self.shell, cell_id).reminder() if self.show_context else ""
        turn.task = session.submit(reminder + prompt, typed=True)
        turn.task.add_done_callback(lambda task: router.task_done(turn, task))

    def cell_id(self) -> str | None:
        """The id of the cell being run (IPython's ``pre_run_cell`` info, else the request)."""
        if self.current_cell_id:
            return self.current_cell_id
        kernel = getattr(self.shell, "kernel", None)
        try:
            parent = kernel.get_parent() if kernel is not None else None
        except Exception:
            parent = None
        metadata = (parent or {}).get("metadata") or {}
        value = metadata.get("cellId")
        return str(value) if value else None

    def pre_run_cell(self, info: Any) -> None:
        self.current_cell_id = getattr(info, "cell_id", None)

    def _stop(self) -> Any:
        active = self.router.active if self.router is not None else None
        if active is None:
            return reports.Text("No turn is running.")
        active.transcript.stop()
        return reports.Text("Stopping the running turn.")

    def watch_frontend(self) -> None:
        """At ``%load_ext`` in a kernel a Jupyter server runs: the bridge to the page opens now,
        in the background, so the first ``%agent`` already knows which notebooks are open and its
        first live read does not wait for the page's hello."""
        if cell_context.notebook_path(self.shell) is not None:
            _schedule(self._watch_cells())

    async def _watch_cells(self) -> None:
        """Hear from the labextension when the user deletes cells (``cells_deleted``): the
        notebook bridge is opened now, not only when a tool first needs the live notebook."""
        from ..notebook import bridge, get_bridge

        if self.cells_deleted not in bridge.CELLS_REMOVED_LISTENERS:
            bridge.CELLS_REMOVED_LISTENERS.append(self.cells_deleted)
        if self.outputs_cleared not in bridge.OUTPUTS_CLEARED_LISTENERS:
            bridge.OUTPUTS_CLEARED_LISTENERS.append(self.outputs_cleared)
        await get_bridge()

    def _notify_waiting(self, cell_id: str, what: str) -> Callable[[], None]:
        """The turn of ``cell_id`` waits for the user: the page says so if the card is out of
        sight; the returned callable takes the notice down once answered."""
        import asyncio

        from ..notebook import dismiss_waiting, notify_waiting

        path = cell_context.notebook_path(self.shell)
        notice = asyncio.get_running_loop().create_task(
            notify_waiting(path, cell_id, f"The agent is waiting for you to {what}."))
        return lambda: _schedule(dismiss_waiting(notice, path))

    def cells_deleted(self, cell_ids: list[str]) -> None:
        """Deleting a cell withdraws its request: its turn stops (running or queued), instead of
        going on out of sight, maybe waiting for an approval nobody can see any more."""
        if self.router is not None:
            for cell_id in cell_ids:
                self.router.stop_cell(cell_id)

    def outputs_cleared(self, client: Any, cell_ids: list[str]) -> None:
        """Clearing outputs (Clear All Outputs, a cell's Clear Outputs) does not lose a turn that
        is still running or queued there: its transcript — with any card waiting for an answer —
        is put back in the cell, and gets the turn's final copy when it ends."""
        router = self.router
        if router is None:
            return
        for cell_id in cell_ids:
            turn = router.by_cell.get(cell_id)
            if turn is not None and turn.running and turn.display is not None:
                _schedule(self._show_again(turn, client.path))

    async def _show_again(self, turn: Any, path: str) -> None:
        from ..notebook import show_output

        display, cell_id = turn.display, turn.cell_id

        def mirror(data: dict[str, Any]) -> None:
            _schedule(show_output(path, cell_id, display.display_id, data))

        if not display.mirrors:  # first: a final update sent meanwhile follows this one
            display.mirrors.append(mirror)
        await show_output(path, cell_id, display.display_id, display.data(turn.transcript.static_html()))

    def interrupted(self) -> None:
        """The kernel was interrupted while no cell ran: stop the running turn (as Stop does)."""
        active = self.router.active if self.router is not None else None
        if active is not None:
            active.transcript.stop()

    def _compact(self) -> Any:
        if self.session is None:
            return reports.Text("No agent session yet: nothing to compact.")
        _require_loop()
        return reports.compact_widget(self.session)

    def close(self) -> None:
        """Stop the session (unloading the extension)."""
        self._detach()
        import sys

        bridge = sys.modules.get("jupyter_agent.notebook.bridge")  # imported by a turn, if any
        if bridge is not None and self.cells_deleted in bridge.CELLS_REMOVED_LISTENERS:
            bridge.CELLS_REMOVED_LISTENERS.remove(self.cells_deleted)
        if bridge is not None and self.outputs_cleared in bridge.OUTPUTS_CLEARED_LISTENERS:
            bridge.OUTPUTS_CLEARED_LISTENERS.remove(self.outputs_cleared)


def _require_loop() -> None:
    """Turns, compaction and rewinds run as tasks on the kernel's event loop."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise UsageError(
            "%agent runs its turns on the kernel's event loop: use it in a Jupyter kernel "
            "(JupyterLab, Notebook, VS Code), not in a terminal IPython."
        ) from None


def _mcp_servers(values: list[str], cwd: Path) -> dict[str, object]:
    """``--mcp`` values (JSON text or a file) merged into one ``mcpServers`` mapping."""
    if not values:
        return {}
    from ..mcp.config import parse_mcp_option

    servers: dict[str, object] = {}
    for value in values:
        try:
            servers.update(parse_mcp_option(value, cwd))
        except (ValueError, OSError) as exc:
            raise UsageError(f"%agent {exc}" if str(exc).startswith("--mcp") else f"%agent --mcp: {exc}") from None
    return servers


def _expand_command(prompt: str, session: AgentSession) -> str:
    """``/name args`` runs the custom command or skill ``name`` (``$ARGUMENTS`` substituted)."""
    first = prompt.split(maxsplit=1)[0] if prompt.strip() else ""
    if not first.startswith("/") or "/" in first[1:] or len(first) == 1:
        return prompt  # not a command (a path such as /tmp/data.csv is just text)
    if first.startswith("/mcp__"):  # an MCP server's prompt: its server renders it when the turn starts
        return prompt
    from ..skills.expand import expand_command

    expanded = expand_command(prompt, session.context.options.commands)
    if expanded is None:
        names = sorted(getattr(c, "name", "") for c in session.context.options.commands)
        known = ", ".join(f"/{n}" for n in names if n) or "none (add .claude/commands/<name>.md)"
        raise UsageError(f"%agent: unknown command {prompt.split()[0]}. Known commands: {known}")
    return expanded


def _schedule(coro: Any) -> None:
    import asyncio

    try:
        asyncio.get_running_loop().create_task(coro)
    except RuntimeError:
        coro.close()
