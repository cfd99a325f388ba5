"""cargo-make's ``Makefile.toml`` (``cargo_make_tasks.py``, session 40).

With ``[tasks.clean] command = "rm"``, ``cargo make clean`` (and ``makers clean``) ran ``rm``
under ``Bash(rm:*)`` in bypassPermissions: the file was not read.  Which tasks a line runs
depends on dependencies, aliases, conditions, profiles and platform overrides, so every command
of the file (and of the files it extends, and the workspace members') may run: a deny rule asks.
(cargo-make is not installed here: its crate is not on the package registries this machine
reaches; the rows follow its documentation.)
"""

from __future__ import annotations

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

MAKEFILE = """\
[config]
load_script = "echo loading"

[tasks.clean]
command = "rm"
args = ["-rf", "target"]

[tasks.build]
script = ["echo building"]
dependencies = ["fmt"]

[tasks.fmt]
command = "cargo"
args = ["fmt"]
"""

CASES = [
    # (files, line, expected)
    ({"Makefile.toml": MAKEFILE}, "cargo make clean", "ask"),
    ({"Makefile.toml": MAKEFILE}, "makers clean", "ask"),
    ({"Makefile.toml": MAKEFILE}, "cargo +nightly make build", "ask"),  # every task of the file may run
    ({"Makefile.toml": MAKEFILE}, "cargo-make make clean", "ask"),
    ({"Makefile.toml": MAKEFILE}, "timeout 600 cargo make clean", "ask"),
    ({"Makefile.toml": MAKEFILE}, "cargo make --list-all-steps", "allow"),
    ({"Makefile.toml": MAKEFILE}, "cargo build", "allow"),  # cargo's own
    ({"Makefile.toml": MAKEFILE}, "cargo make -e PATH=/tmp build", "ask"),
    ({"Makefile.toml": MAKEFILE}, 'cargo make --makefile "$F" build', "ask"),
    ({"Makefile.toml": '[config]\nload_script = "rm -rf x"\n'}, "makers", "ask"),
    ({"Makefile.toml": '[tasks.a.linux]\nscript = "rm -rf x"\n'}, "makers a", "ask"),
    ({"Makefile.toml": '[tasks.a]\ncondition_script = ["rm -rf x"]\ncommand = "ls"\n'}, "makers a", "ask"),
    ({"Makefile.toml": '[tasks.a]\nscript = { pre = "ls", main = "rm -rf x" }\n'}, "makers a", "ask"),
    ({"Makefile.toml": '[tasks.a]\nscript = { file = "a.sh" }\n', "a.sh": "rm -rf x\n"}, "makers a", "ask"),
    ({"Makefile.toml": '[tasks.a]\nscript_runner = "@duckscript"\nscript = "exec rm x"\n'}, "makers a", "ask"),
    ({"Makefile.toml": '[env]\nPATH = "/tmp"\n[tasks.a]\ncommand = "ls"\n'}, "makers a", "ask"),
    ({"Makefile.toml": 'extend = "base.toml"\n', "base.toml": '[tasks.b]\ncommand = "rm"\nargs = ["x"]\n'},
     "makers b", "ask"),
    ({"Makefile.toml": "[tasks\n"}, "makers a", "ask"),  # not TOML: not known
    ({"Makefile.toml": '[tasks.a]\nscript_runner = "python"\nscript = "import os"\n'}, "makers a", "allow"),
    ({"Makefile.toml": '[tasks.a]\nscript = "echo hi"\n'}, "makers a", "allow"),
    ({}, "cargo make build", "allow"),  # no Makefile.toml: cargo-make's own tasks
    # a workspace: the members' makefiles too (not with --no-workspace)
    ({"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n', "crates/a/Makefile.toml": '[tasks.w]\nscript = "rm x"\n'},
     "cargo make build", "ask"),
    ({"Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n', "crates/a/Makefile.toml": '[tasks.w]\nscript = "rm x"\n'},
     "cargo make --no-workspace build", "allow"),
]


@pytest.mark.parametrize(("files", "line", "expected"), CASES)
async def test_cargo_make_tasks_meet_the_deny_rules(tmp_path, files, line, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, line))
    assert verdict == expected, (line, verdict)


async def test_without_deny_or_ask_rules_the_tasks_run(tmp_path):
    (tmp_path / "Makefile.toml").write_text(MAKEFILE)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "cargo make clean")) == "allow"


async def test_a_task_writing_a_protected_path_asks(tmp_path):
    (tmp_path / "Makefile.toml").write_text('[tasks.a]\nscript = "echo x > .claude/settings.json"\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "makers a")) == "ask"
