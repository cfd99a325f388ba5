"""composer runs the ``scripts`` of ``composer.json`` (``composer_scripts.py``, session 40).

With ``"clean": "rm -rf x"`` there, ``composer clean`` (and ``composer run-script clean``) ran
``rm`` under ``Bash(rm:*)`` in bypassPermissions, and ``composer install`` ran its
``post-install-cmd``: composer.json's scripts were not read.  They are now commands of the line
(run in the file's folder, the words handed on appended quoted); scripts of events that may not
fire are not certain (a deny rule asks).  Real composer (``apt-get install composer``, as
``.ci/run`` does) shows each way a script runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

SCRIPTS = {
    "clean": "rm -rf build",
    "test": "phpunit",
    "both": ["@test", "@clean"],
    "say": "echo",
    "placed": "echo @additional_args done",
    "callback": "Vendor\\Pkg\\Scripts::run",
    "path": ["@putenv PATH=bin", "ls"],
    "again": "@composer clean",
    "post-install-cmd": "rm -rf vendor-cache",
    "post-update-cmd": "echo updated",
    "pre-status-cmd": "rm -rf status-cache",
}

ROWS = [
    ("composer clean", "deny"),
    ("composer run-script clean", "deny"),
    ("composer run clean -- --force", "deny"),
    ("composer -d . clean", "deny"),
    ("composer --working-dir=. run-script clean", "deny"),
    ("composer -n -q clean", "deny"),
    ("composer both", "deny"),  # @clean: that script
    ("composer again", "deny"),  # @composer clean: composer again, with its scripts
    ("composer wipe", "deny"),  # an alias of clean (scripts-aliases)
    ("composer bot", "deny"),  # a beginning of one command's name (both): that command
    ("composer run-script post-install-cmd", "deny"),  # an event's script by name
    ("cd sub && composer clean", "deny"),  # composer.json of the folder above
    ("composer -dother wipe-other", "deny"),  # -d with the folder attached: other/composer.json
    ("composer -nd other wipe-other", "ask"),  # a cluster ending in d: not read here
    ("composer exec rm x", "deny"),  # composer exec runs its command
    ("timeout 60 composer clean", "deny"),
    ("composer status", "ask"),  # its pre-status-cmd, which may run (a deny rule asks)
    ("composer install", "ask"),  # no lock file: the update events (certain); the install ones may run
    ("composer path", "ask"),  # PATH set by @putenv to a relative folder: what `ls` is is not known
    ('composer run-script "$X"', "ask"),
    ('composer "$X"', "ask"),
    ("COMPOSER=other.json composer test", "ask"),
    ("composer global require x", "ask"),  # the home folder's composer.json: not read here
    ("composer say rm", "allow"),  # echo 'rm'
    ("composer placed rm", "allow"),  # echo 'rm' done
    ("composer test", "allow"),
    ("composer callback", "allow"),  # PHP composer calls: a program
    ("composer update", "allow"),  # its scripts echo
    ("composer install --no-scripts", "allow"),
    ("composer --no-scripts status", "allow"),
    ("composer run-script --list", "allow"),
    ("composer show", "allow"),
    ("composer clea", "allow"),  # clean or clear-cache: composer stops (ambiguous)
    ("composer missing", "allow"),  # no such command or script
    ("composer --version", "allow"),
    ("composer exec phpunit", "allow"),
]


def _project(tmp_path, lock: bool = False) -> None:
    data = {"name": "a/b", "scripts": SCRIPTS, "scripts-aliases": {"clean": ["wipe"]}}
    (tmp_path / "composer.json").write_text(json.dumps(data, indent=2))
    (tmp_path / "sub").mkdir(exist_ok=True)
    (tmp_path / "other").mkdir(exist_ok=True)
    (tmp_path / "other" / "composer.json").write_text(json.dumps({"scripts": {"wipe-other": "rm -rf s"}}))
    if lock:
        (tmp_path / "composer.lock").write_text("{}")


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_composer_scripts_meet_the_deny_rules(tmp_path, command, expected):
    _project(tmp_path)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = verdict_name(await decide_bash(ctx, command))
    assert verdict == expected, (command, verdict)


async def test_install_runs_the_install_events_with_a_lock_file(tmp_path):
    _project(tmp_path, lock=True)
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "composer install")) == "deny"  # post-install-cmd: rm
    assert verdict_name(await decide_bash(ctx, "composer i --no-scripts")) == "allow"


async def test_every_command_runs_the_init_and_command_scripts(tmp_path):
    (tmp_path / "composer.json").write_text(json.dumps({"scripts": {"command": "rm -rf x"}}))
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "composer show")) == "ask"
    assert verdict_name(await decide_bash(ctx, "composer --version")) == "allow"


async def test_a_script_needs_no_rule_of_its_own_under_the_composer_rule(tmp_path):
    """Under ``Bash(composer:*)`` in the default mode the script's commands are covered (as an
    npm script's are under ``Bash(npm run:*)``); an ask rule still asks."""
    _project(tmp_path)
    ctx = make_ctx(tmp_path, allow=("Bash(composer:*)",), ask=("Bash(phpunit:*)",))
    assert verdict_name(await decide_bash(ctx, "composer say hi")) == "allow"
    assert verdict_name(await decide_bash(ctx, "composer test")) == "ask"


async def test_an_unreadable_composer_json_is_code_only_known_at_run_time(tmp_path):
    (tmp_path / "composer.json").write_text("{not json")
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "composer clean")) == "ask"
    free = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(free, "composer clean")) == "allow"


_COMPOSER = shutil.which("composer")


def _composer(tmp_path, *args: str) -> str:
    env = {**os.environ, "COMPOSER_ALLOW_SUPERUSER": "1", "COMPOSER_HOME": str(tmp_path / ".home"),
           "COMPOSER_NO_INTERACTION": "1", "COMPOSER_DISABLE_NETWORK": "1"}
    done = subprocess.run([_COMPOSER or "composer", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    return done.stdout + done.stderr


@pytest.mark.skipif(_COMPOSER is None, reason="needs composer (apt-get install composer)")
def test_real_composer_runs_scripts_as_this_reads_them(tmp_path):
    scripts = {
        "clean": "rm -f x",
        "both": ["@clean", "echo both-ran"],
        "say": "echo said",
        "post-update-cmd": "rm -f from-update",
        "command": "echo command-event",
    }
    (tmp_path / "composer.json").write_text(json.dumps({"name": "a/b", "scripts": scripts,
                                                        "repositories": [{"packagist.org": False}]}))
    for name in ("x", "from-update"):
        (tmp_path / name).write_text("")
    _composer(tmp_path, "clean")  # composer NAME: the script
    assert not (tmp_path / "x").exists()
    (tmp_path / "x").write_text("")
    out = _composer(tmp_path, "bot")  # the one command whose name begins so; @clean runs clean
    assert "both-ran" in out and not (tmp_path / "x").exists()
    (tmp_path / "x").write_text("")
    assert "ambiguous" in _composer(tmp_path, "cle")  # clean or clear-cache: nothing runs
    assert (tmp_path / "x").exists()
    assert "said 'a' 'b c'" in _composer(tmp_path, "run-script", "say", "--", "a", "b c")  # appended, quoted
    assert "command-event" in _composer(tmp_path, "show")  # the command event: most commands
    out = _composer(tmp_path, "install")  # no lock file: the update events
    assert not (tmp_path / "from-update").exists(), out
    (tmp_path / "x").write_text("")
    _composer(tmp_path, "--no-scripts", "clean")
    assert (tmp_path / "x").exists()  # --no-scripts: none
