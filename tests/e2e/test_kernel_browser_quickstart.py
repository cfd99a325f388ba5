"""The README's main job in a real browser: notebooks/quickstart.ipynb in JupyterLab, no API key.

Run All, then click through the approval cards like a newcomer: the notebook must say it runs in
demo mode, every %agent turn must finish, and the agent's markdown cell must appear in the open
notebook (through the labextension) without a "File Changed" dialog.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .browser_helpers import cells, dialogs, open_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


FINISHED_TURNS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells;
  return cells.filter(c => (c.toJSON().outputs || []).some(o => {
    const plain = String((o.data || {})['text/plain'] || '');
    return plain.startsWith('%agent') && plain.endsWith(']');
  })).length;
}"""


def _render_every_cell(lab) -> None:
    """Turn off notebook windowing so off-screen cards are in the DOM to be clicked."""
    folder = lab.root.parent / "settings" / "@jupyterlab" / "notebook-extension"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))


def _click_through(page, turns: int) -> int:
    """Click Always allow / Approve on every card until ``turns`` turns have finished."""
    deadline = time.monotonic() + 180
    finished = 0
    while time.monotonic() < deadline:
        for label in ("Always allow Bash(pip list:*)", "Approve"):
            buttons = page.locator(f".jupyter-agent-approval button:not([disabled]):has-text('{label}')")
            if buttons.count():
                # A button clicked a moment ago is disabled by the kernel soon after: skip it then.
                with contextlib.suppress(PlaywrightTimeout):
                    buttons.first.click(timeout=2_000)
        finished = page.evaluate(FINISHED_TURNS)
        if finished >= turns:
            break
        page.wait_for_timeout(250)
    return finished


def test_quickstart_in_jupyterlab_demo_mode(lab, page):
    _render_every_cell(lab)
    if (lab.root / "quickstart.ipynb").exists():
        (lab.root / "quickstart.ipynb").unlink()
    shutil.copy(QUICKSTART, lab.root / "quickstart.ipynb")
    open_notebook(page, lab.url, "quickstart.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.locator(".jp-OutputArea-output pre", has_text="DEMO MODE: ANTHROPIC_API_KEY is not set").wait_for(
        timeout=60_000
    )

    transcripts = page.locator(".jupyter-agent-transcript")
    assert _click_through(page, 2) == 2  # Run All stops at the failing cell, by design
    # The newcomer then runs the last cell ("fix the error above") by hand.
    page.evaluate(
        """() => { const nb = window.jupyterapp.shell.currentWidget.content;
                   nb.activeCellIndex = nb.widgets.length - 1; }"""
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    finished = _click_through(page, 3)
    assert finished == 3 and transcripts.count() == 3
    assert page.get_by_text("Here is what happened in this demo turn").count() >= 1
    sources = [source for _id, source in cells(page)]
    notes = [i for i, source in enumerate(sources) if "Notes from the agent" in source]
    assert len(notes) == 3  # one per turn, each right below the %agent cell that asked
    assert all(sources[i - 1].lstrip().startswith(("%agent", "%%agent")) for i in notes), sources
    assert not any("File Changed" in d for d in dialogs(page))
