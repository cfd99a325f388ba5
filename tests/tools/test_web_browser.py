"""WebBrowser against a real Chromium (/usr/bin/chromium) on pages served from 127.0.0.1."""

from __future__ import annotations

import base64
import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from jupyter_agent.browser import find_chromium, get_browser, shutdown_browser
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.tools.web_browser import WebBrowserTool
from tests.support.tools import make_context

pytestmark = pytest.mark.skipif(find_chromium() is None, reason="no Chromium (apt-get install -y chromium)")


def _pages(port: int) -> dict[str, str]:
    return {
        "/": ("<title>Home</title><h1>Welcome home</h1><a id='next' href='/form'>Go to form</a>"
              f"<a id='away' href='http://localhost:{port}/form'>Elsewhere</a>"),
        "/form": ("<title>Form</title><input id='name'><button id='go' "
                  "onclick=\"document.getElementById('out').textContent='Hello, '+document.getElementById('name').value\">"
                  "Greet</button><p id='out'>nobody yet</p><div style='background:#ff0000;width:400px;height:300px'></div>"),
    }


@pytest.fixture(scope="module")
def site():
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = _pages(self.server.server_address[1]).get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write((body or "<title>Missing</title>not found").encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
async def ctx(tmp_path):
    context = make_context([WebBrowserTool()], tmp_path)
    yield context
    await shutdown_browser(context)


async def browse(ctx, approver, **payload):
    return await run_tool_use(ToolUseRequest("b", "WebBrowser", payload), ctx, approver)


async def test_navigate_click_type_text_screenshot_back(site, ctx, approve):
    out = await browse(ctx, approve, action="navigate", url=site + "/")
    assert not out.is_error, out.text
    assert out.text.startswith(f"Opened {site}/ (HTTP 200).\nPage: Home — {site}/")
    assert len(approve.asks) == 1 and "127.0.0.1" in approve.asks[0][1].message
    out = await browse(ctx, approve, action="text")
    assert "Welcome home" in out.text and "Go to form" in out.text
    out = await browse(ctx, approve, action="click", selector="#next")
    assert f"Page: Form — {site}/form" in out.text
    await browse(ctx, approve, action="type", selector="#name", text="Ada")
    await browse(ctx, approve, action="click", selector="text=Greet")
    out = await browse(ctx, approve, action="text")
    assert "Hello, Ada" in out.text  # the page's JavaScript ran
    shot = await browse(ctx, approve, action="screenshot")
    image = Image.open(io.BytesIO(base64.b64decode(shot.content[1]["source"]["data"]))).convert("RGB")
    assert image.size == (1280, 800)
    assert (255, 0, 0) in {c for _n, c in image.getcolors(1 << 20)}  # the red box is rendered
    out = await browse(ctx, approve, action="back")
    assert f"Page: Home — {site}/" in out.text
    out = await browse(ctx, approve, action="navigate", url=site + "/form")
    assert not out.is_error and len(approve.asks) == 1  # the domain stays approved


async def test_a_click_to_an_unapproved_domain_is_blocked(site, ctx, approve):
    await browse(ctx, approve, action="navigate", url=site + "/")
    out = await browse(ctx, approve, action="click", selector="#away")
    assert "Blocked navigation to http://localhost:" in out.text
    assert f"Page: Home — {site}/" in out.text  # still on the approved page


async def test_refused_and_denied_navigation_never_loads(site, ctx, reject):
    out = await browse(ctx, reject, action="navigate", url=site + "/")
    assert out.is_error and len(reject.asks) == 1
    assert not get_browser(ctx, lambda h: False).has_page
    deny = ToolPermissionContext(deny_rules={"session": ("WebBrowser(domain:127.0.0.1)",)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=deny, todos=s.todos, extra=s.extra))
    out = await browse(ctx, reject, action="navigate", url=site + "/")
    assert out.is_error and "denied by rule WebBrowser(domain:127.0.0.1)" in out.text and len(reject.asks) == 1


async def test_input_errors(site, ctx, approve):
    for payload, message in [
        ({"action": "navigate", "url": "file:///etc/passwd"}, "Invalid URL"),
        ({"action": "click"}, "needs a selector"),
        ({"action": "type", "selector": "#x"}, "needs text"),
        ({"action": "text"}, "No page is open yet"),
    ]:
        out = await browse(ctx, approve, **payload)
        assert out.is_error and message in out.text, (payload, out.text)
    await browse(ctx, approve, action="navigate", url=site + "/")
    out = await browse(ctx, approve, action="click", selector="#does-not-exist")
    assert out.is_error and "click failed" in out.text
    assert "5000ms" in out.text  # an action gives up after 5 s, not Playwright's 30 s
