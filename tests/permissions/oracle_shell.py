"""Running one generated line in real bash for the oracles, and waiting for all it started.

The outer bash holds one end of a pipe that every process the line starts inherits (background
jobs included); it returns only when the last holder has ended, so no late stub run is missed.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

BASH = "/bin/bash"
BWRAP = "/usr/bin/bwrap"


def run_line(line: str, sandbox: tuple[str, ...], cwd: Path, path: Path, timeout: float) -> bool:
    """Run ``line`` with only ``path`` on PATH; False when it had to be killed (a timeout)."""
    read_end, write_end = os.pipe()
    waiter = (f'{BASH} --norc --noprofile -c "$1" {read_end}<&-; exec {write_end}>&-; '
              f"read -r -u {read_end} _")
    args = [*sandbox, BASH, "--norc", "--noprofile", "-c", waiter, "oracle", line]
    proc = subprocess.Popen(
        args, cwd=cwd, env={"PATH": str(path)}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=(read_end, write_end),
    )
    os.close(read_end)
    os.close(write_end)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return False
    return True


def sandbox_prefix(root: Path) -> tuple[str, ...]:
    """``bwrap`` arguments that keep a line inside ``root`` (writable) and off the network, or ()."""
    if not os.path.exists(BWRAP):
        return ()
    prefix = (BWRAP, "--ro-bind", "/", "/", "--bind", str(root), str(root), "--unshare-all",
              "--die-with-parent", "--new-session", "--")
    try:
        done = subprocess.run([*prefix, BASH, "-c", "exit 0"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return prefix if done.returncode == 0 else ()
