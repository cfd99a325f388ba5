"""One MCP server connection, held open by a background task with the official ``mcp`` client.

The ``mcp`` client is an async context manager whose enter and exit must happen in one task,
so each connection runs ``_serve`` as its own task: it connects, lists the tools, reports
ready, then waits for ``aclose``.  Calls from any task go through the shared client session.
A server that dies (crash, exit) marks the connection failed; calls then fail with a message
the model can read, and the rest of the session is unaffected.

A server may ask the user for input while a call runs (``elicitation.py``): the call that is
running registers how its user is asked (``on_elicit``).  On 2026-07-28 the request comes back
as the call's own result and is fulfilled inside that call, so it reaches exactly that call's
asker; an ``elicitation/create`` (2025-11-25) arrives on the connection's reader and goes to
the most recent call still running.  With no call running nobody can be asked: ``cancel``.

A server's tool list may change while it runs (a tool unlocked after signing in): on
2026-07-28 the connection listens for the change (``subscriptions/listen``, when the server
offers it), before that the server just says so (``notifications/tools/list_changed``).
Either way the tools are fetched again (``tools_generation`` counts the fetches) and the
session's next request carries them.

A link (a sign-in in the browser) may be needed before a call can run at all: the server
answers ``URL_ELICITATION_REQUIRED`` (-32042) with the links.  With a running call's asker the
user is shown each link; once they accepted and the step is done — the server's
``notifications/elicitation/complete`` for its id, or the user saying they finished — the call
is tried again, once.  Without an asker (or refused) the model reads the links in the error.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .config import HttpServerConfig, McpServerEntry, StdioServerConfig
from .elicitation import ElicitAnswer, Elicitation, FormSchemaError, LinkDone, elicitation_from_params

Elicit = Callable[[Elicitation], Awaitable[ElicitAnswer]]
_CALLS_ASKER: ContextVar[Elicit | None] = ContextVar("mcp_calls_asker", default=None)

ConnectionStatus = Literal["pending", "connected", "failed", "closed"]
DEFAULT_CONNECT_TIMEOUT = float(os.environ.get("MCP_TIMEOUT", "30000")) / 1000
DEFAULT_TOOL_TIMEOUT = float(os.environ.get("MCP_TOOL_TIMEOUT", "600000")) / 1000
LINK_WAIT = 600.0  # seconds a call waits for an accepted link's step to be done before it retries anyway


@dataclass(frozen=True)
class McpProgress:
    """A progress notification of a running tool call."""

    progress: float
    total: float | None = None
    message: str | None = None


class McpCallError(Exception):
    """A call that could not reach the server or got no answer; its text is for the model."""


class McpLinksRequired(McpCallError):
    """The server needs the user to open links first (``URL_ELICITATION_REQUIRED``)."""

    def __init__(self, message: str, links: list[Elicitation]) -> None:
        super().__init__(message)
        self.links = links


class McpConnection:
    """A named server: its status, its tools and resources, and calls to it."""

    def __init__(
        self, entry: McpServerEntry, *, log_dir: Path | None = None,
        environment: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.entry = entry
        self._environment = environment  # variables laid over the kernel's (settings ``env``)
        self.name = entry.name
        self.status: ConnectionStatus = "pending"
        self.error: str | None = None
        self.tools: list[mcp_types.Tool] = []
        self.prompts: list[mcp_types.Prompt] = []  # its prompts: commands /mcp__<server>__<prompt>
        self.instructions: str | None = None
        self.capabilities: mcp_types.ServerCapabilities | None = None
        self._log_dir = log_dir
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._askers: list[Elicit] = []  # the running calls' ways to ask their user, oldest first
        self._links: dict[str, LinkDone] = {}  # links shown and not done yet, by elicitation id
        self.tools_generation = 0  # how often the tool list was fetched again after a change
        self._tool_list = Refetch(self._fetch_tools)  # fetches of a changed tool list
        self._prompt_list = Refetch(self.refresh_prompts)  # of a changed prompt list

    def __repr__(self) -> str:
        return f"<McpConnection {self.name} {self.status}>"

    @property
    def supports_resources(self) -> bool:
        return bool(self.capabilities and self.capabilities.resources is not None)

    async def start(self, timeout: float = DEFAULT_CONNECT_TIMEOUT) -> None:
        """Connect (once); never raises: a failure is recorded in ``status`` and ``error``."""
        if self._task is None:
            self._task = asyncio.create_task(self._serve(), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready.wait()), timeout)
        except asyncio.TimeoutError:
            self._fail(f"did not connect within {timeout:g}s")
            await self.aclose()

    async def _serve(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                transport = await self._transport(stack)
                client = await stack.enter_async_context(
                    Client(transport, elicitation_callback=self._elicited, message_handler=self._heard))
                self._client = client
                self.capabilities = client.server_capabilities
                self.instructions = client.instructions
                self.tools = await self._list_tools(client) if client.server_capabilities.tools else []
                # a server that fails to list its prompts just offers none
                self.prompts = (await self._list_prompts(client) or []) if client.server_capabilities.prompts else []
                self.status = "connected"
                self._ready.set()
                listening = asyncio.ensure_future(self._listen(client)) if self._listens(client) else None
                try:
                    await self._stop.wait()
                finally:
                    if listening is not None:
                        listening.cancel()
                    self._tool_list.cancel()
                    self._prompt_list.cancel()
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # a dying server must never take the session down
            self._fail(_describe(exc))
        finally:
            self._client = None
            if self.status == "connected":
                self.status = "closed"
            self._ready.set()

    async def _transport(self, stack: AsyncExitStack) -> Any:
        config = self.entry.config
        if isinstance(config, StdioServerConfig):
            settings_env = self._environment() if self._environment is not None else {}
            env = {**get_default_environment(), **os.environ, **settings_env, **config.env}
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=env, cwd=config.cwd
            )
            return stdio_client(params, errlog=stack.enter_context(self._open_log()))
        assert isinstance(config, HttpServerConfig)
        if config.type == "sse":
            return sse_client(config.url, headers=dict(config.headers))
        http = await stack.enter_async_context(create_mcp_http_client(headers=dict(config.headers)))
        return streamable_http_client(config.url, http_client=http)

    def _open_log(self) -> Any:
        """The server's stderr goes to a log file (a kernel's sys.stderr has no file descriptor)."""
        if self._log_dir is None:
            return open(os.devnull, "w")  # noqa: SIM115 - closed by the exit stack
        self._log_dir.mkdir(parents=True, exist_ok=True)
        return open(self._log_dir / f"{self.name}.log", "a", encoding="utf-8")  # noqa: SIM115

    # -- a tool list that changes ------------------------------------------------------------

    @staticmethod
    def _changing_lists(client: Client) -> tuple[bool, bool]:
        """(tools, prompts): which lists the server says may change."""
        caps = client.server_capabilities
        return (bool(caps.tools and caps.tools.list_changed), bool(caps.prompts and caps.prompts.list_changed))

    @classmethod
    def _listens(cls, client: Client) -> bool:
        return any(cls._changing_lists(client)) and client.protocol_version >= "2026"

    async def _listen(self, client: Client) -> None:
        """2026-07-28: a ``subscriptions/listen`` stream of tool- and prompt-list changes; a
        stream that is lost is opened again (a few times), with the lists fetched again since
        nothing is replayed."""
        from mcp.shared.subscriptions import PromptsListChanged

        tools, prompts = self._changing_lists(client)
        for _attempt in range(3):
            try:
                async with client.listen(tools_list_changed=tools, prompts_list_changed=prompts) as events:
                    async for event in events:
                        if isinstance(event, PromptsListChanged):
                            self.prompts_changed()
                        else:
                            self.tools_changed()
                return  # the server closed it gracefully
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._stop.is_set() or self._client is None:
                    return
                self.tools_changed()
                self.prompts_changed()
                await asyncio.sleep(0.5)

    async def _heard(self, message: Any) -> None:
        """The SDK's message handler: a tool- or prompt-list change notice (servers send them
        whatever their capabilities say); anything else is left to the SDK."""
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.tools_changed()
        elif isinstance(message, mcp_types.PromptListChangedNotification):
            self.prompts_changed()
        elif isinstance(message, mcp_types.ElicitCompleteNotification):
            done = self._links.pop(message.params.elicitation_id, None)  # an unknown id is ignored
            if done is not None:
                done.finish("server")

    def _await_link(self, link: Elicitation) -> None:
        """Remember a link shown to the user, so its completion notice finds it (the oldest
        are forgotten past 64: a server that never says it is done cannot grow this)."""
        if link.done is None or not link.elicitation_id:
            return
        self._links.pop(link.elicitation_id, None)
        self._links[link.elicitation_id] = link.done
        while len(self._links) > 64:
            self._links.pop(next(iter(self._links)))

    def prompts_changed(self) -> None:
        """List the prompts again in the background (their ``/mcp__…`` commands follow)."""
        self._prompt_list.poke()

    async def prompts_settled(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` seconds) for a listing of the prompts under way."""
        await self._prompt_list.settled(timeout)

    def tools_changed(self) -> None:
        """Fetch the tool list again, in the background.  Started at once, so a call whose
        result follows the notice finds the fetch under way (``tools_settled`` waits for it)."""
        self._tool_list.poke()

    async def tools_settled(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` seconds) for a fetch of the tool list under way."""
        await self._tool_list.settled(timeout)

    async def _fetch_tools(self) -> None:
        client = self._client
        if client is None or self.status != "connected":
            return
        try:
            self.tools = await self._list_tools(client)
        except asyncio.CancelledError:
            raise
        except Exception:  # the old list stays; the next notice tries again
            return
        self.tools_generation += 1

    @staticmethod
    async def _list_tools(client: Client) -> list[mcp_types.Tool]:
        return await _all_pages(lambda cursor: client.list_tools(cursor=cursor), "tools")

    @staticmethod
    async def _list_prompts(client: Client) -> list[mcp_types.Prompt] | None:
        """Its prompts; None when listing them fails."""
        try:
            return await _all_pages(lambda cursor: client.list_prompts(cursor=cursor), "prompts")
        except asyncio.CancelledError:
            raise
        except Exception:
            return None

    async def refresh_prompts(self) -> None:
        """List its prompts again (a command named none of them: the server may have added it,
        or it said they changed).  A listing that fails keeps the prompts it had, as a tool list
        that fails to load again does; the next notice tries again."""
        client = self._client
        if client is None or self.status != "connected" or not client.server_capabilities.prompts:
            return
        listed = await self._list_prompts(client)
        if listed is not None:
            self.prompts = listed

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> mcp_types.GetPromptResult:
        client = self._live_client()
        return await self._guard(client.get_prompt(name, arguments), "prompts/get")

    def _fail(self, message: str) -> None:
        if self.status in ("pending", "connected"):
            self.status = "failed"
            self.error = message

    def _live_client(self) -> Client:
        client = self._client
        if client is None or self.status != "connected":
            why = f": {self.error}" if self.error else ""
            raise McpCallError(f'MCP server "{self.name}" is not connected ({self.status}{why}).')
        return client

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        timeout: float = DEFAULT_TOOL_TIMEOUT,
        on_progress: Callable[[McpProgress], None] | None = None,
        on_elicit: Elicit | None = None,
    ) -> mcp_types.CallToolResult:
        client = self._live_client()
        callback = None
        if on_progress is not None:

            async def callback(progress: float, total: float | None, message: str | None) -> None:
                on_progress(McpProgress(progress, total, message))

        return await self._with_links(
            lambda: client.call_tool(tool, arguments, read_timeout_seconds=timeout, progress_callback=callback),
            tool, on_elicit)

    async def _with_links(self, call: Callable[[], Awaitable[Any]], what: str, on_elicit: Elicit | None) -> Any:
        """Run the call; when the server first needs links opened (and there is a user to
        ask), show them, wait until their step is done, and run it once more."""
        with self._asking(on_elicit):
            try:
                return await self._guard(call(), what)
            except McpLinksRequired as needed:
                if on_elicit is None:
                    raise
                await self._follow(needed, on_elicit)
            return await self._guard(call(), what)

    async def _follow(self, needed: McpLinksRequired, on_elicit: Elicit) -> None:
        """Each link to the user; any refused ends the call with the server's request in it."""
        for link in needed.links:
            self._await_link(link)
            answer = await on_elicit(link)
            if answer.action != "accept":
                how = "declined" if answer.action == "decline" else "cancelled"
                raise McpLinksRequired(f"{needed} The user {how} opening it.", needed.links)
        for link in needed.links:
            if link.done is not None:
                await link.done.wait(LINK_WAIT)

    @contextlib.contextmanager
    def _asking(self, on_elicit: Elicit | None) -> Any:
        """While a call runs, an elicitation goes to its user."""
        if on_elicit is None:
            yield
            return
        self._askers.append(on_elicit)
        token = _CALLS_ASKER.set(on_elicit)
        try:
            yield
        finally:
            _CALLS_ASKER.reset(token)
            self._askers.remove(on_elicit)

    async def _elicited(self, context: Any, params: Any) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        """The SDK's elicitation callback: a form we cannot show is an error for the server;
        otherwise the running call's user (and the hooks) answer."""
        try:
            elicitation = elicitation_from_params(self.name, params)
        except FormSchemaError as exc:
            return mcp_types.ErrorData(code=mcp_types.INVALID_PARAMS, message=f"Cannot show this form: {exc}.")
        asker = _CALLS_ASKER.get() or (self._askers[-1] if self._askers else None)
        if asker is None:
            return mcp_types.ElicitResult(action="cancel")
        self._await_link(elicitation)
        try:
            answer = await asker(elicitation)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken asker sends nothing
            return mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=f"The client failed to ask: {exc}")
        content = answer.content if answer.action == "accept" and elicitation.mode == "form" else None
        return mcp_types.ElicitResult(action=answer.action, content=content)

    async def list_resources(self) -> list[mcp_types.Resource]:
        client = self._live_client()
        return await _all_pages(lambda cursor: self._guard(client.list_resources(cursor=cursor), "resources/list"),
                                "resources")

    async def read_resource(self, uri: str, on_elicit: Elicit | None = None) -> mcp_types.ReadResourceResult:
        client = self._live_client()
        return await self._with_links(lambda: client.read_resource(uri), "resources/read", on_elicit)

    async def _guard(self, call: Any, what: str) -> Any:
        """Await ``call``; a dead connection or protocol failure becomes ``McpCallError``."""
        try:
            return await call
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            links = self._links_required(exc)
            if links is not None:
                shown = "; ".join(f"{link.message} ({link.url})" for link in links)
                raise McpLinksRequired(f'MCP server "{self.name}" needs the user to open a link first: {shown}.',
                                       links) from exc
            if self._task is not None and self._task.done() or _is_connection_loss(exc):
                self._fail(_describe(exc))
            raise McpCallError(f'MCP server "{self.name}" failed on {what}: {_describe(exc)}') from exc

    def _links_required(self, exc: BaseException) -> list[Elicitation] | None:
        """The links of a ``URL_ELICITATION_REQUIRED`` error (None for any other error, or
        when one of its links is not an http(s) address: that is shown as the error it is)."""
        error = getattr(exc, "error", None)
        if not isinstance(error, mcp_types.ErrorData) or error.code != mcp_types.URL_ELICITATION_REQUIRED:
            return None
        from mcp.shared.exceptions import UrlElicitationRequiredError

        try:
            params = UrlElicitationRequiredError.from_error(error).elicitations
            links = [elicitation_from_params(self.name, p, retry=True) for p in params]
        except (ValueError, FormSchemaError):  # pydantic's ValidationError is a ValueError
            return None
        return links or None

    async def aclose(self) -> None:
        """Close the session and stop the server process; safe to call more than once."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 10)
            except asyncio.TimeoutError:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.status in ("pending", "connected"):
            self.status = "closed"
        self._links.clear()


async def _all_pages(fetch: Callable[[str | None], Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated list (``tools``, ``prompts``, ``resources``), at most 100 pages."""
    items: list[Any] = []
    cursor: str | None = None
    for _page in range(100):
        page = await fetch(cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


def _is_connection_loss(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in ("ClosedResourceError", "BrokenResourceError", "EndOfStream") or (
        "closed" in str(exc).lower() and "connection" in str(exc).lower()
    )


class Refetch:
    """One fetch at a time in the background; notices that arrive while one runs fold into
    one more fetch after it."""

    def __init__(self, fetch: Callable[[], Awaitable[None]]) -> None:
        self._fetch = fetch
        self._task: asyncio.Future[None] | None = None
        self._again = False
        self.runs = 0  # fetches finished (whether or not they got a list)

    def poke(self) -> None:
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self._fetch()
            finally:
                self.runs += 1
            if not self._again:
                return

    async def settled(self, timeout: float) -> None:
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=timeout)

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


def _describe(exc: BaseException) -> str:
    group = getattr(exc, "exceptions", None)  # an ExceptionGroup from the client's task group
    if isinstance(group, (list, tuple)):
        inner = [e for e in group if not isinstance(e, asyncio.CancelledError)]
        if inner:
            return _describe(inner[0])
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
