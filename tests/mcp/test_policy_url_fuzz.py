"""The allow list's URL matching against the parsers the clients really use (httpx2 for the
MCP SDK's transports, httpx for WebFetch and HTTP hooks): a URL an allow entry lets in must be
one whose host, as each of them reads it, the entry names.  Each case
starts from a URL the entry allows and inserts characters that confuse parsers
(``@ \\ # ? % : [ ] /``, dots, case, blanks) at random places."""

from __future__ import annotations

import re

import httpx
from hypothesis import given
from hypothesis import strategies as st

from jupyter_agent.mcp.config import HttpServerConfig, McpServerEntry
from jupyter_agent.mcp.policy import McpPolicy
from jupyter_agent.permissions.mcp_lists import parse_server_list
from tests.support.url_fuzz import FUZZ_SETTINGS, insertions

PATTERNS = {  # pattern: (the host it names, the path it is limited to)
    "https://mcp.corp.example/*": (re.compile(r"mcp\.corp\.example"), "/"),
    "https://*.corp.example/*": (re.compile(r".+\.corp\.example"), "/"),
    "https://mcp.corp.example": (re.compile(r"mcp\.corp\.example"), "/"),
    "https://mcp.corp.example/v1/*": (re.compile(r"mcp\.corp\.example"), "/v1/"),
}
BASES = ["https://mcp.corp.example/v1/mcp", "https://MCP.corp.example./v1/x?y=1", "https://u:p@mcp.corp.example:443/v1/",
         "https://mcp.corp.example/v1/a/b"]
INSERTS = ["@", "\\", "#", "?", "%2e", "%2E%2e", "%40", ":", ":8443", "[", "]", "/", "//", ".", "..", "/..", "/../",
           "./", "evil.net", "evil.net@", "@evil.net", "\t", " ", "%", "a.corp.example", "Corp", "\u0130", "\u3002"]


def _allowed(pattern: str, url: str) -> bool:
    policy = McpPolicy(allowed=parse_server_list([{"serverUrl": pattern}], "allowedMcpServers", "test"))
    return policy.refusal(McpServerEntry("s", HttpServerConfig(url=url), "user")) is None


def test_the_starting_urls_are_allowed():  # so that the property below is not checked on nothing
    assert all(_allowed(p, b) for p in PATTERNS for b in BASES)


def _parsed(url: str) -> list[object]:
    """``url`` as each client library reads it: httpx2 (the MCP SDK's HTTP transports) and httpx
    (WebFetch, HTTP hooks); a library that cannot read it sends nothing."""
    import httpx2

    out = []
    for library in (httpx2, httpx):
        try:
            out.append(library.URL(url))
        except Exception:  # InvalidURL, or an IDNA error: that client refuses the URL
            continue
    return out


@FUZZ_SETTINGS
@given(st.sampled_from(sorted(PATTERNS)), insertions(BASES, INSERTS))
def test_an_allowed_url_is_one_whose_real_host_the_entry_names(pattern, url):
    if not _allowed(pattern, url):
        return
    host, path = PATTERNS[pattern]
    readings = _parsed(url)
    assert readings, url  # an allowed URL is one the clients can connect to
    for parsed in readings:
        assert parsed.scheme == "https", url
        assert host.fullmatch(parsed.host.removesuffix(".")), (url, parsed.host)
        assert parsed.port in (None, 443), (url, parsed.port)
        assert parsed.raw_path.decode().startswith(path), (url, parsed.raw_path)


@FUZZ_SETTINGS
@given(st.sampled_from(sorted(PATTERNS)), insertions(BASES, INSERTS))
def test_a_url_whose_real_host_a_deny_entry_names_is_refused(pattern, url):
    host, path = PATTERNS[pattern]
    reaches = [
        parsed for parsed in _parsed(url)
        if parsed.scheme == "https" and host.fullmatch(parsed.host.removesuffix("."))
        and parsed.raw_path.decode().startswith(path) and parsed.port in (None, 443)
    ]
    if not reaches:
        return  # no client would connect to the denied place
    policy = McpPolicy(denied=parse_server_list([{"serverUrl": pattern}], "deniedMcpServers", "test"))
    assert policy.refusal(McpServerEntry("s", HttpServerConfig(url=url), "user")) is not None, url
