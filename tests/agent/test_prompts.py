"""System prompt: identity, environment, CLAUDE.md memory in order, extra text."""

from __future__ import annotations

import datetime as dt

from jupyter_agent.agent.prompts import PromptInputs, build_system_prompt, memory_files


def inputs(tmp_path, **kw):
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True, exist_ok=True)
    base = dict(
        cwd=project, project_dir=project, notebook_path=str(project / "nb.ipynb"), model="claude-sonnet-5-5",
        home=tmp_path / "home", today=dt.date(2026, 11, 30),
    )
    base.update(kw)
    return PromptInputs(**base)


def test_environment_block(tmp_path):
    prompt = build_system_prompt(inputs(tmp_path))
    env = prompt[1]["text"]
    assert f"Working directory: {tmp_path / 'work' / 'proj'}" in env
    assert "Today's date: 2026-11-30" in env
    assert "Is the directory a git repo: no" in env
    assert "nb.ipynb" in env and "Python: 3." in env and "anthropic " in env
    assert "Jupyter kernel" in prompt[0]["text"]


def test_git_repo_detected_from_a_parent(tmp_path):
    (tmp_path / "work" / ".git").mkdir(parents=True)
    assert "git repo: yes" in build_system_prompt(inputs(tmp_path))[1]["text"]


def test_memory_files_broadest_first(tmp_path):
    data = inputs(tmp_path)
    (data.home / ".claude").mkdir(parents=True)
    (data.home / ".claude" / "CLAUDE.md").write_text("USER RULE")
    (tmp_path / "work" / "CLAUDE.md").write_text("PARENT RULE")
    (data.project_dir / "CLAUDE.md").write_text("PROJECT RULE")
    (data.project_dir / "CLAUDE.local.md").write_text("LOCAL RULE")
    order = [p.read_text() for p in memory_files(data.project_dir, data.home)]
    assert order == ["USER RULE", "PARENT RULE", "PROJECT RULE", "LOCAL RULE"]
    memory = build_system_prompt(data)[2]["text"]
    assert memory.index("USER RULE") < memory.index("PROJECT RULE") < memory.index("LOCAL RULE")


def test_no_memory_and_extra_text(tmp_path):
    prompt = build_system_prompt(inputs(tmp_path, extra="Always answer in French."))
    assert len(prompt) == 3 and prompt[-1]["text"] == "Always answer in French."
