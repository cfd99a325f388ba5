"""``ninja`` runs the commands of ``build.ninja`` (``ninja_builds.py``): they meet the deny and ask
rules as a Makefile's recipes do.  The evaluated commands are checked against ``ninja -t
commands`` of a real ninja (the ``ninja`` wheel) on files using every scoping rule and escape."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from jupyter_agent.permissions.ninja_builds import NinjaFile
from jupyter_agent.permissions.script_files import NotKnown
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

NINJA = shutil.which("ninja")

FILES = {
    "variables-and-rules": """\
cflags = -O2
rule cc
  command = gcc $cflags -c $in -o $out
  description = CC $out
build a.o: cc a.c
cflags = -O0 -g
build b.o: cc b.c | dep.h || order
  cflags = $cflags -Wall
build all: phony a.o b.o
""",
    "escapes-and-continuations": """\
rule echo
  command = echo $$HOME a$:b $
      continued ${msg} > $out
build out$ one.txt: echo in$ put.txt
  msg = hello$ world
build two.txt: echo x.txt y.txt
  msg = $in_newline
""",
    "rule-bindings-see-the-edge": """\
rule run
  description = RUN $extra
  command = tool $extra $in > $out
build o1: run i1
  extra = edge-one
build o2: run i2
""",
    "include-and-subninja": """\
name = top
include inc.ninja
subninja sub.ninja
build top.txt: say
""",
}
EXTRA = {
    "include-and-subninja": {
        "inc.ninja": "rule say\n  command = echo $name > $out\nname = included\n",
        "sub.ninja": "name = child\nbuild child.txt: say\n",
    },
}


def _write(folder, name):
    (folder / "build.ninja").write_text(FILES[name])
    for extra, text in EXTRA.get(name, {}).items():
        (folder / extra).write_text(text)


@pytest.mark.skipif(NINJA is None, reason="needs ninja (pip install ninja)")
@pytest.mark.parametrize("name", list(FILES))
def test_the_commands_are_the_ones_ninja_lists(tmp_path, name):
    _write(tmp_path, name)
    listed = subprocess.run([NINJA, "-t", "commands"], cwd=tmp_path, capture_output=True, text=True, timeout=30,
                            check=True).stdout.strip("\n").split("\n")
    ours = NinjaFile(str(tmp_path)).commands(str(tmp_path / "build.ninja"))
    # ninja -t commands prints each command on one line (a newline inside stays one entry here)
    assert sorted(c.replace("\n", " ") for c in ours) == sorted(set(listed)), (ours, listed)


ROWS = [
    ("ninja", "deny"), ("ninja a.o", "deny"),  # every edge may run: which are stale is not known
    ("ninja -C .", "deny"), ("timeout 60 ninja -j4", "deny"),
    ("ninja -n", "allow"), ("ninja -t commands", "allow"), ("ninja --version", "allow"),
    ("ninja -f missing.ninja", "allow"),  # ninja fails to load it: nothing runs
    ("ninja -x", "ask"), ("ninja -C $D", "ask"),
]
BUILD = """\
rule cc
  command = gcc -c $in -o $out
rule wipe
  command = rm -rf $out
build a.o: cc a.c
build junk: wipe
"""


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_deny_rules_meet_what_ninja_runs(tmp_path, command, expected):
    (tmp_path / "build.ninja").write_text(BUILD)
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_without_a_denied_command_ninja_runs(tmp_path):
    (tmp_path / "build.ninja").write_text(BUILD.replace("rm -rf", "touch"))
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "ninja")) == "allow"


@pytest.mark.parametrize("text", ["rule r\n  command = echo $!\nbuild o: r\n", "build o: undefined_rule\n",
                                  "include nowhere.ninja\n", "what is this\n",
                                  "rule r\n  flags = x\n  command = echo\nbuild o: r\n"])
def test_what_cannot_be_read_is_not_known(tmp_path, text):
    (tmp_path / "build.ninja").write_text(text)
    with pytest.raises(NotKnown):
        NinjaFile(str(tmp_path)).commands(str(tmp_path / "build.ninja"))


@pytest.mark.skipif(NINJA is None, reason="needs ninja (pip install ninja)")
def test_real_ninja_runs_a_denied_command(tmp_path):
    (tmp_path / "build.ninja").write_text(BUILD)
    (tmp_path / "junk").mkdir()
    subprocess.run([NINJA, "junk"], cwd=tmp_path, capture_output=True, timeout=30)
    assert not (tmp_path / "junk").exists()


# cmake --build DIR runs the build tool its generator wrote in DIR; meson compile runs ninja
GENERATED_ROWS = [
    ("cmake --build .", "deny"), ("cmake --build build", "deny"),  # build/ holds a Makefile
    ("meson compile", "deny"), ("meson compile -C .", "deny"), ("meson compile -Cbuild", "ask"),
    ("cmake -S . -B out", "allow"), ("meson setup out", "allow"), ("cmake --build nothere", "allow"),
    ("cmake --build --preset x", "ask"), ("cmake --build $B", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), GENERATED_ROWS)
async def test_generators_run_the_build_they_wrote(tmp_path, command, expected):
    (tmp_path / "build.ninja").write_text(BUILD)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "Makefile").write_text("all:\n\trm -rf y\n")
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
