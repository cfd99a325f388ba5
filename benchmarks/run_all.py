"""Run every benchmark script and print one summary table (also written to RESULTS.md).

    python benchmarks/run_all.py                 # every benchmarks/*.py (not _helpers)
    python benchmarks/run_all.py bash grep       # only these scripts
    python benchmarks/run_all.py --timeout 300   # per-script time limit in seconds

Each script runs in its own subprocess with a time limit and ends with lines like
``RESULT <name> <figure>=<value> goal=<goal> pass|fall short``.  The table has one row per
RESULT line: figure, goal, measured value, pass / fall short.  A script that crashes, times
out or prints no RESULT line gets a row saying so (and counts as falling short).
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TIMEOUT = 600.0
RESULTS_FILE = HERE / "RESULTS.md"
_RESULT = re.compile(r"^RESULT\s+(\S+)\s+(.*?)\s*$")
_VERDICT = re.compile(r"\b(pass|fall short)\s*$")
_GOAL = re.compile(r"\bgoal\s*(=?\s*\S+)")
_FIGURE = re.compile(r"([A-Za-z_][\w.]*)=(\S+)")


@dataclass(frozen=True)
class Row:
    """One RESULT line (or one script's failure)."""

    script: str
    figure: str
    goal: str
    measured: str
    verdict: str  # "pass", "fall short", or why there is no figure ("timed out", ...)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def parse_result_line(script: str, line: str) -> Row | None:
    """A RESULT line as a row; None for any other line."""
    match = _RESULT.match(line.strip())
    if match is None:
        return None
    name, rest = match.groups()
    verdict_match = _VERDICT.search(rest)
    verdict = verdict_match.group(1) if verdict_match else "no verdict"
    body = rest[: verdict_match.start()] if verdict_match else rest
    goal_match = _GOAL.search(body)
    goal = goal_match.group(1).lstrip("=").strip() if goal_match else "?"
    before_goal = body[: goal_match.start()] if goal_match else body
    figures = _FIGURE.findall(before_goal)
    measured = ", ".join(f"{k}={v}" for k, v in figures) if figures else before_goal.strip() or "?"
    return Row(script, name, goal, measured, verdict)


def parse_output(script: str, output: str) -> list[Row]:
    return [row for line in output.splitlines() if (row := parse_result_line(script, line))]


def run_script(path: Path, timeout: float) -> tuple[list[Row], float]:
    """Run one script; its rows (or a failure row) and the seconds it took."""
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=timeout,
            cwd=str(HERE.parent), errors="replace",
        )
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        rows = parse_output(path.stem, partial)
        return rows + [Row(path.stem, path.stem, "-", "-", f"timed out after {timeout:g}s")], timeout
    took = time.monotonic() - start
    rows = parse_output(path.stem, done.stdout)
    if done.returncode == 1 and any(row.verdict == "fall short" for row in rows) and not done.stderr.strip():
        pass  # the script's own way of saying a goal fell short (already in its rows), not a crash
    elif done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1][:80]
        rows.append(Row(path.stem, path.stem, "-", "-", f"exit {done.returncode}: {tail}"))
    elif not rows:
        rows.append(Row(path.stem, path.stem, "-", "-", "no RESULT line"))
    return rows, took


def scripts(names: list[str]) -> list[Path]:
    found = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("_") and p.name != "run_all.py")
    if not names:
        return found
    wanted = {n.removesuffix(".py") for n in names}
    unknown = wanted - {p.stem for p in found}
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    return [p for p in found if p.stem in wanted]


def table(rows: list[Row]) -> str:
    """A Markdown table of the rows."""
    lines = ["| script | figure | goal | measured | result |", "|---|---|---|---|---|"]
    for r in rows:
        cells = (r.script, r.figure, r.goal, r.measured, r.verdict)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def report(rows: list[Row], timings: dict[str, float]) -> str:
    passed = sum(r.passed for r in rows)
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    total = sum(timings.values())
    return (
        f"# Benchmark results\n\nMeasured {when} by `python benchmarks/run_all.py` "
        f"({len(timings)} scripts, {total:.0f} s). {passed} of {len(rows)} figures meet their goal.\n\n"
        f"{table(rows)}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmark scripts to run (default: all)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per script")
    parser.add_argument("--output", type=Path, default=RESULTS_FILE, help="Markdown file to write")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    timings: dict[str, float] = {}
    for path in scripts(args.names):
        print(f"running {path.name} ...", file=sys.stderr, flush=True)
        script_rows, timings[path.stem] = run_script(path, args.timeout)
        rows.extend(script_rows)
    text = report(rows, timings)
    print(text)
    args.output.write_text(text, encoding="utf-8")
    return 0 if all(r.passed for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
