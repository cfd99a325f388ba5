"""Glob on real trees through ripgrep: ordering, truncation, .git skipping, paths."""

from __future__ import annotations

import os

from jupyter_agent.tools._search_root import split_glob
from jupyter_agent.tools.glob import GlobTool


def _touch(path, mtime: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    os.utime(path, (mtime, mtime))


async def test_results_are_newest_first_absolute_paths(run, tmp_path):
    _touch(tmp_path / "old.py", 1_000_000)
    _touch(tmp_path / "pkg" / "mid.py", 2_000_000)
    _touch(tmp_path / "pkg" / "sub" / "new.py", 3_000_000)
    _touch(tmp_path / "notes.txt", 4_000_000)
    text = await run.ok("Glob", pattern="**/*.py")
    assert text.splitlines() == [str(tmp_path / "pkg/sub/new.py"), str(tmp_path / "pkg/mid.py"), str(tmp_path / "old.py")]


async def test_truncated_at_100_keeping_the_newest(run, tmp_path):
    for i in range(150):
        _touch(tmp_path / f"d{i % 7}" / f"f{i:03}.csv", 1_000_000 + i)
    outcome = await run("Glob", pattern="*.csv")
    out = outcome.result.data
    assert out.num_files == 150 and out.truncated and len(out.filenames) == 100
    assert [os.path.basename(p) for p in out.filenames] == [f"f{i:03}.csv" for i in range(149, 49, -1)]
    assert "truncated" in outcome.content[0]["text"] and "100 most recently modified of 150" in outcome.content[0]["text"]


async def test_git_folder_is_skipped_hidden_and_ignored_files_are_found(run, tmp_path):
    _touch(tmp_path / ".git" / "hooks" / "x.py", 1)
    _touch(tmp_path / ".hidden" / "h.py", 2)
    _touch(tmp_path / "build" / "b.py", 3)
    (tmp_path / ".gitignore").write_text("build/\n")
    text = await run.ok("Glob", pattern="**/*.py")
    assert set(text.splitlines()) == {str(tmp_path / ".hidden/h.py"), str(tmp_path / "build/b.py")}


async def test_notebook_checkpoints_and_other_vcs_folders_are_skipped(run, tmp_path):
    """Jupyter keeps a copy of every notebook in .ipynb_checkpoints: listing it would show each
    notebook twice (and invite edits of the copy)."""
    _touch(tmp_path / "nb" / "fit.ipynb", 1)
    _touch(tmp_path / "nb" / ".ipynb_checkpoints" / "fit-checkpoint.ipynb", 2)
    _touch(tmp_path / ".ipynb_checkpoints" / "top-checkpoint.ipynb", 3)
    _touch(tmp_path / ".hg" / "store" / "x.ipynb", 4)
    text = await run.ok("Glob", pattern="**/*.ipynb")
    assert text.splitlines() == [str(tmp_path / "nb/fit.ipynb")]


async def test_path_and_anchored_and_absolute_patterns(run, tmp_path):
    _touch(tmp_path / "src" / "a.ts", 1)
    _touch(tmp_path / "src" / "deep" / "b.ts", 2)
    _touch(tmp_path / "other" / "c.ts", 3)
    assert set((await run.ok("Glob", pattern="*.ts", path=str(tmp_path / "src"))).splitlines()) == {
        str(tmp_path / "src/a.ts"), str(tmp_path / "src/deep/b.ts")}
    assert (await run.ok("Glob", pattern="src/*.ts")).splitlines() == [str(tmp_path / "src/a.ts")]
    assert (await run.ok("Glob", pattern=f"{tmp_path}/src/deep/*.ts")).splitlines() == [str(tmp_path / "src/deep/b.ts")]
    assert set((await run.ok("Glob", pattern="**/*.{ts,js}", path="other")).splitlines()) == {str(tmp_path / "other/c.ts")}


async def test_no_match_and_bad_paths(run, tmp_path):
    assert await run.ok("Glob", pattern="*.nothing") == "No files found"
    assert "does not exist" in await run.error("Glob", pattern="*", path=str(tmp_path / "missing"))
    (tmp_path / "f.txt").write_text("x")
    assert "not a directory" in await run.error("Glob", pattern="*", path=str(tmp_path / "f.txt"))
    assert "pattern is empty" in await run.error("Glob", pattern="  ")
    assert "Omit path" in await run.error("Glob", pattern="*", path="undefined")
    assert "pattern" in await run.error("Glob", path=str(tmp_path))


def test_split_glob():
    from pathlib import Path

    root = Path("/cwd")
    assert split_glob("**/*.py", root) == (root, "**/*.py")
    assert split_glob("*.py", root) == (root, "*.py")  # no slash: a name at any depth
    assert split_glob("/a/b/**/*.py", root) == (Path("/a/b"), "**/*.py")
    assert split_glob("/a/b/c.py", root) == (Path("/a/b"), "/c.py")  # anchored: only /a/b/c.py
    assert split_glob("/a/*/c.py", root) == (Path("/a"), "*/c.py")
    assert split_glob("/*.py", root) == (Path("/"), "/*.py")
    assert split_glob("../x/*.py", Path("/w/proj")) == (Path("/w/x"), "/*.py")
    assert split_glob("./src/*.py", root) == (root / "src", "/*.py")
    assert split_glob("./*.py", root) == (root, "/*.py")
    # relative literal folders move into the root, so rg walks only them
    assert split_glob("src/**/*.ts", root) == (root / "src", "**/*.ts")
    assert split_glob("a/../b/*.py", root) == (root / "b", "/*.py")
    assert split_glob("a//b/c.py", root) == (root / "a/b", "/c.py")
    assert split_glob(r"a\*b/*.py", root) == (root, r"a\*b/*.py")  # escaped glob char: not literal


async def test_anchored_patterns_do_not_match_deeper_files(run, tmp_path):
    _touch(tmp_path / "src" / "a.ts", 1)
    _touch(tmp_path / "src" / "deep" / "a.ts", 2)
    _touch(tmp_path / "src" / "deep" / "b.ts", 3)
    assert (await run.ok("Glob", pattern=f"{tmp_path}/src/*.ts")).splitlines() == [str(tmp_path / "src/a.ts")]
    assert (await run.ok("Glob", pattern=f"{tmp_path}/src/a.ts")).splitlines() == [str(tmp_path / "src/a.ts")]
    assert (await run.ok("Glob", pattern="src/a.ts")).splitlines() == [str(tmp_path / "src/a.ts")]
    assert (await run.ok("Glob", pattern="./src/deep/../*.ts")).splitlines() == [str(tmp_path / "src/a.ts")]
    assert (await run.ok("Glob", pattern="src/**/a.ts")).splitlines() == [
        str(tmp_path / "src/deep/a.ts"), str(tmp_path / "src/a.ts")]


async def test_a_missing_literal_folder_finds_nothing(run, tmp_path):
    _touch(tmp_path / "src" / "a.ts", 1)
    assert await run.ok("Glob", pattern="nosuch/**/*.ts") == "No files found"
    assert await run.ok("Glob", pattern=f"{tmp_path}/nosuch/*.ts") == "No files found"
    assert await run.ok("Glob", pattern="src/a.ts/*.ts") == "No files found"  # a file, not a folder


def test_schema_and_flags():
    tool = GlobTool()
    assert set(tool.input_json_schema()["properties"]) == {"pattern", "path"}
    inp = tool.input_schema(pattern="*")
    assert tool.is_read_only(inp) and tool.is_concurrency_safe(inp)


def test_newest_files_handles_chunk_boundaries_ties_and_vanished_paths(tmp_path):
    from jupyter_agent.tools._newest import NewestFiles

    for name, mtime in (("b.txt", 5), ("a.txt", 5), ("old.txt", 1), ("new.txt", 9)):
        _touch(tmp_path / name, mtime)
    stream = "".join(f"{tmp_path / n}\n" for n in ("old.txt", "b.txt", "gone.txt", "a.txt", "new.txt")).encode()
    found = NewestFiles()
    for i in range(0, len(stream), 7):  # paths split across chunks
        found.feed(stream[i:i + 7])
    found.finish()
    assert found.count == 4
    assert found.newest() == tuple(str(tmp_path / n) for n in ("new.txt", "a.txt", "b.txt", "old.txt"))
    assert found.newest(2) == (str(tmp_path / "new.txt"), str(tmp_path / "a.txt"))


def _brute_force_newest(root, suffix: str, n: int) -> tuple[list[str], int]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".ipynb_checkpoints")]
        for name in files:
            if name.endswith(suffix):
                path = os.path.join(folder, name)
                found.append((-os.stat(path).st_mtime_ns, path))
    found.sort()
    return [p for _, p in found[:n]], len(found)


async def test_newest_100_are_exact_with_split_walks_and_ties(run, tmp_path, monkeypatch):
    import random

    rnd = random.Random(5)
    for i in range(900):  # many folders, few distinct mtimes: ties everywhere, also at the 100th
        _touch(tmp_path / f"d{i % 9}" / f"s{i % 4}" / f"f{i}.py", 1_000_000 + rnd.randrange(40))
        if i % 10 == 0:
            _touch(tmp_path / f"d{i % 9}" / f"n{i}.txt", 2_000_000)
    expected, count = _brute_force_newest(tmp_path, ".py", 100)
    for cores in (1, 2, 4):
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        out = (await run("Glob", pattern="**/*.py")).result.data
        assert list(out.filenames) == expected and out.num_files == count == 900 and out.truncated, cores


async def test_lone_project_folder_is_split_and_exact(run, tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for i in range(300):
        _touch(tmp_path / "src" / f"m{i % 5}" / f"f{i}.py", 1_000_000 + (i * 7919) % 1000)
    expected, count = _brute_force_newest(tmp_path, ".py", 100)
    out = (await run("Glob", pattern="**/*.py")).result.data
    assert list(out.filenames) == expected and out.num_files == count == 300


def test_newest_of_sorted_merges_ties_and_vanished(tmp_path):
    from jupyter_agent.tools._newest import newest_of_sorted

    for name, mtime in (("a", 9), ("b", 5), ("c", 5), ("d", 5), ("e", 1), ("f", 7), ("g", 5)):
        _touch(tmp_path / name, mtime)
    part1 = b"./a\n./gone\n./b\n./c\n./d\n./e\n"  # rg's order: newest first, ties in any order
    part2 = b"./f\n./g\n"
    names, total = newest_of_sorted([part1, part2], 3, tmp_path)
    assert names == tuple(str(tmp_path / n) for n in ("a", "f", "b")) and total == 8
    names, _ = newest_of_sorted([part1, part2], 5, tmp_path)  # c, d tie with b at the 5th place
    assert names == tuple(str(tmp_path / n) for n in ("a", "f", "b", "c", "d"))
    # a file tying with the n-th but listed after it by rg, and first by name, is found
    assert newest_of_sorted([b"./a\n./c\n./b\n./e\n"], 2, tmp_path)[0] == (str(tmp_path / "a"), str(tmp_path / "b"))
    names, total = newest_of_sorted([part1, part2], 3, tmp_path, skip=lambda p: p in ("./a", "./f"))
    assert names == tuple(str(tmp_path / n) for n in ("b", "c", "d")) and total == 6
