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
    # an option only known at run time: X may be -p, -s, -k (a value may be several words)
    ("hash-variable", EDIT_DENY, "hash $X ls; ls victim", "ask"),
    ("hash-variable-words", EDIT_DENY, "hash $X; ls victim", "ask"),
    ("hash-default-value", EDIT_DENY, "hash ${X:--p} /bin/rm ls; ls victim", "ask"),
    ("hash-names-after-dashdash", EDIT_DENY, "hash -- \"$X\" ls; ls", "allow"),
    ("set-variable", EDIT_DENY, "set \"$X\"; ls GLOBIGNORE=x", "ask"),
    ("set-positional", EDIT_DENY, "set -- $X; ls", "allow"),
    ("shopt-variable-option", READ_DENY, "shopt $X dotglob; cat *", "ask"),
    ("shopt-variable-through-builtin", READ_DENY, "builtin shopt $X dotglob; cat *", "ask"),
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


@pytest.mark.parametrize(("command", "gone"), [
    ('X="-p /bin/rm ls"; hash $X; ls victim', True),  # one value, three words
    ('X=-p/bin/rm; hash "$X" ls; ls victim', True),
    ('X=-p/bin/rm; hash "$X"; ls victim', False),  # -p with no name after it: nothing hashed
])
def test_real_bash_hash_takes_its_option_from_a_value(tmp_path, command, gone):
    (tmp_path / "victim").write_text("x")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, timeout=10, capture_output=True)
    assert (tmp_path / "victim").exists() is not gone


def test_real_bash_shopt_takes_s_from_a_value(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    done = subprocess.run(["bash", "-c", "X=-s; shopt $X dotglob; cat *"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=10)
    assert "SECRET=1" in done.stdout, done


@pytest.mark.parametrize(("command", "expected"), [
    ("hash -r", "allow"), ("hash", "allow"), ("hash ls", "allow"), ("hash -t ls", "allow"), ("hash -d ls", "allow"),
    ("hash -r; ls", "allow"), ("hash -p /bin/rm ls", "ask"), ("hash -rp /bin/rm ls", "ask"), ("hash $X", "ask"),
    ("hash \"$X\" ls", "ask"),
])
async def test_hash_without_p_is_read_only(tmp_path, command, expected):
    """``hash -r`` (what a venv's activate script ends with), ``hash NAME``, ``hash -t NAME`` are
    read-only in default mode with no rule: the table is the shell's own, and nothing runs."""
    verdict = await decide_bash(make_ctx(tmp_path), command)
    assert verdict_name(verdict) == expected, verdict


def test_real_bash_set_k_makes_an_argument_a_setting(tmp_path):
    done = subprocess.run(["bash", "-c", "set -k; env GREETING=hi | grep GREETING"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=10)
    assert done.stdout == "GREETING=hi\n"  # env printed it: a variable of its environment
    done = subprocess.run(["bash", "-c", "set -k; printenv FOO BAR=1; echo $?"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=10)
    assert done.stdout == "1\n"  # BAR=1 was no argument: only FOO (unset) was asked for
