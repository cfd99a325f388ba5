"""BrowserSession: one headless Chromium page per agent session, started on first use.

The browser is the system's (``$JUPYTER_AGENT_CHROMIUM``, else ``/usr/bin/chromium``, else
``chromium`` / ``chromium-browser`` / ``google-chrome`` on PATH); Playwright never downloads one.
Top-level navigations (typed URLs, clicked links, redirects, form posts) are checked by
``allow_host`` and aborted when it says no, so a click cannot leave the approved domains.
The session owns it (``AppState.extra["web_browser"]``) and must ``await shutdown_browser(context)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import ToolError

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

STATE_KEY = "web_browser"
CHROMIUM_ENV = "JUPYTER_AGENT_CHROMIUM"
ACTION_TIMEOUT_MS = 5_000  # a click or type on a selector that never appears fails after 5 s
NAVIGATION_TIMEOUT_MS = 30_000  # a page load may take longer
VIEWPORT = {"width": 1280, "height": 800}


class BrowserError(ToolError):
    pass


def find_chromium() -> str | None:
    if configured := os.environ.get(CHROMIUM_ENV):
        return configured if Path(configured).exists() else None
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    return next((p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))), None)


class BrowserSession:
    def __init__(self, allow_host: Callable[[str], bool]) -> None:
        self.allow_host = allow_host
        self.approved_hosts: set[str] = set()  # hosts the user approved a navigation to
        self.blocked: list[str] = []
        self._pw: Any = None
        self._browser: Any = None
        self._page: Any = None
        self._lock = asyncio.Lock()

    @property
    def has_page(self) -> bool:
        return self._page is not None and self._page.url not in ("", "about:blank")

    async def page(self) -> Any:
        async with self._lock:
            if self._page is None:
                await self._launch()
            return self._page

    async def _launch(self) -> None:
        exe = find_chromium()
        if exe is None:
            raise BrowserError(f"No Chromium found (install the chromium package or set {CHROMIUM_ENV}).")
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise BrowserError("The playwright package is not installed (pip install playwright).") from exc
        self._pw = await async_playwright().start()
        try:
            self._browser = await self._pw.chromium.launch(executable_path=exe, headless=True)
            context = await self._browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(ACTION_TIMEOUT_MS)
            context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
            self._page = await context.new_page()
            await self._page.route("**/*", self._guard)
        except Exception as exc:
            await self.close()
            raise BrowserError(f"Could not start Chromium ({exe}): {exc}") from exc

    async def _guard(self, route: Any) -> None:
        request = route.request
        if request.is_navigation_request() and request.frame == self._page.main_frame:
            host = (urlsplit(request.url).hostname or "").lower()
            if urlsplit(request.url).scheme not in ("http", "https") or not self.allow_host(host):
                self.blocked.append(request.url)
                await route.abort("aborted")  # the page stays where it was
                return
        await route.continue_()

    async def close(self) -> None:
        for closer in (self._browser, self._pw):
            if closer is not None:
                with contextlib.suppress(Exception):  # closing must never raise
                    await (closer.close() if closer is self._browser else closer.stop())
        self._pw = self._browser = self._page = None


def get_browser(context: ToolUseContext, allow_host: Callable[[str], bool]) -> BrowserSession:
    session = context.get_app_state().extra.get(STATE_KEY)
    if isinstance(session, BrowserSession):
        return session
    new = BrowserSession(allow_host)
    context.set_app_state(lambda s: replace(s, extra={**s.extra, STATE_KEY: new}))
    return new


async def shutdown_browser(context: ToolUseContext) -> None:
    """Close the session's browser (call when the session closes)."""
    session = context.get_app_state().extra.get(STATE_KEY)
    if isinstance(session, BrowserSession):
        await session.close()
