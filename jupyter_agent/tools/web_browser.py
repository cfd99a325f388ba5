"""WebBrowser (flag ``web_browser``): drive a persistent headless Chromium (``jupyter_agent.browser``).

Navigation asks per domain like WebFetch (rules ``WebBrowser(domain:example.com)``); a host once
approved stays approved for the session, and clicks or redirects to other hosts are blocked.
"""

from __future__ import annotations

import base64
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from ..browser.session import BrowserSession, get_browser
from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from ..core.result import ContentBlock, ToolResult, image_block, text_block
from ..core.tool import VALID, InterruptBehavior, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.rules import content_rule_for, host_rule_matches

MAX_TEXT_CHARS = 20_000


class WebBrowserInput(BaseModel):
    action: Literal["navigate", "click", "type", "screenshot", "text", "back"] = Field(description="What to do")
    url: str | None = Field(None, description="The URL to open (navigate)")
    selector: str | None = Field(None, description="A CSS or Playwright selector, e.g. 'text=Sign in' (click, type)")
    text: str | None = Field(None, description="The text to type into the element (type)")


class WebBrowserOutput(BaseModel):
    action: str
    url: str
    title: str
    message: str
    text: str | None = None
    png_b64: str | None = None


def _domain_rule(context: ToolUseContext, behavior: str, host: str) -> str | None:
    return content_rule_for(
        context.permission_context, behavior, WebBrowserTool.name, lambda c: host_rule_matches(c, host)  # type: ignore[arg-type]
    )


def _host_allowed(context: ToolUseContext, session_hosts: set[str], host: str) -> bool:
    if _domain_rule(context, "deny", host) or _domain_rule(context, "ask", host) and host not in session_hosts:
        return False
    return host in session_hosts or _domain_rule(context, "allow", host) is not None


def _browser(context: ToolUseContext) -> BrowserSession:
    holder: dict[str, BrowserSession] = {}
    session = get_browser(context, lambda host: _host_allowed(context, holder["s"].approved_hosts, host))
    holder["s"] = session
    return session


class WebBrowserTool(Tool[WebBrowserInput, WebBrowserOutput]):
    """Control a real headless Chromium browser that keeps its page between calls:
- navigate (url): open a page (asks once per domain, like WebFetch)
- click (selector): click an element; type (selector, text): fill an input
- text: the page's visible text; screenshot: an image of the viewport
- back: go back in history
Selectors are CSS (`#login`, `button.primary`) or Playwright text selectors (`text=Next`).
Use it for pages that need JavaScript, clicks or forms, or to see how a page looks (e.g. a
local dev server at http://127.0.0.1:PORT). For reading static documentation, WebFetch is
cheaper. Links to domains not yet approved are blocked: navigate to them explicitly."""

    name = "WebBrowser"
    input_schema = WebBrowserInput
    search_hint = "browser chromium click screenshot javascript page navigate"

    def is_read_only(self, input: WebBrowserInput) -> bool:
        return input.action in ("text", "screenshot")

    def is_concurrency_safe(self, input: WebBrowserInput) -> bool:
        return False  # one shared page: calls must not interleave

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def validate_input(self, input: WebBrowserInput, context: ToolUseContext) -> ValidationResult:
        if input.action == "navigate":
            parts = urlsplit(input.url or "")
            if parts.scheme not in ("http", "https") or not parts.hostname:
                return ValidationError(f"Invalid URL {input.url!r}: give a full http:// or https:// URL with a host.")
        if input.action in ("click", "type") and not input.selector:
            return ValidationError(f"action={input.action} needs a selector.")
        if input.action == "type" and input.text is None:
            return ValidationError("action=type needs text.")
        return VALID

    async def check_permissions(self, input: WebBrowserInput, context: ToolUseContext) -> PermissionResult:
        if input.action != "navigate":
            return PermissionAllow()  # the page's domain was approved when it was opened
        host = (urlsplit(input.url or "").hostname or "").lower()
        if rule := _domain_rule(context, "deny", host):
            return PermissionDeny(f"Permission to browse {host} has been denied by rule {rule}.")
        if host in _browser(context).approved_hosts:
            return PermissionAllow(reason="approved earlier in this session")
        if rule := _domain_rule(context, "ask", host):
            return PermissionAsk(f"Browsing {host} requires approval (rule {rule}).")
        if rule := _domain_rule(context, "allow", host):
            return PermissionAllow(reason=f"rule {rule}")
        return PermissionAsk(
            f"Claude wants to open {host} in the browser",
            suggestions=(PermissionUpdate(rules=(f"WebBrowser(domain:{host})",)),),
        )

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        session = _browser(context)
        if input.action != "navigate" and not session.has_page:
            raise ToolError("No page is open yet: use action=navigate first.")
        page = await session.page()
        session.blocked.clear()
        try:
            message, extra = await _act(session, page, input)
        except ToolError:
            raise
        except Exception as exc:  # Playwright's errors: timeouts, missing selectors, net errors
            raise ToolError(f"{input.action} failed: {str(exc).splitlines()[0]}") from exc
        if session.blocked:
            message += f"\nBlocked navigation to {session.blocked[0]} (domain not approved; navigate to it explicitly)."
        return ToolResult(WebBrowserOutput(action=input.action, url=page.url, title=await page.title(), message=message, **extra))

    def map_result_to_content(self, data: WebBrowserOutput, tool_use_id: str) -> list[ContentBlock]:
        head = f"{data.message}\nPage: {data.title or '(no title)'} — {data.url}"
        blocks: list[Any] = [text_block(head if data.text is None else f"{head}\n\n{data.text}")]
        if data.png_b64:
            blocks.append(image_block("image/png", data.png_b64))
        return blocks

    def render_tool_use_message(self, input: WebBrowserInput) -> str:
        target = input.url or input.selector or ""
        return f"Browser {input.action} {target}".rstrip()

    def render_tool_result_message(self, output: WebBrowserOutput) -> str:
        return output.message.splitlines()[0]


async def _act(session: BrowserSession, page: Any, input: WebBrowserInput) -> tuple[str, dict[str, Any]]:
    if input.action == "navigate":
        host = (urlsplit(input.url).hostname or "").lower()
        session.approved_hosts.add(host)
        response = await page.goto(input.url, wait_until="load")
        status = f" (HTTP {response.status})" if response is not None else ""
        return f"Opened {input.url}{status}.", {}
    if input.action == "click":
        await page.click(input.selector)
        await page.wait_for_load_state("load")
        return f"Clicked {input.selector}.", {}
    if input.action == "type":
        await page.fill(input.selector, input.text)
        return f"Typed {len(input.text)} characters into {input.selector}.", {}
    if input.action == "back":
        moved = await page.go_back(wait_until="load")
        return ("Went back." if moved is not None else "There is no earlier page in the history."), {}
    if input.action == "screenshot":
        png = await page.screenshot(type="png")
        return "Screenshot of the viewport:", {"png_b64": base64.b64encode(png).decode("ascii")}
    text = (await page.inner_text("body")).strip()
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + f"\n[… {len(text) - MAX_TEXT_CHARS:,} more characters]"
    return "Visible text:", {"text": text}
