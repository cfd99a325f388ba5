"""Glob's split walk: several single-threaded rg processes list exactly what one walk lists."""

from __future__ import annotations

import asyncio
import os

import psutil
import pytest

from jupyter_agent.core.abort import AbortController
from jupyter_agent.errors import ToolError
from jupyter_agent.tools._rg import run_rg_many
from jupyter_agent.tools._walk_plan import split_folders, walk_plan

PATTERNS = ("**/*.py", "*.py", "/*.py", "*/x.py", "**/a1/**", "a*/**/*.txt", "**/{b,c}/*", "**/.hidden/*",
            "**/we ird/*", "**", "/a1", "**/sub/**/*.py")


def _tree(root) -> None:
    files = ["x.py", "top.txt", "a1/x.py", "a1/sub/deep/y.py", "a2/x.py", "a2/b/z.txt", "a3/c/w.py",
             "a10/sub/q.py", ".hidden/h.py", "we ird/s.py", "-dash/d.py", "+plus/p.py", "b/x.py",
             ".git/config.py", "a1/.git/inner.py", "c/b/x.py"]
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    outside = root.parent / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "o.py").write_text("x")
    os.symlink(outside, root / "linked")  # a symlinked folder: rg's walk does not follow it


async def _listing(root, plan) -> list[str]:
    chunks: list[list[bytes]] = [[] for _ in plan]
    results = await run_rg_many(plan, cwd=root, timeout=30, consumers=[c.append for c in chunks])
    assert all(r.returncode in (0, 1) for r in results), [r.stderr for r in results]
    lines = [line for c in chunks for line in b"".join(c).decode().splitlines() if line]
    assert len(lines) == len(set(lines)), "a file was listed by two processes"
    return sorted(lines)


@pytest.mark.parametrize("pattern", PATTERNS)
async def test_split_walk_lists_exactly_what_one_walk_lists(tmp_path, pattern):
    root = tmp_path / "root"
    root.mkdir()
    _tree(root)
    single = await _listing(root, walk_plan(root, pattern, ways=1))
    for ways in (2, 3, 4):
        plan = walk_plan(root, pattern, ways=ways)
        assert len(plan) == ways  # really split
        assert await _listing(root, plan) == single, (pattern, ways)


def test_plan_moves_only_real_plainly_named_folders(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    _tree(root)
    plan = walk_plan(root, "**/*.py", ways=2)
    first, second = plan
    moved = second[second.index("--") + 1:]
    assert first[-2:] == ["--", "."] and "--threads=1" in first and "--threads=1" in second
    assert all(m.startswith("./") for m in moved)
    names = {m[2:] for m in moved}
    assert names and names.isdisjoint({"linked", "we ird", "-dash", ".git"})  # symlink, odd names, .git stay
    assert {f"--glob=!/{n}/" for n in names} <= set(first)
    skips = [arg for name in (".git", ".svn", ".hg", ".bzr", ".jj", ".sl", ".ipynb_checkpoints")
             for arg in ("--glob", f"!{name}")]
    assert walk_plan(root, "**/*.py", ways=1) == [["--files", "--hidden", "--no-ignore", "--no-messages",
                                                   "--sortr", "modified", *skips, "--glob",
                                                   "**/*.py", "--", "."]]


def test_no_split_without_two_folders(tmp_path):
    (tmp_path / "only").mkdir()
    (tmp_path / "f.py").write_text("x")
    assert len(walk_plan(tmp_path, "*.py", ways=4)) == 1
    assert len(walk_plan(tmp_path / "missing", "*.py", ways=4)) == 1


def test_a_lone_folder_is_split_below(tmp_path):
    for rel in ("src/pkg/a/x.py", "src/pkg/b/y.py", "src/pkg/c/z.py", "src/top.py", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert split_folders(tmp_path) == ["src/pkg/a", "src/pkg/b", "src/pkg/c"]
    first, second = walk_plan(tmp_path, "**/*.py", ways=2)
    assert "--glob=!/src/pkg/b/" in first and second[-1] == "./src/pkg/b"


async def test_lone_folder_split_lists_what_one_walk_lists(tmp_path):
    for rel in ("src/pkg/a/x.py", "src/pkg/b/y.py", "src/pkg/c/z.py", "src/pkg/q.py", "src/top.py", "r.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    for pattern in ("**/*.py", "*.py", "src/*.py", "**/pkg/*.py", "**/b/**"):
        single = await _listing(tmp_path, walk_plan(tmp_path, pattern, ways=1))
        assert await _listing(tmp_path, walk_plan(tmp_path, pattern, ways=3)) == single, pattern


def _rg_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.name() == "rg"]


async def test_timeout_and_abort_kill_every_process(tmp_path):
    fifos = []
    for name in ("p1", "p2"):
        os.mkfifo(tmp_path / name)  # rg blocks opening a FIFO nobody writes to
        fifos.append(["-e", "x", "--", str(tmp_path / name)])
    sink: list[bytes] = []
    with pytest.raises(ToolError, match="timed out"):
        await run_rg_many(fifos, cwd=tmp_path, timeout=0.5, consumers=[sink.append, sink.append])
    assert _rg_children() == []
    abort = AbortController()
    asyncio.get_running_loop().call_later(0.3, abort.abort)
    with pytest.raises(ToolError, match="interrupted"):
        await run_rg_many(fifos, cwd=tmp_path, timeout=60, abort=abort, consumers=[sink.append, sink.append])
    assert _rg_children() == []


async def test_output_cap_counts_every_process(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("match\n" * 50_000)
    sink: list[bytes] = []
    args = [["-e", "match", "--", str(tmp_path / f"{n}.txt")] for n in ("a", "b")]
    results = await run_rg_many(args, cwd=tmp_path, timeout=60, max_bytes=10_000, consumers=[sink.append] * 2)
    assert all(r.truncated for r in results)
    assert sum(map(len, sink)) < 50_000 * 6  # stopped long before both files were listed
    assert _rg_children() == []
