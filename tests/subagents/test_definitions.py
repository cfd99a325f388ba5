from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_agent.subagents import GENERAL_PURPOSE, load_agents, parse_agent_file

RUNNER = """---
name: test-runner
description: Runs the tests
  and reports failures.
tools: Read, Grep, Bash
model: haiku
---
You run the tests.
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_parse_front_matter_and_body(tmp_path):
    agent = parse_agent_file(RUNNER, tmp_path / "r.md", "project")
    assert (agent.name, agent.description, agent.prompt) == ("test-runner", "Runs the tests and reports failures.", "You run the tests.")
    assert agent.tools == ("Read", "Grep", "Bash")
    assert agent.model == "claude-haiku-5-5"


def test_list_tools_star_and_inherit(tmp_path):
    text = "---\nname: a\ndescription: d\ntools: ['*']\nmodel: inherit\ndisallowedTools: [Bash]\n---\nbody\n"
    agent = parse_agent_file(text, tmp_path / "a.md", "user")
    assert agent.tools is None and agent.model is None and agent.disallowed_tools == ("Bash",)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("no front matter", "missing front matter"),
        ("---\nname: a\n", "not closed"),
        ("---\ndescription: d\n---\nbody", "needs a 'name'"),
        ("---\nname: a\n---\nbody", "needs a 'description'"),
        ("---\nname: a\ndescription: d\n---\n   \n", "empty"),
        ("---\n- a\n---\nbody", "mapping"),
        ("---\nname: a\ndescription: d\ntools: 3\n---\nbody", "'tools'"),
    ],
)
def test_bad_files_say_why(tmp_path, text, needle):
    with pytest.raises(ValueError, match=needle):
        parse_agent_file(text, tmp_path / "x.md", "project")


def test_discovery_precedence_and_errors(tmp_path):
    home, project = tmp_path / "home", tmp_path / "proj"
    _write(home / ".claude" / "agents", "runner.md", RUNNER.replace("You run the tests.", "user version"))
    _write(project / ".claude" / "agents", "runner.md", RUNNER.replace("You run the tests.", "project version"))
    _write(project / ".claude" / "agents", "broken.md", "nothing here")
    _write(project / ".claude" / "agents", "explore.md", "---\nname: Explore\ndescription: d\n---\nI write files")
    catalog = load_agents(project, home)
    assert catalog.get("test-runner").prompt == "project version"
    assert catalog.get("test-runner").source == "project"
    assert catalog.get("Explore").read_only and catalog.get("Explore").source == "built-in"
    assert {GENERAL_PURPOSE, "Explore", "Plan", "test-runner"} == set(catalog.agents)
    assert len(catalog.errors) == 2
    assert any("broken.md" in e and "front matter" in e for e in catalog.errors)
    assert any("reserved" in e for e in catalog.errors)
    assert "- test-runner: Runs the tests and reports failures. (Tools: Read, Grep, Bash)" in catalog.describe()


def test_agents_limited_to_read_only_tools_are_read_only(tmp_path):
    reader = parse_agent_file("---\nname: r\ndescription: d\ntools: Read, Grep, Glob\n---\nbody", tmp_path / "r.md", "project")
    writer = parse_agent_file("---\nname: w\ndescription: d\ntools: Read, Bash\n---\nbody", tmp_path / "w.md", "project")
    everything = parse_agent_file("---\nname: e\ndescription: d\n---\nbody", tmp_path / "e.md", "project")
    assert (reader.read_only, writer.read_only, everything.read_only) == (True, False, False)
