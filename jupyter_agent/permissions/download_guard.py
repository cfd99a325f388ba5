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

import os
import re
import string
from collections.abc import Sequence
from urllib.parse import SplitResult, unquote, urlsplit

from .bash_verdict import Verdict
from .bash_words import Word, long_option_named
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


# downloaders whose names come from the server or the URL (gdown, httpie's --download, axel,
# yt-dlp's output template): other_download_paths
OTHER_DOWNLOADERS = frozenset({"gdown", "http", "https", "xh", "xhs", "axel", "yt-dlp", "youtube-dl", "oras"})
DOWNLOADERS = frozenset({"wget", "curl", "aria2c"}) | OTHER_DOWNLOADERS
# file-transfer clients that run the commands of a script, -c or standard input: `get` writes
# the files named there and `!cmd` (or `local`, `shell`) runs a local command
COMMAND_CLIENTS = frozenset({"sftp", "ftp", "lftp", "tftp", "ncftp", "ncftpget", "smbclient"})


def command_client_reason(program: str) -> str:
    if program == "sftp":
        return ("sftp runs the commands of its batch (a file or standard input): `get` writes files named there "
                "and `!cmd` runs a local command")
    if program == "ncftpget":
        return "ncftpget writes the names the server gives the files it fetches"
    return (f"{program} runs the commands it is given (-c, a script or standard input): `get` writes files "
            "named there and `!cmd` runs a local command")


def download_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    program = words[0].literal
    if program in OTHER_DOWNLOADERS:
        named_writes_guard(lambda cwd: other_download_paths(words, cwd), cwds, scope, v, "download")
        return
    found = aria2_paths(words) if program == "aria2c" else downloaded_paths(words)  # the same in every cwd
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
        if wget and text in _WGET_NO_OPTIONS:  # -nH, -nd …: one option, not -n and -H
            options[text] = ""
            continue
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
            if not wget and key in ("-o", "--output") and _GLOB_REFERENCE.search(value):
                options["#"] = value  # -o '#1': the name is what the URL's glob gives
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
        where = _wget_folders(options, parts)
        if where:  # -x: the URL's folders too (wget -x -nH https://h/.git/config writes .git/config)
            where = f"{folder.rstrip('/')}/{where}" if folder else where
        names.extend(_spellings(name + (f"?{parts.query}" if parts.query else ""), where or folder))
    return names


# wget's options spelled -n + a letter (one option each): -nH no host folder, -nd no folders …
_WGET_NO_OPTIONS = frozenset({"-nH", "-nd", "-nc", "-nv", "-np"})
_GLOB_REFERENCE = re.compile(r"#\d")


def _wget_folders(options: dict[str, str], parts: SplitResult) -> str:
    """The folders ``wget -x`` (``--force-directories``) makes for a URL: the host (not with
    ``-nH``), the scheme first with ``--protocol-directories``, then the URL's own folders less
    ``--cut-dirs=N`` of them; "" without ``-x`` or with ``-nd``."""
    if not options.keys() & {"-x", "--force-directories"} or options.keys() & {"-nd", "--no-directories"}:
        return ""
    folders = [f for f in parts.path.split("/")[1:-1] if f]
    try:
        cut = int(options.get("--cut-dirs", "0") or 0)
    except ValueError:
        cut = 0
    folders = folders[max(cut, 0):]
    if not options.keys() & {"-nH", "--no-host-directories"}:
        folders.insert(0, parts.netloc.rpartition("@")[2].replace(":", "+", 1) or "localhost")
    if "--protocol-directories" in options:
        folders.insert(0, parts.scheme)
    return "/".join(folders)


def _curl_names(options: dict[str, str], urls: list[str]) -> tuple[str | None, list[str]]:
    globbing = not options.keys() & {"-g", "--globoff"}
    if "#" in options and globbing and any(c in url for url in urls for c in "[]{}"):
        return f"curl -o {options['#']} takes the name it writes from the URL's glob, known only as it runs", []
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


_GDOWN_VALUE = frozenset({"-O", "--output", "--proxy", "--speed", "--format", "--user-agent"})
_HTTPIE_VALUE = frozenset({"-o", "--output", "-a", "--auth", "-A", "--auth-type", "-p", "--print", "-s", "--style",
                           "-P", "--history-print", "--session", "--session-read-only", "--cert", "--cert-key",
                           "--verify", "--proxy", "--timeout", "--max-redirects", "--max-headers",
                           "--response-charset", "--response-mime", "--format-options", "--pretty", "--ssl",
                           "--ciphers", "--boundary", "--default-scheme", "--unsorted", "--bearer"})
_AXEL_VALUE = frozenset({"-o", "--output", "-n", "--num-connections", "-s", "--max-speed", "-H", "--header",
                         "-U", "--user-agent", "-T", "--timeout"})
_YT_VALUE = frozenset({"-o", "--output", "-P", "--paths", "-a", "--batch-file", "-f", "--format", "-r",
                       "--limit-rate", "-R", "--retries", "--proxy", "--cookies", "--user-agent", "--referer",
                       "--add-header", "-u", "--username", "-p", "--password", "--exec", "--exec-before-download",
                       "--downloader", "--external-downloader", "--downloader-args", "--external-downloader-args",
                       "--postprocessor-args", "--ppa", "--use-postprocessor", "--config-locations",
                       "--plugin-dirs", "--output-na-placeholder", "--merge-output-format", "--audio-format",
                       "--sub-langs", "--sub-format", "--convert-subs", "--remux-video", "--recode-video"})
# yt-dlp's output types (-o 'thumbnail:%(title)s.%(ext)s') and path types (-P temp:DIR)
_YT_TYPES = frozenset({"subtitle", "thumbnail", "description", "annotation", "infojson", "link", "pl_thumbnail",
                       "pl_description", "pl_infojson", "chapter", "pl_video", "home", "temp"})
_FIELD = re.compile(r"%\([^)]*\)[^A-Za-z%]*[A-Za-z]")
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "._-")  # all a protected name is made of


_NAMING_FLAGS = frozenset({"--download", "--folder"})  # flags that decide how a downloader names files


def _long(key: str, valued: frozenset[str]) -> str:
    """An abbreviated long option as the one it begins (argparse and optparse take any
    unambiguous beginning: ``http --down``, ``yt-dlp --out``)."""
    return long_option_named(key, (*sorted(valued), *sorted(_NAMING_FLAGS)), 4) or key


def _options(args: Sequence[Word], valued: frozenset[str]) -> tuple[dict[str, list[str | None]], list[str | None]]:
    """``({option: [values]}, operands)``; a short cluster's letters are options (``-do F``: the
    last one takes the value), ``--opt=value`` and ``-oFILE`` carry theirs."""
    options: dict[str, list[str | None]] = {}
    operands: list[str | None] = []
    i = 0
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None or text[:1] != "-" or text == "-":
            operands.append(text)
            continue
        if text.startswith("--"):
            key, eq, value = text.partition("=")
            keys = [_long(key, valued)]
        else:
            keys, value, eq = [], "", ""
            for k, letter in enumerate(text[1:], start=1):
                keys.append("-" + letter)
                if "-" + letter in valued:
                    value, eq = text[k + 1:], "=" if text[k + 1:] else ""
                    break
        for key in keys[:-1]:
            options.setdefault(key, []).append("")
        key = keys[-1]
        if key in valued and not eq:
            options.setdefault(key, []).append(args[i].literal if i < len(args) else "")
            i += 1
        else:
            options.setdefault(key, []).append(value)
    return options, operands


def _given(options: dict[str, list[str | None]], *keys: str) -> list[str | None]:
    return [value for key in keys for value in options.get(key, ())]


def other_download_paths(words: Sequence[Word], cwd: str) -> tuple[str | None, list[str]]:
    """``(why it must ask, the files named by the URLs)`` for gdown, httpie/xh, axel and yt-dlp
    (a file an option names is checked as such by ``bash_option_writes``)."""
    program = words[0].literal or ""
    if program == "gdown":
        options, _urls = _options(words[1:], _GDOWN_VALUE)
        outputs = _given(options, "-O", "--output")
        if "--folder" in options:
            return "gdown --folder writes the names the Drive folder holds", []
        if not outputs:
            return "gdown writes the name Google Drive gives the file", []
        if None in outputs:
            return "gdown has a word only known at run time where it names the file it writes", []
        if any(o.endswith("/") or os.path.isdir(os.path.join(cwd, o)) for o in outputs if o is not None):
            return "gdown writes the name Google Drive gives the file into a folder", []
        return None, []
    if program in ("http", "https", "xh", "xhs"):
        options, _urls = _options(words[1:], _HTTPIE_VALUE)
        if not _given(options, "-d", "--download") or _given(options, "-o", "--output"):
            return None, []  # standard output, or the file -o names
        return f"{program} --download writes the name the server gives (Content-Disposition) or the URL's", []
    if program == "axel":
        options, urls = _options(words[1:], _AXEL_VALUE)
        outputs = _given(options, "-o", "--output")
        if None in outputs or None in urls:
            return "axel has a word only known at run time where it names the file it writes", []
        folder = next((o for o in outputs if o and os.path.isdir(os.path.join(cwd, o))), None)
        if outputs and folder is None:
            return None, []  # the file -o names
        try:
            names = [n for url in urls if url for n in _spellings(_url_name(url), folder or "")]
        except ValueError:
            return "axel has a URL this check cannot read", []
        return None, names
    if program == "oras":  # oras pull REF: each file of the artifact under the name it was pushed with
        first = next((w.literal for w in words[1:] if w.literal is None or w.literal[:1] != "-"), "")
        pulls = first in ("pull", None)
        return ("oras pull writes the names the artifact gives its files" if pulls else None), []
    return _yt_dlp_paths(words)


def _url_name(url: str) -> str:
    return urlsplit(url if "://" in url else "http://" + url).path.rsplit("/", 1)[-1] or "index.html"


def _yt_dlp_paths(words: Sequence[Word]) -> tuple[str | None, list[str]]:
    """yt-dlp names files after its output template (``-o``): fields such as ``%(title)s`` come
    from the video, so a folder or name made only of fields and name characters may come out as
    ``.git`` or ``.mcp.json``; the default template (``%(title)s [%(id)s].%(ext)s``) cannot."""
    program = words[0].literal
    options, _urls = _options(words[1:], _YT_VALUE)
    templates = _given(options, "-o", "--output")
    homes = [_untyped(p) for p in _given(options, "-P", "--paths")]
    if None in templates or None in homes:
        return f"{program} has a word only known at run time where it names the files it writes", []
    names: list[str] = []
    for template in (_untyped(t) or "" for t in templates):
        parts = template.split("/")
        if any("%(" in part and _may_be_any_name(part) for part in parts):
            return (f"{program} names what it writes after the video's fields ({template}): the server may "
                    "choose any name"), []
        if "%(" not in template:
            names += [os.path.join(home, template) if home else template for home in homes or [""]]
    return None, names


def _untyped(value: str | None) -> str | None:
    """``thumbnail:TEMPLATE``, ``temp:DIR`` without the type."""
    if value is None:
        return None
    kind, colon, rest = value.partition(":")
    return rest if colon and kind in _YT_TYPES else value


def _may_be_any_name(part: str) -> bool:
    """Whether a template path part with fields may come out as any name: its fixed text holds
    nothing but characters a protected name is made of."""
    fixed = _FIELD.sub("", part).replace("%%", "%")
    return all(c in _NAME_CHARS for c in fixed)


def _spellings(name: str, folder: str) -> list[str]:
    """The name as written and percent-decoded, under ``folder``."""
    out = []
    for spelled in dict.fromkeys((name, unquote(name))):
        out.append(f"{folder.rstrip('/')}/{spelled}" if folder else spelled)
    return out


__all__ = ["COMMAND_CLIENTS", "DOWNLOADERS", "aria2_paths", "command_client_reason", "download_guard",
           "downloaded_paths", "other_download_paths"]
