"""Static file servers: ``python -m http.server``, ``php -S``, ``ruby -run -e httpd``, ``busybox
httpd``, ``caddy file-server``, ``twistd web --path``, and the npm ones (``serve``,
``http-server``, ``live-server``, ``servor``, ``sirv``, ``static-server``, through ``npx`` too).

Such a server hands every file below its folder to whatever reaches its port — ``curl
localhost:8000/.env`` then prints a file a ``Read`` deny rule covers, so the server is a way
around the rule, as ``tar cf - .`` is.  ``served_folders`` names the folders a command serves;
the caller (``bash_arguments.serve_check``) asks, in every mode, when a Read deny rule covers a
file below one of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_readonly import operand_words
from .bash_words import Word

_NPM_SERVERS = frozenset({"serve", "http-server", "live-server", "servor", "sirv", "static-server", "lite-server"})
FILE_SERVERS = frozenset({"php", "ruby", "busybox", "httpd", "caddy", "twistd", *_NPM_SERVERS})
_PYTHON_SERVERS = ("http.server", "SimpleHTTPServer")
# the npm servers' options that take a value (any other option is read as a flag)
_NPM_VALUED = frozenset({"-p", "--port", "-a", "--address", "--host", "-l", "--listen", "-c", "--cache", "-e", "--ext",
                         "-C", "--cert", "-K", "--key", "-P", "--proxy", "--proxy-options", "-t", "--timeout",
                         "--username", "--password", "--config", "--ssl-cert", "--ssl-key", "--entry-file",
                         "--mount", "--watch", "--ignore", "--wait", "--middleware", "--htpasswd", "--browser"})
_RUBY_VALUED = frozenset({"-p", "--port", "-b", "--bind-address", "--max-clients", "--temp-dir", "--request-timeout",
                          "--http-version", "--ssl-certificate", "--ssl-private-key"})


def is_file_server(program: str) -> bool:
    """May ``program`` (a form's first word) serve a folder?  (Pythons by their name.)"""
    return program in FILE_SERVERS or program.startswith(("python", "pypy"))


def guesses_folder(words: Sequence[Word]) -> bool:
    """An npm server takes its folder as an operand, which may be something else: when none of
    its operands is a folder, it serves the current one."""
    return bool(words) and (words[0].literal or "").rpartition("/")[2] in _NPM_SERVERS


def served_folders(words: Sequence[Word]) -> list[str | None] | None:
    """The folders ``words`` (program first) serve, None when the command serves none; a folder
    only known at run time is None in the list; an npm server's folder is its first operand (see
    ``guesses_folder``)."""
    program = (words[0].literal or "").rpartition("/")[2] if words else ""
    args = list(words[1:])
    if program.startswith(("python", "pypy")):
        return _python(args)
    texts = [w.literal for w in args]
    if program == "php":
        if not any(t is not None and t.startswith("-S") for t in texts):
            return None
        return _value(args, "-t", "--docroot") or ["."]
    if program == "ruby":
        runs_un = any(t in ("-run", "-r") and (t == "-run" or (i + 1 < len(texts) and texts[i + 1] == "un"))
                      for i, t in enumerate(texts))
        httpd = any(t in ("-ehttpd", "-e") and (t == "-ehttpd" or (i + 1 < len(texts) and texts[i + 1] == "httpd"))
                    for i, t in enumerate(texts))
        if not (runs_un and httpd):
            return None
        start = next(i for i, t in enumerate(texts) if t in ("-ehttpd", "httpd")) + 1
        return _operands(args[start:], _RUBY_VALUED)[:1] or ["."]
    if program in ("busybox", "httpd"):  # busybox httpd (also as the applet's own name)
        if program == "busybox" and texts[:1] != ["httpd"]:
            return None
        return _value(args, "-h") or ["."]
    if program == "caddy":
        if texts[:1] != ["file-server"]:
            return None
        return _value(args[1:], "-r", "--root") or ["."]
    if program == "twistd":
        if "web" not in texts:
            return None
        return _value(args, "--path") or None
    if program in _NPM_SERVERS:
        return _operands(args, _NPM_VALUED) or ["."]
    return None


def _python(args: list[Word]) -> list[str | None] | None:
    """``python -m http.server [PORT] [--directory DIR]``: DIR, else the current folder."""
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None:
            return None
        if text == "-m" or (text.startswith("-m") and len(text) > 2):
            module = text[2:] or (args[i + 1].literal if i + 1 < len(args) else None)
            if module not in _PYTHON_SERVERS:
                return None
            rest = args[i + (1 if text[2:] else 2):]
            return _value(rest, "-d", "--directory") or ["."]
        if text[:1] != "-" or text in ("-c", "-") or text.startswith("-c"):
            return None  # a script or inline code runs, not a module
        i += 2 if text in ("-X", "-W") else 1  # (their value is the next word)
    return None


def _value(args: Sequence[Word], *names: str) -> list[str | None]:
    """The values given to the option ``names`` (``-d DIR``, ``--directory=DIR``, ``-dDIR``)."""
    found: list[str | None] = []
    for i, word in enumerate(args):
        text = word.literal
        if text is None:
            continue
        for name in names:
            if text == name:
                found.append(args[i + 1].literal if i + 1 < len(args) else None)
            elif name.startswith("--") and text.startswith(name + "="):
                found.append(text[len(name) + 1:])
            elif not name.startswith("--") and text.startswith(name) and len(text) > len(name):
                found.append(text[len(name):])
    return found


def _operands(args: Sequence[Word], valued: frozenset[str]) -> list[str | None]:
    """The operands (None: one only known at run time), the values of the options in ``valued``
    left out (``bash_readonly.operand_words``); ``-`` names no folder."""
    return [w.literal for w in operand_words(args, valued) if w.literal != "-"]


__all__ = ["FILE_SERVERS", "guesses_folder", "is_file_server", "served_folders"]
