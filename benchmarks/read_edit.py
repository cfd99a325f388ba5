"""Read and Edit on big files vs. the plain Python equivalent, side by side in one run.

1. Read of a 2,000-line window deep inside a 1 GB text file (offset 9,000,000) vs.
   ``itertools.islice`` over ``open(...)``; plus the Read's peak memory (tracemalloc).
2. Edit of one unique string in a 50 MB file vs. plain Python doing the same safely
   (read, check the string occurs once, replace, write a temp file, fsync, rename) and vs.
   the naive ``read_text`` / ``replace`` / ``write_text``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

from _filetools_common import make_context, result_line, run_tool, side_by_side

from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.read import ReadTool

GB = 1 << 30
OFFSET = 9_000_000


def make_big_file(path: Path, size: int) -> int:
    """Numbered 100-byte lines up to ``size`` bytes; returns the number of lines."""
    per_block = 10_000
    lines = 0
    with open(path, "w", encoding="utf-8") as fh:
        while fh.tell() < size:
            fh.write("".join(f"row {n:>10} " + "payload " * 10 + "x" * 9 + "\n"
                             for n in range(lines, lines + per_block)))
            lines += per_block
    return lines


def plain_read(path: Path, offset: int, limit: int) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return list(itertools.islice(fh, offset - 1, offset - 1 + limit))


def plain_edit(path: Path, old: str, new: str, *, atomic: bool) -> None:
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise RuntimeError("not unique")
    text = text.replace(old, new, 1)
    if not atomic:
        path.write_text(text, encoding="utf-8")
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


async def bench_read(d: Path) -> tuple[float, float, float]:
    big = d / "big.log"
    make_big_file(big, GB)
    ctx = make_context((ReadTool(),), d, d / "session")
    plain_read(big, OFFSET, 2000)  # page cache warm for both

    async def ours():
        ctx.read_file_state.clear()  # no "unchanged since last read" shortcut
        out = await run_tool(ctx, "Read", file_path=str(big), offset=OFFSET, limit=2000)
        assert f"{OFFSET:>6}\t" in out.content[0]["text"]

    async def theirs():
        await asyncio.to_thread(plain_read, big, OFFSET, 2000)

    t_ours, t_plain = await side_by_side(5, ours, theirs)
    ctx.read_file_state.clear()
    tracemalloc.start()
    await ours()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    big.unlink()
    print(f"Read 2000 lines at line {OFFSET:,} of a 1 GB file: {t_ours * 1000:.0f} ms vs plain Python "
          f"{t_plain * 1000:.0f} ms -> {t_ours / t_plain:.2f}x; peak memory {peak / 1e6:.1f} MB "
          f"({peak / GB * 100:.2f}% of the file)")
    return t_ours / t_plain, peak, t_ours


async def bench_edit(d: Path) -> float:
    f = d / "fifty.txt"  # the tool edits this one, plain Python an identical copy
    lines = make_big_file(f, 50 * (1 << 20))
    copy = d / "fifty-plain.txt"
    copy.write_bytes(f.read_bytes())
    marker = f"row {lines // 2:>10} "
    assert f.read_text().count(marker) == 1
    ctx = make_context((ReadTool(), EditTool()), d, d / "session")
    await run_tool(ctx, "Read", file_path=str(f), offset=lines // 2, limit=5)
    state = {"ours": (marker, "ROW-EDITED "), "plain": (marker, "ROW-EDITED ")}

    async def ours():
        old, new = state["ours"]
        await run_tool(ctx, "Edit", file_path=str(f), old_string=old, new_string=new)
        state["ours"] = (new, old)

    def flip(atomic: bool) -> None:
        old, new = state["plain"]
        plain_edit(copy, old, new, atomic=atomic)
        state["plain"] = (new, old)

    async def atomic():
        await asyncio.to_thread(flip, True)

    async def naive():
        await asyncio.to_thread(flip, False)

    t_ours, t_atomic = await side_by_side(5, ours, atomic)
    _, t_naive = await side_by_side(3, ours, naive)
    print(f"Edit of a 50 MB file: {t_ours * 1000:.0f} ms vs plain Python atomic {t_atomic * 1000:.0f} ms "
          f"-> {t_ours / t_atomic:.2f}x (vs naive read/replace/write {t_naive * 1000:.0f} ms -> "
          f"{t_ours / t_naive:.2f}x)")
    return t_ours / t_atomic


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        read_ratio, peak, _ = await bench_read(d)
        edit_ratio = await bench_edit(d)
    print(result_line("read_window", "ratio", read_ratio, "<=1.0", read_ratio <= 1.0))
    print(result_line("read_peak_memory", "percent_of_file", peak / GB * 100, "<=1", peak / GB * 100 <= 1))
    print(result_line("edit_50mb", "ratio", edit_ratio, "<=2.0", edit_ratio <= 2.0))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
