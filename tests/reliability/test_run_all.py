"""benchmarks/run_all.py: RESULT lines parsed in every shape the scripts print; real subprocesses."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_all():
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_all"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("line", "figure", "goal", "measured", "verdict"),
    [
        ("RESULT concurrency speedup=8.91 goal=>8 pass", "concurrency", ">8", "speedup=8.91", "pass"),
        ("RESULT notebook_edit_bytes growth=1.100 goal<=1.05 fall short",
         "notebook_edit_bytes", "<=1.05", "growth=1.100", "fall short"),
        ("RESULT load_ext seconds=0.412 ratio=3.1x goal=<=1s,>=2x pass",
         "load_ext", "<=1s,>=2x", "seconds=0.412, ratio=3.1x", "pass"),
        ("RESULT bash_trivial_overhead ratio=1.21 goal=<=1.5 pass",
         "bash_trivial_overhead", "<=1.5", "ratio=1.21", "pass"),
        ("RESULT odd measured=2 goal=3", "odd", "3", "measured=2", "no verdict"),
    ],
)
def test_result_lines_are_parsed(run_all, line, figure, goal, measured, verdict):
    row = run_all.parse_result_line("script", line)
    assert (row.figure, row.goal, row.measured, row.verdict) == (figure, goal, measured, verdict)


def test_other_lines_are_ignored(run_all):
    assert run_all.parse_result_line("s", "median 3.2 ms RESULT x=1") is None
    assert run_all.parse_output("s", "hello\nRESULT a b=1 goal=2 pass\nbye") == [
        run_all.Row("s", "a", "2", "b=1", "pass")
    ]


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(body, encoding="utf-8")
    return path


def test_scripts_run_in_subprocesses_with_failures_reported(run_all, tmp_path):
    good = _script(tmp_path, "good", "print('RESULT good ratio=1.10 goal=<=1.5 pass')\n")
    crash = _script(tmp_path, "crash", "raise SystemExit('boom')\n")
    silent = _script(tmp_path, "silent", "print('nothing to see')\n")
    slow = _script(tmp_path, "slow", "import time\nprint('RESULT slow a=1 goal=2 pass', flush=True)\ntime.sleep(30)\n")

    rows, _ = run_all.run_script(good, 60)
    assert rows == [run_all.Row("good", "good", "<=1.5", "ratio=1.10", "pass")]
    rows, _ = run_all.run_script(crash, 60)
    assert len(rows) == 1 and rows[0].verdict.startswith("exit 1: boom") and not rows[0].passed
    rows, _ = run_all.run_script(silent, 60)
    assert [r.verdict for r in rows] == ["no RESULT line"]
    short = _script(tmp_path, "short", "import sys\nprint('RESULT short ratio=3 goal=<=2 fall short')\nsys.exit(1)\n")
    rows, _ = run_all.run_script(short, 60)  # a goal that falls short is not also a crash
    assert [r.verdict for r in rows] == ["fall short"]
    broken = _script(tmp_path, "broken", "print('RESULT b ratio=3 goal=<=2 fall short')\nraise ValueError('late')\n")
    rows, _ = run_all.run_script(broken, 60)
    assert [r.verdict for r in rows][0] == "fall short" and rows[-1].verdict.startswith("exit 1: ValueError: late")
    rows, took = run_all.run_script(slow, 1.0)
    assert rows[-1].verdict == "timed out after 1s"
    assert took == 1.0


def test_table_and_report(run_all, tmp_path):
    rows = [run_all.Row("a", "fig|x", "<=2", "r=1", "pass"), run_all.Row("b", "g", "3", "r=4", "fall short")]
    text = run_all.report(rows, {"a": 1.0, "b": 2.0})
    assert "1 of 2 figures meet their goal" in text
    assert "| a | fig\\|x | <=2 | r=1 | pass |" in text
    assert "| b | g | 3 | r=4 | fall short |" in text


def test_every_real_benchmark_is_found(run_all):
    names = {p.stem for p in run_all.scripts([])}
    assert "bash" in names and "run_all" not in names and "_filetools_common" not in names
    with pytest.raises(SystemExit):
        run_all.scripts(["no_such_benchmark"])
