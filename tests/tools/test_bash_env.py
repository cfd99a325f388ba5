"""The environment commands run with: kernel's env, Jupyter's colour forcing removed, login PATH."""

from __future__ import annotations

import os

import pytest

from jupyter_agent.tools.shell import environment
from jupyter_agent.tools.shell.environment import command_environment


def test_kernel_values_win_and_login_only_fills_gaps():
    env = command_environment(
        {"PATH": "/venv/bin:/usr/bin", "HOME": "/home/me", "LANG": "C.UTF-8"},
        {"PATH": "/usr/bin:/home/me/.local/bin", "LANG": "fr_FR.UTF-8", "EDITOR": "vim",
         "SHLVL": "2", "PWD": "/elsewhere", "BASH_FUNC_x%%": "() { :; }"},
    )
    assert env["PATH"] == os.pathsep.join(["/venv/bin", "/usr/bin", "/home/me/.local/bin"])
    assert env["LANG"] == "C.UTF-8" and env["EDITOR"] == "vim"
    assert "SHLVL" not in env and "PWD" not in env and "BASH_FUNC_x%%" not in env


@pytest.mark.parametrize(
    ("name", "value", "kept"),
    [
        ("FORCE_COLOR", "1", False),
        ("CLICOLOR_FORCE", "1", False),
        ("JPY_PARENT_PID", "123", False),
        ("MPLBACKEND", "module://matplotlib_inline.backend_inline", False),
        ("MPLBACKEND", "Agg", True),
        ("VIRTUAL_ENV", "/venv", True),
    ],
)
def test_jupyter_specific_variables(name, value, kept):
    env = command_environment({name: value})
    assert (env.get(name) == value) is kept


def test_pagers_and_prompts_are_disabled():
    env = command_environment({"PAGER": "less", "TERM": "xterm-color"})
    assert env["PAGER"] == "cat" and env["GIT_PAGER"] == "cat"
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["TERM"] == "dumb"


async def test_login_capture_reads_a_real_login_shell(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_profile").write_text(
        'echo "Welcome, this line is not a variable"\n'
        "export JA_FROM_PROFILE=profile-value\n"
        'export PATH="$PATH:/opt/ja-login-bin"\n'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(environment, "_login_env", None)
    monkeypatch.delenv(environment.LOGIN_ENV_SWITCH, raising=False)
    env = await environment.session_environment()
    assert env["JA_FROM_PROFILE"] == "profile-value"
    assert env["PATH"].endswith(os.pathsep + "/opt/ja-login-bin")
    assert not any("Welcome" in key for key in env)


async def test_login_capture_can_be_switched_off(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_profile").write_text("export JA_FROM_PROFILE=profile-value\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(environment, "_login_env", None)
    monkeypatch.setenv(environment.LOGIN_ENV_SWITCH, "0")
    env = await environment.session_environment()
    assert "JA_FROM_PROFILE" not in env and environment._login_env is None


@pytest.mark.parametrize(
    "name", ["CDPATH", "BASHOPTS", "SHELLOPTS", "GLOBIGNORE", "POSIXLY_CORRECT", "BASH_ENV", "ENV",
             "PS4", "PROMPT_COMMAND", "IFS", "BASH_FUNC_ls%%"],
)
def test_variables_that_change_how_bash_reads_a_line_are_not_passed_on(name):
    assert name not in command_environment({name: "x", "PATH": "/usr/bin"})
    assert name not in command_environment({"PATH": "/usr/bin"}, {name: "x"})


async def test_the_command_runs_as_the_permission_check_read_it(tmp_path, approve, monkeypatch):
    """With the kernel's own CDPATH, BASHOPTS=dotglob and an exported ``ls`` function, allowed
    read-only lines still do what the analyzer saw: ``cd src`` stays in the project, ``*``
    skips ``.env``, ``ls`` is the program."""
    from tests.tasks.shell_support import bash, bash_context

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "src").mkdir(parents=True)
    ctx = bash_context(tmp_path)
    work = tmp_path / "work"
    (work / "src").mkdir()
    (work / ".env").write_text("SECRET=1\n")
    (work / "a.txt").write_text("a\n")
    monkeypatch.setenv("CDPATH", str(elsewhere))
    monkeypatch.setenv("BASHOPTS", "dotglob")
    monkeypatch.setenv("BASH_FUNC_ls%%", "() { echo hijacked; }")
    monkeypatch.setattr(environment, "_login_env", {})
    result = await bash(ctx, approve, "echo * && ls && cd src && pwd")
    assert approve.asks == []  # read-only and inside the project: nothing was asked
    lines = result.text.splitlines()
    assert lines[0] == "a.txt src"
    assert "hijacked" not in result.text
    assert lines[-1] == str(work / "src")


async def test_the_settings_env_block_reaches_commands_but_not_the_kernel(tmp_path, approve, monkeypatch):
    """Variables from the settings files are laid over the kernel's for each command (a PATH
    there finds its programs); the kernel's own ``os.environ`` is left alone, and the variables
    that change how bash reads a line are still dropped."""
    from tests.tasks.shell_support import bash, bash_context

    monkeypatch.setattr(environment, "_login_env", {})
    monkeypatch.setenv("JA_KERNEL_ONLY", "kernel")
    monkeypatch.setenv("JA_OVERRIDDEN", "kernel")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "ja-hello").write_text("#!/bin/sh\necho hello from the settings PATH\n")
    (tools / "ja-hello").chmod(0o755)
    ctx = bash_context(tmp_path)
    environment.use_settings_env(ctx, {
        "JA_OVERRIDDEN": "settings", "JA_NEW": "new value", "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "BASH_ENV": str(tmp_path / "startup.sh"),
    })
    (tmp_path / "startup.sh").write_text("echo startup file ran\n")
    result = await bash(ctx, approve, 'echo "$JA_KERNEL_ONLY/$JA_OVERRIDDEN/$JA_NEW" && ja-hello', timeout=20000)
    assert result.text.splitlines() == ["kernel/settings/new value", "hello from the settings PATH"]
    assert os.environ["JA_OVERRIDDEN"] == "kernel" and "JA_NEW" not in os.environ
    assert "BASH_ENV" not in await environment.session_environment(ctx)


async def test_each_command_sees_the_kernels_variables_as_they_are_now(tmp_path, approve, monkeypatch):
    """The environment is remembered between commands only while nothing it is built from
    changed: a cell's ``os.environ[...] = ...``, a removal, a settings ``env`` change all reach
    the very next command; a caller changing the dict it got changes nothing for the next."""
    from tests.tasks.shell_support import bash, bash_context

    monkeypatch.setattr(environment, "_login_env", {})
    ctx = bash_context(tmp_path)
    show = 'echo "${JA_LIVE-unset}|${JA_FROM_SETTINGS-unset}"'
    monkeypatch.setenv("JA_LIVE", "one")
    assert (await bash(ctx, approve, show)).text == "one|unset"
    monkeypatch.setenv("JA_LIVE", "two")
    assert (await bash(ctx, approve, show)).text == "two|unset"
    environment.use_settings_env(ctx, {"JA_FROM_SETTINGS": "s1"})
    assert (await bash(ctx, approve, show)).text == "two|s1"
    environment.use_settings_env(ctx, {"JA_FROM_SETTINGS": "s2"})
    monkeypatch.delenv("JA_LIVE")
    assert (await bash(ctx, approve, show)).text == "unset|s2"
    given = await environment.session_environment(ctx)
    given["JA_LIVE"] = "tampered"
    assert "JA_LIVE" not in await environment.session_environment(ctx)


async def test_bash_is_looked_up_again_when_path_changes(tmp_path, approve, monkeypatch):
    """The bash found on the kernel's PATH is remembered for that PATH only: a folder put in
    front of it with its own ``bash`` is used from the next command on, and dropped again."""
    from tests.tasks.shell_support import bash, bash_context

    real = environment.find_bash()
    front = tmp_path / "front"
    front.mkdir()
    used = tmp_path / "front-bash-used"
    (front / "bash").write_text(f'#!{real}\necho x >> "{used}"\nexec "{real}" "$@"\n')
    (front / "bash").chmod(0o755)
    monkeypatch.setattr(environment, "_login_env", {})
    ctx = bash_context(tmp_path)
    assert (await bash(ctx, approve, "echo before")).text == "before"
    assert not used.exists()
    original = os.environ["PATH"]
    monkeypatch.setenv("PATH", f"{front}{os.pathsep}{original}")
    assert (await bash(ctx, approve, "echo in front")).text == "in front"
    assert used.read_text() == "x\n"
    monkeypatch.setenv("PATH", original)
    assert (await bash(ctx, approve, "echo after")).text == "after"
    assert used.read_text() == "x\n"
