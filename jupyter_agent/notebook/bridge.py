"""The kernel side of the comm to the labextension: hello, requests, responses, timeouts.

The kernel opens one comm on ``COMM_TARGET``; every notebook view of this kernel that has the
extension answers with a ``Hello`` (its path and a ``client_id``).  Requests are addressed to
one client and awaited with a timeout.  Comm callbacks may run on a kernel subshell thread, so
every message is handed to the event loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .document import NotebookEditError
from .protocol import (
    COMM_TARGET,
    FEATURE_PATHS,
    PROTOCOL_VERSION,
    CellsRemoved,
    ErrorResponse,
    GetNotebookArgs,
    Hello,
    ListOpenArgs,
    ListOpenResult,
    NotifyArgs,
    OkResponse,
    OpArgs,
    OpenNotebooks,
    OutputsCleared,
    RevealCellArgs,
    ShowOutputArgs,
    make_request,
    parse_frontend_message,
)

HELLO_TIMEOUT = float(os.environ.get("JUPYTER_AGENT_HELLO_TIMEOUT", "2.0"))
REQUEST_TIMEOUT = float(os.environ.get("JUPYTER_AGENT_REQUEST_TIMEOUT", "15.0"))
LIST_OPEN_TIMEOUT = 5.0  # seconds: a page that cannot say what it has open is passed over
# Requests that change nothing in the notebook: sent again to a view that replaced the gone one.
REPEATABLE_ARGS = (GetNotebookArgs, RevealCellArgs, NotifyArgs, ShowOutputArgs, ListOpenArgs)
# Called on the loop with the ids of cells the user deleted (the %agent magics stop their turns).
CELLS_REMOVED_LISTENERS: list[Callable[[list[str]], None]] = []
# Called on the loop with the view and the ids of cells whose outputs the user cleared.
OUTPUTS_CLEARED_LISTENERS: list[Callable[[Client, list[str]], None]] = []

CommFactory = Callable[..., Any]


@dataclass
class BridgeStats:
    """Bytes of JSON sent and received, for the benchmark's per-edit figure."""

    requests: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    last_sent: int = 0
    last_received: int = 0


@dataclass(frozen=True)
class Client:
    """One notebook view that said hello: where it is and how to address it."""

    client_id: str
    path: str  # absolute path of the notebook on this machine
    hello: Hello
    comm: Any = field(default=None, compare=False, repr=False)  # the comm its hello came on


def resolve_hello_path(hello: Hello, *, session_name: str | None = None, cwd: str | None = None) -> str:
    """The absolute path of the notebook a hello names (its path is relative to the server root)."""
    rel = hello.path.replace("/", os.sep)
    if hello.server_root:
        return os.path.normpath(os.path.join(os.path.expanduser(hello.server_root), rel))
    session = session_name if session_name is not None else os.environ.get("JPY_SESSION_NAME", "")
    if session and os.path.isabs(session) and session.endswith(rel):
        return os.path.normpath(session)
    return os.path.normpath(os.path.join(cwd or os.getcwd(), os.path.basename(rel)))


@dataclass
class KernelBridge:
    """The comms to this kernel's frontends and the clients (notebook views) that said hello.

    The kernel opens one comm when it first needs the notebook, and every page connected then
    answers on it.  A page that connects later (reloaded, or the notebook closed and opened
    again) would never hear of that comm: it opens its own (``adopt``) and says hello there.
    A hello replaces the older clients of the same notebook, which are views that are gone."""

    loop: asyncio.AbstractEventLoop
    request_timeout: float = REQUEST_TIMEOUT
    clients: dict[str, Client] = field(default_factory=dict)
    stats: BridgeStats = field(default_factory=BridgeStats)
    closed: bool = False

    def __post_init__(self) -> None:
        self._comm: Any = None  # the comm the kernel opened
        self._comms: list[Any] = []  # every open comm: that one and those frontends opened
        self._pending: dict[str, asyncio.Future[OkResponse | ErrorResponse]] = {}
        self._pending_comm: dict[str, Any] = {}  # request id -> the comm it went out on
        # request id -> (client id, args, path of another open notebook or None)
        self._pending_to: dict[str, tuple[str, OpArgs, str | None]] = {}
        self._first_hello: asyncio.Future[Hello | None] = self.loop.create_future()
        self.opened_at = time.monotonic()
        # client id -> the notebooks open in its page (server-relative), as the page last said
        self._open: dict[str, list[str]] = {}

    async def open(self, create_comm: CommFactory, hello_timeout: float = HELLO_TIMEOUT) -> bool:
        """Open the comm and wait for the first hello; False when none came in time.

        The comm stays open after a timeout: a busy frontend's late hello still registers
        its client (``clients``).  A frontend without the extension closes the comm at once.
        """
        self.opened_at = time.monotonic()
        self._comm = create_comm(
            target_name=COMM_TARGET, data={"protocol": COMM_TARGET, "version": PROTOCOL_VERSION}
        )
        self._comms.append(self._comm)
        self._comm.on_msg(lambda msg, comm=self._comm: self._on_msg(msg, comm))
        self._comm.on_close(lambda msg, comm=self._comm: self._on_close(msg, comm))
        try:
            hello = await asyncio.wait_for(asyncio.shield(self._first_hello), hello_timeout)
        except asyncio.TimeoutError:
            hello = None
        return hello is not None

    def adopt(self, comm: Any) -> None:
        """A comm a frontend opened (on the loop; its messages come through ``_dispatch``)."""
        if self.closed:
            with contextlib.suppress(Exception):
                comm.close()
            return
        self._comms.append(comm)

    def client_for(self, path: str) -> Client | None:
        real = os.path.realpath(path)
        for client in self.clients.values():
            if os.path.realpath(client.path) == real:
                return client
        return None

    async def first_hello(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for a view to say hello; whether one has."""
        if not self._first_hello.done():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._first_hello), timeout)
        return bool(self.clients)

    def open_notebooks(self) -> dict[str, tuple[Client, str]]:
        """Every notebook the connected pages said they have open, by absolute path: the view that
        reaches it and its server-relative path there.  No round trip (pages send their list with
        the hello and on each change); a view that did not say is left out (``open_elsewhere``
        asks it)."""
        found: dict[str, tuple[Client, str]] = {}
        for client in list(self.clients.values()):
            paths = self._open.get(client.client_id)
            if paths is None or not serves_paths(client) or not client.hello.server_root:
                continue
            for rel in paths:
                found.setdefault(resolve_hello_path(client.hello.model_copy(update={"path": rel})), (client, rel))
        return found

    async def open_elsewhere(self, path: str) -> tuple[Client, str] | None:
        """A view whose page has the notebook ``path`` open — another tab of the same JupyterLab,
        maybe on another kernel — and its path there (server-relative); None when none has.
        From what the pages said (``open_notebooks``); a view that never said is asked (one
        ``list_open`` each)."""
        real = os.path.realpath(path)
        for there, found in self.open_notebooks().items():
            if os.path.realpath(there) == real:
                return found
        for client in list(self.clients.values()):
            if client.client_id in self._open or not serves_paths(client) or not client.hello.server_root:
                continue
            try:
                listed = result_as(ListOpenResult, await self.request(client, ListOpenArgs(), LIST_OPEN_TIMEOUT))
            except NotebookEditError:
                continue
            for rel in listed.paths:
                there = resolve_hello_path(client.hello.model_copy(update={"path": rel}))
                if os.path.realpath(there) == real:
                    return client, rel
        return None

    async def request(
        self, client: Client, args: OpArgs, timeout: float | None = None, path: str | None = None
    ) -> Any:
        """Send one request and return its result; raise ``NotebookEditError`` on any failure.
        ``path`` (server-relative) addresses another notebook open in the view's page."""
        if self.closed:
            raise NotebookEditError("no_model", "The notebook frontend is no longer connected.")
        if self.clients.get(client.client_id) is not client:  # a view that is gone since
            current = self.client_for(client.path)
            if current is None:
                raise NotebookEditError(
                    "no_model", "The notebook is no longer open in the browser (its page was closed)."
                )
            client = current  # the page that replaced it (reloaded, or the notebook reopened)
        if path is not None and not serves_paths(client):  # it would act on its own notebook
            raise NotebookEditError("not_open", "That view cannot reach other open notebooks.")
        request_id = uuid.uuid4().hex
        future: asyncio.Future[OkResponse | ErrorResponse] = self.loop.create_future()
        self._pending[request_id] = future
        try:
            self._send(request_id, client, args, path)
            response = await asyncio.wait_for(future, timeout or self.request_timeout)
        except asyncio.TimeoutError:
            self._went_silent(self._pending_to[request_id][0])
            raise NotebookEditError(
                "timeout",
                f"The open notebook did not answer within {timeout or self.request_timeout:g} s; "
                "the change may not have been applied. Read the notebook again.",
            ) from None
        finally:
            self._pending.pop(request_id, None)
            self._pending_comm.pop(request_id, None)
            self._pending_to.pop(request_id, None)
        if isinstance(response, ErrorResponse):
            raise NotebookEditError(str(response.error.name), response.error.message)
        return response.result

    def _went_silent(self, client_id: str) -> None:
        """A client did not answer in time (tab closed, page gone): it is dropped; when no other
        view is left, the bridge closes (the next use probes the frontend again)."""
        self.clients.pop(client_id, None)
        if not self.clients:
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if not self._first_hello.done():
            self._first_hello.set_result(None)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(
                    NotebookEditError("no_model", "The notebook frontend closed the connection.")
                )
        for comm in self._comms:
            with contextlib.suppress(Exception):  # a comm of a dead kernel connection
                comm.close()
        self._comms.clear()

    # -- comm callbacks (any thread) -------------------------------------------------------------

    def _on_msg(self, msg: dict[str, Any], comm: Any = None) -> None:
        data = msg.get("content", {}).get("data")
        self.loop.call_soon_threadsafe(self._dispatch, data, comm)

    def _on_close(self, msg: dict[str, Any], comm: Any = None) -> None:
        self.loop.call_soon_threadsafe(self.comm_closed, comm)

    # -- on the loop -------------------------------------------------------------------------------

    def comm_closed(self, comm: Any) -> None:
        """One comm closed: its clients are gone; with it the last, the bridge closes."""
        if comm in self._comms:
            self._comms.remove(comm)
        if not self._comms or comm is None:
            self.close()
            return
        for client_id in [cid for cid, c in self.clients.items() if c.comm is comm]:
            del self.clients[client_id]
        for request_id, sent_on in list(self._pending_comm.items()):
            future = self._pending.get(request_id)
            if sent_on is comm and future is not None and not future.done():
                future.set_exception(NotebookEditError("no_model", "The notebook frontend closed the connection."))

    def _dispatch(self, data: Any, comm: Any = None) -> None:
        self._count_received(data)
        message = parse_frontend_message(data)
        if isinstance(message, Hello):
            self._on_hello(message, comm)
        elif isinstance(message, CellsRemoved):
            for listener in list(CELLS_REMOVED_LISTENERS):
                with contextlib.suppress(Exception):  # one listener's defect is not the bridge's
                    listener(message.cell_ids)
        elif isinstance(message, OpenNotebooks):
            if message.client_id in self.clients:  # else a view that is gone
                self._open[message.client_id] = message.paths
        elif isinstance(message, OutputsCleared):
            client = self.clients.get(message.client_id)
            if client is not None:  # else a view that is gone
                for cleared in list(OUTPUTS_CLEARED_LISTENERS):
                    with contextlib.suppress(Exception):  # one listener's defect is not the bridge's
                        cleared(client, message.cell_ids)
        elif message is not None:
            future = self._pending.get(message.id)
            if future is not None and not future.done():
                future.set_result(message)

    def _on_hello(self, hello: Hello, comm: Any = None) -> None:
        if hello.version != PROTOCOL_VERSION:
            return  # an extension of another version: ignore it, the disk backend stays in use
        path = resolve_hello_path(hello)
        comm = comm if comm is not None else self._comm
        gone_ids = [cid for cid, c in self.clients.items() if c.path == path and cid != hello.client_id]
        for client_id in gone_ids:
            gone = self.clients.pop(client_id)  # an earlier view of this notebook: reloaded, or closed
            if gone.comm is not comm and gone.comm is not self._comm and gone.comm in self._comms \
                    and not any(c.comm is gone.comm for c in self.clients.values()):
                self._comms.remove(gone.comm)  # a comm that page opened: nobody answers on it now
                with contextlib.suppress(Exception):
                    gone.comm.close()
        client = self.clients[hello.client_id] = Client(hello.client_id, path, hello, comm)
        for client_id in [cid for cid in self._open if cid not in self.clients]:
            del self._open[client_id]  # views gone since (replaced, closed, silent)
        if hello.open is not None:
            self._open[hello.client_id] = hello.open
        self._hand_over(gone_ids, client)
        if not self._first_hello.done():
            self._first_hello.set_result(hello)

    def _hand_over(self, gone_ids: list[str], client: Client) -> None:
        """Requests still waiting on views that are gone: one that only looks (a read, a reveal, a
        notice) goes again to the view that replaced them, under the same id; a change fails now,
        instead of after the timeout — the reloaded page shows the notebook as last saved, so
        whether the old page applied it is unknown."""
        for request_id, (client_id, args, path) in list(self._pending_to.items()):
            future = self._pending.get(request_id)
            if client_id not in gone_ids or future is None or future.done():
                continue
            if isinstance(args, REPEATABLE_ARGS) and (path is None or serves_paths(client)):
                self._send(request_id, client, args, path)
            else:
                future.set_exception(NotebookEditError(
                    "reloaded",
                    "The notebook page was reloaded while this change was on its way, so it may or "
                    "may not have been applied (the page now shows the notebook as last saved). "
                    "Read the notebook again.",
                ))

    def _send(self, request_id: str, client: Client, args: OpArgs, path: str | None) -> None:
        """Send request ``request_id`` to ``client``, on the comm it answers on (and remember where)."""
        payload = make_request(request_id, client.client_id, args, path).model_dump(
            mode="json", exclude={"path"} if path is None else None
        )
        self._count_sent(payload)
        comm = client.comm if client.comm is not None else self._comm
        self._pending_comm[request_id] = comm
        self._pending_to[request_id] = (client.client_id, args, path)
        comm.send(payload)

    def _count_sent(self, payload: dict[str, Any]) -> None:
        size = len(json.dumps(payload))
        self.stats.requests += 1
        self.stats.bytes_sent += size
        self.stats.last_sent = size

    def _count_received(self, data: Any) -> None:
        size = len(json.dumps(data, default=str)) if isinstance(data, (dict, list)) else 0
        self.stats.bytes_received += size
        self.stats.last_received = size


def serves_paths(client: Client) -> bool:
    """Can the view act on other notebooks open in its page (``Request.path``)?"""
    return FEATURE_PATHS in client.hello.features


def result_as(model: type[BaseModel], result: Any) -> Any:
    """Validate a response's result; a malformed one becomes a ``NotebookEditError``."""
    try:
        return model.model_validate(result)
    except ValueError as exc:
        raise NotebookEditError("bad_request", f"Malformed result from the frontend: {exc}") from None
