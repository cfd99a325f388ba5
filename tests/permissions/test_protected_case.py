"""Protected names compare by lower case: on a case-insensitive disk (macOS, Windows)
``.GIT/config`` is git's own config, so it asks in every mode like ``.git/config``."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.paths import protected_reason_of
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


@pytest.mark.parametrize(
    "path", ["/p/.GIT/config", "/p/.Git/hooks/pre-commit", "/p/.CLAUDE/settings.json", "/p/.BashRC",
             "/p/.MCP.JSON", "/p/sub/.VSCode/tasks.json", "/p/.git"],
)
def test_protected_whatever_the_case(path):
    assert protected_reason_of(path, path) is not None


@pytest.mark.parametrize("path", ["/p/git/config", "/p/.gitignore", "/p/.github/workflows/ci.yml", "/p/a.txt"])
def test_ordinary_files(path):
    assert protected_reason_of(path, path) is None


@pytest.mark.parametrize("mode", ["acceptEdits", "bypassPermissions"])
async def test_a_redirect_into_an_upper_case_git_folder_asks(tmp_path, mode):
    ctx = make_ctx(tmp_path, mode=mode)
    assert verdict_name(await decide_bash(ctx, "echo '[core] fsmonitor=x' >> .GIT/config")) == "ask"
    assert verdict_name(await decide_bash(ctx, "echo x > notes.txt")) == "allow"
