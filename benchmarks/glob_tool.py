"""Glob tool vs ``rg --files -g`` on the same generated trees (60,000 files), side by side in one run.

The tool also orders its matches by modification time (every match is stat-ed) and keeps the
newest 100, which ``rg --files`` does not do: that work is part of the measured cost.  For
context, the same answer from rg alone (``--sortr modified``) is timed too; the RESULT line is
the worst ratio against plain ``rg --files -g``.  Two trees: 30 even top-level folders, and an
unbalanced one with 90% of the files under one folder (the tool splits its walk by folder).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

from _filetools_common import make_context, result_line, run_tool, side_by_side

from jupyter_agent.tools._rg import rg_executable
from jupyter_agent.tools.glob import GlobTool

SUFFIXES = (".py", ".txt", ".json", ".md", ".csv", ".ts")


def build_tree(root: Path, files: int = 60_000, unbalanced: bool = False) -> None:
    for i in range(files):
        top = ("big" if i % 10 else f"a{i % 20}") if unbalanced else f"a{i % 30}"
        folder = root / top / f"b{i % 17}" / f"c{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}{SUFFIXES[i % len(SUFFIXES)]}").write_bytes(b"")


def rg_files(root: Path, pattern: str, *extra: str) -> None:
    subprocess.run([rg_executable(), "--files", "--hidden", "--no-ignore", *extra, "-g", pattern, "--", str(root)],
                   check=False, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


async def main() -> int:
    ratios = {}
    for unbalanced in (False, True):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d) / "tree"
            build_tree(root, unbalanced=unbalanced)
            ctx = make_context((GlobTool(),), root, Path(d) / "session")
            rg_files(root, "*.py")  # warm the dentry cache for both
            print("unbalanced tree (90% under big/):" if unbalanced else "even tree (30 top-level folders):")
            patterns = ("**/*.py", "**/f123*") if unbalanced else ("**/*.py", "a1/**/*.json", "**/f123*")
            for pattern in patterns:
                async def ours(p=pattern, ctx=ctx):
                    await run_tool(ctx, "Glob", pattern=p)

                async def theirs(p=pattern, root=root):
                    await asyncio.to_thread(rg_files, root, p)

                async def sorted_rg(p=pattern, root=root):  # the same answer from rg alone: sorted by mtime
                    await asyncio.to_thread(rg_files, root, p, "--sortr", "modified")

                t_ours, t_rg = await side_by_side(9, ours, theirs)
                t_ours2, t_sorted = await side_by_side(5, ours, sorted_rg)
                ratios[(unbalanced, pattern)] = t_ours / t_rg
                print(f"{pattern:>14}: Glob {t_ours * 1000:.1f} ms vs rg --files -g {t_rg * 1000:.1f} ms "
                      f"-> {t_ours / t_rg:.2f}x   (vs rg --files --sortr modified: {t_ours2 / t_sorted:.2f}x)")
    worst = max(ratios.values())
    print(result_line("glob", "ratio", worst, "<=1.5", worst <= 1.5))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
