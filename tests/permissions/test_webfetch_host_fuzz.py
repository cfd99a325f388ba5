"""WebFetch's ``domain:`` rules against the parser the fetch really uses (httpx): whenever httpx
would connect to the denied host, the rule matches the host the permission check reads (or the
URL is refused before any check).  Random insertions of parser-confusing characters, dots of
other scripts, case and full-width letters into URLs of that host."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from hypothesis import given

from jupyter_agent.permissions.rules import ascii_host, domain_matches
from tests.support.url_fuzz import FUZZ_SETTINGS, insertions

BASES = ["https://evil.com/x", "http://EVIL.com:8080/a?b#c", "https://api.evil.com./", "https://evil.com"]
INSERTS = ["@", "\\", "#", "?", "/", ":", ".", "\u3002", "\uff0e", "\uff61", "\u00ad", "\u200b", "ｅ", "Ｅ", "%2e",
           "%65", "[", "]", " ", "good.com", "good.com@", "xn--", "-"]


def _checked_host(url: str) -> str | None:
    """The host WebFetch's validate_input and check_permissions read (None: the URL is refused)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or parts.username or parts.password:
        return None
    return host


def test_the_starting_urls_are_denied():
    assert all(domain_matches("*.evil.com" if "api." in b else "evil.com", _checked_host(b) or "") for b in BASES)


@FUZZ_SETTINGS
@given(insertions(BASES, INSERTS))
def test_a_url_httpx_would_send_to_a_denied_host_is_denied(url):
    try:
        target = ascii_host(httpx.URL(url).host)
    except (httpx.InvalidURL, UnicodeError):
        return  # the fetch could not connect to it at all
    checked = _checked_host(url)
    if checked is None:
        return  # refused by validate_input before any rule
    for rule in ("evil.com", "*.evil.com"):
        if domain_matches(rule, target):
            assert domain_matches(rule, checked), (url, checked, target)


def test_a_trailing_full_stop_of_another_script_is_the_same_host():
    """Found by the property above: ``evil.com。`` is ``evil.com`` to httpx (IDNA), so a
    ``domain:evil.com`` deny must match it too."""
    for host in ("evil.com\u3002", "EVIL\uff0eCOM\uff61", "evil.com.\u3002"):
        assert domain_matches("evil.com", host), host
    assert not domain_matches("evil.com", "evil.com\u3002x")
