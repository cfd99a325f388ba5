"""notebooks/quickstart.ipynb in a real kernel without an API key: demo mode, approvals, an edit."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import nbformat
import pytest

from tests.ui.kernel_harness import KernelHarness

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


def _turn_ends(h: KernelHarness) -> list[dict]:
    return [
        m for m in list(h.messages)
        if m["msg_type"] == "update_display_data" and m["content"]["data"]["text/plain"].endswith("]")
    ]


def test_quickstart_runs_in_demo_mode_with_approvals(tmp_path: Path):
    notebook = tmp_path / "quickstart.ipynb"
    shutil.copy(QUICKSTART, notebook)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "ANTHROPIC_API_KEY": None,
        "ANTHROPIC_BASE_URL": None,
        "JPY_SESSION_NAME": str(notebook),
        "JUPYTER_AGENT_HOME": str(home / ".jupyter-agent"),
        "HOME": str(home),
    }
    h = KernelHarness(tmp_path, env)
    try:
        h.run("import jupyter_agent.agent.session, jupyter_agent.ui.transcript", timeout=300)
        nb = nbformat.read(notebook, as_version=4)
        agent_cells = 0
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            fails = "mean([])" in cell.source
            msg_id = h.execute(cell.source, cell_id=cell.id, stop_on_error=not fails)
            reply = h.shell_reply(msg_id)
            if fails:
                assert reply["content"]["status"] == "error"  # the cell meant to fail
            else:
                assert reply["content"]["status"] == "ok", reply["content"].get("traceback")
            agent_cells += cell.source.lstrip().startswith(("%agent ", "%%agent")) and "--" not in cell.source.split()[1]
        demo_note = [m for m in h.messages if m["msg_type"] == "stream" and "DEMO MODE" in m["content"]["text"]]
        assert demo_note, "the notebook must say plainly that it runs in demo mode"

        clicked: set[str] = set()
        deadline = time.monotonic() + 240
        while len(_turn_ends(h)) < agent_cells and time.monotonic() < deadline:
            _answer_cards(h, clicked)
            time.sleep(0.2)
        ends = _turn_ends(h)
        assert len(ends) == agent_cells == 3
        first = ends[0]["content"]["data"]["text/html"]
        assert "Always allowed Bash(pip list:*)" in first
        assert "Here is what happened in this demo turn" in first
        settings = json.loads((tmp_path / ".claude" / "settings.local.json").read_text())
        assert "Bash(pip list:*)" in settings["permissions"]["allow"]
        edited = nbformat.read(notebook, as_version=4)
        notes = [i for i, c in enumerate(edited.cells) if "Notes from the agent" in c.source]
        assert notes, "the demo adds a notes cell"
        for i in notes:  # right below the %agent cell that asked, not above the title
            assert edited.cells[i - 1].source.lstrip().startswith(("%agent", "%%agent")), (i, edited.cells[i - 1].source)
    finally:
        h.close()


def _answer_cards(h: KernelHarness, clicked: set[str]) -> None:
    """Answer each complete approval card once: its button row (an HBox, sent after all its
    buttons) offers "Always allow Bash(pip list:*)" or else Approve.  Going by rows, not by
    single buttons, an Approve seen before its card's Always-allow button is never clicked."""
    buttons = {m["content"]["comm_id"]: m["content"]["data"]["state"].get("description", "")
               for m in h.widgets("ButtonModel")}
    for row in h.widgets("HBoxModel"):
        ids = [ref.removeprefix("IPY_MODEL_") for ref in row["content"]["data"]["state"].get("children", [])]
        labels = {buttons.get(i, ""): i for i in ids}
        if "Approve" not in labels or row["content"]["comm_id"] in clicked:
            continue
        always = [i for label, i in labels.items() if label.startswith("Always allow Bash(pip list:*)")]
        clicked.add(row["content"]["comm_id"])
        h.click(always[0] if always else labels["Approve"])
