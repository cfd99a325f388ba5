"""The settings files' ``env`` block: merged by precedence, validated, held back in an untrusted
folder, and a PATH it sets protects its programs like the kernel's PATH does."""

from __future__ import annotations

import json
import os

import pytest

from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions import path_programs
from jupyter_agent.permissions.settings import load_settings
from jupyter_agent.tools.shell.environment import settings_env, use_settings_env
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import EditLike, make_ctx


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_later_files_win_per_variable_and_managed_settings_win_over_all(world, managed_policy):
    _write(world.home / ".claude" / "settings.json", {"env": {"A": "user", "B": "user", "C": "user", "D": "user"}})
    _write(world.project / ".claude" / "settings.json", {"env": {"B": "project", "C": "project", "D": "project"}})
    _write(world.project / ".claude" / "settings.local.json", {"env": {"C": "local", "D": "local"}})
    _write(managed_policy / "managed-settings.json", {"env": {"D": "managed"}})
    s = load_settings(world.project, home=world.home, trusted=True)
    assert s.env == {"A": "user", "B": "project", "C": "local", "D": "managed"}


def test_numbers_are_taken_as_their_digits(world):
    _write(world.home / ".claude" / "settings.json", {"env": {"MAX_TOKENS": 1024, "RATIO": 0.5, "S": "x"}})
    assert load_settings(world.project, home=world.home).env == {"MAX_TOKENS": "1024", "RATIO": "0.5", "S": "x"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (["A=1"], "'env' must be an object"),
        ({"A": True}, "env.A must be a string, not true"),
        ({"A": None}, "env.A must be a string, not null"),
        ({"A": ["x"]}, "env.A must be a string"),
        ({"A=B": "x"}, "invalid variable name 'A=B'"),
        ({"": "x"}, "invalid variable name ''"),
        ({"A": "x\u0000y"}, "env.A must be a string"),
    ],
)
def test_a_malformed_env_block_names_the_file_and_the_variable(world, env, message):
    path = world.project / ".claude" / "settings.local.json"
    _write(path, {"env": env})
    with pytest.raises(AgentConfigError, match="settings.local.json") as err:
        load_settings(world.project, home=world.home, trusted=True)
    assert message in str(err.value)


def test_an_untrusted_project_cannot_set_variables(world):
    """``PATH=./bin`` from a cloned repository would make an allowed ``ls`` run its own program."""
    _write(world.home / ".claude" / "settings.json", {"env": {"MINE": "1"}})
    _write(world.project / ".claude" / "settings.json", {"env": {"PATH": "./bin:/usr/bin", "EXTRA": "x"}})
    untrusted = load_settings(world.project, home=world.home, trusted=False)
    assert untrusted.env == {"MINE": "1"}
    assert untrusted.held_back == (".claude/settings.json: env PATH, EXTRA",)
    trusted = load_settings(world.project, home=world.home, trusted=True)
    assert trusted.env == {"MINE": "1", "PATH": "./bin:/usr/bin", "EXTRA": "x"}
    assert trusted.held_back == ()


async def test_programs_on_a_settings_path_are_protected(world, monkeypatch):
    """acceptEdits lets the agent write inside the project, but not replace a program that a
    PATH from the settings files puts on the commands' search path."""
    monkeypatch.setattr(path_programs, "_EXTRA_PATHS", [])
    tools_bin = world.project / "tools" / "bin"
    tools_bin.mkdir(parents=True)
    program = tools_bin / "rg"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    ctx = make_ctx(world.project, mode="acceptEdits")
    edit = EditLike("Write")

    async def decision() -> str:
        from jupyter_agent.permissions.decide import has_permission_to_use_tool

        return verdict_name(await has_permission_to_use_tool(edit, edit.input_schema(file_path=str(program)), ctx))

    assert await decision() == "allow"  # not on any PATH yet: an ordinary file in the project
    use_settings_env(ctx, {"PATH": f"{tools_bin}{os.pathsep}/usr/bin"})
    assert settings_env(ctx) == {"PATH": f"{tools_bin}{os.pathsep}/usr/bin"}
    assert await decision() == "ask"
