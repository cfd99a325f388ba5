"""Objects no ref or reflog reaches: a ``.env`` staged once and unstaged leaves its blob in
``.git/objects``; a stash of ignored files, dropped, leaves its commits.  Neither is in the
history listing, and ``git cat-file -p ID`` or ``git show ID^3`` prints the secret.  With
``Read(./.env)`` denied, a command printing from commits may name reachable commits by id, but
an id the listing did not reach, objects named on standard input and revisions only known at
run time ask.  Every row is run by git to show it is real."""

from __future__ import annotations

import re
import subprocess

import pytest

from jupyter_agent.permissions.git_objects import object_ids
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_history import _fresh_listings  # noqa: F401 (autouse here too)
from tests.permissions.test_git_tracked import ENV, GIT, TOKEN, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")


@pytest.fixture
def repo(tmp_path):
    """A clean history; .env (ignored) was staged and unstaged, and stashed and dropped."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text(".env\n")
    for i in range(3):
        (repo / "src" / "app.py").write_text(f"print({i})\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"c{i}")
    (repo / ".env").write_text(f"KEY={TOKEN}\n")
    git(repo, "add", "-f", ".env")
    git(repo, "reset", "-q", ".env")
    git(repo, "stash", "push", "-q", "--all")
    dropped = re.search(r"\(([0-9a-f]{40})\)", git(repo, "stash", "drop").stdout).group(1)
    (repo / ".env").write_text(f"KEY={TOKEN}\n")  # the file itself is back, ignored as before
    ids = {"blob": git(repo, "hash-object", ".env").stdout.strip(), "stash": dropped,
           "head": git(repo, "rev-parse", "HEAD").stdout.strip(), "root": git(repo, "rev-list", "--max-parents=0", "HEAD").stdout.strip(),
           "reachable_blob": git(repo, "rev-parse", "HEAD:src/app.py").stdout.strip()}
    return repo, ids


def _run(repo, line: str) -> str:
    out = subprocess.run(["bash", "-c", line], cwd=repo, capture_output=True, text=True, errors="replace",
                         env=git_env(repo), timeout=30)
    return out.stdout + out.stderr


LEAKING = [
    "git cat-file -p {blob}", "git cat-file -p {blob7}", "git cat-file blob {blob}", "git show {blob}",
    "git show {blob7}", "git show {BLOB9}", "git show v1.0-4-g{blob7}", "git diff {blob} HEAD:src/app.py",
    "git show {stash}^3", "git show {stash}^1 {stash7}^3", "git log -p -3 {stash}^3",
    "git log -p {root}..{stash}^3", "git diff {root} {stash}^3", "git cat-file --batch-all-objects --batch",
    "echo {blob} | git cat-file --batch", "git cat-file --batch-command <<< 'contents {blob}'",
    "git log -p --stdin --no-walk <<< {stash}^3", "git show $(git hash-object .env)",
]


def _fill(line: str, ids: dict[str, str]) -> str:
    short = {f"{k}7": v[:7] for k, v in ids.items()}
    return line.format(**ids, **short, BLOB9=ids["blob"][:9].upper())


@pytest.mark.parametrize("line", LEAKING)
async def test_objects_outside_the_listing_ask(repo, line):
    project, ids = repo
    command = _fill(line, ids)
    verdict = await decide_bash(make_ctx(project, deny=ENV), command)
    assert verdict_name(verdict) == "ask", (command, verdict)
    assert TOKEN in _run(project, command), command  # the row is real: git prints the secret


REACHED = [
    "git show {head}", "git show {head7}", "git show {HEAD9}", "git log -p {root}..{head7}", "git show x-2-g{head7}",
    "git diff {root} {head}", "git show {head7}:src/app.py", "git log -p -n 1000", "git log -p --author dead",
    "git show HEAD~1", "git log -p --all", "git log -p -g", "git diff {root}^! -- src",
]


@pytest.mark.parametrize("line", REACHED)
async def test_reachable_commits_by_id_are_still_allowed(repo, line):
    project, ids = repo
    command = _fill(line.replace("{HEAD9}", "{HEADU}"), {**ids, "HEADU": ids["head"][:9].upper()})
    verdict = await decide_bash(make_ctx(project, deny=ENV), command)
    assert verdict_name(verdict) == "allow", (command, verdict)
    assert TOKEN not in _run(project, command), command


async def test_a_reachable_blob_by_id_asks_and_nothing_asks_without_a_deny_rule(repo):
    """Only commits are listed: a blob named by id asks even when it is harmless; without a
    Read deny rule there is nothing to protect and nothing asks."""
    project, ids = repo
    command = f"git cat-file -p {ids['reachable_blob']}"
    assert verdict_name(await decide_bash(make_ctx(project, deny=ENV), command)) == "ask"
    for line in LEAKING[:4]:
        assert verdict_name(await decide_bash(make_ctx(project), _fill(line, ids))) == "allow"


@pytest.mark.parametrize(("value", "ids"), [
    ("a1b2c3d..HEAD", ["a1b2c3d"]), ("HEAD...a1b2", ["a1b2"]), ("^a1b2c3d", ["a1b2c3d"]),
    ("a1b2c3d:src/x.py", ["a1b2c3d"]), ("v1.0-3-gabc1234", ["abc1234"]), ("dead@{1}", ["dead"]),
    ("abcd~1234", ["abcd"]), ("HEAD~1234", []), ("HEAD^{/dead}", []), ("feature/dead", []), ("abc", []),
    (":src/x.py", []), ("main", []), ("ABCDEF0", ["ABCDEF0"]),
])
def test_object_ids(value, ids):
    assert list(object_ids(value)) == ids
