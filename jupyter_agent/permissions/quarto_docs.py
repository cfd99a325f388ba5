"""The code cells ``quarto render`` (``preview``, ``publish``) runs, and a project's scripts.

``quarto render doc.qmd`` runs the document's executable cells (```` ```{python} ````, not the
display-only ```` ```python ```` or ```` ```{.python} ````) through an engine: the one the front
matter names (``engine:``, a ``jupyter:`` or ``knitr:`` key), else knitr when a cell is ``{r}``,
else Jupyter.  A Jupyter kernel's cells in its language are read as a notebook's
(``notebook_runs``: a Python kernel's as IPython reads them, so ``!rm -rf x`` runs); cells in a
shell language (``{bash}``, ``{sh}``) are shell code under either engine (knitr runs them with
bash); any other cell is a program, as a ``.py`` file is.  ``#| eval: false`` (``{bash,
eval=FALSE}``) keeps a cell from running, ``execute: eval: false`` a document, ``--no-execute``
all.  ``{{< include f.qmd >}}`` brings another file's cells in.  A notebook (``.ipynb``) runs only
with ``--execute`` or ``execute: enabled: true``; a script (``.py``, ``.R``) rendered as a notebook
is code only known at run time.

The cells run in the document's folder, or the project's (``execute-dir: project``,
``--execute-dir``).  A folder, or no input, renders the project: each document below it (names
starting ``_`` or ``.`` skipped; a ``project: render:`` list is not narrowed to).  The project's
``pre-render``/``post-render`` entries (of ``_quarto.yml`` and each ``_quarto-PROFILE.yml``) run in
its folder around any render in it: a ``.py`` with Python, a ``.R`` with Rscript, anything else
as a command.  ``publish --no-render`` and ``--help`` render nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from .bash_analysis import CommandInfo
from .bash_words import Word
from .notebook_runs import _code_in, _kernel_command, _language_of, _notebooks, _text
from .paths import nearest_holding
from .script_files import (
    NotKnown,
    Script,
    front_matter,
    mapping_file,
    options_of,
    parsed_file,
    per_form,
    scripts_of_forms,
    walk_bounded,
)

QUARTOS = frozenset({"quarto"})
_PROJECT = ("_quarto.yml", "_quarto.yaml")
_DOCUMENTS = (".qmd", ".md", ".markdown", ".rmd", ".ipynb")
_SCRIPTS = (".py", ".r", ".jl")
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})[ \t]*\{[ \t]*([A-Za-z][\w+-]*)([^}]*)\}[ \t]*$")
_INCLUDE = re.compile(r"\{\{<\s*include\s+(\S+?)\s*>\}\}")
_SHELLS = frozenset({"bash", "sh", "zsh", "shell"})
_MAX_FILES = 500
_MAX_WALK = 20_000
_MAX_INCLUDES = 16
_VALUES = frozenset({"-t", "--to", "-o", "--output", "--output-dir", "-M", "--metadata", "--metadata-file",
                     "--site-url", "-P", "--execute-param", "--execute-params", "--execute-dir", "--execute-daemon",
                     "--log", "--log-level", "--log-format", "--profile", "--port", "--host", "--render",
                     "--timeout", "--browser-path", "--id", "--server", "--token"})
_FLAGS = frozenset({"--execute", "--no-execute", "--execute-daemon-restart", "--execute-debug", "--use-freezer",
                    "--cache", "--no-cache", "--cache-refresh", "--no-clean", "--debug", "--quiet", "--no-browser",
                    "--no-serve", "--no-watch-inputs", "--no-navigate", "--no-render", "--no-prompt",
                    "--no-browse", "-h", "--help"})
_PROVIDERS = frozenset({"quarto-pub", "gh-pages", "netlify", "confluence", "connect", "posit-cloud", "posit-connect",
                        "huggingface", "rsconnect"})


def quarto_scripts(info: CommandInfo, cwds: list[str], memo: dict[tuple[object, ...], object]) -> list[Script]:
    """The code ``quarto render`` of this command runs (every form: ``uv run quarto render``)."""
    return scripts_of_forms(info, cwds, memo, QUARTOS, _READ, per_folder=True)


def _of_form(form: tuple[Word, ...], cwd: str, cwd_unknown: bool) -> list[Script]:
    words = form[1:]
    command = words[0].literal if words else None
    if command not in ("render", "preview", "publish"):
        if words and command is None:
            raise NotKnown("the quarto command is only known at run time")
        return []  # quarto check, quarto convert, quarto run (a program) …
    flags, values, inputs = _options(words[1:])
    if flags & {"-h", "--help", "--no-render"}:
        return []
    if command == "publish" and inputs and inputs[0].literal in _PROVIDERS:
        inputs = inputs[1:]
    if cwd_unknown:
        raise NotKnown("quarto runs in a folder only known at run time")
    if inputs:
        target = inputs[0]
        if target.literal is None:
            raise NotKnown(f"{target.text} is a document only known at run time")
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(target.literal)))
    else:
        path = cwd
    run = _Render(flags, values, cwd)
    project = nearest_holding(path if os.path.isdir(path) else os.path.dirname(path), _PROJECT)
    found = run.project_scripts(project) if project else []
    if os.path.isdir(path):
        return found + [s for doc in _documents(path) for s in run.document(doc, project, doc)]
    if not os.path.exists(path):
        return found + [Script(target.text, path, missing=True)]
    return found + run.document(path, project, target.text)


_READ = per_form("the code quarto runs", _of_form)


def _options(words: tuple[Word, ...]) -> tuple[set[str], dict[str, str], list[Word]]:
    flags: set[str] = set()
    values: dict[str, str] = {}
    inputs: list[Word] = []
    for option, value, word in options_of(words, _VALUES, "quarto"):
        if not option:
            if word.literal is None and not inputs:
                raise NotKnown(f"{word.text} is only known at run time")
            inputs.append(word)  # after the input: pandoc's arguments
        elif option in _FLAGS:
            flags.add(option)
        elif option in _VALUES:
            values[option] = value or ""
        elif not inputs:  # a pandoc option before the input: it may take a value (the input?)
            raise NotKnown(f"quarto {option} is an option this does not know")
    return flags, values, inputs


def _project_config(project: str) -> list[tuple[str, dict[str, Any]]]:
    """``_quarto.yml`` and each profile's ``_quarto-NAME.yml`` (a profile may add scripts)."""
    names = [n for n in _PROJECT if os.path.isfile(os.path.join(project, n))]
    names += sorted(n for n in os.listdir(project) if re.fullmatch(r"_quarto-[^/]+\.ya?ml", n))
    return [(os.path.join(project, n), mapping_file(os.path.join(project, n)) or {}) for n in names]


def _documents(folder: str) -> list[str]:
    found: list[str] = []
    for where, dirs, files in walk_bounded(folder, "the documents quarto renders", _MAX_WALK):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")) and d not in ("node_modules", "renv"))
        found += [os.path.join(where, f) for f in sorted(files)
                  if not f.startswith(("_", ".")) and f.lower().endswith(_DOCUMENTS)]
        if len(found) > _MAX_FILES:
            raise NotKnown(f"{folder} has more than {_MAX_FILES} documents")
    return found


class _Render:
    def __init__(self, flags: set[str], values: dict[str, str], cwd: str) -> None:
        self.execute = "--execute" in flags
        self.no_execute = "--no-execute" in flags
        given = values.get("--execute-dir")
        self.execute_dir = os.path.realpath(os.path.join(cwd, given)) if given else None
        self.project_execute: dict[str, Any] = {}
        self.project_dir_is_cwd = False

    def project_scripts(self, project: str) -> list[Script]:
        found = []
        for path, config in _project_config(project):
            settings = config.get("project") or {}
            if not isinstance(settings, dict):
                raise NotKnown(f"{path}: its project settings are not a mapping")
            if path.endswith(_PROJECT):
                self.project_dir_is_cwd = settings.get("execute-dir") == "project"
                execute = config.get("execute")
                self.project_execute = execute if isinstance(execute, dict) else {}
            lines = []
            for key in ("pre-render", "post-render"):
                entries = settings.get(key) or []
                for entry in [entries] if isinstance(entries, str) else entries:
                    if not isinstance(entry, str):
                        raise NotKnown(f"{path}: a {key} entry is not text")
                    lines.append(_script_command(entry))
            if lines:
                found.append(Script(f"the pre-render and post-render scripts of {path}", path,
                                    code="\n".join(lines), cwd=project))
        return found

    def document(self, path: str, project: str | None, shown: str) -> list[Script]:
        if self.no_execute:
            return []
        where = self.execute_dir or (project if project and self.project_dir_is_cwd else None)
        lower = path.lower()
        if lower.endswith(".ipynb"):
            if not (self.execute or self.project_execute.get("enabled") is True or _notebook_enabled(path)):
                return []
            return _notebooks(Word(text=path), os.path.dirname(path), False, where, parent_is_cwd=where is None)
        if lower.endswith(_SCRIPTS):
            raise NotKnown(f"quarto renders the script {path} as a notebook")
        if not lower.endswith(_DOCUMENTS):
            return []
        text = _read_text(path)
        meta = _front_matter(text, path)
        cells = _cells(text, path, 0)
        code, kernel = self._code(meta, cells, lower.endswith(".rmd"))
        if code is None:
            return []
        # (a document whose chunks run but hold no shell code still counts: its chunks' strings, bash.py)
        found = [Script(shown, path, code=code, cwd=where or os.path.dirname(path))]
        if kernel is not None:  # the Jupyter engine starts the kernel: its spec's argv
            found += _kernel_command(None, kernel, where or os.path.dirname(path))
        return found

    def _code(self, meta: dict[str, Any], cells: list[tuple[str, str, bool | None]], rmd: bool
              ) -> tuple[str | None, str | None]:
        """The shell code the document's chunks run ("" for none; None when no chunk runs), and the
        Jupyter kernel that runs them (None under another engine)."""
        own = meta.get("execute")
        execute: dict[str, Any] = {**self.project_execute, **(own if isinstance(own, dict) else {})}
        if execute.get("enabled") is False:
            return None, None
        default_eval = execute.get("eval") is not False
        run = [(lang, source) for lang, source, eval_ in cells if (default_eval if eval_ is None else eval_)]
        if not run:
            return None, None
        engine = meta.get("engine")
        if not isinstance(engine, str):
            langs = {lang.lower() for lang, _source, _eval in cells}
            engine = ("jupyter" if "jupyter" in meta else "knitr" if "knitr" in meta or rmd or "r" in langs
                      else "jupyter" if cells else "markdown")
        parts = ["\n".join(source for lang, source in run if lang.lower() in _SHELLS)]
        kernel = None
        if engine == "jupyter":
            kernel = _kernel_name(meta.get("jupyter")) or "python3"
            language = _language_of(None, _kernel_name(meta.get("jupyter")))
            sources = [source for lang, source in run if lang.lower() == language]
            if language is not None and language not in _SHELLS and sources:
                parts.append(_code_in(language, sources) or "")
        return "\n".join(p for p in parts if p.strip()), kernel


def _script_command(entry: str) -> str:
    """The command quarto runs for a pre-render or post-render entry."""
    try:
        first = shlex.split(entry)[:1]
    except ValueError:
        return entry
    name = first[0].lower() if first else ""
    if name.endswith(".py"):
        return f"python3 {entry}"
    if name.endswith(".r"):
        return f"Rscript {entry}"
    return entry  # .ts, .lua: quarto's own deno or pandoc (programs); else the command itself


def _kernel_name(jupyter: object) -> str:
    if isinstance(jupyter, str):
        return jupyter
    if isinstance(jupyter, dict):
        spec = jupyter.get("kernelspec")
        name = spec.get("name") if isinstance(spec, dict) else jupyter.get("kernel")
        if isinstance(name, str):
            return name
    return "python3"  # the kernel Quarto picks for Python cells (another language's: a program)


def _read_text(path: str) -> str:
    loaded, why = parsed_file(path, _text)
    if loaded is None:
        raise NotKnown(f"{path} could not be read ({why or 'no such file'})")
    return str(loaded)


def _front_matter(text: str, path: str) -> dict[str, Any]:
    try:
        return front_matter(text) or {}
    except ValueError as exc:
        raise NotKnown(f"{path}: its front matter {exc}") from None


def _cells(text: str, path: str, depth: int) -> list[tuple[str, str, bool | None]]:
    """``(language, source, eval)`` of each executable cell, included files' in place (eval: the
    cell's own ``eval`` option, None when it has none)."""
    out: list[tuple[str, str, bool | None]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            for name in _INCLUDE.findall(lines[i]):
                if depth >= _MAX_INCLUDES:
                    raise NotKnown(f"{path} includes files too deeply to follow")
                included = os.path.realpath(os.path.join(os.path.dirname(path), name))
                out += _cells(_read_text(included), included, depth + 1)
            i += 1
            continue
        indent, fence, language, header = match.groups()
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.fullmatch(rf"[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        out.append((language, "\n".join(body), _eval_of(header, body)))
    return out


def chunk_sources(data: bytes) -> list[str]:
    """The sources of a Quarto or R Markdown document's code chunks (any language; included files
    not followed): the code its engine runs, whose strings ``code_files`` reads."""
    text = _INCLUDE.sub("", data.decode("utf-8", "replace"))
    return [source for _language, source, _eval in _cells(text, "", 0)]


def _eval_of(header: str, body: list[str]) -> bool | None:
    setting = re.search(r"\beval\s*=\s*(\w+)", header)
    if setting is not None:
        return setting.group(1).upper() not in ("FALSE", "F")
    for line in body:
        if not line.startswith("#|"):
            break
        option = re.fullmatch(r"#\|\s*eval:\s*(\S+)\s*", line)
        if option is not None:
            return option.group(1).lower() not in ("false", "no", "off")
    return None


def _notebook_enabled(path: str) -> bool:
    """Whether a notebook may enable its own execution (its front matter, a raw cell's
    ``execute: enabled: true``): any ``enabled: true`` in it counts (more runs, never fewer)."""
    loaded, _why = parsed_file(path, _text)
    if not isinstance(loaded, str):
        return False
    return bool(re.search(r"enabled\"?\s*:\s*true", loaded))


__all__ = ["chunk_sources", "QUARTOS", "quarto_scripts"]
