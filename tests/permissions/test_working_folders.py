"""An option that moves a program into another folder is a ``cd`` in one word: ``git -C /tmp
reset --hard`` asks under ``Bash(git:*)`` as ``cd /tmp && git reset --hard`` does (it ran
before), and so do ``git --work-tree``, ``make -C``, ``npm --prefix``, ``uv --directory``,
``cargo --manifest-path`` … outside the working directories or only known at run time."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_chdir import working_folders
from jupyter_agent.permissions.bash_words import make_word
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside, with_permissions

ALLOW = tuple(f"Bash({p}:*)" for p in ("git", "make", "npm", "pnpm", "yarn", "uv", "poetry", "cargo", "ninja"))

ROWS = [
    ("git -C {o} reset --hard", "ask"),
    ("git -C {o} init", "ask"),
    ("git -C .. commit -am x", "ask"),
    ("git --work-tree={o} checkout .", "ask"),
    ("git --work-tree {o} checkout .", "ask"),
    ("git --git-dir={o}/.git --work-tree=. checkout .", "ask"),
    ("git -C \"$REPO\" reset --hard", "ask"),
    ("make -C {o}", "ask"),
    ("make -sC {o} all", "ask"),
    ("make --directory={o}", "ask"),
    ("npm --prefix {o} install", "ask"),
    ("npm --prefix={o} run build", "ask"),
    ("pnpm -C {o} install", "ask"),
    ("yarn --cwd {o} build", "ask"),
    ("uv --directory {o} run pytest", "ask"),
    ("uv --project ~/elsewhere sync", "ask"),
    ("poetry -C {o} install", "ask"),
    ("cargo --manifest-path {o}/Cargo.toml build", "ask"),
    ("ninja -C {o}", "ask"),
    # inside: what the rule allows
    ("git -C src commit -am x", "allow"),
    ("git -C . reset --hard", "allow"),
    ("git --work-tree= status", "allow"),  # an empty fixed value is the folder it runs in, not unknown
    ("make -C src test", "allow"),
    ("npm --prefix src install", "allow"),
    ("uv --directory src run pytest", "allow"),
    ("git commit -am x", "allow"),
    ("make test", "allow"),
]


@pytest.mark.parametrize(("line", "expected"), ROWS, ids=[r[0] for r in ROWS])
async def test_an_option_naming_the_folder_is_checked_like_cd(tmp_path, monkeypatch, line, expected):
    monkeypatch.setenv("HOME", str(tmp_path))
    project, outside = project_and_outside(tmp_path)
    (project / "src").mkdir()
    command = line.replace("{o}", str(outside))
    verdict = await decide_bash(make_ctx(project, allow=ALLOW), command)
    assert verdict_name(verdict) == expected, (command, verdict)
    if expected == "ask":
        assert any(why in verdict.message for why in ("works in", "git -C", ".git", "outside the working")), verdict
        cd_form = await decide_bash(make_ctx(project, allow=ALLOW), f"cd {outside} && git status")
        assert verdict_name(cd_form) == "ask"  # the cd it stands for asks too


async def test_an_added_folder_is_inside(tmp_path):
    project, outside = project_and_outside(tmp_path)
    ctx = make_ctx(project, allow=ALLOW, additional=(outside,))
    for command in (f"git -C {outside} reset --hard", f"make -C {outside}", f"npm --prefix {outside} install"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_bypass_runs_it_unless_writes_outside_are_blocked(tmp_path):
    project, outside = project_and_outside(tmp_path)
    command = f"git -C {outside} reset --hard"
    bypass = make_ctx(project, allow=ALLOW, mode="bypassPermissions")
    assert verdict_name(await decide_bash(bypass, command)) == "allow"
    blocked = with_permissions(make_ctx(project, allow=ALLOW, mode="bypassPermissions"), block_outside_writes=True)
    assert verdict_name(await decide_bash(blocked, command)) == "ask"


@pytest.mark.parametrize(("line", "folders"), [
    ("git -C a -C b status", ["a", "b"]),
    ("git --work-tree=w --git-dir=g/.git log", ["w", "g/.git"]),
    ("git status -C x", []),  # after the subcommand: not git's option
    ("make -j4 -C d", ["d"]),
    ("make test", []),
    ("npm --prefix=p ci", ["p"]),
    ("cargo build --manifest-path m/Cargo.toml", ["m/Cargo.toml"]),
    ("rm -C x", []),
])
def test_working_folders(line, folders):
    assert [w.text for w in working_folders([make_word(t) for t in line.split()])] == folders


@pytest.mark.parametrize(("command", "expected"), [
    ("cd ~/.ssh && touch authorized_keys", "ask"), ("cd ~/.ssh && rm id", "ask"), ("cd -P ~/.ssh && touch k", "ask"),
    ("cd \"$HOME/.ssh\" && rm id", "ask"), ("cd \"$D\" && echo x > a", "ask"), ("cd - && touch a", "ask"),
    ("pushd ~/.ssh; touch k; popd", "ask"), ("cd \"$D\" && npm install", "ask"),
    ("cd \"$D\" && ls", "allow"), ("cd \"$D\" && cat a", "allow"), ("cd \"$D\" && touch /tmp/x", "allow"),
    ("cd sub && touch a", "allow"), ("CDPATH=~ cd .ssh && touch authorized_keys", "ask"),
    ("CDPATH=~; cd sub && touch a", "ask"), ("CDPATH=~; cd ./sub && touch a", "allow"),
])
async def test_a_write_after_a_cd_to_home_or_an_unknown_folder_is_checked_there(world, command, expected):
    """In bypassPermissions: `cd ~/.ssh && touch authorized_keys` ran (the cd target, a ~ word,
    was not followed); after `cd "$D"` a relative write may land in any protected folder, and so
    after a `cd NAME` a CDPATH set in the line may send elsewhere (real bash: test below)."""
    ctx = make_ctx(world.project, mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("command", "expected"), [
    ("cd \"$HOME/.ssh\" && cat id_rsa", "ask"), ("cd \"$D\" && grep -r KEY .", "ask"),
    ("cd \"$D\" && tar cf - . | base64", "ask"), ("cd \"$D\" && cat .env", "deny"), ("cd \"$D\"", "allow"),
    ("cd sub && cat a.py", "allow"),
    # a CDPATH set in the line sends `cd .ssh` wherever it says (bash looks the name up there first)
    ("CDPATH=~ cd .ssh && cat id_rsa", "ask"), ("CDPATH=~; cd .ssh; cat id_rsa", "ask"),
    ("export CDPATH=~; cd ./sub && cat a.py", "allow"),
    ("shopt -s cdable_vars; cd HOME; cat .ssh/id_rsa", "ask"),  # cd NAME goes to $NAME
    # one cd after another: `cd .ssh` from where `cd ~` led
    ("cd ~ && cd .ssh && cat id_rsa", "deny"), ("cd ~; cd .ssh; cat id_rsa", "deny"),
])
async def test_a_read_after_a_cd_to_an_unknown_folder_asks_under_read_deny_rules(world, command, expected):
    """In bypassPermissions, `cd "$HOME/.ssh" && cat id_rsa` printed a key `Read(~/.ssh/**)` denies."""
    ctx = make_ctx(world.project, mode="bypassPermissions", deny=("Read(~/.ssh/**)", "Read(./.env)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


def test_real_bash_follows_a_cdpath_set_in_the_line(tmp_path):
    import subprocess

    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "proj").mkdir()
    done = subprocess.run(["bash", "-c", f"CDPATH={tmp_path / 'home'} cd .ssh >/dev/null && pwd"],
                          cwd=tmp_path / "proj", capture_output=True, text=True, timeout=10)
    assert done.stdout.strip() == str(tmp_path / "home" / ".ssh")


@pytest.mark.parametrize(("command", "expected"), [
    ("env -C ~/.ssh touch authorized_keys", "ask"), ("env --chdir=~/.ssh rm id_rsa", "ask"),
    ("env -C ~/.ssh cat id_rsa", "deny"), ("env -C \"$D\" touch k", "ask"), ("env -C \"$D\" ls", "ask"),
    ("unshare --wd ~/.ssh touch k", "ask"), ("nsenter --wd=.git touch hooks/x", "ask"),
    ("env -C sub cat ../.env", "deny"), ("env -C sub touch k", "allow"), ("env -C sub cat a.py", "allow"),
])
async def test_a_wrapper_that_moves_its_command_is_checked_like_a_cd(world, command, expected):
    """In bypassPermissions `env -C "$D" touch k` ran, and `env -C sub cat ../.env` was checked
    from the wrong folder: env's -C is a cd for the command it runs (so are sudo -D, nsenter
    --wd, unshare --wd)."""
    ctx = make_ctx(world.project, mode="bypassPermissions", deny=("Read(~/.ssh/**)", "Read(./.env)"))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("command", "expected"), [
    ("env -C {outside} ls", "ask"), ("env --chdir={outside} ls -la", "ask"), ("env -C .. du -sh", "ask"),
    ("env -C {outside} wc -l data.txt", "ask"),
    ("env -C \"$D\" cat x", "ask"), ("env -C http://h/x cat a.py", "ask"),
    ("env -C sub ls", "allow"), ("env -C . ls", "allow"),
    ("env -C sub cat ../a.py", "allow"), ("env -C sub cat a.py; env -C sub cat ../a.py", "allow"),
])
async def test_a_read_only_command_moved_outside_reads_that_folder(world, command, expected):
    """In default mode `env -C /tmp ls` listed /tmp unasked while `ls /tmp` and `cd /tmp && ls`
    asked: the folder a wrapper moves a read-only command to is read, like an operand.  And its
    operands are read from there only: `env -C sub cat ../a.py` (the project's a.py) asked, as if
    ../a.py were read from the project."""
    ctx = make_ctx(world.project)
    command = command.format(outside=world.outside)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command
