"""Benchmark: one replace_cell on a 2,000-cell notebook — live bridge (real browser) vs disk.

Measured side by side in one run (medians):
  * live:  NotebookEdit's live backend, kernel → comm → JupyterLab in chromium → response
  * disk:  the disk backend (read, nbformat validate, edit, atomic write)
  * bare:  plain ``nbformat.read`` + ``nbformat.write`` of the same file (the floor for disk)
and the bytes sent over the comm per edit on a 20-cell and a 2,000-cell notebook (they must
not grow with the notebook's size).

Needs JupyterLab, /usr/bin/chromium and the built labextension (as the browser tests do).
Run: python benchmarks/notebook_edit.py [--cells 2000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nbformat  # noqa: E402

from jupyter_agent.notebook import DiskNotebook, ReplaceCell  # noqa: E402
from tests.e2e.browser_helpers import kernel_exec, open_notebook, wait_result  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_FLAGS, start_lab  # noqa: E402

KERNEL_BENCH = '''
import asyncio, json, os, time, statistics
from jupyter_agent.notebook import get_document, ReplaceCell
results = {}
async def _bench(key, name, rounds, cell_id):
    try:
        results[key] = await _measure(name, rounds, cell_id)
    except Exception as exc:
        results[key] = {"error": repr(exc)}
async def _measure(name, rounds, cell_id):
    doc = await get_document(os.path.abspath(name))
    if doc.backend != "live":
        from jupyter_agent.notebook import get_bridge
        bridge = await get_bridge()
        seen = [c.path for c in bridge.clients.values()] if bridge else "no frontend answered"
        raise RuntimeError(f"{name} is not live in this kernel (frontends: {seen})")
    times, sizes = [], []
    for i in range(rounds):
        t0 = time.perf_counter()
        await doc.apply(ReplaceCell(cell_id, f"x = {i}  # edited"))
        times.append(time.perf_counter() - t0)
        sizes.append(doc.bridge.stats.last_sent + doc.bridge.stats.last_received)
    return {"median": statistics.median(times), "bytes": statistics.median(sizes)}
def bench(key, name, rounds, cell_id):
    results.pop(key, None)
    asyncio.ensure_future(_bench(key, name, rounds, cell_id))
'''


def make_notebook(path: Path, n: int) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i in range(n):
        cell = nbformat.v4.new_code_cell(f"# cell {i}\nvalue_{i} = {i} * 2\nprint(value_{i})", id=f"c-{i:04d}")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{i * 2}\n")]
        cell.execution_count = i + 1
        nb.cells.append(cell)
    nbformat.write(nb, str(path))


def median_of(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_disk(path: Path, rounds: int, cell_id: str) -> tuple[float, float]:
    doc = DiskNotebook(path)
    counter = iter(range(10**6))

    def disk() -> None:
        asyncio.run(doc.apply(ReplaceCell(cell_id, f"x = {next(counter)}  # edited")))

    def bare() -> None:
        nbformat.write(nbformat.read(str(path), as_version=4), str(path))

    disk_t, bare_t = [], []
    for _ in range(rounds):  # interleaved: both see the same machine noise
        disk_t.append(median_of(disk, 1))
        bare_t.append(median_of(bare, 1))
    return statistics.median(disk_t), statistics.median(bare_t)


def middle_id(n: int) -> str:
    return f"c-{n // 2:04d}"


def bench_live(names: dict[str, int], rounds: int, url: str) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            for name, n in names.items():
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(120_000)
                open_notebook(page, url, name)
                kernel_exec(page, KERNEL_BENCH)
                kernel_exec(page, f"bench('b', {name!r}, {rounds}, {middle_id(n)!r})")
                out[name] = wait_result(page, "b", limit=600)
                if "error" in out[name]:
                    raise RuntimeError(f"live benchmark failed in the kernel: {out[name]['error']}")
                page.close()
        finally:
            browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cells", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="nbedit-bench-"))
    with start_lab(base) as lab:
        big, small = lab.root / "big.ipynb", lab.root / "small.ipynb"
        make_notebook(big, args.cells)
        small_n = min(20, args.cells)
        make_notebook(small, small_n)
        disk_copy = base / "disk.ipynb"
        make_notebook(disk_copy, args.cells)
        size = big.stat().st_size
        disk_t, bare_t = bench_disk(disk_copy, args.rounds, middle_id(args.cells))
        live = bench_live({"small.ipynb": small_n, "big.ipynb": args.cells}, args.rounds, lab.url)
    live_t = live["big.ipynb"]["median"]
    b_small, b_big = live["small.ipynb"]["bytes"], live["big.ipynb"]["bytes"]
    print(f"notebook: {args.cells} cells, {size / 1e6:.2f} MB on disk; {args.rounds} rounds each")
    print(f"live replace_cell (browser):      {live_t * 1e3:8.2f} ms median")
    print(f"disk backend replace:             {disk_t * 1e3:8.2f} ms median")
    print(f"bare nbformat.read + write:       {bare_t * 1e3:8.2f} ms median")
    print(f"comm bytes per edit: {small_n} cells {b_small:.0f} B, {args.cells} cells {b_big:.0f} B")
    print(json.dumps({"live_ms": live_t * 1e3, "disk_ms": disk_t * 1e3, "bare_ms": bare_t * 1e3,
                      "bytes_small": b_small, "bytes_big": b_big}))
    growth = b_big / b_small
    print(f"RESULT notebook_edit_bytes growth={growth:.3f} goal<=1.05 {'pass' if growth <= 1.05 else 'fall short'}")
    ratio = live_t / bare_t
    print(f"RESULT notebook_edit live_vs_bare_nbformat={ratio:.3f} goal<1 {'pass' if ratio < 1 else 'fall short'}")


if __name__ == "__main__":
    main()
