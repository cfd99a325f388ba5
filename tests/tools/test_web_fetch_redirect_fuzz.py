"""WebFetch follows a redirect on its own only within the same site; every other redirect goes
back to the model (a new host needs a new permission decision).  The check reads the Location
with urllib, the fetch with httpx: a Location that httpx would send to another host must never
pass as "same site".  Random parser-confusing insertions into same-site and other-site URLs."""

from __future__ import annotations

import httpx
from hypothesis import given

from jupyter_agent.permissions.rules import ascii_host
from jupyter_agent.tools.web_fetch_http import is_same_site
from tests.support.url_fuzz import FUZZ_SETTINGS, insertions

START = "https://good.com/start"
BASES = ["https://good.com/next", "https://www.good.com/a?b#c", "//good.com/x", "/relative", "https://evil.net/",
         "https://good.com:443/y"]
INSERTS = ["@", "\\", "#", "?", "/", ":", ".", "\u3002", "\uff0e", "%2e", "evil.net", "evil.net@", "@evil.net",
           "good.com", ":8443", "\t", " ", "[", "]"]


@FUZZ_SETTINGS
@given(insertions(BASES, INSERTS))
def test_a_same_site_redirect_is_one_httpx_sends_to_the_same_host(location):
    from urllib.parse import urljoin

    try:
        target = urljoin(START, location)
    except ValueError:
        return
    if not is_same_site(START, target):
        return
    try:
        parsed = httpx.URL(target)
    except httpx.InvalidURL:
        return  # the fetch fails: nothing is sent anywhere
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return  # httpx refuses to send it
    host = ascii_host(parsed.host)
    assert host in ("good.com", "www.good.com"), (location, target, parsed.host)
    assert parsed.port in (None, 443), (location, target, parsed.port)


def test_a_location_that_cannot_be_read_is_not_followed():
    """Found by the property above: urllib raises on a port that is no number; the check now
    answers "not the same site" (the model is told of the redirect) instead of failing."""
    assert not is_same_site(START, "https://good.com:\\/next")
    assert not is_same_site(START, "good.comhttps://good.com/y")  # not http(s)
    assert is_same_site(START, "https://WWW.Good.com\u3002/z")
