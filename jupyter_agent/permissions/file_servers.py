"""Static file servers: ``python -m http.server``, ``php -S``, ``ruby -run -e httpd``, ``busybox
httpd``, ``caddy file-server``, ``twistd web --path``, and the npm ones (``serve``,
``http-server``, ``live-server``, ``servor``, ``sirv``, ``static-server``, through ``npx`` too),
``miniserve``, ``dufs``, ``darkhttpd``, ``simple-http-server``, ``static-web-server``, ``webfsd``,
``updog``, ``python -m uploadserver``, and Jupyter's own servers (``jupyter lab|notebook|server``:
``/files/.env`` to whoever holds the token they print).

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
# the other folder servers (`miniserve .`, `dufs .`, `darkhttpd .`, …): name -> (the options
# that name the folder, the options that take a value, whether an operand names it, the folder
# without either: None when they need one)
_JUPYTER_FOLDER = ("--notebook-dir", "--ServerApp.root_dir", "--NotebookApp.notebook_dir", "--root-dir")
_FOLDER_SERVERS: dict[str, tuple[tuple[str, ...], frozenset[str], bool, str | None]] = {
    "miniserve": ((), frozenset({"-p", "--port", "-i", "--interfaces", "-a", "--auth", "-c", "--color-scheme",
                                 "--index", "--route-prefix", "--title", "--header", "-t"}), True, "."),
    "dufs": (("--serve-path",), frozenset({"-p", "--port", "-b", "--bind", "-a", "--auth", "--config",
                                           "--path-prefix", "--hidden", "--assets", "--log-format"}), True, "."),
    "darkhttpd": ((), frozenset({"--port", "--addr", "--maxconn", "--log", "--chroot", "--index", "--mimetypes",
                                 "--default-mimetype", "--uid", "--gid", "--pidfile", "--auth", "--header"}), True, None),
    "simple-http-server": ((), frozenset({"-p", "--port", "-i", "--ip", "-t", "--threads", "--cert", "--certpass",
                                          "-a", "--auth", "--redirect", "--compress", "-l", "--log"}), True, "."),
    "static-web-server": (("-d", "--root"), frozenset(), False, "./public"),
    "webfsd": (("-r",), frozenset(), False, "."),
    "updog": (("-d", "--directory"), frozenset(), False, "."),
    # Jupyter's servers hand out any file below their root (/files/PATH) to whoever has the token,
    # which they print to the agent; an option's value may look like a folder operand (--ip
    # 0.0.0.0): every operand is given, guesses_folder takes the current folder when none is one
    **{name: (_JUPYTER_FOLDER, frozenset(), True, ".")
       for name in ("jupyter-lab", "jupyter-notebook", "jupyter-server", "jupyter-nbclassic")},
}
_JUPYTER_SERVERS = frozenset({"lab", "notebook", "server", "nbclassic"})
FILE_SERVERS = frozenset({"php", "ruby", "busybox", "httpd", "caddy", "twistd", "jupyter", *_NPM_SERVERS,
                          *_FOLDER_SERVERS})
_PYTHON_SERVERS = ("http.server", "SimpleHTTPServer", "uploadserver")
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
    """An npm server (or Jupyter's) takes its folder as an operand, which may be something else:
    when none of its operands is a folder, it serves the current one."""
    program = (words[0].literal or "").rpartition("/")[2] if words else ""
    return program in _NPM_SERVERS or program.startswith("jupyter")


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
    if program == "jupyter":  # jupyter lab|notebook|server …
        if not texts or texts[0] not in _JUPYTER_SERVERS or any(t in ("--version", "-h", "--help", "list", "stop")
                                                                  for t in texts[1:2]):
            return None
        program, args = f"jupyter-{texts[0]}", args[1:]
    if program in _FOLDER_SERVERS:
        options, valued, by_operand, default = _FOLDER_SERVERS[program]
        named = _value(args, *options) if options else []
        operands = _operands(args, valued) if by_operand else []
        if program.startswith("jupyter"):  # jupyter notebook x.ipynb serves the current folder
            operands = [t for t in operands if t is None or not t.endswith(".ipynb")]
        return named or operands or ([default] if default else None)
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
