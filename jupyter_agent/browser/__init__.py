"""A persistent headless Chromium (Playwright, system browser) for the WebBrowser tool."""

from .session import BrowserError, BrowserSession, find_chromium, get_browser, shutdown_browser

__all__ = ["BrowserError", "BrowserSession", "find_chromium", "get_browser", "shutdown_browser"]
