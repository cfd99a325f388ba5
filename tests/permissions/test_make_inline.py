"""Recipes the command line gives make (``bash_wrappers._make``): under ``Bash(make:*)`` with
``Bash(rm:*)`` denied, ``make --eval='x:; rm -rf y' x`` ran ``rm``.  A rule allowing make allows
the project's makefile, not shell code written into the command: ``--eval``/``-E``, a makefile
from standard input, ``SHELL=``/``MAKEFLAGS=`` and ``$(shell …)`` in a command-line variable ask
as ``sh -c`` does, and the literal recipes are checked by the deny rules."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

ROWS = [
    ("make --eval='x:; rm -rf y' x", "deny"), ("make -E 'x:; rm -rf y' x", "deny"),
    ("make 'V=$(shell rm -rf y)' test", "deny"), ("make 'V:=$(shell rm -rf y)' test", "deny"),
    ("make --eval='x:; echo hi' x", "ask"),
    ("make -f /dev/stdin x <<< $'x:\\n\\trm -rf y'", "ask"), ("make -f - x", "ask"),
    ("make SHELL=/tmp/evil.sh test", "ask"), ("make MAKEFLAGS=--eval=x test", "ask"), ("make V=`id` test", "ask"),
    ("make test", "allow"), ("make -j4 test", "allow"), ("make -f Makefile.ci test", "allow"),
    ("make CFLAGS=-O2 test", "allow"), ("make test V=1", "allow"), ("gmake all", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_make_inline_code(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(make:*)", "Bash(gmake:*)"), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
# The recursive form is expanded by the recipe, once make has its SHELL: make 4.4 expands a
# command-line ``V:=$(shell …)`` before SHELL is set and fails with "-c: No such file".
@pytest.mark.parametrize("argv", [["make", "--eval=x:; touch RAN", "x"], ["make", "V=$(shell touch RAN)", "-f", "project.mk", "x"]])
def test_real_make_runs_them(tmp_path, argv):
    (tmp_path / "project.mk").write_text('x:\n\t@echo "built with $(V)"\n')  # a project makefile
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert (tmp_path / "RAN").exists(), (done.stdout, done.stderr)


# cmake -E env|chdir|time and go's -toolexec/-exec run the program their arguments name: a
# command of the line, which must be allowed or read-only itself (it ran under Bash(cmake:*)).
TOOLCHAIN_ROWS = [
    ("cmake -E env X=1 rm -rf y", "deny"), ("cmake -E env --unset=A -- curl evil", "deny"),
    ("cmake -E time rm -rf y", "deny"), ("cmake -E chdir src rm -rf y", "deny"),
    ("cmake -E chdir /etc cat passwd", "ask"),  # paths from another folder
    ("cmake -E env X=1 ctest", "ask"), ("cmake -E time ls", "allow"), ("cmake --build build", "allow"),
    ("go build -toolexec 'rm -rf y' .", "deny"), ("go build -toolexec=/tmp/evil .", "ask"),
    ("go test -exec /tmp/evil ./...", "ask"), ("go test -exec $RUNNER ./...", "ask"), ("go test ./...", "allow"),
    ("go build .", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), TOOLCHAIN_ROWS)
async def test_toolchains_run_what_they_name(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(cmake:*)", "Bash(go:*)"), deny=("Bash(rm:*)", "Bash(curl:*)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("command", "expected"), [
    ("cargo --config 'target.x86_64-unknown-linux-gnu.runner=\"rm -rf y\"' run", "ask"),
    ("cargo --config=build.rustc-wrapper=/tmp/x build", "ask"), ("cargo --config env.LD_PRELOAD=/tmp/x.so test", "ask"),
    ("cargo --config ci.toml build", "ask"),  # a settings file: anything
    ("cargo --config net.retry=5 build", "allow"), ("cargo build --release", "allow"), ("cargo test", "allow"),
])
async def test_cargo_settings_that_name_a_program(world, command, expected):
    ctx = make_ctx(world.project, allow=("Bash(cargo:*)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
