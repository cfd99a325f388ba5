"""Fixtures for real-browser tests: a JupyterLab server started by the test, Playwright + chromium.

JupyterLab runs with ``--allow-root``, no token, on a free port, with a temporary root dir and
temporary Jupyter config/data/settings dirs; the freshly built labextension is put first on
its extension path.  Browser tests are skipped only when ``/usr/bin/chromium`` is missing.
A failing browser test leaves a screenshot in ``test-results/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
EXTENSION_SRC = REPO / "labextension"
EXTENSION_BUILD = EXTENSION_SRC / "build" / "jupyter-agent"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RESULTS = REPO / "test-results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_extension_built() -> Path:
    """The built labextension (``pip install`` builds it; build it here when it is missing)."""
    sources = [p.stat().st_mtime for p in (EXTENSION_SRC / "src").glob("*.ts")]
    stamp = EXTENSION_BUILD / "package.json"
    if stamp.exists() and stamp.stat().st_mtime >= max(sources):
        return EXTENSION_BUILD
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("The labextension is not built and npm is not installed to build it.")
    if not (EXTENSION_SRC / "node_modules").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=EXTENSION_SRC, check=True)
    subprocess.run([npm, "run", "build"], cwd=EXTENSION_SRC, check=True)
    return EXTENSION_BUILD


@dataclass
class Lab:
    url: str
    root: Path
    process: subprocess.Popen
    log: Path


def _lab_dirs(base: Path) -> dict[str, Path]:
    dirs = {name: base / name for name in ("root", "config", "data", "runtime", "settings", "workspaces")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    (dirs["data"] / "labextensions").mkdir(exist_ok=True)
    os.symlink(ensure_extension_built(), dirs["data"] / "labextensions" / "jupyter-agent")
    notif = dirs["settings"] / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True)
    (notif / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    return dirs


@contextlib.contextmanager
def start_lab(base: Path) -> Iterator[Lab]:
    """A JupyterLab server on a free port, serving ``base/root``; stopped on exit."""
    with start_jupyter(base, "jupyterlab", "--LabApp", ("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",)) as lab:
        yield lab


@contextlib.contextmanager
def start_jupyter(base: Path, module: str, app: str, extra: tuple[str, ...] = ()) -> Iterator[Lab]:
    """``python -m module`` (JupyterLab or Notebook 7) on a free port with private Jupyter dirs.

    A port found free can be taken before the server binds it (kernels and the other test worker
    open ports all the time); the server then exits saying so, and it is started on another port.
    """
    dirs = _lab_dirs(base)
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        JUPYTER_AGENT_HOME=str(base / "agent-home"),
        JUPYTER_PLATFORM_DIRS="1",
        # the build linked into JUPYTER_DATA_DIR above, not the copy `pip install` put in the venv
        # (newer jupyter_core looks in the venv first): a rebuilt extension is the one tested
        JUPYTER_PREFER_ENV_PATH="0",
    )
    log = base / f"{module}.log"
    for attempt in range(1, PORT_ATTEMPTS + 1):
        port = free_port()
        cmd = [
            sys.executable, "-m", module, "--allow-root", "--no-browser",
            f"--port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0",
            "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
            f"--ServerApp.root_dir={dirs['root']}", f"{app}.user_settings_dir={dirs['settings']}",
            f"{app}.workspaces_dir={dirs['workspaces']}", f"{app}.expose_app_in_browser=True", *extra,
        ]  # fmt: skip
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=dirs["root"])
        url = f"http://127.0.0.1:{port}"
        try:
            try:
                _wait_until_up(url, proc, log)
            except PortTaken:
                if attempt == PORT_ATTEMPTS:
                    raise
                continue
            yield Lab(url, dirs["root"], proc, log)
            return
        finally:
            _stop(proc)


PORT_ATTEMPTS = 5


class PortTaken(RuntimeError):
    """The server exited because its port was taken after ``free_port`` chose it."""


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _wait_until_up(url: str, proc: subprocess.Popen, log: Path, limit: float = 90) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            text = log.read_text()
            kind = PortTaken if "is not available" in text else RuntimeError
            raise kind(f"JupyterLab exited:\n{text[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/status", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"JupyterLab did not start:\n{log.read_text()[-3000:]}")


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); browser tests need it")


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[Lab]:
    require_chromium()
    with start_lab(tmp_path_factory.mktemp("lab")) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture
def server():
    """The scripted Anthropic-compatible model server (push replies, then point a session at it)."""
    from jupyter_agent.testing import ScriptedServer

    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def page(browser, request):
    """A fresh browser page; a screenshot lands in test-results/ when the test fails."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    try:
        yield pg
    finally:
        rep = getattr(request.node, "rep_call", None)
        if rep is not None and rep.failed:
            RESULTS.mkdir(exist_ok=True)
            name = "".join(c if c.isalnum() or c in "-_" else "_" for c in request.node.nodeid)
            with contextlib.suppress(Exception):
                pg.screenshot(path=str(RESULTS / f"{name}.png"), full_page=True)
        context.close()
