"""%agent --trust: the option, the session it starts, and a live session it changes."""

from __future__ import annotations

import json

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.magics.options import parse_options, usage_text
from jupyter_agent.permissions.trust import trust_file


def test_trust_is_a_flag_before_the_prompt():
    opts = parse_options("--trust fix the tests")
    assert opts.trust and opts.prompt == "fix the tests"
    assert not parse_options("fix --trust later").trust
    assert "--trust" in usage_text()


@pytest.fixture
def ip(tmp_path, monkeypatch):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(home / ".jupyter-agent"))
    monkeypatch.chdir(project)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_agent")
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_agent")


def test_new_session_with_trust_applies_the_project_settings(ip, tmp_path):
    ip.run_line_magic("agent", "--new")
    magics = ip._jupyter_agent_magics
    assert not magics.session.config.trust_project
    assert magics.session.trust.held_back == (".claude/settings.json: allow rules Bash",)
    ip.run_line_magic("agent", "--new --trust")
    session = magics.session
    assert session.config.trust_project and session.trust.held_back == ()
    assert ("projectSettings", "Bash") in session.context.permission_context.rules("allow")
    assert not trust_file(tmp_path / "home").exists()  # recorded when the first turn starts


def test_trust_on_a_live_session_is_applied_at_its_next_turn(ip):
    ip.run_line_magic("agent", "--new")
    session = ip._jupyter_agent_magics.session
    status = ip.run_line_magic("agent", "--trust")
    assert ip._jupyter_agent_magics.session is session and session.config.trust_project
    assert status.startswith(f"Agent session {session.id}")


def test_help_is_printed_as_text_not_raised_as_an_error(ip):
    """%agent --help is asked for: the options and examples as the cell's output (it was a red
    UsageError box)."""
    shown = ip.run_line_magic("agent", "--help")
    assert "--trust" in shown and "--permissions" in shown and "Examples:" in shown
    assert "%agent fix the failing cell" in shown and "``" not in shown
    assert parse_options("--help anything at all").help
