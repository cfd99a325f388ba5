"""Commands that read the files inside a folder they are given: every spelling of grep's
recursion (``-r``, ``--rec``, ``-d recurse``, ``--directories=recurse``) and ``diff`` of two
folders.  With ``Read(./.env)`` denied they ask; real grep and diff are the judge: what is
allowed must not print the secret."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

SECRET = "SECRET-2b9e77"
ENV = ("Read(./.env)",)

ROWS = [
    ("dash-r", "grep -r SECRET .", "ask"),
    ("long-abbreviated", "grep --rec SECRET .", "ask"),
    ("long-abbreviated-more", "grep --recur SECRET .", "ask"),
    ("dereference-abbreviated", "grep --deref SECRET .", "ask"),
    ("directories-action", "grep -d recurse SECRET .", "ask"),
    ("directories-attached", "grep -drecurse SECRET .", "ask"),
    ("directories-abbreviated-action", "grep -drec SECRET .", "ask"),
    ("directories-long", "grep --directories=recurse SECRET .", "ask"),
    ("directories-long-separate", "grep --directories recurse SECRET .", "ask"),
    ("directories-long-abbreviated", "grep --dir=recurse SECRET .", "ask"),
    ("after-the-pattern", "grep SECRET . -r", "ask"),
    ("egrep", "egrep -d recurse SECRET .", "ask"),
    ("diff-two-folders", "diff . sub", "ask"),
    ("diff-abbreviated-recursive", "diff --rec . sub", "ask"),
    ("directories-skip", "grep -d skip SECRET .", "allow"),
    ("directories-read", "grep -nd read SECRET a.txt", "allow"),
    ("plain-grep", "grep -n SECRET a.txt", "allow"),
    ("end-of-options", "grep -- -r a.txt", "allow"),
    ("diff-two-files", "diff a.txt sub/b.txt", "allow"),
    ("diff-missing-files", "diff -u nothere.txt gone.txt", "allow"),  # fails: searches no folder
    ("recursive-elsewhere", "grep -r SECRET sub", "allow"),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("recursive")
    (root / "sub").mkdir()
    (root / ".env").write_text(f"KEY={SECRET}\n")
    (root / "sub" / ".env").write_text("KEY=other\n")  # not denied: diff . sub compares the two
    (root / "a.txt").write_text("a\n")
    (root / "sub" / "b.txt").write_text("b\n")
    return root


@pytest.mark.parametrize(("command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_recursive_read_rows(project, command, expected):
    verdict = await decide_bash(make_ctx(project, deny=ENV), command)
    assert verdict_name(verdict) == expected, verdict
    done = subprocess.run(["/bin/bash", "--norc", "--noprofile", "-c", command], cwd=project,
                          capture_output=True, text=True, timeout=10, env={"PATH": "/usr/bin:/bin"})
    printed = SECRET in done.stdout + done.stderr
    if expected == "allow":
        assert not printed, command
    else:
        assert printed, f"the row should show a real read of the secret: {command}"


@pytest.mark.parametrize(
    ("command", "expected"),
    [("cat notes.txt", "deny"), ("grep -h KEY notes.txt", "deny"), ("cat < notes.txt", "deny"),
     ("head n*", "deny"), ("cat a.txt", "allow")],
)
async def test_a_hard_link_to_the_denied_file_is_that_file(project, command, expected):
    link = project / "notes.txt"
    if not link.exists():
        os.link(project / ".env", link)
    verdict = await decide_bash(make_ctx(project, deny=ENV), command)
    assert verdict_name(verdict) == expected, verdict
    done = subprocess.run(["/bin/bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=10)
    assert (SECRET in done.stdout) is (expected == "deny"), done.stdout


@pytest.mark.parametrize(("command", "expected"), [
    ("ag SECRET", "ask"), ("ack SECRET", "ask"), ("ack-grep SECRET .", "ask"), ("pt SECRET", "ask"),
    ("sift SECRET", "ask"), ("ug SECRET", "ask"), ("ugrep -r SECRET", "ask"), ("codespell", "ask"),
    ("semgrep --config auto", "ask"), ("gitleaks detect", "ask"), ("trufflehog filesystem .", "ask"),
    ("ag SECRET sub", "allow"), ("ugrep SECRET a.txt", "allow"), ("codespell sub", "allow"),
])
async def test_searchers_allowed_by_a_rule_still_meet_the_read_rules(project, command, expected):
    """Session 29: code searchers and scanners that print what they find walked into .env under a
    rule allowing them (only rg, grep -r and diff were checked)."""
    ctx = make_ctx(project, allow=(f"Bash({command.split()[0]}:*)",), deny=ENV)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
