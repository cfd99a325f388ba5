from __future__ import annotations

import base64
import io
import os
import sys

from PIL import Image

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasks.registry import get_task_registry
from jupyter_agent.tasks.shell import start_shell_task
from jupyter_agent.tools.terminal_capture import TerminalCaptureTool
from tests.support.tools import make_context
from tests.tasks.shell_support import live_with


async def capture(ctx, approver, **payload):
    return await run_tool_use(ToolUseRequest("t", "TerminalCapture", payload), ctx, approver)


async def test_escape_codes_are_rendered_not_dumped(tmp_path, approve):
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    # clear screen, write at row 5 col 10, overwrite "XXXX" with "done" via carriage return, colour
    cmd = r"printf '\033[2J\033[5;10Hhello\r\nXXXX\rdone \033[31mred\033[0m\n'; tty"
    out = await capture(ctx, approve, command=cmd, rows=10, cols=40)
    assert not out.is_error, out.text
    text = out.content[0]["text"]
    lines = text.splitlines()[1:]
    assert lines[4] == "         hello"
    assert lines[5] == "done red"
    assert lines[6].startswith("/dev/pts/")  # a real terminal, not a pipe
    assert "exited with code 0" in text and "\x1b" not in text
    png = base64.b64decode(out.content[1]["source"]["data"])
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size[0] > 40 * 5
    reds = [px for _n, px in image.convert("RGB").getcolors(1 << 20) if px[0] > 150 and px[1] < 90 and px[2] < 90]
    assert reds  # the red word is drawn red


async def test_keys_drive_an_interactive_program_which_is_stopped_after(tmp_path, approve):
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    script = tmp_path / "menu.py"
    script.write_text(
        "import sys, tty, termios\n"
        "fd = sys.stdin.fileno(); old = termios.tcgetattr(fd); tty.setraw(fd)\n"
        "sys.stdout.write('menu> '); sys.stdout.flush()\n"
        "got = sys.stdin.read(1)\n"
        "termios.tcsetattr(fd, termios.TCSADRAIN, old)\n"
        "print('\\r\\nyou pressed', repr(got)); sys.stdout.flush()\n"
        "import time; time.sleep(600)\n"
    )
    out = await capture(ctx, approve, command=f"{sys.executable} {script}", keys=["k"], wait_seconds=20, image=False)
    text = out.content[0]["text"]
    assert text.splitlines()[1:] == ["menu>", "you pressed 'k'"]
    assert "still running when captured (then stopped)" in text
    assert len(out.content) == 1
    assert live_with(str(script)) == []  # stopped, not left behind


async def test_attach_to_a_background_task_renders_its_output(tmp_path, approve):
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    (tmp_path / "tasks").mkdir()
    task = await start_shell_task(
        get_task_registry(ctx), r"printf 'progress 10%%\rprogress 55%%\rprogress 100%%\n'",
        description="bar", cwd=tmp_path, env=dict(os.environ), directory=tmp_path / "tasks",
    )
    await task.wait(30)
    out = await capture(ctx, approve, task_id=task.id, image=False)
    assert out.content[0]["text"].splitlines()[1:] == ["progress 100%"]
    assert approve.asks == []


async def test_permission_is_bash_s(tmp_path, reject):
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    marker = tmp_path / "ran"
    out = await capture(ctx, reject, command=f"touch {marker}")
    assert out.is_error and len(reject.asks) == 1 and not marker.exists()


async def test_input_errors(tmp_path, approve):
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    for payload, message in [
        ({}, "exactly one"),
        ({"command": "ls", "task_id": "bash_1"}, "exactly one"),
        ({"command": "  "}, "empty"),
        ({"task_id": "bash_1", "keys": ["q"]}, "keys can only"),
        ({"task_id": "bash_nope"}, "No task found"),
        ({"command": "ls", "rows": 1}, "rows"),
    ]:
        out = await capture(ctx, approve, **payload)
        assert out.is_error and message in out.text, (payload, out.text)


async def test_typed_keys_need_approval_even_for_a_read_only_command(tmp_path, reject, approve):
    """A read-only command line says nothing of what typed keys make the program do (a pager's
    ``!cmd``, a debugger): with ``keys`` the call asks; without, a read-only command runs."""
    ctx = make_context([TerminalCaptureTool()], tmp_path)
    out = await capture(ctx, reject, command="cat", keys=["!touch x\n"], wait_seconds=1, image=False)
    assert out.is_error and len(reject.asks) == 1 and "keystrokes" in reject.asks[0][1].message
    assert not (tmp_path / "x").exists()
    out = await capture(ctx, approve, command="cat", keys=["hello\n", "\x04"], wait_seconds=2, image=False)
    assert not out.is_error and len(approve.asks) == 1 and "hello" in out.text
    out = await capture(ctx, approve, command="echo plain", wait_seconds=2, image=False)
    assert not out.is_error and len(approve.asks) == 1  # no keys: read-only, not asked


async def test_a_pty_run_cancelled_while_it_starts_kills_it_and_closes_the_pty(tmp_path):
    """As for Bash: the loop is held after the fork, then the start is cancelled.  The command's
    session dies whole and neither end of the pty stays open in the kernel."""
    from jupyter_agent.tools.terminal_screen import PtyRun
    from tests.tasks.shell_support import cancel_mid_start, eventually, token

    mark = token()
    before = set(os.listdir("/proc/self/fd"))
    await cancel_mid_start(PtyRun(24, 80).start(f"sleep {mark} & sleep {mark}; wait", tmp_path, {"PATH": "/usr/bin:/bin"}))
    assert await eventually(lambda: live_with(mark) == [])
    assert await eventually(lambda: set(os.listdir("/proc/self/fd")) <= before)
