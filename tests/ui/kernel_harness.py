"""A real IPython kernel driven like JupyterLab drives it: execute with cell ids, widget comms.

``KernelHarness`` starts a kernel with ``jupyter_client``, records every iopub message on a
background thread, finds widgets by their ``comm_open`` state and clicks buttons / sets values
with ``comm_msg`` on the shell channel, optionally on a kernel subshell (JupyterLab >= 4.4).
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.kernels import kernel_manager

Msg = dict[str, Any]


class KernelHarness:
    def __init__(self, cwd: Path, env: dict[str, str | None]) -> None:
        """``env`` adds variables to this process's; a ``None`` value removes one."""
        self.km = kernel_manager()
        full_env = {k: v for k, v in os.environ.items() if k != "JPY_SESSION_NAME"}
        for key, value in env.items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        self.km.start_kernel(cwd=str(cwd), env=full_env, extra_arguments=["--HistoryManager.enabled=False"])
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.messages: list[Msg] = []
        self.arrivals: list[float] = []  # time.monotonic() when each iopub message was read
        self._lock = threading.Condition()
        self._running = True
        self._reader = threading.Thread(target=self._read_iopub, daemon=True)
        self._reader.start()
        self.kernel_info = self._kernel_info()

    # -- plumbing --------------------------------------------------------------------------

    def _kernel_info(self) -> Msg:
        msg_id = self.kc.kernel_info()
        return self.shell_reply(msg_id)["content"]

    def _read_iopub(self) -> None:
        while self._running:
            try:
                msg = self.kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                continue
            except Exception:
                if not self._running:
                    return
                continue
            with self._lock:
                self.messages.append(msg)
                self.arrivals.append(time.monotonic())
                self._lock.notify_all()

    def close(self) -> None:
        self._running = False
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def shell_reply(self, msg_id: str, timeout: float = 60) -> Msg:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
        raise TimeoutError(f"no shell reply to {msg_id}")

    def wait_for(self, predicate: Callable[[Msg], bool], timeout: float = 60, start: int = 0) -> Msg:
        """The first iopub message (from index ``start``) matching ``predicate``."""
        return self.messages[self.wait_index(predicate, timeout, start)]

    def wait_index(self, predicate: Callable[[Msg], bool], timeout: float = 60, start: int = 0) -> int:
        """Index of the first iopub message (from ``start``) matching ``predicate``."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._lock:
            while True:
                for index in range(seen, len(self.messages)):
                    if predicate(self.messages[index]):
                        return index
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no matching iopub message")
                self._lock.wait(min(left, 0.5))

    # -- cells -----------------------------------------------------------------------------

    def execute(self, code: str, cell_id: str | None = None, stop_on_error: bool = True) -> str:
        """Send an execute_request carrying JupyterLab's ``cellId`` metadata; returns msg id."""
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": stop_on_error}
        msg = self.kc.session.msg("execute_request", content, metadata={"cellId": cell_id} if cell_id else {})
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def run(self, code: str, cell_id: str | None = None, timeout: float = 60) -> Msg:
        """Execute and wait for the reply and for the cell's outputs (its iopub ``idle`` status
        comes after them: the reply, on another channel, can arrive first); raise with the
        traceback if the cell failed."""
        msg_id = self.execute(code, cell_id)
        reply = self.shell_reply(msg_id, timeout)
        self.wait_for(lambda m: m["msg_type"] == "status" and m["parent_header"].get("msg_id") == msg_id
                      and m["content"].get("execution_state") == "idle", timeout)
        if reply["content"]["status"] != "ok":
            raise AssertionError("cell failed:\n" + "\n".join(reply["content"].get("traceback", [])))
        return reply

    def outputs_of(self, msg_id: str) -> list[Msg]:
        with self._lock:
            return [m for m in self.messages if m["parent_header"].get("msg_id") == msg_id]

    # -- widgets ---------------------------------------------------------------------------

    def widgets(self, model: str, after: int = 0, **state: Any) -> list[Msg]:
        """comm_open messages of widget ``model`` whose state matches ``state``, oldest first
        (only those from message ``after`` on)."""
        with self._lock:
            found = []
            for m in self.messages[after:]:
                if m["msg_type"] != "comm_open":
                    continue
                st = m["content"].get("data", {}).get("state", {})
                if st.get("_model_name") == model and all(st.get(k) == v for k, v in state.items()):
                    found.append(m)
            return found

    def wait_widget(self, model: str, timeout: float = 60, after: int = 0, **state: Any) -> str:
        """The comm id of the first matching widget opened after iopub index ``after``."""
        def match(m: Msg) -> bool:
            if m["msg_type"] != "comm_open":
                return False
            st = m["content"].get("data", {}).get("state", {})
            return st.get("_model_name") == model and all(st.get(k) == v for k, v in state.items())

        return self.wait_for(match, timeout, start=after)["content"]["comm_id"]

    def comm_msg(self, comm_id: str, data: Msg, subshell_id: str | None = None) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.kc.shell_channel.send(msg)

    def click(self, comm_id: str, subshell_id: str | None = None) -> None:
        self.comm_msg(comm_id, {"method": "custom", "content": {"event": "click"}}, subshell_id)

    def set_value(self, comm_id: str, value: Any, subshell_id: str | None = None) -> None:
        self.comm_msg(comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []}, subshell_id)

    def widget_values(self, comm_id: str) -> list[Any]:
        """Every ``value`` the kernel sent for one widget (its comm_open state, then updates)."""
        out = []
        with self._lock:
            for m in self.messages:
                content = m["content"]
                if content.get("comm_id") != comm_id:
                    continue
                state = content.get("data", {}).get("state", {})
                if "value" in state:
                    out.append(state["value"])
        return out

    # -- subshells (ipykernel >= 7) --------------------------------------------------------

    @property
    def supports_subshells(self) -> bool:
        return "kernel subshells" in self.kernel_info.get("supported_features", [])

    def create_subshell(self) -> str:
        msg = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(msg)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            reply = self.kc.get_control_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return reply["content"]["subshell_id"]
        raise TimeoutError("no create_subshell_reply")


def python_version() -> str:
    return sys.version.split()[0]


def start_agent_kernel(server_url: str, project: Path, home: Path, managed_dir: Path | None = None) -> KernelHarness:
    """A real kernel in ``project`` with ``%load_ext jupyter_agent``, talking to ``server_url``.

    HOME and the agent's home live under ``home``, so no user settings leak in; the managed
    settings are read from ``managed_dir`` (default: a folder under ``home`` that does not
    exist, so the machine's ``/etc/claude-code`` does not either).  The session and widget
    modules are imported up front: a fresh venv compiles the SDK on first import.
    """
    project.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": server_url,
        "JUPYTER_AGENT_HOME": str(home / ".jupyter-agent"),
        "HOME": str(home),
    }
    harness = KernelHarness(project, env)
    harness.run("%load_ext jupyter_agent")
    policy = managed_dir if managed_dir is not None else home / "no-managed-settings"
    harness.run(f"import jupyter_agent.permissions.managed\njupyter_agent.permissions.managed.MANAGED_DIR = "
                f"__import__('pathlib').Path({str(policy)!r})")
    harness.run("import jupyter_agent.agent.session, jupyter_agent.ui.transcript", timeout=300)
    return harness


def agent_kernel(
    server_url: str, tmp_path: Path, managed_dir: Path | None = None
) -> Iterator[tuple[KernelHarness, Path]]:
    """For a fixture (``yield from``): ``start_agent_kernel`` in ``tmp_path/project``, home in
    ``tmp_path/home``; yields the harness and the project folder, closes the kernel after."""
    project = tmp_path / "project"
    harness = start_agent_kernel(server_url, project, tmp_path / "home", managed_dir)
    try:
        yield harness, project
    finally:
        harness.close()
