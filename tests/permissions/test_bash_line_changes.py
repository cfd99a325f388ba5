"""Commands that change what the rest of their line means, which the analysis reads as bash does
by default: ``hash -p`` and ``set -k`` ask in every mode; ``shopt -s dotglob``/``globstar``/
``nocaseglob`` and ``GLOBIGNORE`` ask in every mode when a pattern of the line may then name a
file a Read deny rule covers or a protected one a command writes.  Real bash shows each effect."""

from __future__ import annotations

import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

READ_DENY = ("Read(./.env)",)
EDIT_DENY = ("Edit(./unrelated.txt)",)  # some rule, none about these files
ROWS = [
    # what a word runs
    ("hash-p", EDIT_DENY, "hash -p /bin/rm ls; ls victim", "ask"),
    ("hash-p-glued", EDIT_DENY, "hash -p/bin/rm ls; ls victim", "ask"),
    ("hash-p-through-command", EDIT_DENY, "command hash -p /bin/rm ls; ls victim", "ask"),
    ("hash-forget", EDIT_DENY, "hash -r; ls", "allow"),
    ("set-k", EDIT_DENY, "set -k; ls GLOBIGNORE=x", "ask"),
    ("set-o-keyword", EDIT_DENY, "set -o keyword; ls", "ask"),
    # what a pattern matches, under a Read deny rule
    ("dotglob-cat", READ_DENY, "shopt -s dotglob; cat *", "ask"),
    ("globstar-cat", READ_DENY, "shopt -s globstar; cat **/.env", "ask"),
    ("nocaseglob-cat", READ_DENY, "shopt -s nocaseglob; cat .EN*", "ask"),
    ("globignore-cat", READ_DENY, "GLOBIGNORE=x; cat *", "ask"),
    ("globignore-export", READ_DENY, "export GLOBIGNORE=x; cat *", "ask"),
    ("globignore-read", READ_DENY, "read GLOBIGNORE <<< x; cat *", "ask"),
    ("globignore-printf-v", READ_DENY, "printf -v GLOBIGNORE x; cat *", "ask"),
    ("globignore-loop", READ_DENY, "for GLOBIGNORE in x; do cat *; done", "ask"),
    ("bashopts-child", READ_DENY, 'env BASHOPTS=dotglob bash -c "cat *"', "ask"),
    ("shopt-in-eval", READ_DENY, 'eval "shopt -s dotglob"; cat *', "ask"),
    ("dotglob-no-pattern", READ_DENY, "shopt -s dotglob; cat a.py", "allow"),
    ("harmless-shopt", READ_DENY, "shopt -s histappend; cat *", "allow"),
    # protected paths a command writes, with no rule about them
    ("dotglob-cp", EDIT_DENY, "shopt -s dotglob; cp a.py */config", "ask"),
    ("dotglob-chmod", EDIT_DENY, "shopt -s dotglob; chmod -R 777 *", "ask"),
    ("control-cp", EDIT_DENY, "cp a.py */config", "allow"),  # without dotglob * skips .git
    ("control-chmod", EDIT_DENY, "chmod -R 777 *", "allow"),
    # a listing, or reading with no Read deny rule: an ordinary question
    ("globstar-ls", READ_DENY, "shopt -s globstar; ls **/*.py", "allow"),
    ("dotglob-cat-no-read-rule", EDIT_DENY, "shopt -s dotglob; cat *", "allow"),
]


@pytest.mark.parametrize(("deny", "command", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
async def test_bypass_asks_when_the_line_changes_meaning(tmp_path, deny, command, expected):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    for name in (".env", "a.py", "victim"):
        (tmp_path / name).write_text("x\n")
    ctx = make_ctx(tmp_path, deny=deny, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected


@pytest.mark.parametrize("command", ["shopt -s dotglob; cat *", "GLOBIGNORE=x; cat *",
                                     "shopt -s globstar; cat **/.env", "shopt -s nocaseglob; cat .EN*",
                                     'env BASHOPTS=dotglob bash -c "cat *"'])
def test_real_bash_reads_env_through_these_patterns(tmp_path, command):
    (tmp_path / ".env").write_text("SECRET=1\n")
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=10)
    assert "SECRET=1" in done.stdout, done


def test_real_bash_dotglob_writes_git_config(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "a.py").write_text("x\n")
    subprocess.run(["bash", "-c", "shopt -s dotglob; cp a.py */config"], cwd=tmp_path, timeout=10)
    assert (tmp_path / ".git" / "config").read_text() == "x\n"


def test_real_bash_hash_p_makes_ls_remove(tmp_path):
    (tmp_path / "victim").write_text("x")
    subprocess.run(["bash", "-c", "hash -p /bin/rm ls; ls victim"], cwd=tmp_path, timeout=10)
    assert not (tmp_path / "victim").exists()


def test_real_bash_set_k_makes_an_argument_a_setting(tmp_path):
    done = subprocess.run(["bash", "-c", "set -k; env GREETING=hi | grep GREETING"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=10)
    assert done.stdout == "GREETING=hi\n"  # env printed it: a variable of its environment
    done = subprocess.run(["bash", "-c", "set -k; printenv FOO BAR=1; echo $?"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=10)
    assert done.stdout == "1\n"  # BAR=1 was no argument: only FOO (unset) was asked for
