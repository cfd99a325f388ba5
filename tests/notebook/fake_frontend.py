"""A test client that plays the labextension over a real kernel's comm (via jupyter_client).

It answers the kernel's ``comm_open`` on ``jupyter_agent.notebook`` with a hello, and serves
requests on an in-memory notebook with the frontend's semantics (ids, expected hashes).  It
can also play JupyterLab without the extension (closes the comm) and JupyterLab ≥ 4.4 (sends
its comm messages on a kernel subshell).
"""

from __future__ import annotations

import copy
import hashlib
import queue
import secrets
import threading
import time
from typing import Any, Literal

import zmq
from jupyter_client.blocking import BlockingKernelClient

from jupyter_agent.notebook.protocol import COMM_TARGET, PROTOCOL_VERSION

Mode = Literal["extension", "no_extension"]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class FrontendError(Exception):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


class FakeFrontend(threading.Thread):
    def __init__(
        self, km: Any, notebook: dict[str, Any], *, path: str, server_root: str,
        mode: Mode = "extension", subshell: bool = False, hello_delay: float = 0.0,
    ) -> None:
        super().__init__(daemon=True)
        self.km = km
        self.notebook = copy.deepcopy(notebook)
        self.path = path
        self.server_root = server_root
        self.mode = mode
        self.subshell = subshell
        self.hello_delay = hello_delay  # a busy browser answers late
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.requests: list[dict[str, Any]] = []
        self.comm_opens = 0
        self._halt = threading.Event()
        self._errors: queue.Queue[BaseException] = queue.Queue()
        self._subshell_id: str | None = None

    # -- the test's side ---------------------------------------------------------------------

    def cells(self) -> list[dict[str, Any]]:
        with self.lock:
            return copy.deepcopy(self.notebook["cells"])

    def user_types(self, cell_id: str, source: str) -> None:
        """The user edits a cell in the browser (unsaved)."""
        with self.lock:
            self._cell(cell_id)["source"] = source

    def stop(self) -> None:
        self._halt.set()
        self.join(10)
        if not self._errors.empty():
            raise self._errors.get()

    # -- the thread ----------------------------------------------------------------------------

    def run(self) -> None:
        # A client of its own (own zmq context): sockets must stay in the thread that uses them.
        kc = BlockingKernelClient(context=zmq.Context())
        kc.load_connection_info(self.km.get_connection_info())
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            if self.subshell:
                self._subshell_id = self._create_subshell(kc)
            self.ready.set()
            while not self._halt.is_set():
                try:
                    msg = kc.get_iopub_msg(timeout=0.1)
                except queue.Empty:
                    continue
                self._handle(kc, msg)
        except BaseException as exc:  # surfaced by stop()
            self._errors.put(exc)
            self.ready.set()
        finally:
            kc.stop_channels()

    def _create_subshell(self, kc: Any) -> str:
        msg = kc.session.msg("create_subshell_request", {})
        kc.control_channel.send(msg)
        reply = kc.control_channel.get_msg(timeout=30)
        return reply["content"]["subshell_id"]

    def _send(self, kc: Any, msg_type: str, content: dict[str, Any]) -> None:
        msg = kc.session.msg(msg_type, content)
        if self._subshell_id:
            msg["header"]["subshell_id"] = self._subshell_id
        kc.shell_channel.send(msg)

    def _handle(self, kc: Any, msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "comm_open" and content.get("target_name") == COMM_TARGET:
            self.comm_opens += 1
            comm_id = content["comm_id"]
            if self.mode == "no_extension":  # what JupyterLab does for an unknown target
                self._send(kc, "comm_close", {"comm_id": comm_id, "data": {}})
                return
            if self.hello_delay:
                time.sleep(self.hello_delay)
            hello = {"type": "hello", "version": PROTOCOL_VERSION, "client_id": "fake-1",
                     "path": self.path, "server_root": self.server_root}
            self._send(kc, "comm_msg", {"comm_id": comm_id, "data": hello})
        elif msg["msg_type"] == "comm_msg" and content.get("data", {}).get("type") == "request":
            data = content["data"]
            self.requests.append(data)
            if data.get("client_id") != "fake-1":
                return
            response = self._answer(data)
            self._send(kc, "comm_msg", {"comm_id": content["comm_id"], "data": response})

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, f"_op_{request['op']}", None)
        try:
            if handler is None:
                raise FrontendError("unknown_op", f"Unknown op: {request['op']}.")
            with self.lock:
                result = handler(request["args"])
            return {"type": "response", "id": request["id"], "ok": True, "result": result}
        except FrontendError as exc:
            error = {"name": exc.name, "message": str(exc)}
            return {"type": "response", "id": request["id"], "ok": False, "error": error}

    # -- ops on the in-memory notebook (the frontend's semantics) -----------------------------

    def _index(self, cell_id: str) -> int:
        for i, cell in enumerate(self.notebook["cells"]):
            if cell.get("id") == cell_id:
                return i
        raise FrontendError("not_found", f'Cell with ID "{cell_id}" not found in notebook.')

    def _cell(self, cell_id: str) -> dict[str, Any]:
        return self.notebook["cells"][self._index(cell_id)]

    def _result(self, ids: list[str], cell_type: str | None, index: int) -> dict[str, Any]:
        return {"cell_ids": ids, "cell_type": cell_type, "language": "python", "index": index,
                "cell_count": len(self.notebook["cells"])}

    def _op_get_notebook(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"path": self.path, "notebook": copy.deepcopy(self.notebook)}

    def _op_insert_cells(self, args: dict[str, Any]) -> dict[str, Any]:
        index = self._index(args["after_cell_id"]) + 1 if args["after_cell_id"] else 0
        ids = []
        for offset, new in enumerate(args["cells"]):
            cell = {"id": new.get("id") or secrets.token_hex(4), "cell_type": new["cell_type"],
                    "metadata": {}, "source": new["source"]}
            if new["cell_type"] == "code":
                cell.update(outputs=[], execution_count=None)
            self.notebook["cells"].insert(index + offset, cell)
            ids.append(cell["id"])
        return self._result(ids, args["cells"][0]["cell_type"], index)

    def _op_replace_cell(self, args: dict[str, Any]) -> dict[str, Any]:
        index = self._index(args["cell_id"])
        cell = self.notebook["cells"][index]
        if args.get("expected_hash") and sha(cell["source"]) != args["expected_hash"]:
            raise FrontendError("stale_cell", f"Cell {cell['id']} was changed in the notebook since it was read.")
        cell["source"] = args["source"]
        cell["cell_type"] = args.get("cell_type") or cell["cell_type"]
        return self._result([cell["id"]], cell["cell_type"], index)

    def _op_delete_cells(self, args: dict[str, Any]) -> dict[str, Any]:
        expected = args.get("expected_hashes", {})
        for cid in args["cell_ids"]:
            if cid in expected and sha(self._cell(cid)["source"]) != expected[cid]:
                raise FrontendError("stale_cell", f"Cell {cid} was changed in the notebook since it was read.")
        index = self._index(args["cell_ids"][0])
        for cid in args["cell_ids"]:
            del self.notebook["cells"][self._index(cid)]
        return self._result(list(args["cell_ids"]), None, index)
