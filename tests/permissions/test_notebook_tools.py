"""The notebook tools (``notebook_tools.py``): what ``jupyter nbconvert`` and ``jupytext`` write
under names their command lines never spell, and what ``jupytext --pipe``/``--check`` and
``nbqa`` run.  Under ``Bash(jupytext:*)`` with ``Bash(rm:*)`` denied, ``jupytext --pipe 'rm -rf
y' nb.ipynb`` ran rm; under ``Edit(**/*.py)`` denied, ``jupytext --to py nb.ipynb`` and
``jupyter nbconvert --to script nb.ipynb`` wrote ``nb.py``.  The names are checked against the
real tools: every file they create must be one the analysis predicts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_option_writes import option_written
from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.notebook_tools import UNKNOWN, jupytext_commands, nbqa_command
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def _notebook(path: Path, *, language: dict | None = None, formats: str | None = None) -> None:
    """A small valid notebook with an image output (markdown exports write it to NAME_files/)."""
    metadata: dict = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                      "language_info": language if language is not None else
                      {"name": "python", "file_extension": ".py", "nbconvert_exporter": "python"}}
    if formats is not None:
        metadata["jupytext"] = {"formats": formats}
    cells = [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Title"},
        {"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": 1, "source": "print(1)",
         "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": _PNG}}]},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}))


def _project(world) -> Path:
    _notebook(world.project / "nb.ipynb")
    _notebook(world.project / "sub" / "nb.ipynb")
    _notebook(world.project / "paired.ipynb", formats="ipynb,py:percent")
    _notebook(world.project / "r.ipynb", language={"name": "R", "file_extension": ".r"})
    (world.project / "text.py").write_text("# %%\nprint(1)\n")
    return world.project


ROWS = [  # (command, with Edit(**/*.py) denied, with Edit(**/*.py) not denied)
    ("jupytext --to py nb.ipynb", "deny", "allow"),
    ("jupytext --to py:percent sub/nb.ipynb", "deny", "allow"),
    ("jupytext --to .pct.py nb.ipynb", "deny", "allow"),
    ("jupytext --to scripts//py nb.ipynb", "deny", "allow"),
    ("jupytext --to auto:percent nb.ipynb", "deny", "allow"),
    ("jupytext --set-formats ipynb,py:light nb.ipynb", "deny", "allow"),
    ("jupytext --sync paired.ipynb", "deny", "allow"),
    ("jupytext --sync nb.ipynb", "allow", "allow"),  # paired with nothing: writes no script
    ("jupytext --to md nb.ipynb", "allow", "allow"),
    ("jupytext --to ipynb text.py", "ask", "allow"),  # names text.py, which it may rewrite
    ("jupytext --to py -o - nb.ipynb", "allow", "allow"),
    ("jupytext --to a///py nb.ipynb", "ask", "ask"),  # pairing by a folder in the path: not followed
    ("jupyter nbconvert --to script nb.ipynb", "deny", "allow"),
    ("jupyter nbconvert --to script r.ipynb", "allow", "allow"),  # r.r
    ("jupyter nbconvert --to python sub/nb.ipynb --output-dir out", "deny", "allow"),
    ("jupyter nbconvert --to script nb.ipynb --output x", "deny", "allow"),
    ("jupyter-nbconvert --to python nb.ipynb", "deny", "allow"),
    ("python -m nbconvert --to python nb.ipynb", "deny", "allow"),
    ("jupyter nbconvert --to html nb.ipynb", "allow", "allow"),
    ("jupyter nbconvert --to script missing.ipynb", "ask", "ask"),  # its language cannot be read
    ("jupyter nbconvert --to mypkg.Exporter nb.ipynb", "ask", "ask"),
    ("jupyter nbconvert --to html 'sub/*.ipynb'", "ask", "ask"),  # nbconvert expands the pattern
    ("jupyter nbconvert --to html --FilesWriter.build_directory=x nb.ipynb", "ask", "ask"),
]


@pytest.mark.parametrize(("command", "denied", "plain"), ROWS)
async def test_what_notebook_tools_write(world, command, denied, plain):
    project = _project(world)
    allow = ("Bash(jupytext:*)", "Bash(jupyter:*)", "Bash(jupyter-nbconvert:*)", "Bash(python -m nbconvert:*)")
    ctx = make_ctx(project, allow=allow, deny=("Edit(**/*.py)",))
    assert verdict_name(await decide_bash(ctx, command)) == denied, command
    assert verdict_name(await decide_bash(make_ctx(project, allow=allow), command)) == plain, command


@pytest.mark.parametrize("command", [
    "jupytext --to py .claude/nb.ipynb", "jupytext --to .claude//py nb.ipynb",
    "jupyter nbconvert --to html nb.ipynb --output-dir .git", "jupyter nbconvert --to markdown nb.ipynb --output .vscode/x",
])
async def test_protected_folders_ask_in_bypass_mode(world, command):
    project = _project(world)
    assert verdict_name(await decide_bash(make_ctx(project, mode="bypassPermissions"), command)) == "ask", command


COMMAND_ROWS = [
    ("jupytext --pipe 'rm -rf y' nb.ipynb", "deny"), ("jupytext --check 'rm -rf y' nb.ipynb", "deny"),
    ("jupytext --pipe='rm -rf y' nb.ipynb", "deny"),
    ("jupytext --che 'rm -rf y' nb.ipynb", "allow"),  # --check or --check-source-is-newer: argparse refuses it
    ("nbqa 'rm -rf y' nb.ipynb", "deny"), ("nbqa --nbqa-shell rm nb.ipynb", "deny"),
    ("timeout 5 nbqa rm nb.ipynb", "deny"),
    ("jupytext --pipe 'rm x; black' nb.ipynb", "deny"),  # split as shlex does: rm with 'x;' and 'black'
    ("jupytext --pipe 'black; rm x' nb.ipynb", "ask"),  # the program "black;", which no rule allows
    ("jupytext --pipe \"$CMD\" nb.ipynb", "ask"), ("jupytext --pipe 'black \"' nb.ipynb", "ask"),
    ("jupytext --pipe 'sh -c x' nb.ipynb", "ask"), ("nbqa flake8 nb.ipynb", "ask"),
    ("jupytext --pipe black nb.ipynb", "allow"), ("jupytext --pipe 'black {}' nb.ipynb", "allow"),
    ("nbqa black nb.ipynb", "allow"), ("jupytext --to py:percent nb.ipynb", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), COMMAND_ROWS)
async def test_what_notebook_tools_run(world, command, expected):
    ctx = make_ctx(_project(world), allow=("Bash(jupytext:*)", "Bash(nbqa:*)", "Bash(black:*)"), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_the_commands_as_jupytext_and_nbqa_split_them():
    assert jupytext_commands([Word("--pipe"), Word("black"), Word("sub/nb.ipynb")]) == [["black", "-"]]
    assert jupytext_commands([Word("--check"), Word("pytest"), Word("sub/nb.ipynb")]) == [["pytest", "sub/jupytext-pipe.py"]]
    assert jupytext_commands([Word("--pip=x")]) == []  # ambiguous (--pipe, --pipe-fmt): argparse refuses it
    assert nbqa_command([Word("ruff check"), Word("nb.ipynb"), Word("--nbqa-diff")]) == ["ruff", "check", "nb.ipynb"]
    assert nbqa_command([Word("--version")]) is None


_TOOLS = pytest.mark.skipif(shutil.which("jupytext") is None or shutil.which("jupyter-nbconvert") is None,
                            reason="jupytext and nbconvert are not installed")
ORACLE = [
    "jupyter nbconvert --to html sub/nb.ipynb", "jupyter nbconvert --to markdown sub/nb.ipynb",
    "jupyter nbconvert --to script sub/nb.ipynb", "jupyter nbconvert --to script r.ipynb",
    "jupyter nbconvert --to notebook sub/nb.ipynb", "jupyter nbconvert --to script sub/nb.ipynb --output x",
    "jupyter nbconvert --to script sub/nb.ipynb --output x.py", "jupyter nbconvert --to slides nb.ipynb",
    "jupyter nbconvert --to markdown sub/nb.ipynb --output-dir out --output deep/z",
    "jupyter nbconvert --to HTML nb.ipynb --output-dir=o5", "jupyter nbconvert --to python nb.ipynb",
    "jupyter nbconvert --execute --inplace nb.ipynb",
    "jupytext --to py sub/nb.ipynb", "jupytext --to py:percent nb.ipynb", "jupytext --to .pct.py nb.ipynb",
    "jupytext --to pct.py nb.ipynb", "jupytext --to _x.py nb.ipynb", "jupytext --to md:myst nb.ipynb",
    "jupytext --to R nb.ipynb", "jupytext --to Rmd nb.ipynb", "jupytext --to scripts//py sub/nb.ipynb",
    "jupytext --to ../up//py sub/nb.ipynb", "jupytext --to auto:percent r.ipynb", "jupytext --to notebook text.py",
    "jupytext --set-formats ipynb,txt//py:light nb.ipynb", "jupytext --sync paired.ipynb",
    "jupytext --to md -o sub/q.md nb.ipynb",
]


def _files(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def _covered(path: str, targets: list[tuple[Word, bool]]) -> bool:
    for word, recursive in targets:
        target = os.path.normpath(word.text)
        if path == target or (recursive and path.startswith(target + os.sep)):
            return True
    return False


@_TOOLS
@pytest.mark.parametrize("command", ORACLE)
def test_every_file_the_real_tool_writes_was_predicted(world, command):
    project = _project(world)
    (project / "sub" / "text.md").write_text("# x\n")
    words = command.split()
    targets = option_written([Word(w) for w in words], str(project))
    assert UNKNOWN not in [w for w, _ in targets], command
    named = {os.path.normpath(w) for w in words[1:] if not w.startswith("-")}
    before = _files(project)
    env = {**os.environ, "JUPYTER_PLATFORM_DIRS": "1"}
    argv = [sys.executable, "-m", "nbconvert", *words[2:]] if words[0] == "jupyter" else [shutil.which("jupytext"), *words[1:]]
    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    after = _files(project)
    written = {p for p in after if before.get(p) != after[p]}
    assert written, f"{command} wrote nothing: the oracle would be empty"
    missed = [p for p in written if p not in named and not _covered(p, targets)]
    assert not missed, (command, missed, targets)


@_TOOLS
def test_real_jupytext_runs_the_pipe_command(world):
    project = _project(world)
    subprocess.run([shutil.which("jupytext"), "--check", "touch RAN", "nb.ipynb"], cwd=project, capture_output=True,
                   timeout=120)
    assert (project / "RAN").exists()


async def test_a_rewritten_notebook_is_read_again(world):
    """The metadata is read once per version of the file: a rewrite that keeps the size and puts
    the modification time back (touch -d) is still read again (its inode change time moved)."""
    project = _project(world)
    notebook = project / "r.ipynb"
    ctx = make_ctx(project, allow=("Bash(jupyter:*)",), deny=("Edit(**/*.py)",))
    command = "jupyter nbconvert --to script r.ipynb"
    assert verdict_name(await decide_bash(ctx, command)) == "allow"  # r.r
    before = notebook.stat()
    text = notebook.read_text()
    rewritten = text.replace('"name": "R", "file_extension": ".r"', '"name": "", "file_extension": ".py"')
    assert len(rewritten) == len(text)
    notebook.write_text(rewritten)
    os.utime(notebook, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert verdict_name(await decide_bash(ctx, command)) == "deny"  # r.py
