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
