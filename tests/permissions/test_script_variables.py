"""Variables of a task file are not the user's environment.

Session 41: in bypassPermissions, ``just install`` (``install dst=".git/hooks/pre-commit":
cp hook.sh {{dst}}``), ``just h`` (``export D := …`` then ``cp hook.sh $D``), ``task hook`` (a
Taskfile ``vars:`` value) and ``npm run hook`` (``cp hook.sh $npm_package_config_dst`` with the
path in package.json's ``config``) installed a git hook unasked: the analysis read the value as
a word only known at run time and took it for a variable of the user's environment, which a
writer may name (``cp notes.txt "$DEST"`` typed in the line stays allowed).  In a script's code,
and for the words the script readers put where a value is only known at run time
(``bash_words.RUN_TIME_NAMES``), a writer naming such a word now asks in every mode.
"""

from __future__ import annotations

import json

import pytest

from jupyter_agent.permissions.notebook_shell import cells_shell_check
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

JUSTFILE = """\
export D := ".git/hooks/pre-commit"
d := ".git/hooks/pre-commit"
install dst=".git/hooks/pre-commit":
    cp hook.sh {{dst}}
inst2:
    cp hook.sh {{d}}
exported:
    cp hook.sh $D
plain:
    cp hook.sh build/hook.sh
dl dst=".git/hooks/pre-commit":
    wget -O {{dst}} https://example.com/hook
"""
TASKFILE = """\
version: '3'
tasks:
  hook:
    vars:
      D: .git/hooks/pre-commit
    cmds:
      - cp hook.sh {{.D}}
  envhook:
    env:
      D: .git/hooks/pre-commit
    cmds:
      - cp hook.sh $D
  plain:
    cmds:
      - cp hook.sh build/hook.sh
"""
PACKAGE = {"scripts": {"hook": "cp hook.sh $npm_package_config_dst", "plain": "cp hook.sh build/hook.sh",
                       "dl": "curl -o $npm_package_config_dst https://example.com/hook"},
           "config": {"dst": ".git/hooks/pre-commit"}}
MAKEFILE = "export D = .git/hooks/pre-commit\nhook:\n\tcp hook.sh $$D\nplain:\n\tcp hook.sh build/hook.sh\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "build").mkdir()
    (tmp_path / "hook.sh").write_text("echo hi\n")
    (tmp_path / "justfile").write_text(JUSTFILE)
    (tmp_path / "Taskfile.yml").write_text(TASKFILE)
    (tmp_path / "package.json").write_text(json.dumps(PACKAGE))
    (tmp_path / "Makefile").write_text(MAKEFILE)
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), [
    ("just install", "ask"), ("just inst2", "ask"), ("just exported", "ask"), ("just plain", "allow"),
    ("just dl", "ask"), ("npm run dl", "ask"),  # a program writing what its option names
    ("task hook", "ask"), ("task envhook", "ask"), ("task plain", "allow"),
    ("npm run hook", "ask"), ("npm run plain", "allow"),
    ("make hook", "ask"), ("make plain", "allow"),
    ('cp hook.sh "$DEST"', "allow"),  # typed in the line: the user's own environment's value
    ('wget -O "$DEST" https://example.com/hook', "allow"),
])
async def test_a_task_files_variable_naming_what_a_writer_writes_asks(project, command, expected):
    verdict = await decide_bash(make_ctx(project, mode="bypassPermissions"), command)
    assert verdict_name(verdict) == expected, (command, verdict)
    if expected == "ask":
        # a value the reader resolves (just's string variable, a task's own vars) is named outright
        named = ".git/hooks/pre-commit is inside .git/" in verdict.message
        run_time = "known only at run time" in verdict.message or "only known at run time" in verdict.message
        assert is_sticky(verdict) and (named or run_time), verdict


def test_a_python_value_a_cell_hands_a_writer_asks(tmp_path):
    """``!cp hook.sh {dst}``: the Python value is the notebook's, not the user's environment."""
    ctx = make_ctx(tmp_path, mode="bypassPermissions")
    verdict = cells_shell_check([("c1", "dst = '.git/hooks/pre-commit'\n!cp hook.sh {dst}")], ctx)
    assert verdict is not None and is_sticky(verdict) and "Cell c1" in verdict.message, verdict
    assert cells_shell_check([("c1", "!cp hook.sh build/")], ctx) is None


async def test_files_git_lists_may_be_written(tmp_path):
    """lefthook's ``{staged_files}`` are the files git lists (never ``.git/``'s): a formatter
    rewriting them (``prettier --write {staged_files}``) runs unasked in bypassPermissions, as
    before; a task file's own value in the same place asks."""
    (tmp_path / "lefthook.yml").write_text("pre-commit:\n  commands:\n    fmt:\n      run: prettier --write "
                                           "{staged_files}\n")
    ctx = make_ctx(tmp_path, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "lefthook run pre-commit")) == "allow"
    (tmp_path / "justfile").write_text('fmt dst=".claude/settings.json":\n    prettier --write {{dst}}\n')
    assert verdict_name(await decide_bash(ctx, "just fmt")) == "ask"
