"""What the notebook tools write under names their command lines never spell, and what they run.

``jupyter nbconvert --to script nb.ipynb`` writes ``nb.py`` (the kernel's language decides the
extension), ``--to markdown`` also a ``nb_files/`` folder, ``--to notebook`` ``nb.nbconvert.ipynb``,
``--output x`` ``x.py``; ``jupytext --to py:percent nb.ipynb`` writes ``nb.py``,
``--to scripts//py`` ``scripts/nb.py``, and ``--sync`` every file the notebook is paired with.
A rule that allows the tool (``Bash(jupytext:*)``) does not lift an ``Edit`` deny rule on what it
writes, so these names are checked like ``curl -o F``.  Where the name cannot be told from the
line and the files it names (a custom exporter, a pairing from a configuration file, a
notebook that cannot be read), the target is :data:`UNKNOWN`, which asks.

``jupytext --pipe CMD`` and ``--check CMD`` run CMD (split as ``shlex`` does, ``{}`` a file
beside the notebook), and ``nbqa CMD …`` runs CMD on the notebooks: a command of the line that
must be allowed on its own, as after ``xargs``.  The naming follows nbconvert 7 and jupytext 1.16+,
checked against the real tools in ``tests/permissions/test_notebook_tools.py``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Sequence
from functools import lru_cache

from .bash_words import Word, make_word
from .paths import open_regular, open_regular_text

Target = tuple[Word, bool]  # (what is written, whether everything below it is)
UNKNOWN = Word("<a file the notebook tool names at run time>", static=False)
_MAX_NOTEBOOK = 50 * 1024 * 1024  # read larger notebooks? no: their target is UNKNOWN

# nbconvert's exporters: the extension each writes (None: the kernel's language decides)
_NBCONVERT_EXTENSIONS: dict[str, str | None] = {
    "html": ".html", "slides": ".slides.html", "latex": ".tex", "pdf": ".pdf", "webpdf": ".pdf",
    "qtpdf": ".pdf", "qtpng": ".png", "markdown": ".md", "rst": ".rst", "asciidoc": ".asciidoc",
    "python": ".py", "notebook": ".ipynb", "script": None,
}
_NBCONVERT_FILES = frozenset({"markdown", "rst", "latex", "asciidoc"})  # and NAME_files/ for images
_NBCONVERT_VALUES = frozenset({"--to", "--template", "--template-file", "--output", "--output-dir", "--writer",
                               "--post", "--reveal-prefix", "--nbformat", "--config", "--log-level"})
# traitlets classes whose settings move or rename what nbconvert writes
_NBCONVERT_NAMING = re.compile(r"--(NbConvertApp|FilesWriter|WriterBase|JupyterApp|Application)\.", re.IGNORECASE)


def nbconvert_outputs(args: Sequence[Word], cwd: str | None) -> list[Target]:
    """The files ``jupyter nbconvert ARGS`` writes (``args`` after ``nbconvert``)."""
    texts = [w.literal for w in args]
    if any(t in ("--stdout", "--help", "-h", "--help-all", "--version") for t in texts):
        return []
    if any(t is not None and (_NBCONVERT_NAMING.match(t) or t in ("--writer", "--stdin") or t.startswith("--writer="))
           for t in texts):
        return [(UNKNOWN, False)]
    options: dict[str, Word] = {}
    notebooks: list[Word] = []
    i = 0
    while i < len(args):
        word, text = args[i], texts[i]
        i += 1
        if text is None:
            notebooks.append(word)  # a notebook named at run time, or an option we cannot read
        elif text.startswith("--") and "=" in text:
            options[text.split("=", 1)[0]] = make_word(text.split("=", 1)[1])
        elif text in _NBCONVERT_VALUES or (text.startswith("--") and "." in text):  # --Class.trait VALUE
            if i < len(args):
                options[text] = args[i]
            i += 1
        elif text[:1] != "-":
            notebooks.append(word)
    in_place = "--inplace" in texts or "--clear-output" in texts
    to = (options.get("--to") or options.get("--NbConvertApp.export_format") or make_word("html"))
    exporter = "notebook" if in_place else (to.literal or "").lower()
    if exporter not in _NBCONVERT_EXTENSIONS:
        return [(UNKNOWN, False)]  # an exporter from a package, or one named at run time
    folder = options.get("--output-dir")
    name = options.get("--output")
    found: list[Target] = []
    for notebook in notebooks:
        if notebook.literal is None or any(c in notebook.literal for c in "*?["):  # nbconvert globs its arguments
            return [(UNKNOWN, False)]
        path = notebook.literal
        extension = _NBCONVERT_EXTENSIONS[exporter] or _script_extension(path, cwd)
        where = folder.literal if folder is not None else os.path.dirname(path)
        if extension is None or where is None or (name is not None and name.literal is None):
            return [(UNKNOWN, False)]
        if in_place:
            found.append((notebook, False))
            continue
        if name is not None:
            base = name.literal or ""
        else:
            base = os.path.splitext(os.path.basename(path))[0] + (".nbconvert" if exporter == "notebook" else "")
        found.append((make_word(os.path.join(where, base + extension)), False))
        if name is not None and base.endswith(extension):  # --output x.py: nbconvert 7 writes x.py.py; others x.py
            found.append((make_word(os.path.join(where, base)), False))
        if exporter in _NBCONVERT_FILES:
            found.append((make_word(os.path.join(where, base + "_files")), True))
    return found


def _script_extension(path: str, cwd: str | None) -> str | None:
    """What ``--to script`` writes: ``.py`` for a Python kernel, else the language's
    ``file_extension`` (``.txt`` when it has none); None when the notebook cannot be read."""
    metadata = _notebook_metadata(path, cwd)
    if metadata is None:
        return None
    info = metadata.get("language_info")
    info = info if isinstance(info, dict) else {}
    exporter = info.get("nbconvert_exporter")
    if exporter == "python":
        return ".py"
    if exporter not in (None, "", "script"):
        return None  # another exporter, with its own extension
    extension = info.get("file_extension", ".txt")
    return extension if isinstance(extension, str) and "/" not in extension and "\0" not in extension else None


def _full_path(path: str, cwd: str | None) -> str | None:
    """``path`` (``~`` expanded) from ``cwd``; None when that does not give an absolute path."""
    full = os.path.join(cwd, os.path.expanduser(path)) if cwd is not None else os.path.expanduser(path)
    return full if os.path.isabs(full) else None


def _notebook_metadata(path: str, cwd: str | None) -> dict | None:
    """A notebook's metadata, read once per version of the file (``--sync`` with an ``auto``
    format asks twice); None when it cannot be read or is too large."""
    full = _full_path(path, cwd)
    if full is None:
        return None
    try:
        stat = os.stat(full)
    except OSError:
        return None
    if stat.st_size > _MAX_NOTEBOOK:
        return None
    # ctime and the inode too: a rewrite with the size and mtime put back (touch -d) is a new version
    return _read_metadata(full, (stat.st_ino, stat.st_ctime_ns, stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=8)
def _read_metadata(full: str, _version: tuple[int, int, int, int]) -> dict | None:
    try:
        with open_regular(full) as handle:
            notebook = json.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return None
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    return metadata if isinstance(metadata, dict) else None


# jupytext
_JUPYTEXT_VALUES = frozenset({"--from", "--to", "-o", "--output", "--set-formats", "--format-options", "--opt",
                              "--update-metadata", "--diff-format", "--pipe", "--check", "--pipe-fmt", "--set-kernel",
                              "-k", "--run-path"})
_JUPYTEXT_EXTENSIONS = {"notebook": ".ipynb", "ipynb": ".ipynb", "markdown": ".md", "md": ".md", "myst": ".md",
                        "rmarkdown": ".Rmd", "quarto": ".qmd"}
_JUPYTEXT_CONFIGS = tuple(
    dot + name for name in ("jupytext", "jupytext.toml", "jupytext.yml", "jupytext.yaml", "jupytext.json",
                            "jupytext.json5", "jupytext.py") for dot in ("", ".")
)
_FORMATS_LINE = re.compile(r"^\W*formats:\s*['\"]?([^'\"\s]+)", re.MULTILINE)


def jupytext_parts(args: Sequence[Word]) -> tuple[dict[str, list[Word]], list[Word], set[str]]:
    """``jupytext`` ARGS as (option → values, notebooks, flags); argparse's abbreviations of the
    long options (``--pip`` is ambiguous, ``--se`` is too) are read as the option they start."""
    options: dict[str, list[Word]] = {}
    notebooks: list[Word] = []
    flags: set[str] = set()
    i = 0
    while i < len(args):
        word, text = args[i], args[i].literal
        i += 1
        if text is None or text[:1] != "-" or text == "-":
            notebooks.append(word)
            continue
        name, equals, value = text.partition("=")
        if not name.startswith("--") and len(name) > 2:  # -oOUT, -kpython3
            name, equals, value = name[:2], "=", text[2:]
        name = _jupytext_long(name)
        if name in _JUPYTEXT_VALUES:
            if equals:
                options.setdefault(name, []).append(make_word(value))
            elif i < len(args):
                options.setdefault(name, []).append(args[i])
                i += 1
        else:
            flags.add(name)
    return options, notebooks, flags


_JUPYTEXT_LONG = ("--from", "--to", "--output", "--update", "--set-formats", "--sync", "--paired-paths",
                  "--format-options", "--opt", "--update-metadata", "--use-source-timestamp",
                  "--check-source-is-newer", "--warn-only", "--test", "--test-strict", "--stop", "--pipe", "--diff",
                  "--diff-format", "--check", "--pipe-fmt", "--set-kernel", "--execute", "--run-path", "--quiet",
                  "--show-changes", "--version", "--pre-commit", "--pre-commit-mode", "--help")


_JUPYTEXT_SHORT = {"-o": "--output", "-k": "--set-kernel", "-s": "--sync", "-p": "--paired-paths",
                   "-w": "--warn-only", "-x": "--stop", "-d": "--diff", "-q": "--quiet", "-v": "--version",
                   "-h": "--help"}


def _jupytext_long(name: str) -> str:
    """The long option a short one or an abbreviation names (argparse takes a unique prefix)."""
    if name in _JUPYTEXT_SHORT:
        return _JUPYTEXT_SHORT[name]
    if not name.startswith("--") or name in _JUPYTEXT_LONG:
        return name
    matches = [option for option in _JUPYTEXT_LONG if option.startswith(name)]
    return matches[0] if len(matches) == 1 else name


def jupytext_commands(args: Sequence[Word]) -> list[list[str | None]]:
    """The commands ``--pipe``/``--check`` run (None: a word only known at run time)."""
    options, notebooks, _flags = jupytext_parts(args)
    beside = notebooks[0].literal if len(notebooks) == 1 else None
    placeholder = os.path.join(os.path.dirname(beside), "jupytext-pipe.py") if beside else None
    found: list[list[str | None]] = []
    for value in options.get("--pipe", []) + options.get("--check", []):
        if value.literal is None:
            found.append([None])
            continue
        try:
            words: list[str | None] = list(shlex.split(value.literal))
        except ValueError:
            found.append([None])
            continue
        if words in (["black"], ["flake8"], ["autopep8"]):
            words.append("-")
        elif words in (["pytest"], ["unittest"]):
            words.append("{}")
        found.append([placeholder if w == "{}" else w for w in words])
    return found


def jupytext_outputs(args: Sequence[Word], cwd: str | None) -> list[Target]:
    """The files ``jupytext ARGS`` writes beyond the notebooks it names (which the caller
    already treats as written): ``--to``'s conversions and the files ``--sync``/``--set-formats``
    pair with each notebook."""
    options, notebooks, flags = jupytext_parts(args)
    if flags & {"--help", "--version", "--paired-paths", "--test", "--test-strict", "--diff"}:
        return []
    if "--pre-commit" in flags:
        return [(UNKNOWN, False)]  # the notebooks in git's index, not the ones named
    found: list[Target] = [(w, False) for w in options.get("--output", []) if w.literal != "-"]
    formats: list[Word] = [] if options.get("--output") else options.get("--to", [])
    for value in options.get("--set-formats", []):
        formats.extend(make_word(f) for f in (value.literal or "\0").split(","))
    for notebook in notebooks:
        if notebook.literal is None or notebook.literal == "-":
            if formats or "--sync" in flags:
                return [(UNKNOWN, False)]
            continue
        paired = list(formats)
        if "--sync" in flags and not options.get("--set-formats"):
            pairing = _paired_formats(notebook.literal, cwd)
            if pairing is None:
                return [(UNKNOWN, False)]
            paired.extend(make_word(f) for f in pairing)
        for fmt in paired:
            path = _jupytext_path(notebook.literal, fmt.literal, cwd)
            if path is None:
                return [(UNKNOWN, False)]
            found.append((make_word(path), False))
    return found


def _jupytext_path(notebook: str, fmt: str | None, cwd: str | None) -> str | None:
    """``nb.ipynb`` in the format ``fmt`` (``py:percent``, ``.pct.py``, ``_x.py``, ``scripts//py``)."""
    if fmt is None or "\0" in fmt:
        return None
    spec = fmt.split(":", 1)[0]
    folder, base = os.path.split(notebook)
    stem = os.path.splitext(base)[0]
    if "/" in spec:
        prefix, separator, spec = spec.rpartition("//")
        if not separator or "/" in spec or prefix.endswith("/") or "//" in prefix:
            return None  # '///' (pairing by a folder in the path) or a prefix of another shape
        folder = os.path.join(folder, prefix)
    if spec in ("auto", "script", ".auto"):
        extension = _auto_extension(notebook, cwd) if notebook.endswith(".ipynb") else os.path.splitext(notebook)[1]
        if not extension:
            return None
        suffix = ""
    elif "." in spec.lstrip(".") or spec.startswith("."):
        dot = spec.rfind(".")
        suffix, extension = spec[:dot], spec[dot:]
        extension = _JUPYTEXT_EXTENSIONS.get(extension[1:].lower(), extension)
    else:
        suffix, extension = "", _JUPYTEXT_EXTENSIONS.get(spec.lower(), "." + spec)
    if not extension[1:] or "/" in extension:
        return None
    return os.path.join(folder, stem + suffix + extension)


_AUTO_RENAMED = {".r": ".R", ".fs": ".fsx", ".resource": ".robot", ".C": ".cpp"}


def _auto_extension(notebook: str, cwd: str | None) -> str | None:
    """jupytext's ``auto``: the language's ``file_extension``, as jupytext renames some (``.r`` is
    ``.R``); None without one (jupytext then guesses from the kernel's language)."""
    metadata = _notebook_metadata(notebook, cwd)
    info = metadata.get("language_info") if metadata is not None else None
    extension = info.get("file_extension") if isinstance(info, dict) else None
    if not isinstance(extension, str) or "/" in extension or "\0" in extension or not extension.startswith("."):
        return None
    kernel = metadata.get("kernelspec") if metadata is not None else None
    if extension == ".py" and isinstance(kernel, dict) and kernel.get("language") == "sage":
        return ".sage"
    return _AUTO_RENAMED.get(extension, extension)


def _paired_formats(notebook: str, cwd: str | None) -> list[str] | None:
    """The formats a notebook is paired with, from its own metadata (a ``.ipynb``) or header (a
    text notebook); None when a jupytext configuration file may pair it with others."""
    full = _full_path(notebook, cwd)
    if full is None or _config_near(os.path.dirname(os.path.normpath(full))):
        return None
    if notebook.endswith(".ipynb"):
        metadata = _notebook_metadata(notebook, cwd)
        if metadata is None:
            return None
        jupytext = metadata.get("jupytext")
        formats = jupytext.get("formats", "") if isinstance(jupytext, dict) else ""
    else:
        try:
            with open_regular_text(full, encoding="utf-8", errors="replace") as handle:
                head = handle.read(64 * 1024)
        except OSError:
            return None
        match = _FORMATS_LINE.search(head)
        formats = match.group(1) if match else ""
    if not isinstance(formats, str):
        return None
    return [f for f in formats.split(",") if f]


def _config_near(folder: str) -> bool:
    """Whether a jupytext configuration file lies in ``folder``, a folder above it, or the
    user's configuration folders (it may pair every notebook with a script)."""
    home = os.path.expanduser("~")
    places = [os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "jupytext"),
              os.path.join(home, ".config"), home]
    current = folder
    while True:
        places.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for place in places:
        if any(os.path.exists(os.path.join(place, name)) for name in _JUPYTEXT_CONFIGS):
            return True
        pyproject = os.path.join(place, "pyproject.toml")
        try:
            with open_regular_text(pyproject, encoding="utf-8", errors="replace") as handle:
                if "[tool.jupytext" in handle.read(1024 * 1024):
                    return True
        except OSError:
            continue
    return False


def nbqa_command(args: Sequence[Word]) -> list[str | None] | None:
    """``nbqa CMD NOTEBOOKS… ARGS``: what it runs (``CMD NOTEBOOKS… ARGS`` without nbqa's own
    ``--nbqa-*`` options); None when nothing runs (``--version``)."""
    rest = [w for w in args if not (w.literal or "").startswith("--nbqa-")]
    if not rest or rest[0].literal in ("--version", "-h", "--help"):
        return None
    head = rest[0].literal
    try:
        command: list[str | None] = list(shlex.split(head)) if head is not None else [None]
    except ValueError:
        command = [None]
    return command + [w.literal for w in rest[1:]]
