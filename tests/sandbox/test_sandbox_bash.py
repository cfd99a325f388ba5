"""Bash in the bubblewrap sandbox, for real: writes, escapes, network, orphans, asking."""

from __future__ import annotations

import asyncio
import os
import socket
import threading

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.sandbox.policy import SANDBOX_NOTE
from jupyter_agent.tools.bash import BashInput, BashTool
from tests.tasks.shell_support import bash, live_with, token

from .conftest import sandboxed_context


async def test_writes_inside_the_working_directory_work(tmp_path, approve, bwrap_ok):
    ctx = sandboxed_context(tmp_path)
    out = await bash(ctx, approve, "echo made > here.txt && cat here.txt && echo tmp > /tmp/t && cat /tmp/t")
    assert not out.is_error and out.text == "made\ntmp"
    assert (tmp_path / "work" / "here.txt").read_text() == "made\n"
    assert approve.asks == []  # auto-allowed: it runs sandboxed


async def test_writes_outside_are_refused_and_explained(tmp_path, approve, bwrap_ok, outside):
    ctx = sandboxed_context(tmp_path)
    (outside / "keep.txt").write_text("old")
    out = await bash(ctx, approve, f"echo new > {outside}/keep.txt; echo more > {outside}/new.txt")
    assert "Read-only file system" in out.text and SANDBOX_NOTE in out.text
    assert (outside / "keep.txt").read_text() == "old" and not (outside / "new.txt").exists()
    reads = await bash(ctx, approve, f"cat {outside}/keep.txt")
    assert reads.text == "old"  # the rest of the filesystem stays readable


async def test_protected_paths_stay_read_only(tmp_path, approve, bwrap_ok):
    work = tmp_path / "work"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    (work / ".claude").mkdir()
    (work / ".ssh").mkdir()
    (work / ".bashrc").write_text("# mine\n")
    ctx = sandboxed_context(tmp_path)
    out = await bash(
        ctx, approve,
        "echo evil > .git/hooks/pre-commit; echo evil >> .git/config; echo x > .claude/settings.json; "
        "python3 -c \"open('.ssh/authorized_keys', 'w')\"; python3 -c \"open('.bashrc', 'a').write('x')\"; "
        "echo fine > .git/HEAD && cat .git/HEAD",
    )
    assert out.text.count("Read-only file system") == 5 and "fine" in out.text, out.text
    assert not (work / ".ssh" / "authorized_keys").exists() and (work / ".bashrc").read_text() == "# mine\n"
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert (work / ".git" / "config").read_text() == "[core]\n"
    assert not (work / ".claude" / "settings.json").exists()


async def test_symlink_and_hardlink_escapes_are_refused(tmp_path, approve, bwrap_ok, outside):
    target = outside / "secret.txt"
    target.write_text("original")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(target)
    (work / "dirlink").symlink_to(outside)
    ctx = sandboxed_context(tmp_path)
    out = await bash(
        ctx, approve,
        f"echo pwned > link; echo pwned > dirlink/new.txt; ln {target} hard; echo $?",
    )
    assert target.read_text() == "original" and not (outside / "new.txt").exists()
    assert not (work / "hard").exists()
    assert out.text.count("Read-only file system") >= 2
    assert "Invalid cross-device link" in out.text or "Read-only" in out.text.splitlines()[-2]


async def test_network_is_refused(tmp_path, approve, bwrap_ok):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    port = listener.getsockname()[1]
    accepted: list[object] = []

    def serve() -> None:
        try:
            while True:
                conn, _ = listener.accept()
                accepted.append(conn)
                conn.close()
        except OSError:
            return

    threading.Thread(target=serve, daemon=True).start()
    probe_cmd = f"(exec 3<>/dev/tcp/127.0.0.1/{port}) && echo connected || echo refused"
    try:
        ctx = sandboxed_context(tmp_path)
        inside = await bash(ctx, approve, probe_cmd)
        assert inside.text.splitlines()[-1] == "refused" and accepted == []
        outside_ctx = sandboxed_context(tmp_path, allow_unsandboxed=True)
        control = await bash(outside_ctx, approve, probe_cmd, dangerouslyDisableSandbox=True)
        for _ in range(1000):  # the accept thread records the connection a moment later
            if accepted:
                break
            await asyncio.sleep(0.02)
        assert control.text == "connected" and len(accepted) == 1  # the server really works
    finally:
        listener.close()


async def test_nothing_outlives_a_sandboxed_command(tmp_path, approve, bwrap_ok):
    ctx = sandboxed_context(tmp_path)
    marker = token()
    out = await bash(ctx, approve, f"(setsid sleep {marker} &) ; nohup sleep {marker} >/dev/null 2>&1 & echo started")
    assert out.text == "started"
    for _ in range(400):
        if not live_with(marker):
            break
        await asyncio.sleep(0.05)
    assert live_with(marker) == []


async def test_cd_still_persists_inside_the_sandbox(tmp_path, approve, bwrap_ok):
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "sub").mkdir()
    await bash(ctx, approve, "cd sub")
    out = await bash(ctx, approve, "pwd && touch made")
    assert out.text == str((tmp_path / "work" / "sub").resolve())
    assert (tmp_path / "work" / "sub" / "made").exists()


async def test_background_commands_are_sandboxed_too(tmp_path, approve, bwrap_ok, outside):
    ctx = sandboxed_context(tmp_path)
    out = await bash(ctx, approve, f"echo x > {outside}/bg.txt; echo done", run_in_background=True)
    task_id = out.result.data.background_task_id
    from tests.tasks.shell_support import call

    result = await call(ctx, approve, "TaskOutput", {"task_id": task_id, "block": True, "timeout": 30000})
    assert "Read-only file system" in result.text and "done" in result.text
    assert not (outside / "bg.txt").exists()


async def test_disable_sandbox_asks_first_and_then_runs_outside(tmp_path, approve, reject, bwrap_ok, outside):
    ctx = sandboxed_context(tmp_path)
    denied = await bash(ctx, reject, f"echo x > {outside}/out.txt", dangerouslyDisableSandbox=True)
    assert denied.is_error and not (outside / "out.txt").exists()
    assert "outside the sandbox" in reject.asks[0][1].message
    ran = await bash(ctx, approve, f"echo x > {outside}/out.txt", dangerouslyDisableSandbox=True)
    assert not ran.is_error and (outside / "out.txt").read_text() == "x\n"
    assert len(approve.asks) == 1


async def test_disable_sandbox_ask_survives_bypass_mode(tmp_path, bwrap_ok):
    from dataclasses import replace

    from jupyter_agent.permissions.decide import has_permission_to_use_tool

    ctx = sandboxed_context(tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="bypassPermissions")))
    verdict = await has_permission_to_use_tool(BashTool(), BashInput(command="ls", dangerouslyDisableSandbox=True), ctx)
    assert isinstance(verdict, PermissionAsk)


async def test_settings_decide_what_is_asked(tmp_path, bwrap_ok):
    tool = BashTool()
    touch = BashInput(command="touch x")
    assert isinstance(await tool.check_permissions(touch, sandboxed_context(tmp_path)), PermissionAllow)
    no_auto = sandboxed_context(tmp_path, auto_allow=False)
    assert isinstance(await tool.check_permissions(touch, no_auto), PermissionAsk)
    locked = sandboxed_context(tmp_path, allow_unsandboxed=False)
    outside = BashInput(command="ls", dangerouslyDisableSandbox=True)
    verdict = await tool.check_permissions(outside, locked)
    assert isinstance(verdict, PermissionDeny) and "allowUnsandboxedCommands" in verdict.message


async def test_without_the_sandbox_nothing_changes(tmp_path, approve, outside):
    from tests.tasks.shell_support import bash_context

    ctx = bash_context(tmp_path)
    out = await bash(ctx, approve, f"echo x > {outside}/plain.txt")
    assert not out.is_error and (outside / "plain.txt").exists() and len(approve.asks) == 1
    assert os.path.exists(outside / "plain.txt")


async def test_no_capabilities_even_when_run_by_root(tmp_path, approve, bwrap_ok):
    """Run by root, bwrap keeps every capability unless told otherwise, and a command could then
    unmount the read-only binds; with none, it cannot (and a root-owned file is not readable)."""
    work = tmp_path / "work"
    (work / ".git" / "hooks").mkdir(parents=True)
    out = await bash(sandboxed_context(tmp_path), approve,
                     "grep CapEff /proc/self/status; umount .git/hooks; echo umount=$?; touch .git/hooks/x")
    assert "CapEff:\t0000000000000000" in out.text and "umount=0" not in out.text, out.text
    assert not (work / ".git" / "hooks" / "x").exists()


async def test_kernel_settings_stay_read_only_even_for_root(tmp_path, approve, bwrap_ok):
    """Without capabilities, root still owns /proc/sys: kernel.core_pattern = "|program" would run
    a program as root on the host.  The test writes back the value already there (harmless)."""
    out = await bash(sandboxed_context(tmp_path), approve,
                     "v=$(cat /proc/sys/kernel/core_pattern); printf '%s\\n' \"$v\" > /proc/sys/kernel/core_pattern")
    assert "Read-only file system" in out.text, out.text


async def test_excluded_commands_run_outside_and_are_asked_about(tmp_path, approve, bwrap_ok, outside):
    ctx = sandboxed_context(tmp_path, excluded=("python3 -c",))
    script = f"open({str(outside / 'made.txt')!r}, 'w').write('x')"
    out = await bash(ctx, approve, f"python3 -c \"{script}\"")
    assert (outside / "made.txt").exists(), out.text  # outside the sandbox: the write went through
    assert len(approve.asks) == 1  # and it was asked about, as without the sandbox
    (tmp_path / "work" / "s.py").write_text(script)
    inside = await bash(ctx, approve, "python3 s.py")  # no match: sandboxed, run unasked
    assert "Read-only file system" in inside.text and len(approve.asks) == 1
    from jupyter_agent.sandbox.policy import excluded_by
    from jupyter_agent.sandbox.settings import SandboxSettings

    docker = SandboxSettings(enabled=True, excluded=("docker",))
    assert excluded_by("timeout 60 docker ps && ls", docker) == "docker"
    assert excluded_by("dockerd --help", docker) is None and excluded_by("ls", docker) is None
