"""Write on real files: staleness, format preservation, atomicity (kill -9), modes and symlinks."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import textwrap

from jupyter_agent.core.file_state import MODIFIED_MESSAGE, NOT_READ_MESSAGE, PARTIAL_READ_MESSAGE
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use


async def test_creates_file_and_parent_folders(run, tmp_path):
    f = tmp_path / "new" / "deep" / "a.txt"
    text = await run.ok("Write", file_path=str(f), content="hello\n")
    assert text == f"File created successfully at: {f}"
    assert f.read_bytes() == b"hello\n"
    assert run.context.read_file_state.check_writable(f, f.read_bytes()) is None


async def test_existing_file_must_be_read_first(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("keep me\n")
    assert await run.error("Write", file_path=str(f), content="gone") == NOT_READ_MESSAGE
    assert f.read_text() == "keep me\n"


async def test_partial_read_is_not_enough_to_overwrite(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("1\n2\n3\n")
    await run.ok("Read", file_path=str(f), offset=2, limit=1)
    assert await run.error("Write", file_path=str(f), content="x") == PARTIAL_READ_MESSAGE
    assert f.read_text() == "1\n2\n3\n"


async def test_stale_write_same_size_within_the_same_second_is_refused(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("abc\n")
    await run.ok("Read", file_path=str(f))
    st = f.stat()
    f.write_text("xyz\n")  # changed by "the user": same size ...
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # ... and the very same mtime
    assert await run.error("Write", file_path=str(f), content="mine\n") == MODIFIED_MESSAGE
    assert f.read_text() == "xyz\n"


async def test_overwrite_after_read_reports_a_diff(run, tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("one\ntwo\nthree\n")
    await run.ok("Read", file_path=str(f))
    outcome = await run("Write", file_path=str(f), content="one\n2\nthree\n")
    assert not outcome.is_error and f.read_text() == "one\n2\nthree\n"
    out = outcome.result.data
    assert out.kind == "update"
    assert [line for h in out.hunks for line in h.lines if line[0] in "+-"] == ["-two", "+2"]


async def test_mode_is_preserved(run, tmp_path):
    f = tmp_path / "script.sh"
    f.write_text("#!/bin/sh\necho old\n")
    os.chmod(f, 0o751)
    await run.ok("Read", file_path=str(f))
    await run.ok("Write", file_path=str(f), content="#!/bin/sh\necho new\n")
    assert stat.S_IMODE(f.stat().st_mode) == 0o751 and "new" in f.read_text()


async def test_symlink_is_written_through_and_stays_a_link(run, tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    await run.ok("Read", file_path=str(link))
    await run.ok("Write", file_path=str(link), content="new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"


async def test_crlf_bom_and_legacy_encoding_are_kept(run, tmp_path):
    cases = {
        "crlf.txt": (b"a\r\nb\r\n", "x\ny\n", b"x\r\ny\r\n"),
        "bom.txt": ("a\n".encode("utf-8-sig"), "é\n", "é\n".encode("utf-8-sig")),
        "u16.txt": ("a\r\n".encode("utf-16"), "ü\n", "ü\r\n".encode("utf-16")),
        "cp.txt": ("Café crème\n".encode("cp1252"), "Crème brûlée\n", "Crème brûlée\n".encode("cp1252")),
    }
    for name, (before, content, after) in cases.items():
        f = tmp_path / name
        f.write_bytes(before)
        await run.ok("Read", file_path=str(f))
        await run.ok("Write", file_path=str(f), content=content)
        assert f.read_bytes() == after, name


async def test_text_the_legacy_encoding_cannot_hold_is_refused(run, tmp_path):
    f = tmp_path / "cp.txt"
    f.write_bytes("Café crème brûlée\n".encode("cp1252"))
    await run.ok("Read", file_path=str(f))
    text = await run.error("Write", file_path=str(f), content="日本\n")
    assert "cp1252" in text and f.read_bytes() == "Café crème brûlée\n".encode("cp1252")


async def test_directory_fifo_and_trailing_slash_are_refused(run, tmp_path):
    assert "directory" in await run.error("Write", file_path=str(tmp_path), content="x")
    assert "directory" in await run.error("Write", file_path=str(tmp_path / "d") + "/", content="x")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = await asyncio.wait_for(run.error("Write", file_path=str(fifo), content="x"), timeout=30)
    assert "FIFO" in text and stat.S_ISFIFO(os.stat(fifo).st_mode)


async def test_malformed_input(run, tmp_path):
    assert "content" in await run.error("Write", file_path=str(tmp_path / "a"))
    assert "content" in await run.error("Write", file_path=str(tmp_path / "a"), content=None)
    assert "file_path" in await run.error("Write", content="x")


async def test_denied_write_leaves_nothing(tmp_path, reject):
    from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
    from jupyter_agent.tools.write import WriteTool

    ctx = ToolUseContext(options=ToolUseOptions(tools=(WriteTool(),)), cwd=tmp_path, session_dir=tmp_path / "s")
    req = ToolUseRequest("w1", "Write", {"file_path": str(tmp_path / "x.txt"), "content": "x"})
    outcome = await run_tool_use(req, ctx, reject)
    assert outcome.is_error and not (tmp_path / "x.txt").exists()
    assert reject.asks[0][0] == "Write"


_CHILD = textwrap.dedent(
    """
    import asyncio, os, sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from tests.tools.conftest import Runner
    from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
    from jupyter_agent.tools.read import ReadTool
    from jupyter_agent.tools.write import WriteTool

    path = Path({path!r})
    def stalled_fsync(fd):  # the new bytes are in the temp file; stop before the rename
        print("WRITING", flush=True)
        time.sleep(600)
    async def main():
        ctx = ToolUseContext(options=ToolUseOptions(tools=(ReadTool(), WriteTool())), cwd=path.parent)
        run = Runner(ctx)
        await run.ok("Read", file_path=str(path))
        os.fsync = stalled_fsync
        await run("Write", file_path=str(path), content="NEW" * 2_000_000)
    asyncio.run(main())
    """
)


def test_kill_9_mid_write_leaves_the_old_content(tmp_path):
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    f = tmp_path / "precious.txt"
    f.write_text("old content\n" * 1000)
    before = f.read_bytes()
    child = subprocess.Popen([sys.executable, "-c", _CHILD.format(root=root, path=str(f))],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "WRITING", child.stderr.read()
        temps = [p for p in tmp_path.iterdir() if p.name.startswith(".precious.txt.")]
        assert temps and temps[0].stat().st_size == 6_000_000  # the new content was mid-flight
    finally:
        child.kill()  # SIGKILL
        child.wait()
    assert child.returncode == -9
    assert f.read_bytes() == before
