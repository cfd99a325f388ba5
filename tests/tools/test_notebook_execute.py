"""NotebookExecute: cells run through the (test) frontend on a REAL kernel; the disk backend refuses."""

from __future__ import annotations

import ast
import base64
import io
import json
import queue
import time
from typing import Any

import nbformat
import pytest

from jupyter_agent.core.permission_types import PermissionAsk, PermissionDeny, PermissionUpdate
from jupyter_agent.tools.notebook_execute import NotebookExecuteInput, NotebookExecuteTool
from tests.kernels import start_kernel
from tests.notebook.fake_frontend import FakeFrontend
from tests.notebook.kernel_driver import TASK_RUNNER, KernelDriver
from tests.support.tools import make_context

from .conftest import Runner


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 3), (255, 0, 0)).save(buf, format="PNG")
    return buf.getvalue()


PNG_B64 = base64.b64encode(_png()).decode()

CELLS = [
    nbformat.v4.new_markdown_cell("# Analysis", id="m1"),
    nbformat.v4.new_code_cell("x = 21\nprint('hello from c1')", id="c1"),
    nbformat.v4.new_code_cell("x * 2", id="c2"),
    nbformat.v4.new_code_cell("1 / 0", id="c3"),
    nbformat.v4.new_code_cell(
        "import base64\nfrom IPython.display import Image, display\n"
        f"display(Image(data=base64.b64decode({PNG_B64!r})))",
        id="c4",
    ),
    nbformat.v4.new_code_cell("print('y' * 5000)", id="c5"),
    nbformat.v4.new_code_cell("!rm -rf build", id="sh1"),
    nbformat.v4.new_code_cell("!cat key.txt", id="sh2"),
    nbformat.v4.new_code_cell("print(open('secrets/key.txt').read())", id="py1"),
]


class ExecutingFrontend(FakeFrontend):
    """The test frontend, plus ``execute_cells``: each code cell is sent to the kernel as an
    ``execute_request`` (as JupyterLab does) and its iopub messages become nbformat outputs."""

    def _handle(self, kc: Any, msg: dict[str, Any]) -> None:
        self._kc = kc
        super()._handle(kc, msg)

    def _op_execute_cells(self, args: dict[str, Any]) -> dict[str, Any]:
        results = []
        for cell_id in args["cell_ids"]:
            cell = self._cell(cell_id)
            if cell["cell_type"] != "code":
                results.append({"cell_id": cell_id, "execution_count": None, "outputs": []})
                continue
            count, outputs = self._run(cell["source"])
            cell.update(execution_count=count, outputs=outputs)
            results.append({"cell_id": cell_id, "execution_count": count, "outputs": outputs})
        return {"cells": results}

    def _run(self, source: str) -> tuple[int | None, list[dict[str, Any]]]:
        kc = self._kc
        # Like a single-cell run in JupyterLab, but an error must not abort the test's own polls.
        msg_id = kc.execute(source, stop_on_error=False)
        outputs: list[dict[str, Any]] = []
        count = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                msg = kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "execute_input":
                count = content["execution_count"]
            elif kind == "stream":
                outputs.append({"output_type": "stream", "name": content["name"], "text": content["text"]})
            elif kind in ("execute_result", "display_data"):
                out = {"output_type": kind, "data": content["data"], "metadata": content.get("metadata", {})}
                if kind == "execute_result":
                    out["execution_count"] = content["execution_count"]
                outputs.append(out)
            elif kind == "error":
                outputs.append({"output_type": "error", "ename": content["ename"],
                                "evalue": content["evalue"], "traceback": content["traceback"]})
            elif kind == "status" and content["execution_state"] == "idle":
                return count, outputs
        raise TimeoutError("cell did not finish")


SETUP = """
import asyncio, json
from pathlib import Path
from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.tools.kernel_inspect import KernelInspectTool
from jupyter_agent.tools.notebook_execute import NotebookExecuteInput, NotebookExecuteTool

_ctx = ToolUseContext(options=ToolUseOptions(tools=(NotebookExecuteTool(), KernelInspectTool())),
                      cwd=Path({root!r}), session_dir=Path({root!r}) / ".session")
_asked = []

async def _allow(tool, input, *args):
    _asked.append(tool.name)
    return PermissionAllow()

async def call_tool(name, **input):
    out = await run_tool_use(ToolUseRequest("t", name, input), _ctx, _allow)
    return {{"is_error": out.is_error, "images": [b["source"]["media_type"] for b in out.content if b.get("type") == "image"],
             "text": "\\n".join(b.get("text", "") for b in out.content if b.get("type") == "text")}}

async def ask(**input):
    verdict = await NotebookExecuteTool().check_permissions(NotebookExecuteInput(**input), _ctx)
    from jupyter_agent.permissions.verdicts import is_sticky
    return {{"kind": type(verdict).__name__, "message": verdict.message, "sticky": type(verdict).__name__ == "PermissionAsk" and is_sticky(verdict),
             "suggestions": [[list(s.rules), s.behavior, s.destination] for s in getattr(verdict, "suggestions", ())]}}
""" + TASK_RUNNER


class Driver(KernelDriver):
    """Polls the task's result through ``user_expressions`` in the execute reply: while the
    frontend runs cells in the same kernel, a poll's stdout may be attributed to another request."""

    def run(self, expr: str, timeout: float = 120) -> Any:
        return super().run(expr, timeout)

    def poll(self, key: str, deadline: float) -> dict[str, Any] | None:
        msg_id = self.kc.execute("", silent=True, user_expressions={"r": f"json.dumps(_results.get({key!r}))"})
        reply = self._reply(msg_id, deadline)
        if reply["content"]["status"] != "ok":  # aborted after another request's error: ask again
            return None
        value = reply["content"]["user_expressions"]["r"]
        assert value["status"] == "ok", value
        return json.loads(ast.literal_eval(value["data"]["text/plain"]))

    def _reply(self, msg_id: str, deadline: float) -> dict[str, Any]:
        while True:
            msg = self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg


@pytest.fixture
def live(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(tmp_path / ".agent-home"))
    nb = nbformat.v4.new_notebook()
    nb.cells = CELLS
    path = tmp_path / "work" / "nb.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, str(path))
    km, kc = start_kernel(str(tmp_path))
    fe = ExecutingFrontend(km, json.loads(json.dumps(nb)), path="work/nb.ipynb", server_root=str(tmp_path))
    fe.start()
    try:
        assert fe.ready.wait(60)
        driver = Driver(kc)
        driver.execute(SETUP.format(root=str(tmp_path)))
        yield driver, fe, path
    finally:
        fe.stop()
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.e2e
async def test_runs_cells_through_the_frontend_and_returns_outputs(live):
    k, fe, path = live
    out = k.run(f"call_tool('NotebookExecute', notebook_path={str(path)!r}, "
                "cell_ids=['c1', 'c2', 'm1', 'c3', 'c4', 'c5'])")
    assert not out["is_error"], out["text"]
    text = out["text"]
    assert "Ran 6 cell(s)" in text
    assert "hello from c1" in text
    assert '<output cell="c2">\n42\n</output>' in text
    assert "ZeroDivisionError" in text and "1 / 0" in text  # the traceback
    assert '<cell id="m1" type="markdown">(not a code cell: nothing to run)</cell>' in text
    assert out["images"] == ["image/png"]
    assert "[output trimmed: 3,001 more characters]" in text  # 5,001 chars of stream output
    assert "\x1b[" not in text  # ANSI colours stripped from the traceback
    # the outputs are in the open notebook too, and the cells really ran in this kernel
    cells = {c["id"]: c for c in fe.cells()}
    assert cells["c2"]["outputs"][0]["data"]["text/plain"] == "42"
    assert cells["c3"]["outputs"][0]["ename"] == "ZeroDivisionError"
    requests = [r for r in fe.requests if r["op"] == "execute_cells"]
    assert [r["args"]["cell_ids"] for r in requests] == [["c1", "c2", "m1", "c3", "c4", "c5"]]
    inspect = k.run("call_tool('KernelInspect', expression='x')")
    assert not inspect["is_error"] and "x: int\n  value: 21" in inspect["text"]
    assert k.execute("print(_asked)").strip() == "['NotebookExecute']"  # asked once; inspect did not ask


@pytest.mark.e2e
async def test_permission_ask_shows_the_sources(live):
    k, _, path = live
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['c2', 'm1'])")
    assert verdict["kind"] == "PermissionAsk"
    assert "Run 2 cell(s) of" in verdict["message"] and "[c2]\nx * 2" in verdict["message"]
    assert "[m1] (markdown cell, not run)" in verdict["message"]
    assert verdict["suggestions"] == [[["NotebookExecute"], "allow", "session"]]


@pytest.mark.e2e
async def test_shell_code_in_a_cell_meets_the_bash_deny_rules(live):
    """``!rm -rf build`` in a cell, in bypassPermissions with ``Bash(rm:*)`` denied: denied (it ran)."""
    k, _, path = live
    k.execute("from jupyter_agent.core.context import AppState\n"
              "from jupyter_agent.core.permission_types import ToolPermissionContext\n"
              "_ctx.set_app_state(lambda s: AppState(tool_permission_context=ToolPermissionContext("
              "mode='bypassPermissions', deny_rules={'localSettings': ('Bash(rm:*)',)})))")
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['c1', 'sh1'])")
    assert verdict["kind"] == "PermissionDeny" and "Bash(rm:*)" in verdict["message"] and "sh1" in verdict["message"]
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['c1'])")
    assert verdict["kind"] == "PermissionAsk"  # Python cells: the approval to run them


@pytest.mark.e2e
async def test_shell_code_is_checked_in_the_folder_the_kernel_is_in(live, tmp_path):
    """The user ``%cd``'d the kernel after the session started: ``!cat key.txt`` reads the
    kernel's ``secrets/key.txt``, which a Read deny rule covers (not the session folder's file)."""
    k, _, path = live
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("K=1\n")
    (tmp_path / "key.txt").write_text("public\n")
    k.execute("from jupyter_agent.core.context import AppState\n"
              "from jupyter_agent.core.permission_types import ToolPermissionContext\n"
              "_ctx.set_app_state(lambda s: AppState(tool_permission_context=ToolPermissionContext("
              "mode='bypassPermissions', deny_rules={'localSettings': ('Read(./secrets/**)',)})))")
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['sh2'])")
    assert verdict["kind"] == "PermissionAsk"  # the kernel is in the session folder: key.txt is public
    k.execute("%cd secrets")
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['sh2'])")
    assert verdict["kind"] == "PermissionDeny" and "Read(./secrets/**)" in verdict["message"], verdict


@pytest.mark.e2e
async def test_a_string_of_the_python_code_naming_a_denied_file_asks_in_every_mode(live, tmp_path):
    """``print(open('secrets/key.txt').read())`` in bypassPermissions with ``Read(./secrets/**)``
    denied: it ran unasked and showed the key (``python -c`` with that code asked in Bash)."""
    k, _, path = live
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("K=1\n")
    k.execute("from jupyter_agent.core.context import AppState\n"
              "from jupyter_agent.core.permission_types import ToolPermissionContext\n"
              "_ctx.set_app_state(lambda s: AppState(tool_permission_context=ToolPermissionContext("
              "mode='bypassPermissions', deny_rules={'localSettings': ('Read(./secrets/**)',)})))")
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['c1', 'py1'])")
    assert verdict["kind"] == "PermissionAsk" and "Cell py1's code names secrets/key.txt" in verdict["message"]
    assert "Read(./secrets/**)" in verdict["message"] and verdict["sticky"], verdict  # bypass cannot skip it
    verdict = k.run(f"ask(notebook_path={str(path)!r}, cell_ids=['c1', 'c2'])")
    assert verdict["kind"] == "PermissionAsk" and not verdict["sticky"], verdict  # only the approval to run


@pytest.mark.e2e
async def test_the_cells_check_is_made_off_the_kernels_loop(live):
    """The cells' check reads files (the modules a cell imports): it runs in the permission thread,
    and the kernel answers meanwhile (on the loop, it would hold the kernel until released)."""
    k, _, path = live
    k.execute("import threading\n"
              "from jupyter_agent.tools import notebook_execute as _ne\n"
              "_entered, _released, _names, _real = threading.Event(), threading.Event(), [], _ne.cells_strings_check\n"
              "def _waiting(*args):\n"
              "    _names.append(threading.current_thread().name)\n"
              "    _entered.set()\n"
              "    _released.wait(30)\n"
              "    return _real(*args)\n"
              "_ne.cells_strings_check = _waiting")
    k.execute(f"start('cells', ask(notebook_path={str(path)!r}, cell_ids=['c1']))")
    deadline = time.monotonic() + 30  # (the plan reads the cells through the frontend first)
    while k.execute("print(_entered.is_set())").strip() != "True" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert k.execute("print(_entered.is_set(), _results.get('cells'))").strip() == "True None"
    k.execute("_released.set()")
    while (result := k.poll("cells", deadline)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert result is not None and result["ok"]["kind"] == "PermissionAsk", result
    assert k.execute("print(_names)").strip() == "['jupyter-agent-permissions_0']"


@pytest.mark.e2e
async def test_unknown_cell_ids_are_named(live):
    k, fe, path = live
    out = k.run(f"call_tool('NotebookExecute', notebook_path={str(path)!r}, cell_ids=['c1', 'nope', 'gone'])")
    assert out["is_error"] and '"nope", "gone"' in out["text"] and "not found" in out["text"]
    assert not [r for r in fe.requests if r["op"] == "execute_cells"]  # nothing ran


# -- no frontend: the disk backend (this test process is not a kernel) -----------------------


@pytest.fixture
def disk(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("open('ran', 'w')", id="c1")]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    return path, Runner(make_context([NotebookExecuteTool()], tmp_path))


async def test_disk_backend_is_a_clear_error(disk, tmp_path):
    path, run = disk
    text = await run.error("NotebookExecute", notebook_path=str(path), cell_ids=["c1"])
    assert "needs the notebook open in JupyterLab" in text and str(path) in text
    assert not (tmp_path / "ran").exists()


async def test_disk_backend_permission_still_asks(disk):
    path, run = disk
    tool = NotebookExecuteTool()
    verdict = await tool.check_permissions(NotebookExecuteInput(notebook_path=str(path), cell_ids=["c1"]), run.context)
    assert isinstance(verdict, PermissionAsk) and "needs the notebook open" in verdict.message
    assert verdict.suggestions == (PermissionUpdate(rules=("NotebookExecute",), destination="session"),)
    inp = NotebookExecuteInput(notebook_path=str(path), cell_ids=["c1"])
    assert not tool.is_read_only(inp) and not tool.is_concurrency_safe(inp)


async def test_bad_input(disk, tmp_path):
    _, run = disk
    text = await run.error("NotebookExecute", notebook_path=str(tmp_path / "a.py"), cell_ids=["c1"])
    assert "must be a Jupyter notebook" in text
    text = await run.error("NotebookExecute", notebook_path=str(tmp_path / "nb.ipynb"), cell_ids=[])
    assert "cell_ids" in text


@pytest.mark.e2e
async def test_a_timeout_says_the_cells_may_still_run(live):
    k, fe, path = live
    with fe.lock:  # the user adds a slow cell
        fe.notebook["cells"].append(nbformat.v4.new_code_cell("import time; time.sleep(1)", id="slow"))
    out = k.run(f"call_tool('NotebookExecute', notebook_path={str(path)!r}, cell_ids=['slow'], timeout=1)")
    assert out["is_error"] and "did not finish within 0.001 s" in out["text"]
    assert "may still be running" in out["text"]


@pytest.mark.parametrize("rule", ["Read(./{name})", "Edit(./{name})", "Read(./**)"])
async def test_a_deny_rule_on_the_notebook_denies_before_its_cells_are_read(disk, rule):
    """Running cells shows their outputs to the model and writes them into the notebook."""
    from tests.permissions.tools import make_ctx

    path, _run = disk
    ctx = make_ctx(path.parent, deny=(rule.format(name=path.name),))
    verdict = await NotebookExecuteTool().check_permissions(
        NotebookExecuteInput(notebook_path=str(path), cell_ids=["c1"]), ctx)
    assert isinstance(verdict, PermissionDeny) and "denied by the rule" in verdict.message
