"""WebFetch's HTTP side: URL upgrade, same-site redirects, a size cap, and a 15-minute cache."""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Union
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from ..permissions.rules import ascii_host
from ..permissions.url_patterns import unclear_text

HTTP_HOSTS_ENV = "JUPYTER_AGENT_WEBFETCH_HTTP_HOSTS"
USER_AGENT = "jupyter-agent/0.1 (WebFetch; +https://pypi.org/project/jupyter-agent/)"
REDIRECT_CODES = (301, 302, 303, 307, 308)


def _env_hosts() -> frozenset[str]:
    raw = os.environ.get(HTTP_HOSTS_ENV, "")
    return frozenset(h.strip().lower() for h in raw.split(",") if h.strip())


@dataclass(frozen=True)
class FetchSettings:
    """Limits of one fetch.  ``http_hosts``: hosts fetched over plain http (no https upgrade)."""

    max_bytes: int = 10 * 1024 * 1024
    timeout_s: float = 60.0
    max_redirects: int = 10
    http_hosts: frozenset[str] = field(default_factory=_env_hosts)


@dataclass(frozen=True)
class FetchedPage:
    url: str
    final_url: str
    status: int
    reason: str
    content_type: str
    body: bytes
    truncated: bool = False


@dataclass(frozen=True)
class CrossHostRedirect:
    """A redirect to another host: reported to the model, which fetches it (and is asked) anew."""

    url: str
    redirect_url: str
    status: int


FetchOutcome = Union[FetchedPage, CrossHostRedirect]


class FetchError(Exception):
    """The URL could not be fetched; the text is for the model."""


def upgrade_url(url: str, http_hosts: frozenset[str] = frozenset()) -> str:
    """``http://`` becomes ``https://`` unless the host is listed in ``http_hosts``."""
    parts = urlsplit(url)
    if parts.scheme == "http" and (parts.hostname or "").lower() not in http_hosts:
        return urlunsplit(("https", parts.netloc, parts.path, parts.query, parts.fragment))
    return url


def _site(host: str) -> str:
    host = ascii_host(host)  # as DNS reads it: `Good.com。` is good.com
    return host[4:] if host.startswith("www.") else host


def is_same_site(a: str, b: str) -> bool:
    """Same host (``www.`` ignored) and port, both http(s).  A URL that cannot be read (a port
    that is no number) or that URL parsers may read differently (a blank, control character or
    backslash) is not the same site: the redirect goes back to the model."""
    if unclear_text(b):
        return False
    try:
        pa, pb = urlsplit(a), urlsplit(b)
        if pa.scheme not in ("http", "https") or pb.scheme not in ("http", "https") or not pb.hostname:
            return False
        return _site(pa.hostname or "") == _site(pb.hostname) and _port(pa) == _port(pb)
    except ValueError:
        return False


def _port(parts: Any) -> int | None:
    return parts.port or {"http": 80, "https": 443}.get(parts.scheme)


async def fetch_url(url: str, settings: FetchSettings) -> FetchOutcome:
    """GET ``url``, following same-site redirects only, reading at most ``max_bytes``."""
    timeout = httpx.Timeout(settings.timeout_s, connect=min(settings.timeout_s, 15.0))
    headers = {"User-Agent": USER_AGENT, "Accept": "text/markdown, text/html, */*"}
    async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, headers=headers) as client:
        current = url
        for _hop in range(settings.max_redirects + 1):
            try:
                async with client.stream("GET", current) as response:
                    if response.status_code in REDIRECT_CODES and "location" in response.headers:
                        target = urljoin(current, response.headers["location"])
                        if not is_same_site(current, target):
                            return CrossHostRedirect(url, target, response.status_code)
                        current = upgrade_url(target, settings.http_hosts)
                        continue
                    body, truncated = await _read_capped(response, settings.max_bytes)
                    return FetchedPage(
                        url=url,
                        final_url=str(response.url),
                        status=response.status_code,
                        reason=response.reason_phrase,
                        content_type=response.headers.get("content-type", ""),
                        body=body,
                        truncated=truncated,
                    )
            except httpx.TimeoutException as exc:
                raise FetchError(f"Fetching {current} timed out ({type(exc).__name__}).") from exc
            except httpx.HTTPError as exc:
                raise FetchError(f"Fetching {current} failed: {type(exc).__name__}: {exc}") from exc
    raise FetchError(f"Too many redirects (more than {settings.max_redirects}) starting at {url}.")


async def _read_capped(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        room = limit - size
        if len(chunk) >= room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


class TtlCache:
    """A small LRU cache whose entries expire after ``ttl_s`` seconds and are bounded in size."""

    def __init__(self, ttl_s: float = 15 * 60, max_bytes: int = 50 * 1024 * 1024) -> None:
        self.ttl_s = ttl_s
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[float, int, Any]] = OrderedDict()
        self._bytes = 0

    def get(self, key: str, now: float | None = None) -> Any | None:
        item = self._items.get(key)
        if item is None:
            return None
        stored, _size, value = item
        if (now if now is not None else time.monotonic()) - stored > self.ttl_s:
            self._drop(key)
            return None
        self._items.move_to_end(key)
        return value

    def put(self, key: str, value: Any, size: int, now: float | None = None) -> None:
        if size > self.max_bytes:
            return
        self._drop(key)
        self._items[key] = (now if now is not None else time.monotonic(), size, value)
        self._bytes += size
        while self._bytes > self.max_bytes and self._items:
            self._drop(next(iter(self._items)))

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0

    def _drop(self, key: str) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self._bytes -= item[1]
