"""A sandboxed command's network question in JupyterLab, in a real browser: ``%agent --sandbox``
runs the model's Bash command unasked, the command's connection to a new host puts a question
on its card, the user clicks Approve, and the download goes on."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.sandbox.bwrap import probe
from jupyter_agent.testing import reply, text, tool_use
from tests.sandbox.test_sandbox_network import upstream  # noqa: F401 (a fixture)

from .browser_helpers import open_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_a_network_question_is_answered_on_the_bash_card(lab, page, server, upstream):  # noqa: F811
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        available = pool.submit(asyncio.run, probe()).result()
    if not available.ok:
        pytest.skip(f"bubblewrap cannot sandbox here: {available.reason}")
    port, seen = upstream
    fetch = f"python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{port}/data.csv').read().decode())\""
    server.push(
        reply(text("Fetching it."), tool_use("Bash", {"command": fetch})),
        reply(text("Fetched: the server says hello.")),
    )
    setup = (
        "%load_ext jupyter_agent\n"
        f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
        "%config AgentMagics.api_key = 'test-key'"
    )
    nb = new_notebook(cells=[new_code_cell(setup), new_code_cell("%agent --sandbox fetch the data")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, lab.root / "network.ipynb")

    open_notebook(page, lab.url, "network.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    question = page.get_by_text(f"Network request outside the sandbox: 127.0.0.1 (port {port})")
    question.wait_for(timeout=90_000)
    assert "whatever listens on port" in page.locator(".jupyter-agent-approval").first.inner_text()
    assert seen == []  # the connection waits for the answer
    page.get_by_role("button", name="Approve").click()

    page.get_by_text("Fetched: the server says").wait_for(timeout=60_000)
    assert seen == ["/data.csv"]
    card = page.locator(".jupyter-agent-card").first.inner_text()
    assert "hello from upstream /data.csv" in card and "Approved" in card
