"""Files whose contents run without anyone asking: ssh's and git's configuration, credential
helpers, Python's start-up files, Jupyter's kernel specs, extensions and server configuration.
With the notebook in the home folder the project *is* home, and acceptEdits would let the
agent write ``~/.ssh/authorized_keys`` or ``~/.config/git/config`` (``fsmonitor`` runs on every
``git status``) unasked.  These ask in every mode, through the real Write tool and Bash."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.permissions.paths import protected_reason_of
from tests.conftest import RecordingApprover
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROTECTED = [
    ".ssh/authorized_keys", ".ssh/config", ".config/git/config", ".config/pip/pip.conf",
    ".config/systemd/user/x.service", ".aws/config", ".docker/config.json", ".kube/config", ".gnupg/gpg.conf",
    ".local/lib/python3.11/site-packages/evil.pth", ".venv/lib/python3.11/site-packages/x.pth",
    ".venv/lib/python3.11/site-packages/sitecustomize.py", "lib/usercustomize.py",
    ".local/share/jupyter/kernels/py/kernel.json", ".venv/share/jupyter/labextensions/x/package.json",
    ".venv/etc/jupyter/jupyter_server_config.d/x.json", "/usr/local/share/Jupyter/kernels/k/kernel.json",
    ".Rprofile", "analysis/.Rprofile", ".Renviron", ".npmrc", ".condarc", ".venv/pip.conf", ".pip/pip.conf",
    ".curlrc", ".netrc", ".jq", ".claude.json", ".jupyter-agent/trusted_folders.json",
    ".venv/pyvenv.cfg", "envs/py311/pyvenv.cfg",
    # conda activate runs these in the user's shell, and sets the variables state holds
    "env/etc/conda/activate.d/env_vars.sh", "miniconda3/envs/a/etc/conda/deactivate.d/x.sh",
    "envs/x/conda-meta/state",
    # the desktop session runs these: launcher entries (overriding the system's), user units, D-Bus services
    ".local/share/applications/firefox.desktop", ".local/share/systemd/user/x.service",
    ".local/share/dbus-1/services/org.x.service",
]
ORDINARY = [".jupyter-agent/sessions/s1/plan.md", "trusted_folders.json", "claude.json", "models/model.pth", "site-packages-notes/a.pth", "notes/jupyter/a.md", "jupyter/x.py", "share/data.csv",
            "src/config/settings.py", "config/git/x", ".github/workflows/ci.yml", "analysis.R", "pip.txt", "a.jq",
            ".venv/pyvenv.cfg.bak", "env/conda-meta/history", "env/etc/conda/notes.txt",
            ".local/share/data.csv", "share/applications/x.desktop"]


@pytest.mark.parametrize("path", PROTECTED)
def test_protected(path):
    full = path if path.startswith("/") else f"/home/u/{path}"
    assert protected_reason_of(full, full) is not None


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary(path):
    full = f"/home/u/{path}"
    assert protected_reason_of(full, full) is None


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
async def test_the_write_tool_asks_for_each_in_a_home_project(tmp_path, mode):
    ctx = make_ctx(tmp_path, mode=mode, tools=(load_tool(TOOL_TARGETS["Write"]),))
    for path in [p for p in PROTECTED if not p.startswith("/")] + ORDINARY:
        approver = RecordingApprover(PermissionDeny("no"))
        outcome = await run_tool_use(
            ToolUseRequest("w", "Write", {"file_path": str(tmp_path / path), "content": "x\n"}), ctx, approver)
        if path in ORDINARY:
            assert approver.asks == [] and not outcome.is_error, (path, outcome.text)
        else:
            assert len(approver.asks) == 1 and outcome.is_error, (mode, path, outcome.text)
            assert not (tmp_path / path).exists()


@pytest.mark.parametrize("command", ["echo 'ssh-ed25519 AAAA' >> .ssh/authorized_keys",
                                     "cp x.pth .venv/lib/python3.11/site-packages/",
                                     "cp x.pth .venv/lib/python3.11/site-packages",
                                     "mkdir -p .local/share/jupyter/kernels/evil",
                                     "tee .config/git/config < cfg",
                                     "echo '{\"mcpServers\": {}}' > .claude.json",
                                     "cp mine.json .jupyter-agent/trusted_folders.json"])
async def test_bash_asks_in_every_mode(tmp_path, command):
    (tmp_path / ".venv/lib/python3.11/site-packages").mkdir(parents=True)
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        assert verdict_name(await decide_bash(make_ctx(tmp_path, mode=mode), command)) == "ask", (mode, command)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX virtual environment")
def test_a_virtual_environments_python_really_imports_the_standard_library_pyvenv_cfg_names(tmp_path):
    """Why ``pyvenv.cfg`` is protected: ``home = <a folder the agent made>`` and the environment's
    Python imports that folder's ``lib/python3.X`` at every start (here a copied ``encodings``
    that leaves a mark)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "v")], check=True, timeout=120)
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    real = Path(sysconfig.get_paths()["stdlib"])
    fake = tmp_path / "fake" / "lib" / version
    fake.mkdir(parents=True)
    (tmp_path / "fake" / "bin").mkdir()
    for entry in real.iterdir():
        if entry.name not in ("encodings", "site-packages"):
            (fake / entry.name).symlink_to(entry)
    shutil.copytree(real / "encodings", fake / "encodings")
    marker = tmp_path / "ran"
    with open(fake / "encodings" / "__init__.py", "a") as f:
        f.write(f"\nimport posix as _p\n_p.close(_p.open({str(marker)!r}, _p.O_CREAT | _p.O_WRONLY, 0o644))\n")
    cfg = tmp_path / "v" / "pyvenv.cfg"
    cfg.write_text("".join(f"home = {tmp_path / 'fake' / 'bin'}\n" if line.startswith("home") else line
                           for line in cfg.read_text().splitlines(keepends=True)))
    subprocess.run([str(tmp_path / "v" / "bin" / "python"), "-c", "pass"], timeout=60, capture_output=True)
    assert marker.exists()
