"""A command in a real pseudo-terminal, rendered by the ``pyte`` terminal emulator (text + PNG)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import os
import signal
import struct
import termios
from dataclasses import dataclass
from pathlib import Path

import pyte
from PIL import Image, ImageDraw, ImageFont

from ..core.process_start import kill_process_group, start_process

QUIET_SECONDS = 0.3  # output is "settled" after this long without new bytes
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
)
_COLORS = {
    "black": (0, 0, 0), "red": (205, 49, 49), "green": (13, 188, 121), "brown": (229, 229, 16),
    "yellow": (229, 229, 16), "blue": (36, 114, 200), "magenta": (188, 63, 188), "cyan": (17, 168, 205),
    "white": (229, 229, 229),
}
_FG, _BG = (229, 229, 229), (30, 30, 30)


@dataclass(frozen=True)
class Capture:
    lines: list[str]
    cursor: tuple[int, int]
    exited: bool
    exit_code: int | None
    png: bytes | None


def new_screen(rows: int, cols: int) -> tuple[pyte.Screen, pyte.ByteStream]:
    screen = pyte.Screen(cols, rows)
    return screen, pyte.ByteStream(screen)


def decode_keys(keys: str) -> bytes:
    """``\\n``, ``\\t``, ``\\x1b`` ... escapes as typed by the model, to bytes."""
    return keys.encode("utf-8").decode("unicode_escape").encode("latin-1", errors="replace")


class PtyRun:
    """One command on a pty: feeds everything it prints into a pyte screen."""

    def __init__(self, rows: int, cols: int) -> None:
        self.screen, self._stream = new_screen(rows, cols)
        self.rows, self.cols = rows, cols
        self._master = -1
        self._proc: asyncio.subprocess.Process | None = None
        self._activity = asyncio.Event()
        self._eof = asyncio.Event()

    async def start(self, command: str, cwd: Path, env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.cols, 0, 0))
        env = {**env, "TERM": "xterm-256color", "LINES": str(self.rows), "COLUMNS": str(self.cols)}

        async def spawn() -> asyncio.subprocess.Process:
            try:
                return await asyncio.create_subprocess_exec(
                    "/bin/bash", "-c", command, stdin=slave, stdout=slave, stderr=slave,
                    cwd=str(cwd), env=env, preexec_fn=_controlling_tty,
                )
            finally:  # once the start is over, even for a cancelled caller
                os.close(slave)

        def abandon(proc: asyncio.subprocess.Process | None) -> None:
            kill_process_group(proc)  # _controlling_tty made it a session (and group) leader
            os.close(master)

        try:
            self._proc = await start_process(spawn(), abandon=abandon)
        except OSError:
            os.close(master)
            raise
        self._master = master
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._on_readable)

    def _on_readable(self) -> None:
        try:
            data = os.read(self._master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: every writer has closed the terminal
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._master)
            self._eof.set()
        else:
            self._stream.feed(data)
        self._activity.set()

    async def settle(self, max_wait: float) -> None:
        """Wait for output, then until it has been quiet for a moment; or the end; or ``max_wait``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max_wait
        seen = False
        while not self._eof.is_set():
            left = deadline - loop.time()
            if left <= 0:
                return
            self._activity.clear()
            try:
                await asyncio.wait_for(self._activity.wait(), min(QUIET_SECONDS, left) if seen else left)
                seen = True
            except asyncio.TimeoutError:
                return

    def send(self, data: bytes) -> None:
        if not self._eof.is_set():
            with contextlib.suppress(OSError):
                os.write(self._master, data)

    async def close(self) -> tuple[bool, int | None]:
        """Stop the program if it still runs; returns (it had exited by itself, exit code)."""
        proc = self._proc
        if proc is not None and self._eof.is_set():  # the terminal closed: the exit is near
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), 2)
        exited = proc is not None and proc.returncode is not None
        if proc is not None and proc.returncode is None:
            for sig in (signal.SIGHUP, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
                try:
                    await asyncio.wait_for(proc.wait(), 2)
                    break
                except asyncio.TimeoutError:
                    continue
        if self._master >= 0:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._master)
            os.close(self._master)
            self._master = -1
        return exited, (proc.returncode if proc is not None and exited else None)


def _controlling_tty() -> None:
    os.setsid()
    with contextlib.suppress(OSError):
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _rgb(name: str, default: tuple[int, int, int]) -> tuple[int, int, int]:
    if name in _COLORS:
        return _COLORS[name]
    if len(name) == 6:
        with contextlib.suppress(ValueError):
            return (int(name[0:2], 16), int(name[2:4], 16), int(name[4:6], 16))
    return default


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    for path in FONT_CANDIDATES:
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def render_png(screen: pyte.Screen, font_size: int = 14) -> bytes:
    """The screen as a PNG: one fixed cell per character, with colours and reverse video."""
    font = _font(font_size)
    cw, ch = max(1, round(font.getlength("M"))), font_size + 4
    image = Image.new("RGB", (cw * screen.columns, ch * screen.lines), _BG)
    draw = ImageDraw.Draw(image)
    for y in range(screen.lines):
        row = screen.buffer[y]
        for x in range(screen.columns):
            char = row[x]
            fg, bg = _rgb(char.fg, _FG), _rgb(char.bg, _BG)
            if char.reverse:
                fg, bg = bg, fg
            if bg != _BG:
                draw.rectangle((x * cw, y * ch, (x + 1) * cw - 1, (y + 1) * ch - 1), fill=bg)
            if char.data.strip():
                draw.text((x * cw, y * ch + 1), char.data, fill=fg, font=font)
    cx, cy = screen.cursor.x, screen.cursor.y
    if not screen.cursor.hidden and cx < screen.columns and cy < screen.lines:
        draw.rectangle((cx * cw, (cy + 1) * ch - 2, (cx + 1) * cw - 1, (cy + 1) * ch - 1), fill=_FG)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def screen_lines(screen: pyte.Screen) -> list[str]:
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


async def run_in_pty(
    command: str, *, cwd: Path, env: dict[str, str], rows: int, cols: int,
    wait_seconds: float, keys: list[str], image: bool,
) -> Capture:
    run = PtyRun(rows, cols)
    await run.start(command, cwd, env)
    try:
        await run.settle(wait_seconds)
        for key in keys:
            run.send(decode_keys(key))
            await run.settle(wait_seconds)
    finally:
        exited, code = await run.close()
    png = await asyncio.to_thread(render_png, run.screen) if image else None
    cursor = (run.screen.cursor.y, run.screen.cursor.x)
    return Capture(screen_lines(run.screen), cursor, exited, code, png)


async def render_output_file(path: Path, *, rows: int, cols: int, image: bool) -> Capture:
    """Attach to a background task: replay its output file through the emulator."""
    data = await asyncio.to_thread(path.read_bytes)
    screen, stream = new_screen(rows, cols)
    stream.feed(data)
    png = await asyncio.to_thread(render_png, screen) if image else None
    return Capture(screen_lines(screen), (screen.cursor.y, screen.cursor.x), False, None, png)
