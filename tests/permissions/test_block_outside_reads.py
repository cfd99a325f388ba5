"""``permissions.blockReadsOutsideWorkingDirectories``: the file tools refuse reads outside the
working directories in every mode; Bash asks about them in every mode; the sandbox hides your
home outside them; ``%agent --add-dir`` adds a working directory."""

from __future__ import annotations

import json

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAsk
from jupyter_agent.core.registry import TOOL_TARGETS, load_tool
from jupyter_agent.errors import AgentConfigError
from jupyter_agent.permissions.settings import build_permission_context, load_settings
from tests.permissions.tools import decide_bash, make_ctx, project_and_outside, with_permissions


def _blocking(ctx):
    return with_permissions(ctx, block_outside_reads=True)


@pytest.fixture
def places(tmp_path):
    project, outside = project_and_outside(tmp_path)
    return project, outside


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
async def test_the_file_tools_refuse_reads_outside_in_every_mode(places, approve, mode):
    project, outside = places
    tools = tuple(load_tool(TOOL_TARGETS[n]) for n in ("Read", "Grep", "Glob"))
    ctx = _blocking(make_ctx(project, tools=tools, mode=mode, allow=(f"Read(/{outside}/**)",)))
    for name, payload in (("Read", {"file_path": str(outside / "notes.txt")}),
                          ("Grep", {"pattern": "notes", "path": str(outside)}),
                          ("Glob", {"pattern": "*.txt", "path": str(outside)})):
        outcome = await run_tool_use(ToolUseRequest(f"t-{name}", name, payload), ctx, approve)
        assert outcome.is_error and "permissions.blockReadsOutsideWorkingDirectories" in outcome.text, outcome.text
    inside = await run_tool_use(ToolUseRequest("in", "Read", {"file_path": str(project / "notes.txt")}), ctx, approve)
    assert "notes in proj" in inside.text
    assert approve.asks == []  # refused outright, never asked


async def test_the_sessions_own_folder_stays_readable(places, approve):
    project, _outside = places
    (read,) = (load_tool(TOOL_TARGETS["Read"]),)
    ctx = _blocking(make_ctx(project, tools=(read,)))
    saved = ctx.session_dir / "tool-results" / "out.txt"
    saved.parent.mkdir(parents=True)
    saved.write_text("a saved output\n")
    outcome = await run_tool_use(ToolUseRequest("s", "Read", {"file_path": str(saved)}), ctx, approve)
    assert "blockReadsOutsideWorkingDirectories" not in outcome.text


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_bash_asks_about_reads_outside_in_every_mode(places, mode):
    project, outside = places
    ctx = _blocking(make_ctx(project, mode=mode, allow=("Bash(cat:*)",)))
    verdict = await decide_bash(ctx, f"cat {outside}/notes.txt")
    assert isinstance(verdict, PermissionAsk) and "outside the working directories" in verdict.message
    assert type(await decide_bash(ctx, "cat notes.txt")).__name__ == "PermissionAllow"
    plain = make_ctx(project, mode=mode, allow=("Bash(cat:*)",))  # without the setting: bypass runs it
    before = "PermissionAllow" if mode == "bypassPermissions" else "PermissionAsk"
    assert type(await decide_bash(plain, f"cat {outside}/notes.txt")).__name__ == before


def test_the_setting_holds_from_any_file_trusted_or_not(tmp_path):
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"blockReadsOutsideWorkingDirectories": True, "allow": ["Bash(ls:*)"]}}))
    settings = load_settings(project, home, trusted=False)
    assert settings.block_reads_by == project / ".claude" / "settings.json"
    assert build_permission_context(settings).block_outside_reads
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"blockReadsOutsideWorkingDirectories": "yes"}}))
    with pytest.raises(AgentConfigError, match="blockReadsOutsideWorkingDirectories must be true or false"):
        load_settings(project, home, trusted=True)


async def test_the_sandbox_hides_the_home_folder_outside_the_working_directories(tmp_path, monkeypatch):
    from jupyter_agent.sandbox import policy
    from jupyter_agent.sandbox.settings import SandboxSettings

    home = tmp_path / "home"
    for name in ("code/proj/app.py", ".ssh/id_rsa", "photos/x.jpg"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("x")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(policy, "kernel_python_folders", lambda: ())
    ctx = _blocking(make_ctx(home / "code" / "proj"))
    masks, _found = await policy.sandbox_masks(ctx, SandboxSettings(enabled=True), [str(home / "code" / "proj")])
    hidden = {p.removeprefix(str(home) + "/") for p, _d in masks.hidden}
    assert hidden == {".ssh", "photos"}


def test_add_dir_parses_to_existing_folders(tmp_path):
    from IPython.core.error import UsageError

    from jupyter_agent.magics.options import parse_options

    opts = parse_options(f"--add-dir {tmp_path} --add-dir ~ look at both")
    assert opts.add_dir[0] == str(tmp_path) and opts.add_dir[1].startswith("/") and opts.prompt == "look at both"
    with pytest.raises(UsageError, match="--add-dir: .* is not a folder"):
        parse_options(f"--add-dir {tmp_path / 'missing'} hi")
