"""Git oracle: what the analyzer allows must never print or export a denied file's secret.

Three repositories hold ``.env`` (``KEY=<token>``, denied by ``Read(./.env)``) in different
places: *history* (committed, then removed and ignored), *objects* (a clean history; the file
was staged and unstaged, and stashed with ``--all`` and the stash dropped, so only objects no
ref reaches hold it) and *tracked*.  Each has the ignored ``.env`` itself in its work tree.
Generated git commands mix subcommands, options, revisions (refs, ids of every kind of
object, ranges, ``describe`` names, ``REV:path``) and paths, run with no rule in the default
mode (read-only analysis) or with ``Bash(git:*)`` in bypassPermissions (the content checks a
rule does not lift).  Each allowed command runs for real with git in a fresh copy of the
repository; the token must not appear in what it prints, nor in any file it writes outside
``.git`` and ``.env`` itself.  Raise ``GIT_ORACLE_EXAMPLES`` to hunt; CI runs a fixed set.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from jupyter_agent.permissions import git_history
from tests.permissions.conftest import verdict_name
from tests.permissions.test_git_tracked import GIT, TOKEN, git, git_env
from tests.permissions.tools import decide_bash, make_ctx

EXAMPLES = int(os.environ.get("GIT_ORACLE_EXAMPLES", "150"))
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

SUBCOMMANDS = [
    "show", "log", "diff", "cat-file -p", "cat-file blob", "cat-file --batch-all-objects --batch", "grep -h KEY",
    "blame", "ls-tree -r", "shortlog", "whatchanged", "reflog", "stash show", "archive", "format-patch --stdout",
    "checkout", "restore --source", "read-tree -u --prefix=sub/", "diff-tree -r -p", "rev-list --objects",
    "name-rev", "describe --always", "merge-base", "show-branch", "log -g", "stash list -p", "range-diff",
]
PREFIXES = ["", "--work-tree=sub ", "-c core.quotePath=false ", "-C src ", "--no-pager "]
OPTIONS = [
    "-p", "--stat", "--name-only", "--all", "--reflog", "-SKEY", "-GKEY", "--no-walk", "--format=%H", "--textconv",
    "--cached", "--no-index", "-1", "--oneline", "--raw", "--patch-with-stat", "-U0", "--word-diff", "--full-index",
    "--binary", "-m", "--cc", "--first-parent", "--follow", "--stdin", "-L1,1:.env", "--source",
]
REVISIONS = [
    "HEAD", "HEAD~1", "HEAD~2", "{secret}", "{secret7}", "{blob}", "{blob7}", "{dropped}", "{dropped}^3",
    "{dropped7}^3", "stash@{{0}}", "HEAD~1:.env", ":.env", "{tree}", "{root}..HEAD", "x-1-g{dropped7}", "HEAD@{{1}}",
    "{secret}^!", "{root}...{secret}", "^{root}", "{BLOB9}",
]
PATHS = ["", "-- .", "-- .env", "-- src", "-- ./.env", ".env", "src/app.py", "."]


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def _make(root: Path, kind: str) -> tuple[Path, dict[str, str]]:
    repo = root / kind
    (repo / "src").mkdir(parents=True)
    (repo / "sub").mkdir()
    (repo / "sub" / "keep.txt").write_text("keep\n")
    git(repo, "init", "-q")
    (repo / "src" / "app.py").write_text("print(0)\n")
    if kind != "tracked":
        (repo / ".gitignore").write_text(".env\n")
    _commit(repo, "root")
    secret = f"KEY={TOKEN}\n"
    ids = {"root": git(repo, "rev-parse", "HEAD").stdout.strip()}
    if kind == "history":
        (repo / ".env").write_text(secret)
        git(repo, "add", "-f", ".env")
        git(repo, "commit", "-q", "-m", "oops")
        ids["secret"] = git(repo, "rev-parse", "HEAD").stdout.strip()
        git(repo, "rm", "-q", "--cached", ".env")
        _commit(repo, "forget it")
    elif kind == "objects":
        (repo / ".env").write_text(secret)
        git(repo, "add", "-f", ".env")
        git(repo, "reset", "-q", ".env")
        git(repo, "stash", "push", "-q", "--all")
        ids["dropped"] = re.search(r"\(([0-9a-f]{40})\)", git(repo, "stash", "drop").stdout).group(1)
        (repo / ".env").write_text(secret)
    else:
        (repo / ".env").write_text(secret)
        _commit(repo, "tracked secret")
        ids["secret"] = git(repo, "rev-parse", "HEAD").stdout.strip()
    (repo / "src" / "app.py").write_text("print(1)\n")
    _commit(repo, "more")
    ids["blob"] = git(repo, "hash-object", ".env").stdout.strip()
    ids["tree"] = git(repo, "rev-parse", "HEAD^{tree}").stdout.strip()
    ids.setdefault("secret", ids["root"])
    ids.setdefault("dropped", ids["root"])
    return repo, ids


@cache
def _templates(root: str) -> dict[str, tuple[Path, dict[str, str]]]:
    return {kind: _make(Path(root), kind) for kind in ("history", "objects", "tracked")}


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    return _templates(str(tmp_path_factory.mktemp("git-oracle")))


def _fill(text: str, ids: dict[str, str]) -> str:
    short = {f"{k}7": v[:7] for k, v in ids.items()}
    return text.format(**ids, **short, BLOB9=ids["blob"][:9].upper())


def _leaks(repo: Path, command: str) -> str | None:
    """Run ``command`` in ``repo``; where the token showed up, if anywhere."""
    env = {**git_env(repo), "GIT_PAGER": "cat", "PAGER": "cat"}
    out = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, env=env, timeout=30,
                         stdin=subprocess.DEVNULL)
    if TOKEN.encode() in out.stdout + out.stderr:
        return "its output"
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(folder) / name
            if path != repo / ".env" and not path.is_symlink() and TOKEN.encode() in path.read_bytes():
                return str(path.relative_to(repo))
    return None


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 150,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["history", "objects", "tracked"]), prefix=st.sampled_from(PREFIXES),
       sub=st.sampled_from(SUBCOMMANDS), options=st.lists(st.sampled_from(OPTIONS), max_size=2),
       revisions=st.lists(st.sampled_from(REVISIONS), max_size=2), path=st.sampled_from(PATHS),
       ruled=st.booleans())
async def test_generated_git_commands(templates, tmp_path_factory, kind, prefix, sub, options, revisions, path, ruled):
    template, ids = templates[kind]
    command = _fill(" ".join(w for w in ["git", prefix.strip(), sub, *options, *revisions, path] if w), ids)
    repo = tmp_path_factory.mktemp("run") / kind
    shutil.copytree(template, repo, symlinks=True)
    git_history.forget()
    ctx = make_ctx(repo, deny=("Read(./.env)",), allow=("Bash(git:*)",) if ruled else (),
                   mode="bypassPermissions" if ruled else "default")
    verdict = verdict_name(await decide_bash(ctx, command))
    event(f"{'Bash(git:*) bypass' if ruled else 'default'}: {verdict}")
    if verdict != "allow":
        return
    where = _leaks(repo, command)
    assert where is None, f"{command!r} ({kind}, {'Bash(git:*) bypass' if ruled else 'default'}) leaked into {where}"


@pytest.mark.parametrize("kind", ["history", "objects", "tracked"])
def test_the_secret_is_really_there(templates, kind):
    """The oracle can see a leak: in each repository some command prints the token."""
    repo, ids = templates[kind]
    command = {"history": "git log -p --all", "objects": f"git cat-file -p {ids['blob']}",
               "tracked": "git show HEAD~1"}[kind]
    assert _leaks(repo, command) == "its output"
