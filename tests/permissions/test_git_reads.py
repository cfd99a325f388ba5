"""``Read`` deny rules also cover files git reads by revision (``git show HEAD:.env``) and
``git grep``, which reads every tracked file it searches."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions import git_history
from jupyter_agent.permissions.bash_git import object_path, top_level
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, git
from tests.permissions.tools import decide_bash, make_ctx

ENV = ("Read(./.env)",)

ROWS = [
    ("show-rev-path", ENV, "git show HEAD:.env", "deny"),
    ("show-index", ENV, "git show :.env", "deny"),
    ("show-stage", ENV, "git show :2:.env", "deny"),
    ("show-dot-slash", ENV, "git show HEAD~1:./.env", "deny"),
    ("cat-file", ENV, "git cat-file -p HEAD:.env", "deny"),
    ("diff-blobs", ENV, "git diff HEAD:.env HEAD~1:a.py", "deny"),
    ("wrapped", ENV, "timeout 5 git show HEAD:.env", "deny"),
    ("after-cd", ENV, "cd sub && git show HEAD:.env", "deny"),
    ("dash-c-top-level", ENV, "git -C sub show HEAD:.env", "deny"),
    ("dash-c-relative-elsewhere", ENV, "git -C sub show HEAD:./.env", "allow"),
    ("other-file", ENV, "git show HEAD:a.py", "allow"),
    ("message-search", ENV, "git show :/fix", "allow"),
    ("format-with-colon", ENV, "git log --format=%H:%s -n 3", "allow"),
    ("whole-commit", ENV, "git show HEAD", "allow"),
    ("grep-asks", ENV, "git grep SECRET", "ask"),
    ("grep-options-ask", ENV, "git grep -n -e SECRET -- sub", "ask"),
    ("grep-without-deny-rules", (), "git grep SECRET", "allow"),
    ("grep-deny-elsewhere", ("Read(//etc/shadow)",), "git grep SECRET", "allow"),
    ("no-deny-rules", (), "git show HEAD:.env", "allow"),
]


@pytest.fixture
def repo_world(world):
    """The world's project as a real repository: one commit holding a.py (.env never committed)."""
    if GIT is None:
        pytest.skip("needs git")
    git(world.project, "init", "-q")
    git(world.project, "add", "a.py")
    git(world.project, "commit", "-q", "-m", "fix: first")
    git_history.forget()
    yield world
    git_history.forget()


@pytest.mark.parametrize(("deny", "command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_git_read_rows(repo_world, deny, command, expected):
    ctx = make_ctx(repo_world.project, deny=deny)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, verdict


async def test_a_folder_git_cannot_read_as_a_repository_asks(world):
    """``.git`` holding only a config: git would look for a repository further up, whose history
    is unknown, so commands printing history ask."""
    git_history.forget()
    verdict = await decide_bash(make_ctx(world.project, deny=ENV), "git show HEAD")
    assert verdict_name(verdict) == "ask" and "could not be listed" in verdict.message


async def test_from_a_subfolder_the_path_is_also_read_from_the_top_level(world):
    ctx = make_ctx(world.project, deny=ENV, cwd=world.project / "sub")
    verdict = await decide_bash(ctx, "git show HEAD:.env")
    assert verdict_name(verdict) == "deny"
    assert "HEAD:.env" in verdict.message and "Read(./.env)" in verdict.message


@pytest.mark.parametrize(
    ("value", "path"),
    [("HEAD:.env", ".env"), (":.env", ".env"), (":0:.env", ".env"), ("v1.2:src/a.py", "src/a.py"),
     ("HEAD:./x", "./x"), (":/fix bug", None), ("HEAD:", None), ("--format=%H:%s", None), ("HEAD", None)],
)
def test_object_path(value, path):
    assert object_path(value) == path


def test_top_level_walks_up_to_the_folder_holding_git(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    assert top_level(str(tmp_path / "repo" / "a" / "b")) == str(tmp_path / "repo")
    (tmp_path / "repo" / "a" / ".git").write_text("gitdir: elsewhere\n")  # a submodule's .git file
    assert top_level(str(tmp_path / "repo" / "a" / "b")) == str(tmp_path / "repo" / "a")
