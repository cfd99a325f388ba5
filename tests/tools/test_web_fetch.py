"""WebFetch against a real HTTP server on 127.0.0.1 and the real anthropic SDK on a local model server."""

from __future__ import annotations

import base64
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    ToolPermissionContext,
)
from jupyter_agent.permissions.rules import domain_matches
from jupyter_agent.testing import ScriptedServer, reply
from jupyter_agent.tools.web_fetch import (
    WebFetchSettings,
    WebFetchTool,
    clear_web_fetch_cache,
)
from jupyter_agent.tools.web_fetch_http import FetchSettings, TtlCache, is_same_site, upgrade_url
from tests.support.tools import make_context

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
HTML = b"""<!doctype html><html><head><title>T</title><style>.x{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Release notes</h1>
<p>Version <b>2.0</b> adds <a href="/docs">docs</a>.</p><ul><li>fast</li><li>small</li></ul></body></html>"""


def _pdf(text: str) -> bytes:
    """A minimal one-page PDF with ``text`` (offsets computed, so pypdf reads it strictly)."""
    stream = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


class Site:
    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                site.hits[self.path] = site.hits.get(self.path, 0) + 1
                port = self.server.server_address[1]
                routes = {
                    "/page.html": (200, "text/html; charset=utf-8", HTML),
                    "/data.json": (200, "application/json", b'{"answer": 42}'),
                    "/doc.pdf": (200, "application/pdf", _pdf("Quarterly revenue grew")),
                    "/pixel.png": (200, "image/png", PNG),
                    "/blob": (200, "application/octet-stream", b"\x00\x01"),
                    "/missing": (404, "text/plain", b"nope"),
                }
                if self.path == "/same":
                    return self._redirect("/page.html")
                if self.path == "/other":
                    return self._redirect(f"http://localhost:{port}/page.html")
                if self.path == "/huge":
                    return self._huge()
                status, ctype, body = routes.get(self.path, (404, "text/plain", b"no route"))
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _redirect(self, location: str) -> None:
                self.send_response(302)
                self.send_header("location", location)
                self.send_header("content-length", "0")
                self.end_headers()

            def _huge(self) -> None:
                chunk = b"<p>" + b"y" * 65_530 + b"</p>"
                self.send_response(200)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(chunk) * 320))  # ~20 MB
                self.end_headers()
                try:
                    for _ in range(320):
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading at its cap

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def echo_model(body):
    """The small model 'answers' by echoing what it was given, so tests see the converted page."""
    return reply("ANSWER:\n" + body["messages"][0]["content"])


@pytest.fixture
def site():
    clear_web_fetch_cache()
    s = Site()
    yield s
    s.close()


@pytest.fixture
def model():
    with ScriptedServer() as server:
        yield server


def _bodies(model):
    return [r.body for r in model.message_requests]


def _ctx(tmp_path, model, *, max_bytes=1_000_000, allow=("WebFetch(domain:127.0.0.1)",)):
    ctx = make_context([WebFetchTool()], tmp_path)
    ctx.extra["web_fetch"] = WebFetchSettings(
        model="test-small", base_url=model.url, api_key="test-key",
        fetch=FetchSettings(max_bytes=max_bytes, http_hosts=frozenset({"127.0.0.1", "localhost"})),
    )
    perms = ToolPermissionContext(allow_rules={"localSettings": tuple(allow)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    return ctx


async def _fetch(ctx, approve, url, prompt="What changed?"):
    return await run_tool_use(ToolUseRequest("w", "WebFetch", {"url": url, "prompt": prompt}), ctx, approve)


async def test_html_converted_and_answered_by_small_model(tmp_path, site, model, approve):
    model.set_fallback(echo_model)
    out = await _fetch(_ctx(tmp_path, model), approve, f"{site.base}/page.html")
    assert not out.is_error, out.text
    assert approve.asks == []  # allowed by the domain rule
    assert "# Release notes" in out.text and "**2.0**" in out.text and "[docs](/docs)" in out.text
    assert "- fast" in out.text and "secret" not in out.text and "color:red" not in out.text
    assert "What changed?" in out.text
    request = _bodies(model)[0]
    assert request["model"] == "test-small" and request["max_tokens"] == 2048


async def test_cache_serves_second_fetch(tmp_path, site, model, approve):
    model.set_fallback(echo_model)  # every request to the small model gets the echo
    ctx = _context = _ctx(tmp_path, model)
    await _fetch(ctx, approve, f"{site.base}/page.html")
    again = await _fetch(_context, approve, f"{site.base}/page.html", prompt="Second question")
    assert site.hits["/page.html"] == 1
    assert "Second question" in again.text and "# Release notes" in again.text


def test_cache_expires_after_ttl():
    cache = TtlCache(ttl_s=900, max_bytes=100)
    cache.put("u", "v", 10, now=0)
    assert cache.get("u", now=899) == "v" and cache.get("u", now=901) is None
    cache.put("a", "1", 60, now=0)
    cache.put("b", "2", 60, now=0)
    assert cache.get("a", now=1) is None and cache.get("b", now=1) == "2"


async def test_same_host_redirect_followed_cross_host_returned(tmp_path, site, model, approve):
    model.set_fallback(echo_model)
    ctx = _ctx(tmp_path, model)
    same = await _fetch(ctx, approve, f"{site.base}/same")
    assert "# Release notes" in same.text
    other = await _fetch(ctx, approve, f"{site.base}/other")
    assert not other.is_error and "REDIRECT DETECTED" in other.text
    assert f"Redirect URL: http://localhost:{site.port}/page.html" in other.text
    assert site.hits.get("/page.html") == 1, "the cross-host target was not fetched"
    assert len(_bodies(model)) == 1


async def test_huge_page_is_capped(tmp_path, site, model, approve):
    model.set_fallback(echo_model)
    out = await _fetch(_ctx(tmp_path, model, max_bytes=200_000), approve, f"{site.base}/huge")
    assert not out.is_error, out.text
    assert out.result.data.bytes == 200_000
    sent = _bodies(model)[0]["messages"][0]["content"]
    assert "[Content truncated: page larger than 200,000 bytes; only the start was read]" in sent
    assert "[Content truncated due to length...]" in sent
    assert len(sent) < 250_000


async def test_pdf_json_image_and_errors(tmp_path, site, model, approve):
    ctx = _ctx(tmp_path, model)
    model.set_fallback(echo_model)
    pdf = await _fetch(ctx, approve, f"{site.base}/doc.pdf")
    assert "Quarterly revenue grew" in pdf.text and "--- Page 1 ---" in pdf.text
    js = await _fetch(ctx, approve, f"{site.base}/data.json")
    assert '{"answer": 42}' in js.text
    img = await _fetch(ctx, approve, f"{site.base}/pixel.png")
    assert [b["type"] for b in img.content] == ["text", "image"]
    assert img.content[1]["source"]["data"] == base64.b64encode(PNG).decode()
    assert len(_bodies(model)) == 2, "images go to the main model, not the small one"
    missing = await _fetch(ctx, approve, f"{site.base}/missing")
    assert missing.is_error and "status code 404" in missing.text
    blob = await _fetch(ctx, approve, f"{site.base}/blob")
    assert blob.is_error and "Unsupported content type 'application/octet-stream'" in blob.text
    down = await _fetch(ctx, approve, "http://127.0.0.1:9/x")
    assert down.is_error and "failed" in down.text


async def test_model_failure_is_an_error_result(tmp_path, site, model, approve):
    out = await _fetch(_ctx(tmp_path, model), approve, f"{site.base}/page.html")  # nothing scripted: 400
    assert out.is_error and "could not be processed by the model" in out.text
    assert [r.served for r in model.message_requests] == ["none"]


async def test_invalid_urls(tmp_path, model, approve):
    ctx = _ctx(tmp_path, model)
    for url, words in [("ftp://x/y", "Invalid URL"), ("not a url", "Invalid URL"),
                       ("https://u:p@h.com/", "username or password"), ("https://h.com/" + "a" * 2001, "too long")]:
        out = await _fetch(ctx, approve, url)
        assert out.is_error and words in out.text


@pytest.mark.parametrize(("pattern", "host", "ok"), [
    ("example.com", "example.com", True), ("example.com", "EXAMPLE.com", True),
    ("example.com", "docs.example.com", False), ("*.example.com", "docs.example.com", True),
    ("*.example.com", "a.b.example.com", True), ("*.example.com", "example.com", False),
    ("*.example.com", "badexample.com", False),
])
def test_domain_matching(pattern, host, ok):
    assert domain_matches(pattern, host) is ok


async def test_permissions(tmp_path, model):
    tool = WebFetchTool()
    ctx = _ctx(tmp_path, model, allow=())
    inp = tool.input_schema(url="https://docs.python.org/3/", prompt="p")
    ask = await tool.check_permissions(inp, ctx)
    assert isinstance(ask, PermissionAsk)
    assert ask.suggestions[0].rules == ("WebFetch(domain:docs.python.org)",)
    assert ask.suggestions[0].destination == "localSettings"
    perms = ToolPermissionContext(
        allow_rules={"userSettings": ("WebFetch(domain:*.python.org)",)},
        deny_rules={"projectSettings": ("WebFetch(domain:evil.python.org)",)},
    )
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    assert isinstance(await tool.check_permissions(inp, ctx), PermissionAllow)
    evil = tool.input_schema(url="https://evil.python.org/", prompt="p")
    assert isinstance(await tool.check_permissions(evil, ctx), PermissionDeny)


async def test_unapproved_domain_asks_the_user(tmp_path, site, model, reject):
    out = await _fetch(_ctx(tmp_path, model, allow=()), reject, f"{site.base}/page.html")
    assert out.is_error and reject.asks[0][0] == "WebFetch"
    assert reject.asks[0][1].suggestions[0].rules == ("WebFetch(domain:127.0.0.1)",)
    assert site.hits == {}


def test_url_upgrade_and_site_checks():
    assert upgrade_url("http://example.com/a?b=1") == "https://example.com/a?b=1"
    assert upgrade_url("http://127.0.0.1:8/a", frozenset({"127.0.0.1"})) == "http://127.0.0.1:8/a"
    assert is_same_site("https://www.a.com/x", "https://a.com/y")
    assert not is_same_site("https://a.com/x", "https://b.com/x")
    assert not is_same_site("http://127.0.0.1:1/", "http://127.0.0.1:2/")


async def test_in_a_session_the_model_is_asked_through_the_sessions_client(tmp_path, site, model, approve,
                                                                            monkeypatch):
    """Without WebFetch settings of its own, the tool asks through the session's client (its
    address and key: %config AgentMagics.base_url / api_key, an apiKeyHelper), not through
    whatever the environment names."""
    from anthropic import AsyncAnthropic

    from jupyter_agent.subagents.runtime import RUNTIME_KEY, SubagentRuntime

    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ANTHROPIC_API_KEY", "environment-key")
    model.set_fallback(echo_model)
    ctx = make_context([WebFetchTool()], tmp_path)
    client = AsyncAnthropic(base_url=model.url, api_key="session-key", max_retries=0)
    ctx.extra[RUNTIME_KEY] = SubagentRuntime(client=client, retry=None, model="claude-sonnet-5-5")
    perms = ToolPermissionContext(allow_rules={"localSettings": ("WebFetch(domain:127.0.0.1)",)})
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=perms))
    ctx.extra["web_fetch"] = WebFetchSettings(fetch=FetchSettings(http_hosts=frozenset({"127.0.0.1"})))
    out = await _fetch(ctx, approve, f"{site.base}/page.html")
    assert not out.is_error, out.text
    assert "# Release notes" in out.text
    [request] = model.message_requests
    assert request.headers["authorization"] == "Bearer session-key"
    await client.close()
