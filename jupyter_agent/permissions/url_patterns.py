"""URL patterns as Claude Code's settings write them (``https://*.corp.example/*``), matched
part by part the way an HTTP client will read the URL, so that no spelling gets a URL past an
allow pattern or out from under a deny pattern.

Scheme and host compare case-insensitively (a trailing dot on the host ignored); ``*`` spans
anything within its part; a pattern without a port means the scheme's default port (a deny
pattern: every port); a pattern without a path covers every path.  The URL's path is compared
as the client sends it: the fragment dropped, ``.`` and ``..`` segments resolved.  A URL that
parsers may read differently (a blank, control character or backslash anywhere, two ``@``, a
host that is not plain ASCII letters, digits, dots and dashes, ``%2e`` in the path) matches no
allow pattern and every deny pattern.  ``${VAR}`` / ``${VAR:-default}`` in a pattern are filled
from ``env`` (a value's own ``*`` is literal); see ``expand_pattern`` for unset variables.
Property tests check both directions against httpx2 (the MCP SDK's HTTP client) and httpx
(WebFetch, HTTP hooks): ``tests/mcp/test_policy_url_fuzz.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_URL = re.compile(r"([^:/?#]*)://([^/?#]*)(.*)", re.DOTALL)
_DEFAULT_PORTS = {"https": ":443", "http": ":80", "wss": ":443", "ws": ":80"}
_ANY = "\0any\0"  # a wildcard that came from the entry itself (a value's own ``*`` stays literal)
_NO_ENV: Mapping[str, str] = {}


def expand_pattern(text: str, env: Mapping[str, str], deny: bool, fallback: Mapping[str, str] | None = None) -> str | None:
    """``text`` with its variables filled in (a value's characters literal): from ``env``, else
    the ``:-default``, else ``fallback``.  None: an allow entry with an unset variable (ignored);
    in a deny entry an unset variable matches anything."""
    out = []
    last = 0
    for match in VARIABLE.finditer(text):
        out.append(text[last:match.start()])
        name, default = match.group(1), match.group(2)
        value = env.get(name, default)
        if value is None and fallback is not None:
            value = fallback.get(name)
        if value is None:
            if not deny:
                return None
            out.append(_ANY)
        else:
            out.append(value.replace("*", "\0star\0"))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def pattern_regex(text: str, *, wild: bool) -> str:
    """A pattern's regex: ``_ANY`` spans anything; with ``wild`` the entry's own ``*`` too."""
    parts = []
    for piece in re.split(f"({re.escape(_ANY)}|\\*)" if wild else f"({re.escape(_ANY)})", text):
        if piece in (_ANY, "*"):
            parts.append(".*")
        else:
            parts.append(re.escape(piece.replace("\0star\0", "*")))
    return "".join(parts)


def _split_url(text: str) -> tuple[str, str, str] | None:
    match = _URL.fullmatch(text)
    if match is None:
        return None
    scheme, authority, rest = match.groups()
    return scheme.lower(), authority.lower(), rest


def _host_port(authority: str) -> tuple[str, str]:
    """The host (no user info, no trailing dot) and the port as written (``:8080``, or empty)."""
    host = authority.rsplit("@", 1)[-1]
    port = ""
    match = re.fullmatch(r"(.*?)(:[0-9*]*|:\0any\0)?", host, re.DOTALL)
    if match is not None:
        host, port = match.group(1), match.group(2) or ""
    return host.removesuffix("."), port


_CLEAR_HOST = re.compile(r"(?P<host>[a-z0-9._-]+|\[[0-9a-f:.]+\])(?P<port>:[0-9]{1,5})?")


def unclear_text(url: str) -> bool:
    """A blank, control character or backslash anywhere: URL parsers read such a URL
    differently (``a.com\\@b.com`` is b.com to urllib and httpx, a.com to a browser)."""
    return any(c.isspace() or not c.isprintable() or c == "\\" for c in url)


def _clear_target(url: str) -> tuple[str, str, str, str] | None:
    """A server URL as (scheme, host, port, rest), or None when URL parsers may read it
    differently: a blank, control character or backslash anywhere (``a.com\\@b.com``: a
    browser goes to a.com), more than one ``@``, or a host that is not plain ASCII letters,
    digits, dots and dashes (``%``-encoding, other scripts' full stops, a stray ``:``, an
    empty label)."""
    if unclear_text(url):
        return None
    parts = _split_url(url)
    if parts is None:
        return None
    scheme, authority, rest = parts
    if authority.count("@") > 1:
        return None
    match = _CLEAR_HOST.fullmatch(authority.rsplit("@", 1)[-1])
    if match is None:
        return None
    host = match["host"].removesuffix(".")
    if not host.startswith("[") and not all(host.split(".")):
        return None  # an empty label (``.corp.example``, ``a..b``)
    return scheme, host, match["port"] or "", rest


def url_matches(
    pattern: str, url: str, *, deny: bool = False, env: Mapping[str, str] = _NO_ENV,
    fallback: Mapping[str, str] | None = None,
) -> bool:
    """Does ``pattern`` (an allow pattern, or with ``deny`` a deny pattern) cover ``url``?"""
    raw = _split_url(pattern)
    if raw is None:
        return False
    if not deny and VARIABLE.search(raw[0] + "://" + raw[1]):
        return False  # the environment must not decide which host an allow entry lets in
    expanded = expand_pattern(pattern, env, deny, fallback)
    parts = _split_url(expanded) if expanded is not None else None
    if parts is None:
        return False
    target = _clear_target(url)
    if target is None:
        return deny  # an allow entry never lets it in; any URL deny entry keeps it out
    p_scheme, p_authority, p_rest = parts
    u_scheme, u_host, u_port, u_rest = target
    if re.fullmatch(pattern_regex(p_scheme, wild=True), u_scheme) is None:
        return False
    p_host, p_port = _host_port(p_authority)
    if re.fullmatch(pattern_regex(p_host, wild=True), u_host) is None:
        return False
    default = _DEFAULT_PORTS.get(u_scheme, "")
    u_port = u_port or default
    if not p_port:  # no port in the pattern: the scheme's default (for a deny entry: any port)
        if not (deny or u_port == default):
            return False
    elif re.fullmatch(pattern_regex(p_port, wild=True), u_port) is None:
        return False
    if not p_rest:  # no path: every path on that host
        return True
    path, mark, query = u_rest.partition("#")[0].partition("?")  # the fragment is never sent
    if "%2e" in path.lower():
        return deny  # a server may decode it into a dot segment: no path entry can vouch for it
    path = _without_dot_segments(path if path.startswith("/") else "/" + path)  # as the client sends it
    return re.fullmatch(pattern_regex(p_rest, wild=True), path + mark + query) is not None


def _without_dot_segments(path: str) -> str:
    """``/v1/../admin`` → ``/admin``, ``/v1/./x`` → ``/v1/x``, as httpx and httpx2 send them
    (a trailing ``.`` or ``..`` leaves no trailing slash: ``/v1/mcp/..`` → ``/v1``)."""
    out: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    return "/" + "/".join(out)
