"""Headless runs: a real notebook executed by nbclient with nobody at the screen never hangs.

The scripted model asks for a Bash command that needs approval.  No frontend renders the
approval card, so the approval timeout (``--approval-timeout``) denies it with "No one
answered"; with an allow rule (``--allow``) the same command runs without asking.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from jupyter_agent.testing import ScriptedServer, reply, tool_use

ROOT = Path(__file__).resolve().parents[2]
WAIT_FOR_TURNS = """\
import jupyter_agent
print("turns done:", await jupyter_agent.wait())
"""


def _notebook(server_url: str, agent_line: str) -> nbformat.NotebookNode:
    cells = [
        "%load_ext jupyter_agent",
        f"%config AgentMagics.base_url = {server_url!r}\n%config AgentMagics.api_key = 'test-key'\n"
        "%config AgentMagics.model = 'claude-sonnet-5-5'",
        agent_line,
        WAIT_FOR_TURNS,
        "import os; print('made:', os.path.exists('made.txt'))",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def _run(nb: nbformat.NotebookNode, cwd: Path, home: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "JUPYTER_AGENT_HOME": str(home / ".ja")}
    client = NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    client.execute(env=env)  # the kernel's environment (nbclient passes it to start_kernel)
    return "".join(
        out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []) if out.get("output_type") == "stream"
    )


def _tool_result_text(server: ScriptedServer) -> str:
    last = server.message_requests[-1].messages[-1]
    return json.dumps(last["content"])


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def dirs(tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path / "work", tmp_path / "home"


def test_unanswered_approval_is_denied_and_the_notebook_finishes(server, dirs):
    work, home = dirs
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"})))
    server.push(reply("Could not run it."))
    nb = _notebook(server.url, "%agent --mode default --approval-timeout 1 create made.txt")
    printed = _run(nb, work, home)
    assert "turns done: ['end_turn']" in printed and "made: False" in printed
    assert "No one answered" in _tool_result_text(server)
    assert not (work / "made.txt").exists()


def test_allow_rule_runs_headless_without_asking(server, dirs):
    work, home = dirs
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"})))
    server.push(reply("Done."))
    nb = _notebook(server.url, "%agent --allow 'Bash(touch:*)' --approval-timeout 30 create made.txt")
    printed = _run(nb, work, home)
    assert "turns done: ['end_turn']" in printed and "made: True" in printed
    assert "No one answered" not in _tool_result_text(server)


def test_environment_timeout_applies_without_touching_the_notebook(server, dirs, monkeypatch):
    work, home = dirs
    monkeypatch.setenv("JUPYTER_AGENT_APPROVAL_TIMEOUT", "0.5")
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"})))
    server.push(reply("Could not run it."))
    printed = _run(_notebook(server.url, "%agent create made.txt"), work, home)
    assert "made: False" in printed and "No one answered" in _tool_result_text(server)


def test_approval_timeout_option_is_parsed_and_checked():
    from IPython.core.error import UsageError

    from jupyter_agent.magics.options import parse_options

    opts = parse_options("--mode dontAsk --approval-timeout 2.5 --allow 'Bash(ls:*)' go on")
    assert (opts.approval_timeout, opts.mode, opts.allow, opts.prompt) == (2.5, "dontAsk", ["Bash(ls:*)"], "go on")
    assert parse_options("--approval-timeout=7 x").approval_timeout == 7.0
    assert parse_options("plain prompt").approval_timeout is None
    for bad in ("--approval-timeout 0 x", "--approval-timeout -3 x", "--approval-timeout soon x"):
        with pytest.raises(UsageError):
            parse_options(bad)


def test_a_permission_prompt_tool_answers_in_a_headless_run(server, dirs, monkeypatch, tmp_path):
    """``JUPYTER_AGENT_PERMISSION_PROMPT_TOOL`` names an MCP approval tool; the notebook's
    ``%agent`` line brings its server with ``--mcp``.  The tool, not a timeout, decides."""
    import sys

    work, home = dirs
    log = tmp_path / "asked.jsonl"
    approver = ROOT / "tests" / "mcp" / "servers" / "approver_server.py"
    servers = json.dumps({"approver": {"command": sys.executable, "args": [str(approver)],
                                       "env": {"APPROVER_LOG": str(log)}}})
    monkeypatch.setenv("JUPYTER_AGENT_PERMISSION_PROMPT_TOOL", "mcp__approver__approve")
    server.push(reply(tool_use("Bash", {"command": "touch made.txt"}, id="b1"),
                      tool_use("Bash", {"command": "rm -f made.txt"}, id="b2")))
    server.push(reply("Made it."))
    printed = _run(_notebook(server.url, f"%agent --approval-timeout 30 --mcp '{servers}' create made.txt"), work, home)
    assert "turns done: ['end_turn']" in printed and "made: True" in printed
    result = _tool_result_text(server)
    assert "Deleting files needs a ticket." in result and "No one answered" not in result
    assert [json.loads(line)["input"]["command"] for line in log.read_text().splitlines()] == [
        "touch made.txt", "rm -f made.txt"]


def test_permission_prompt_tool_option_is_parsed_and_checked():
    from IPython.core.error import UsageError

    from jupyter_agent.magics.options import parse_options

    assert parse_options("--permission-prompt-tool mcp__ci__approve go").permission_prompt_tool == "mcp__ci__approve"
    assert parse_options("go").permission_prompt_tool is None
    for bad in ("--permission-prompt-tool approve go", "--permission-prompt-tool mcp__ci go",
                "--permission-prompt-tool Bash go"):
        with pytest.raises(UsageError):
            parse_options(bad)
