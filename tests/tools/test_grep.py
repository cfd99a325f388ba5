"""Grep through real ripgrep: modes, context, paging, filters, .gitignore, errors."""

from __future__ import annotations

import os
import subprocess

import pytest

from jupyter_agent.tools._grep_args import build_rg_args, page, split_globs
from jupyter_agent.tools.grep import GrepTool


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("import os\n\ndef main():\n    print('Hello')\n    return 0\n")
    (tmp_path / "src" / "util.py").write_text("def helper():\n    return 'hello world'\n")
    (tmp_path / "README.md").write_text("# Hello docs\nsee main()\n")
    os.utime(tmp_path / "src" / "app.py", (3_000_000, 3_000_000))
    os.utime(tmp_path / "src" / "util.py", (2_000_000, 2_000_000))
    os.utime(tmp_path / "README.md", (1_000_000, 1_000_000))
    return tmp_path


async def test_files_with_matches_is_default_and_newest_first(run, tree):
    text = await run.ok("Grep", pattern="hello", **{"-i": True})
    assert text.splitlines() == ["Found 3 files", str(tree / "src/app.py"), str(tree / "src/util.py"), str(tree / "README.md")]


async def test_content_mode_with_line_numbers_and_context(run, tree):
    text = await run.ok("Grep", pattern="print", output_mode="content", path=str(tree / "src"))
    assert text == f"{tree}/src/app.py:4:    print('Hello')"
    ctx = await run.ok("Grep", pattern="print", output_mode="content", path=str(tree / "src"), **{"-B": 1, "-A": 1})
    assert ctx.splitlines() == [f"{tree}/src/app.py-3-def main():", f"{tree}/src/app.py:4:    print('Hello')",
                                f"{tree}/src/app.py-5-    return 0"]
    c2 = await run.ok("Grep", pattern="print", output_mode="content", path=str(tree / "src/app.py"), context=2)
    assert [line.split("app.py")[1][:3] for line in c2.splitlines()] == ["-2-", "-3-", ":4:", "-5-"]
    bare = await run.ok("Grep", pattern=r"he\w+o", output_mode="content", glob="*.py", **{"-n": False, "-o": True})
    assert bare == f"{tree}/src/util.py:hello"


async def test_count_mode(run, tree):
    text = await run.ok("Grep", pattern="return|def", output_mode="count", path=str(tree / "src"))
    lines = text.splitlines()
    assert sorted(lines[:2]) == [f"{tree}/src/app.py:2", f"{tree}/src/util.py:2"]
    assert "Found 4 total occurrences across 2 files." in text


async def test_glob_and_type_filters(run, tree):
    assert (await run.ok("Grep", pattern="Hello", glob="*.md")).splitlines()[1:] == [str(tree / "README.md")]
    assert (await run.ok("Grep", pattern="Hello", type="py")).splitlines()[1:] == [str(tree / "src/app.py")]
    assert "README.md" in await run.ok("Grep", pattern="Hello", glob="*.py, *.md")
    assert "unrecognized file type" in await run.error("Grep", pattern="x", type="nosuchtype")


async def test_paging_with_head_limit_and_offset(run, tmp_path):
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(1, 301)))
    first = await run.ok("Grep", pattern="hit", output_mode="content", **{"-n": False})
    assert len([line for line in first.splitlines() if "hit" in line]) == 250 and "offset=250" in first
    page2 = await run.ok("Grep", pattern="hit", output_mode="content", head_limit=10, offset=20, **{"-n": False})
    shown = [line.rsplit(":", 1)[1] for line in page2.splitlines() if "hit" in line]
    assert shown == [f"hit {i}" for i in range(21, 31)] and "results 21-30 of 300" in page2
    everything = await run.ok("Grep", pattern="hit", output_mode="content", head_limit=0)
    assert len(everything.splitlines()) == 300


async def test_invalid_regex_returns_ripgreps_message(run, tree):
    text = await run.error("Grep", pattern="def (main")
    assert "regex parse error" in text and "unclosed group" in text


async def test_gitignore_is_respected(run, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored/\n*.log\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "x.txt").write_text("needle\n")
    (tmp_path / "debug.log").write_text("needle\n")
    (tmp_path / "kept.txt").write_text("needle\n")
    (tmp_path / ".git" / "needle").write_text("needle\n")
    assert (await run.ok("Grep", pattern="needle")).splitlines() == ["Found 1 file", str(tmp_path / "kept.txt")]


async def test_notebook_checkpoints_and_other_vcs_folders_are_not_searched(run, tmp_path):
    (tmp_path / "fit.ipynb").write_text('{"cells": ["needle"]}\n')
    for copy in (tmp_path / ".ipynb_checkpoints" / "fit-checkpoint.ipynb", tmp_path / "sub" / ".ipynb_checkpoints" / "x.ipynb",
                 tmp_path / ".svn" / "needle", tmp_path / ".jj" / "repo" / "needle"):
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text("needle\n")
    assert (await run.ok("Grep", pattern="needle")).splitlines() == ["Found 1 file", str(tmp_path / "fit.ipynb")]


async def test_multiline_and_leading_dash_pattern(run, tmp_path):
    (tmp_path / "a.txt").write_text("start\nmiddle\nend\n-flag value\n")
    assert "Found 0" not in await run.ok("Grep", pattern="start.*end", multiline=True)
    assert await run.ok("Grep", pattern="start.*end") == "No files found"
    text = await run.ok("Grep", pattern="-flag", output_mode="content")
    assert text.endswith(":4:-flag value")


async def test_long_lines_are_cut(run, tmp_path):
    (tmp_path / "min.js").write_text("var a=1;" + "x" * 100_000 + "needle\n")
    text = await run.ok("Grep", pattern="needle", output_mode="content")
    assert len(text) < 1_000 and "omitted" in text


async def test_bad_path_and_malformed_input(run, tmp_path):
    assert "does not exist" in await run.error("Grep", pattern="x", path=str(tmp_path / "nope"))
    assert "pattern is empty" in await run.error("Grep", pattern="")
    assert "output_mode" in await run.error("Grep", pattern="x", output_mode="lines")
    assert "-A" in await run.error("Grep", pattern="x", **{"-A": -1})
    assert "head_limit" in await run.error("Grep", pattern="x", head_limit="ten")


def test_schema_uses_dashed_wire_names_and_accepts_both():
    tool = GrepTool()
    props = set(tool.input_json_schema()["properties"])
    assert {"-i", "-o", "-n", "-A", "-B", "-C", "context", "head_limit", "offset", "multiline", "glob", "type"} <= props
    assert tool.input_schema.model_validate({"pattern": "x", "-i": True}).i
    assert tool.input_schema.model_validate({"pattern": "x", "i": True}).i


@pytest.mark.parametrize(
    ("glob", "expected"),
    [("*.py", ["*.py"]), ("*.py *.md", ["*.py", "*.md"]), ("*.py,*.md", ["*.py", "*.md"]),
     ("*.{ts,tsx}", ["*.{ts,tsx}"]), ("", []), (" a , {b,c} ", ["a", "{b,c}"])],
)
def test_split_globs(glob, expected):
    assert split_globs(glob) == expected


def test_build_rg_args():
    args = build_rg_args("-x", "/root", mode="content", ignore_case=True, after=2, before=1, type="py", glob="*.py")
    assert args[-4:] == ["-e", "-x", "--", "/root"]
    assert {"--ignore-case", "--line-number", "--with-filename"} <= set(args)
    assert args[args.index("--after-context") + 1] == "2" and args[args.index("--type") + 1] == "py"
    assert "--files-with-matches" in build_rg_args("x", "/r", mode="files_with_matches")
    assert "--context" in build_rg_args("x", "/r", mode="content", context=3, after=1)
    assert "--after-context" not in build_rg_args("x", "/r", mode="content", context=3, after=1)


def test_page():
    items = [str(i) for i in range(10)]
    assert page(items, 0, 3) == (["0", "1", "2"], True)
    assert page(items, 8, 3) == (["8", "9"], False)
    assert page(items, 0, None) == (items, False)
