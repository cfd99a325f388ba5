"""Downloads write files named by their URLs: ``wget https://x/.mcp.json`` and ``curl -O
https://x/.mcp.json`` create ``.mcp.json`` (a protected path: it starts MCP servers) though no
argument spells it.

For ``wget`` without ``-O`` and ``curl -O``/``--remote-name-all``, the name each URL gives (its
last path segment, as written and percent-decoded; wget keeps a query, names an empty path
``index.html``) under ``-P``/``--output-dir`` is checked as if written directly
(``git_guards.named_writes_guard``).  Where the server or a file chooses the names (``wget -r``,
``-m``, ``-p``, ``-i FILE``, ``--content-disposition``, ``--trust-server-names``, ``-e``
settings, ``curl -J``, ``-K`` config, URL globs) it asks; a word known only at run time asks.
``aria2c`` names what it writes after the server's Content-Disposition and follows torrents and
metalinks it downloads: it asks unless ``-o`` names the file and ``--follow-torrent=false
--follow-metalink=false`` are given; then ``-d``/``-o`` is checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from .bash_verdict import Verdict
from .bash_words import Word
from .compiled import PathScope
from .git_guards import named_writes_guard

_WGET_VALUE = frozenset({"-O", "-P", "-o", "-a", "-i", "-B", "-e", "-t", "-T", "-w", "-Q", "-U", "-l", "-A",
                         "-R", "-D", "-X", "-I", "--output-document", "--directory-prefix", "--output-file",
                         "--append-output", "--input-file", "--base", "--execute", "--tries", "--timeout",
                         "--wait", "--quota", "--user-agent", "--header", "--post-data", "--post-file",
                         "--body-data", "--body-file", "--method", "--user", "--password", "--referer",
                         "--level", "--accept", "--reject", "--domains", "--exclude-directories",
                         "--include-directories", "--limit-rate", "--load-cookies", "--save-cookies",
                         "--config", "--bind-address", "--ca-certificate", "--certificate", "--private-key"})
_WGET_SERVER_NAMES = frozenset({"-r", "--recursive", "-m", "--mirror", "-p", "--page-requisites", "-i",
                                "--input-file", "-B", "--base", "-e", "--execute", "--content-disposition",
                                "--trust-server-names", "--config", "-F", "--force-html"})
_CURL_VALUE = frozenset({"-d", "-H", "-u", "-X", "-A", "-e", "-b", "-c", "-F", "-T", "-x", "-m", "-w", "-o",
                         "-D", "-E", "-r", "-C", "-Y", "-y", "-z", "-Q", "-P", "-t", "-K", "--data",
                         "--data-raw", "--data-binary", "--data-urlencode", "--header", "--user", "--request",
                         "--user-agent", "--referer", "--cookie", "--cookie-jar", "--form", "--upload-file",
                         "--proxy", "--max-time", "--write-out", "--output", "--dump-header", "--cert",
                         "--range", "--continue-at", "--config", "--output-dir", "--url", "--retry",
                         "--connect-timeout", "--limit-rate", "--resolve", "--interface", "--stderr",
                         "--trace", "--trace-ascii", "--cacert", "--key", "--json"})
_CURL_SERVER_NAMES = frozenset({"-J", "--remote-header-name", "-K", "--config"})
_NAMING = frozenset({"-P", "--directory-prefix", "-O", "--output-document", "--output-dir", "--url"})


_ARIA_VALUE = frozenset({"-d", "--dir", "-o", "--out", "-i", "--input-file", "-T", "--torrent-file", "-M",
                         "--metalink-file", "-l", "--log", "-s", "--split", "-x", "--max-connection-per-server",
                         "-j", "--max-concurrent-downloads", "-k", "--min-split-size", "-t", "--timeout",
                         "-m", "--max-tries", "-U", "--user-agent", "--header", "--conf-path"})
_ARIA_FILES = frozenset({"-i", "--input-file", "-T", "--torrent-file", "-M", "--metalink-file", "--conf-path"})


def download_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    found = aria2_paths(words) if words[0].literal == "aria2c" else downloaded_paths(words)  # the same in every cwd
    named_writes_guard(lambda _cwd: found, cwds, scope, v, "download")


def downloaded_paths(words: Sequence[Word]) -> tuple[str | None, list[str]]:
    """``(why it must ask, the files the URLs name)`` for ``wget …`` or ``curl …``."""
    program = words[0].literal
    wget = program == "wget"
    valued, server = (_WGET_VALUE, _WGET_SERVER_NAMES) if wget else (_CURL_VALUE, _CURL_SERVER_NAMES)
    options: dict[str, str] = {}
    urls: list[str] = []
    args = list(words[1:])
    unknown = False  # a URL or option only known at run time
    i = 0
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None:
            unknown = True
            continue
        key, eq, value = text.partition("=") if text.startswith("--") else (text, "", "")
        if text.startswith("-") and not text.startswith("--") and len(text) > 2 and text[:2] in valued:
            key, value, eq = text[:2], text[2:], "="  # -Odir, -Pdir: the value attached
        elif text.startswith("-") and not text.startswith("--") and len(text) > 2:
            for letter in text[1:]:  # -sSLO: flags together
                options["-" + letter] = ""
            continue
        if key in server:
            return f"{program} {key} lets the server or a file choose the names it writes", []
        if key in valued and not eq:
            value = (args[i].literal if i < len(args) else "") or ""
            unknown = unknown or (key in _NAMING and args[i].literal is None if i < len(args) else False)
            i += 1
        if key == "--url":
            urls.append(value)
        elif text.startswith("-") and text != "-":
            options[key] = value
        else:
            urls.append(text)
    if any(o in options for o in server):
        return f"{program} lets the server or a file choose the names it writes", []
    try:
        reason, names = (None, _wget_names(options, urls)) if wget else _curl_names(options, urls)
    except ValueError:  # urlsplit: a bracketed host that is no IPv6 address (`wget 'a[$(ls)]'`)
        return f"{program} has a URL this check cannot read", []
    if unknown and (names or reason or (wget and "-O" not in options and "--output-document" not in options)):
        return f"{program} has a word only known at run time where it names the files it writes", []
    return reason, names


def aria2_paths(words: Sequence[Word]) -> tuple[str | None, list[str]]:
    """``(why it must ask, the file it writes)`` for ``aria2c …``."""
    options: dict[str, str] = {}
    args = [w.literal for w in words[1:]]
    i = 0
    while i < len(args):
        text = args[i]
        i += 1
        if text is None:
            return "aria2c has a word only known at run time", []
        key, eq, value = text.partition("=") if text.startswith("--") else (text[:2], "", text[2:])
        if text[:1] != "-" or text == "-":
            continue  # a URL
        if key in _ARIA_VALUE and not eq and not value:
            given = args[i] if i < len(args) else ""
            i += 1
            if given is None:
                return "aria2c has a word only known at run time where it names the files it writes", []
            value = given
        options[key] = value
        if key in _ARIA_FILES:
            return f"aria2c {key} lets a file choose the names it writes", []
    name = options.get("-o", options.get("--out"))
    if name is None:
        return "aria2c writes the name the server gives (Content-Disposition) or the URL's", []
    if options.get("--follow-torrent") != "false" or options.get("--follow-metalink") != "false":
        return ("aria2c follows a torrent or metalink it downloads and writes the names it lists "
                "(unless --follow-torrent=false --follow-metalink=false)"), []
    folder = options.get("-d", options.get("--dir", ""))
    return None, [f"{folder.rstrip('/')}/{name}" if folder else name]


def _wget_names(options: dict[str, str], urls: list[str]) -> list[str]:
    if options.get("-O", options.get("--output-document")) is not None:
        return []  # one named file (an argument, checked as such)
    folder = options.get("-P", options.get("--directory-prefix", ""))
    names: list[str] = []
    for url in urls:
        parts = urlsplit(url if "://" in url else "http://" + url)
        name = parts.path.rsplit("/", 1)[-1] or "index.html"
        names.extend(_spellings(name + (f"?{parts.query}" if parts.query else ""), folder))
    return names


def _curl_names(options: dict[str, str], urls: list[str]) -> tuple[str | None, list[str]]:
    if not ({"-O", "--remote-name", "--remote-name-all"} & options.keys()):
        return None, []
    folder = options.get("--output-dir", "")
    names: list[str] = []
    for url in urls:
        if not options.keys() & {"-g", "--globoff"} and any(c in url for c in "[]{}"):
            return "curl -O with a URL glob writes names known only as it runs", []
        name = urlsplit(url if "://" in url else "http://" + url).path.rsplit("/", 1)[-1]
        if name:
            names.extend(_spellings(name, folder))
    return None, names


def _spellings(name: str, folder: str) -> list[str]:
    """The name as written and percent-decoded, under ``folder``."""
    out = []
    for spelled in dict.fromkeys((name, unquote(name))):
        out.append(f"{folder.rstrip('/')}/{spelled}" if folder else spelled)
    return out


__all__ = ["aria2_paths", "download_guard", "downloaded_paths"]
