"""PowerShell: registry platform selection, permission analysis, and the runner.

pwsh cannot be installed here (not in Debian, PyPI or npm), so the real-interpreter test skips;
the runner's timeout / exit code / output limit are exercised with a stand-in interpreter (a
small bash script taking pwsh's arguments) — it checks our process handling, not PowerShell.
"""

from __future__ import annotations

import shutil

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.core.registry import RegistryConfig, get_all_base_tools
from jupyter_agent.tools.powershell import PWSH_ENV, PowerShellTool
from jupyter_agent.tools.powershell_permissions import (
    check_powershell_permission,
    is_read_only_command,
    split_statements,
)
from tests.support.tools import make_context


def test_registry_picks_powershell_on_windows_and_bash_elsewhere():
    win = [t.name for t in get_all_base_tools(RegistryConfig(platform="win32"))]
    linux = [t.name for t in get_all_base_tools(RegistryConfig(platform="linux"))]
    assert "PowerShell" in win and "Bash" not in win
    assert "Bash" in linux and "PowerShell" not in linux
    assert win.index("PowerShell") == linux.index("Bash")  # same place in the seed's order


@pytest.mark.parametrize("command, read_only", [
    ("Get-ChildItem -Recurse | Select-String 'TODO'", True),
    ("Get-Content a.txt; Get-Date", True),
    ("gci 'a;b' | sort", True),
    ("Get-Content a.txt > b.txt", False),
    ("Remove-Item -Recurse x", False),
    ("Get-ChildItem $(Remove-Item x)", False),
    ("Get-Content a | Invoke-Expression", False),
    ("& 'C:\\evil.exe'", False),
    ("Write-Output \"$(rm x)\"", False),
    ("Get-Content 'unclosed", False),
])
def test_read_only_detection(command, read_only):
    assert is_read_only_command(command) is read_only


def test_split_respects_quotes():
    assert split_statements("a 'x;y' | b \"p|q\"; c && d") == ["a 'x;y'", "b \"p|q\"", "c", "d"]
    assert split_statements("a 'open") is None


def _ctx(tmp_path, **rules):
    ctx = make_context([PowerShellTool()], tmp_path)
    pc = ToolPermissionContext(**{f"{k}_rules": {"session": tuple(v)} for k, v in rules.items()})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=pc, todos=s.todos, extra=s.extra))
    return ctx


def test_rules(tmp_path):
    ctx = _ctx(tmp_path, deny=["PowerShell(Remove-Item:*)"], allow=["PowerShell(git status)", "PowerShell(npm test:*)"])
    assert check_powershell_permission("git status; remove-item -r x", ctx).behavior == "deny"
    assert check_powershell_permission("git status", ctx).behavior == "allow"
    assert check_powershell_permission("npm test --watch; git status", ctx).behavior == "allow"
    assert check_powershell_permission("npm test > out.txt", ctx).behavior == "ask"  # redirection
    assert check_powershell_permission("git push", ctx).behavior == "ask"
    ask = check_powershell_permission("Set-Content x 1", ctx)
    assert ask.suggestions[0].rules == ("PowerShell(Set-Content:*)",)


async def test_missing_interpreter_is_a_clear_error(tmp_path, approve, monkeypatch):
    monkeypatch.delenv(PWSH_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    out = await run_tool_use(ToolUseRequest("p", "PowerShell", {"command": "Get-Date"}), make_context([PowerShellTool()], tmp_path), approve)
    assert out.is_error and "PowerShell is not installed" in out.text


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    script = tmp_path / "fake-pwsh"
    script.write_text('#!/bin/bash\n[ "$1 $2 $3" = "-NoProfile -NonInteractive -Command" ] || exit 99\nexec bash -c "$4"\n')
    script.chmod(0o755)
    monkeypatch.setenv(PWSH_ENV, str(script))


async def test_runner_exit_code_timeout_and_limit_with_a_stand_in(tmp_path, approve, stand_in):
    ctx = make_context([PowerShellTool()], tmp_path)

    async def run(command, **kw):
        return await run_tool_use(ToolUseRequest("p", "PowerShell", {"command": command, **kw}), ctx, approve)

    out = await run("echo hi; exit 4")
    assert out.text == "hi\nExit code 4"
    out = await run("sleep 30", timeout=300)
    assert out.text.endswith("Command timed out and was killed.")
    out = await run("head -c 100000 /dev/zero | tr '\\0' x")
    assert "characters of output were cut from the middle" in out.text and len(out.text) < 31_000


@pytest.mark.skipif(shutil.which("pwsh") is None, reason="pwsh is not installed (not available from Debian, PyPI or npm)")
async def test_real_pwsh(tmp_path, approve, monkeypatch):
    monkeypatch.delenv(PWSH_ENV, raising=False)
    out = await run_tool_use(ToolUseRequest("p", "PowerShell", {"command": "Write-Output (1+2)"}), make_context([PowerShellTool()], tmp_path), approve)
    assert out.text == "3"


async def test_background_task_with_a_stand_in(tmp_path, approve, stand_in):
    import re

    from jupyter_agent.tasks.registry import get_task_registry

    ctx = make_context([PowerShellTool()], tmp_path)
    payload = {"command": "echo one; echo two; exit 2", "run_in_background": True}
    out = await run_tool_use(ToolUseRequest("p", "PowerShell", payload), ctx, approve)
    task_id = re.search(r"ID: (pwsh_\w+)", out.text).group(1)
    task = get_task_registry(ctx).get(task_id)
    assert await task.wait(30)
    assert task.status == "failed" and task.exit_code == 2
    assert await task.read_new(1000) == "one\ntwo"
    long = await run_tool_use(ToolUseRequest("p", "PowerShell", {"command": "sleep 60", "run_in_background": True}), ctx, approve)
    running = get_task_registry(ctx).get(re.search(r"ID: (pwsh_\w+)", long.text).group(1))
    await running.stop()
    assert running.status == "killed"


def _project(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "a.txt").write_text("a\n")
    return _ctx(tmp_path, deny=["Read(./.env)"])


@pytest.mark.parametrize("command, behavior", [
    ("Get-Content .env", "deny"),
    ("gc './.env'", "deny"),
    ("cat sub/../.env", "ask"),  # `..` is not a plain path
    ("Select-String -Path .env -Pattern KEY", "deny"),
    ("Get-FileHash .env", "deny"),
    ("Get-Content a.txt; Get-Content .env", "deny"),
    ("Get-Content /etc/passwd", "ask"),
    ("Get-Content C:\\Windows\\win.ini", "ask"),
    ("Get-Content \\\\server\\share\\x", "ask"),
    ("Get-Content env:PATH", "ask"),
    ("Get-Content ~/.ssh/id_rsa", "ask"),
    ("Get-Content .e*", "ask"),
    ("Get-ChildItem -Recurse | Select-String 'KEY'", "ask"),
    ("gci -r | sls KEY", "ask"),
    ("Get-ChildItem -Recurse | Get-Content", "ask"),
    ("Get-ChildItem sub | Select-String -Path a.txt KEY", "allow"),
    ("Get-ChildItem sub -Recurse | Select-String 'KEY'", "ask"),  # fed by the pipeline: the cwd
    ("Get-Content a.txt", "allow"),
    ("Select-String -Path a.txt -Pattern KEY", "allow"),
    ("Get-ChildItem sub", "allow"),
    ("Get-Date; Get-Process", "allow"),
])
def test_files_a_read_only_statement_reads_are_checked(tmp_path, command, behavior):
    assert check_powershell_permission(command, _project(tmp_path)).behavior == behavior


def test_an_allow_rule_does_not_open_a_denied_file(tmp_path):
    ctx = _project(tmp_path)
    allowed = _ctx(tmp_path, deny=["Read(./.env)"], allow=["PowerShell(Get-Content:*)"])
    assert check_powershell_permission("Get-Content .env", allowed).behavior == "deny"
    assert check_powershell_permission("Get-Content /etc/passwd", allowed).behavior == "allow"
    assert check_powershell_permission("Get-Content a.txt", ctx).behavior == "allow"


def test_a_hard_link_to_a_denied_file_is_that_file(tmp_path):
    """The same read rule as Bash's (``filesystem.read_rule_of``): another name of ``.env`` is ``.env``."""
    ctx = _project(tmp_path)
    (tmp_path / "notes.txt").hardlink_to(tmp_path / ".env")
    assert check_powershell_permission("Get-Content notes.txt", ctx).behavior == "deny"
    assert check_powershell_permission("Get-Content a.txt", ctx).behavior == "allow"


@pytest.mark.parametrize("background", [False, True])
async def test_a_command_cancelled_while_it_starts_is_killed_whole(tmp_path, stand_in, background):
    """The loop is held just after the fork, then the start is cancelled: what the command
    started dies with it, and (in the background) the output file is not left open."""
    import os

    from jupyter_agent.tasks.registry import TaskRegistry
    from jupyter_agent.tools.powershell import find_powershell, run_powershell
    from jupyter_agent.tools.powershell_task import start_powershell_task
    from tests.tasks.shell_support import cancel_mid_start, eventually, live_with, token

    mark = token()
    command = f"sleep {mark} & sleep {mark}; wait"
    before = set(os.listdir("/proc/self/fd"))
    if background:
        starting = start_powershell_task(TaskRegistry(), find_powershell(), command, description="d", cwd=str(tmp_path),
                                         directory=tmp_path / "tasks")
    else:
        starting = run_powershell(find_powershell(), command, str(tmp_path), 60)
    await cancel_mid_start(starting)
    assert await eventually(lambda: live_with(mark) == [])
    assert await eventually(lambda: set(os.listdir("/proc/self/fd")) <= before)


def _decide(ctx, command):
    """The whole pipeline (rules, the tool's check, the mode), as run_tool_use decides."""
    from jupyter_agent.permissions.decide import has_permission_to_use_tool  # noqa: PLC0415
    from jupyter_agent.tools.powershell import PowerShellInput  # noqa: PLC0415

    coro = has_permission_to_use_tool(PowerShellTool(), PowerShellInput(command=command), ctx)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value.behavior
    raise AssertionError("the permission pipeline suspended")


def _mode_ctx(tmp_path, mode, **rules):
    ctx = make_context([PowerShellTool()], tmp_path)
    pc = ToolPermissionContext(mode=mode, **{f"{k}_rules": {"session": tuple(v)} for k, v in rules.items()})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=pc, todos=s.todos, extra=s.extra))
    return ctx


@pytest.mark.parametrize("command", [
    "rm -r x", "del x", "ri x", "erase x", "Microsoft.PowerShell.Management\\Remove-Item x", "REMOVE-ITEM x",
    "git status; rd x",
])
def test_a_deny_rule_names_the_cmdlet_behind_an_alias(tmp_path, command):
    """Session 40: PowerShell(Remove-Item:*) let `rm x`, `del x` and `ri x` through in bypassPermissions."""
    ctx = _mode_ctx(tmp_path, "bypassPermissions", deny=["PowerShell(Remove-Item:*)"])
    assert _decide(ctx, command) == "deny", command
    by_alias = _mode_ctx(tmp_path, "bypassPermissions", deny=["PowerShell(rm:*)"])
    assert _decide(by_alias, "Remove-Item x") == "deny"


@pytest.mark.parametrize("command", [
    "& { Remove-Item x }", "Invoke-Command -ScriptBlock { rm x }", "icm { rm x }", "iex 'Remove-Item x'",
    "Get-ChildItem | ForEach-Object { Remove-Item $_ }", 'Write-Output "$(Remove-Item x)"', "pwsh -c 'Remove-Item x'",
    "cmd /c del x", "Start-Process pwsh -ArgumentList '-c rm x'", "$c = 'Remove-Item'; & $c x", ". ./setup.ps1",
    "[IO.File]::Delete('x')", "(Get-Item x).Delete()",
])
def test_code_not_read_asks_under_a_deny_rule_in_every_mode(tmp_path, command):
    """Session 40: code the splitter does not read ran in bypassPermissions under a deny rule."""
    ctx = _mode_ctx(tmp_path, "bypassPermissions", deny=["PowerShell(Remove-Item:*)"])
    assert _decide(ctx, command) == "ask", command
    free = _mode_ctx(tmp_path, "bypassPermissions")  # no rule it may match: bypass runs it
    assert _decide(free, command) == "allow", command


def test_a_denied_read_is_denied_before_unread_code_asks(tmp_path):
    (tmp_path / ".env").write_text("KEY=1\n")
    ctx = _mode_ctx(tmp_path, "bypassPermissions", deny=["PowerShell(Remove-Item:*)", "Read(./.env)"])
    assert _decide(ctx, "Get-Content .env; & { Write-Output x }") == "deny"


def test_ask_rules_ask_in_bypass_mode_and_plain_commands_still_run(tmp_path):
    ctx = _mode_ctx(tmp_path, "bypassPermissions", deny=["PowerShell(Remove-Item:*)"], ask=["PowerShell(git push:*)"])
    assert _decide(ctx, "git push origin main") == "ask"
    assert _decide(ctx, "git status; npm test") == "allow"
    assert _decide(ctx, "Write-Output '$(not run: single quotes)'") == "allow"
    assert _decide(ctx, "Get-ChildItem -Recurse | Select-String TODO") == "allow"


@pytest.mark.parametrize("command", [
    "Set-Content .claude/settings.json '{}'", "Set-Content .git/config x", "'x' > .claude/settings.json",
    "Copy-Item evil.json .claude/settings.json", "New-Item -Path .vscode/tasks.json -Value x",
    "Out-File -FilePath .mcp.json", "Add-Content $HOME/.bashrc 'x'", "Remove-Item -Recurse .git",
    "Move-Item a .claude/settings.local.json", "echo x | Set-Content ~/.profile", "Set-Content -Path $f -Value x",
    "'x' >> $(Get-Location)/.git/hooks/pre-commit",
    "[IO.File]::WriteAllText('.claude/settings.json', 'x')", "[System.IO.File]::AppendAllText($p, 'x')",
    "(Get-Item .claude/settings.json).Delete()",
])
def test_protected_paths_ask_in_bypass_mode(tmp_path, command):
    """Session 40: bypassPermissions let every one of these write a protected path unasked."""
    (tmp_path / ".claude").mkdir()
    ctx = _mode_ctx(tmp_path, "bypassPermissions")
    assert _decide(ctx, command) == "ask", command


@pytest.mark.parametrize("command, expected", [
    ("Copy-Item .env out.txt", "ask"),  # names a file Read(./.env) denies
    ("Set-Content secret/a.txt x", "ask"),  # Edit(./secret/**)
    ("Get-Content .env", "deny"),
    ("git status", "allow"), ("python -m pytest -q", "allow"), ("Set-Content out.txt 'x'", "allow"),
    ("New-Item -ItemType Directory build", "allow"), ("Remove-Item -Recurse build", "allow"),
    ("Invoke-WebRequest https://example.com -OutFile a.zip", "allow"), ("'x' > out.txt", "allow"),
    ('Write-Output "hi $name"', "allow"), ("[IO.File]::ReadAllText('a.txt')", "allow"),
    ("(Get-Item x.txt).Delete()", "allow"), ("$s.Replace('a', 'b')", "allow"),
    ("npm install > $null", "allow"), ("git fetch 2> $NULL", "allow"),
    ("Get-Content .env; & { Write-Output x }", "deny"),  # a denied read wins over the question
])
def test_path_rules_meet_what_a_statement_names(tmp_path, command, expected):
    (tmp_path / ".env").write_text("KEY=1\n")
    ctx = _mode_ctx(tmp_path, "bypassPermissions", deny=["Read(./.env)", "Edit(./secret/**)"])
    assert _decide(ctx, command) == expected, command
