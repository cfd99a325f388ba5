"""Time of ``%load_ext jupyter_agent`` in a fresh IPython, beside ``%load_ext jupyter_ai_magics``.

Each round starts a new Python process per extension (alternating, so both see the same
machine state), creates an IPython shell, then times only the ``%load_ext`` line.  Figures
are medians over the rounds.  Goal: at most 0.15 s, and at least 5x faster than
jupyter-ai-magics when that package is installed.

    python benchmarks/load_ext.py [--rounds 7] [--ai-python /path/to/python-with-jupyter-ai-magics]

The comparison interpreter defaults to this one (``$JUPYTER_AI_PYTHON`` also works).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 0.15
GOAL_RATIO = 5.0

_PROBE = """
import time, warnings
warnings.filterwarnings("ignore")
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
t0 = time.perf_counter()
ip.run_line_magic("load_ext", {ext!r})
dt = time.perf_counter() - t0
assert {magic!r} in ip.magics_manager.magics["line"] or {magic!r} in ip.magics_manager.magics["cell"], "not loaded"
print(dt)
"""


def load_time(python: str, ext: str, magic: str) -> float:
    code = _PROBE.format(ext=ext, magic=magic)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed")
    return float(out.stdout.strip().splitlines()[-1])


def has_module(python: str, module: str) -> bool:
    probe = f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({module!r}) else 1)"
    return subprocess.run([python, "-c", probe], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ai-python", default=os.environ.get("JUPYTER_AI_PYTHON", sys.executable))
    args = parser.parse_args()

    compare = has_module(args.ai_python, "jupyter_ai_magics")
    ours: list[float] = []
    theirs: list[float] = []
    load_time(sys.executable, "jupyter_agent", "agent")  # warm the file cache once
    if compare:
        load_time(args.ai_python, "jupyter_ai_magics", "ai")
    for _ in range(args.rounds):
        ours.append(load_time(sys.executable, "jupyter_agent", "agent"))
        if compare:
            theirs.append(load_time(args.ai_python, "jupyter_ai_magics", "ai"))

    ours_med = statistics.median(ours)
    print(f"%load_ext jupyter_agent      median {ours_med * 1000:7.1f} ms  over {args.rounds} fresh processes")
    ok = ours_med <= GOAL_SECONDS
    if compare:
        theirs_med = statistics.median(theirs)
        ratio = theirs_med / ours_med
        print(f"%load_ext jupyter_ai_magics  median {theirs_med * 1000:7.1f} ms  ({args.ai_python})")
        print(f"jupyter_agent loads {ratio:.1f}x faster")
        ok = ok and ratio >= GOAL_RATIO
        verdict = "pass" if ok else "fall short"
        print(f"RESULT load_ext seconds={ours_med:.3f} ratio={ratio:.1f}x goal=<={GOAL_SECONDS}s,>={GOAL_RATIO:g}x {verdict}")
    else:
        print("jupyter_ai_magics is not installed for the comparison interpreter: no ratio measured")
        print(f"RESULT load_ext seconds={ours_med:.3f} goal=<={GOAL_SECONDS}s {'pass' if ok else 'fall short'}")


if __name__ == "__main__":
    main()
