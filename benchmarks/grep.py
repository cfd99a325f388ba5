"""Grep tool vs ``rg`` run directly on the same generated ~200 MB tree, side by side in one run.

Both search with the same switches (files_with_matches, then content mode for a rarer word);
the tool's time includes the whole pipeline (schema, permissions, subprocess, paging, sorting).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from _filetools_common import make_context, result_line, run_tool, side_by_side

from jupyter_agent.tools._rg import rg_executable
from jupyter_agent.tools.grep import GrepTool

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "lambda", "sigma", "omega", "value", "result", "index", "buffer", "stream", "parser", "token", "vector", "matrix", "kernel", "thread", "socket"]


def build_tree(root: Path, files: int = 2000, size: int = 100_000) -> int:
    rng = random.Random(7)
    lines = [" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(4000)]
    total = 0
    for i in range(files):
        folder = root / f"pkg{i % 40}" / f"mod{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        body = []
        n = 0
        while n < size:
            line = lines[rng.randrange(len(lines))]
            if rng.random() < 0.00003:
                line += " needle_rare"
            body.append(line)
            n += len(line) + 1
        data = "\n".join(body) + ("\nneedle_common\n" if i % 3 == 0 else "\n")
        (folder / f"file{i}.txt").write_text(data)
        total += len(data)
    return total


def rg_direct(root: Path, *args: str) -> None:
    subprocess.run([rg_executable(), "--hidden", *args, "--", str(root)], check=False,
                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


async def main() -> int:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "tree"
        size = build_tree(root)
        ctx = make_context((GrepTool(),), root, Path(d) / "session")
        rg_direct(root, "-l", "-e", "warm")  # warm the page cache for both

        async def ours_files():
            await run_tool(ctx, "Grep", pattern="needle_common", head_limit=0)

        async def rg_files():
            await asyncio.to_thread(rg_direct, root, "--files-with-matches", "-e", "needle_common")

        async def ours_content():
            await run_tool(ctx, "Grep", pattern="needle_rare", output_mode="content", head_limit=0)

        async def rg_content():
            await asyncio.to_thread(rg_direct, root, "--no-heading", "--with-filename", "-n", "-e", "needle_rare")

        t_files, r_files = await side_by_side(15, ours_files, rg_files)
        t_content, r_content = await side_by_side(15, ours_content, rg_content)
    ratio_files, ratio_content = t_files / r_files, t_content / r_content
    print(f"tree: {size / 1e6:.0f} MB in 2000 files")
    print(f"files_with_matches: Grep {t_files * 1000:.1f} ms vs rg {r_files * 1000:.1f} ms -> {ratio_files:.2f}x")
    print(f"content:            Grep {t_content * 1000:.1f} ms vs rg {r_content * 1000:.1f} ms -> {ratio_content:.2f}x")
    worst = max(ratio_files, ratio_content)
    print(result_line("grep", "ratio", worst, "<=1.2", worst <= 1.2))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
