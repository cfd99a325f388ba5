"""Files a check reads that are named pipes (``mkfifo x.patch``): opening one for reading waits for
a writer, for ever.  Before, ``git apply p.patch`` and ``tar xf x.tar`` with such files never got
a decision, which held the kernel (and now would hold the permission thread, and every decision
after it).  A pipe is never waited on: the file is not readable now, and what it would hold is
not known, so the line asks (under rules that needed its contents)."""

from __future__ import annotations

import os
import threading

import pytest

from jupyter_agent.permissions.bash import check_bash_permission
from jupyter_agent.permissions.paths import NOT_REGULAR, open_regular, open_regular_text

from .conftest import verdict_name
from .tools import make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)", "Read(./.env)"), "mode": "bypassPermissions"}

ROWS = [
    # (pipes to make, other files, command, expected)
    (["p.patch"], {}, "git apply p.patch", "ask"),
    (["x.patch"], {}, "patch -p1 < x.patch", "ask"),
    (["x.tar"], {}, "tar xf x.tar", "ask"),
    (["x.zip"], {}, "unzip x.zip", "ask"),
    (["tool.py"], {}, "python3 tool.py", "ask"),
    (["run.sh"], {}, "bash run.sh", "ask"),
    (["Makefile"], {}, "make", "ask"),
    (["inc.mk"], {"Makefile": "-include inc.mk\nall:\n\techo hi\n"}, "make", "ask"),
    (["nb.ipynb"], {}, "jupyter nbconvert --to notebook --execute nb.ipynb", "ask"),
    (["Dockerfile", ".dockerignore"], {}, "docker build .", None),
    ([".git/index", ".git/HEAD"], {}, "git status", None),
    ([".git/index"], {".git/HEAD": "ref: refs/heads/main\n"}, "git log -p", None),
]


def _decide_bounded(command: str, ctx, seconds: float = 30):
    """The decision, made in a thread of its own so that a hang fails the test instead of it."""
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(check_bash_permission(command, ctx)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"no decision on {command!r} in {seconds} s: a named pipe was waited on"
    return result[0]


@pytest.mark.parametrize(("pipes", "files", "command", "expected"), ROWS)
def test_a_named_pipe_is_never_waited_on(world, pipes, files, command, expected):
    for name, text in files.items():
        (world.project / name).parent.mkdir(parents=True, exist_ok=True)
        (world.project / name).write_text(text)
    for name in pipes:
        (world.project / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(world.project / name)
    verdict = _decide_bounded(command, make_ctx(world.project, **_RULES))
    if expected is not None:
        assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_open_regular_refuses_what_is_no_regular_file(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("text\n")
    os.symlink(tmp_path / "file", tmp_path / "link")
    for name in ("pipe", "dir"):
        with pytest.raises(OSError) as caught:
            open_regular(tmp_path / name).close()
        assert caught.value.strerror == NOT_REGULAR or name == "dir"
    with pytest.raises(OSError):
        open_regular("/dev/null").close()
    with open_regular(tmp_path / "link") as handle:  # a link to a file is followed
        assert handle.read() == b"text\n"
    with open_regular_text(tmp_path / "file") as handle:
        assert handle.read() == "text\n"
