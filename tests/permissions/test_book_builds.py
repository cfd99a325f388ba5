"""The notebooks a Jupyter Book or MyST build runs (``permissions/book_builds.py``).

Session 34's probe: with ``Bash(jupyter-book:*)`` allowed (or in bypassPermissions) and
``Bash(rm:*)`` denied, ``jupyter-book build book`` ran a notebook's ``!rm -rf data``.  Which
notebooks a build runs, and where, is checked against a real Jupyter Book 1 below.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.book_builds import book_scripts
from tests.permissions.tools import decide_bash, make_ctx

MYST = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---
# M

```{{code-cell}} ipython3
:tags: [hide-input]
{source}
```
"""


def _notebook(path: Path, source: str, outputs: bool = False) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell(source)
    if outputs:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), cell]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _book(book: Path, command: str) -> None:
    """A book whose every notebook runs ``command NAME`` (NAME: which notebook ran)."""
    book.mkdir(parents=True, exist_ok=True)
    (book / "_config.yml").write_text("title: T\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: a\n- file: b\n- file: m\n")
    (book / "intro.md").write_text("# Intro\n")
    for name, folder, outputs in (("a", "", False), ("b", "", True), ("c", "", False), ("d", "sub", False),
                                  ("e", "_under", False), ("h", ".hidden", False), ("x", "_build/old", False)):
        _notebook(book / folder / f"{name}.ipynb", f"!{command} {name}", outputs)
    (book / "m.md").write_text(MYST.format(source=f"!{command} m"))


def _notebooks_run(info, cwd: Path) -> list:
    """The notebooks' scripts (not the commands that start their kernels: ``Script.rules_only``)."""
    return [s for s in book_scripts(info, [str(cwd)], {}) if not s.rules_only]


def _ran_by_analysis(command: str, cwd: Path) -> set[str]:
    (info,) = analyze(command).commands
    names = set()
    for script in _notebooks_run(info, cwd):
        assert script.code is not None and script.cwd == os.path.dirname(script.path or ""), script
        names.add(script.code.split()[-1])
    return names


CONFIGS = [  # (the book's _config.yml, the build's words after `build`): what a real Jupyter Book 1 ran
    ("title: T\n", "book", {"a", "c", "d", "e", "h", "m"}),
    ("title: T\nexecute:\n  execute_notebooks: force\n  exclude_patterns: [c.ipynb, 'sub/*']\n", "book",
     {"a", "b", "e", "h", "m"}),
    ("title: T\nexecute:\n  execute_notebooks: 'off'\n", "book", set()),
    ("title: T\nsphinx:\n  config:\n    nb_execution_mode: force\n", "book", {"a", "b", "c", "d", "e", "h", "m"}),
    ("title: T\n", "book/sub/d.ipynb", {"d"}),
    ("title: T\n", "book/b.ipynb", {"h"}),  # b has its outputs; the hidden folder's notebook runs too
]


@pytest.mark.parametrize(("config", "target", "expected"), CONFIGS)
def test_the_notebooks_a_build_runs(tmp_path, config, target, expected):
    _book(tmp_path / "book", "echo")
    (tmp_path / "book" / "_config.yml").write_text(config)
    assert _ran_by_analysis(f"jupyter-book build {target}", tmp_path) == expected


def _jupyter_book_1() -> str | None:
    program = shutil.which("jupyter-book")
    if program is None:
        return None
    version = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60).stdout
    return program if "Jupyter Book      : 1." in version else None


@pytest.mark.skipif(_jupyter_book_1() is None, reason="Jupyter Book 1 is not installed (it is in the test extras)")
@pytest.mark.timeout(900)
def test_the_notebooks_are_those_a_real_jupyter_book_runs(tmp_path):
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$1 $(pwd)" >> {log}\n')
    probe.chmod(0o755)
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
    for config, target, _expected in CONFIGS:
        shutil.rmtree(tmp_path / "book", ignore_errors=True)
        _book(tmp_path / "book", "probe")
        (tmp_path / "book" / "_config.yml").write_text(config)
        log.write_text("")
        result = subprocess.run([_jupyter_book_1() or "", "build", target], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=600)
        ran = dict(line.split(" ", 1) for line in log.read_text().splitlines() if line.strip())
        assert set(ran) == _ran_by_analysis(f"jupyter-book build {target}", tmp_path), (config, target,
                                                                                         result.stdout[-1500:])
        for name, where in ran.items():  # each in its own folder
            assert where in {str(tmp_path / "book" / f) for f in ("", "sub", "_under", ".hidden")}, (name, where)
            assert (name in {"a", "b", "c", "m"}) == (where == str(tmp_path / "book")), (name, where)


@pytest.fixture
def project(tmp_path):
    _book(tmp_path / "book", "rm -rf data")
    return tmp_path


def _decide(proj: Path, command: str, **rules) -> object:
    ctx = make_ctx(proj, mode=rules.pop("mode", "bypassPermissions"), **rules)
    return asyncio.run(decide_bash(ctx, command))


@pytest.mark.parametrize(("command", "expected"), [
    ("jupyter-book build book", "deny"), ("jb build book/", "deny"), ("jupyter-book build --all book", "deny"),
    ("jupyter-book build book --builder pdfhtml", "deny"), ("uv run jupyter-book build book", "deny"),
    ("jupyter book build book --execute", "deny"), ("cd book && myst build --execute", "deny"),
    ("jupyter-book build book/b.ipynb", "deny"),  # the hidden folder's notebook
    ("jupyter book build book", "allow"), ("cd book && myst build --html", "allow"), ("jupyter-book --help", "allow"),
    ("jupyter-book clean book", "allow"), ("jupyter-book build missing", "allow"), ("jupyter-book toc from-project book", "allow"),
    ("jupyter-book build \"$BOOK\"", "ask"), ("jupyter-book build --config \"$C\" book", "ask"),
])
def test_book_builds_meet_the_bash_rules(project, command, expected):
    (project / "book" / "myst.yml").write_text("version: 1\nproject:\n  title: T\n")
    verdict = _decide(project, command, allow=("Bash(jupyter-book:*)", "Bash(jupyter:*)"), deny=("Bash(rm:*)",))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message


def test_a_config_named_on_the_line_and_an_unreadable_one(project):
    (project / "off.yml").write_text("execute:\n  execute_notebooks: 'off'\n")
    assert isinstance(_decide(project, "jupyter-book build book --config off.yml", deny=("Bash(rm:*)",)),
                      PermissionAllow)
    (project / "book" / "_config.yml").write_text("execute: [\n")
    verdict = _decide(project, "jupyter-book build book", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionAsk) and "_config.yml" in verdict.message


# ---- mkdocs with mkdocs-jupyter (execute: true) ----

MKDOCS = """site_name: T
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
plugins:
  - search
  - mkdocs-jupyter:
      execute: {execute}
      execute_ignore: ["skip*.ipynb"]
"""
MD_NOTEBOOK = """---
jupyter:
  kernelspec:
    display_name: Python 3
    language: python
    name: python3
---

```python
!{command} md
```
"""


def _site(root: Path, command: str, execute: str = "true") -> None:
    (root / "docs" / "sub").mkdir(parents=True, exist_ok=True)
    (root / "mkdocs.yml").write_text(MKDOCS.format(execute=execute))
    (root / "docs" / "index.md").write_text("# Home\n")
    for name, folder in (("a", ""), ("b", "sub"), ("skip_c", ""), ("h", ".hidden")):
        _notebook(root / "docs" / folder / f"{name}.ipynb", f"!{command} {name}")
    (root / "docs" / "p.py").write_text(f"# %%\n# !{command} py\nimport os\n")  # jupytext uncomments the magic
    (root / "docs" / "m.md").write_text(MD_NOTEBOOK.format(command=command))
    (root / "docs" / "page.md").write_text(f"```python\n!{command} page\n```\n")  # no kernel: a page


def test_the_notebooks_mkdocs_jupyter_runs(tmp_path):
    _site(tmp_path, "echo")
    (info,) = analyze("mkdocs build -q").commands
    scripts = {s.code.split()[-1]: s.cwd for s in _notebooks_run(info, tmp_path)}
    docs = str(tmp_path / "docs")
    assert scripts == {"a": docs, "b": str(tmp_path / "docs" / "sub"), "py": str(tmp_path), "md": str(tmp_path)}
    _site(tmp_path, "echo", execute="false")
    assert _notebooks_run(info, tmp_path) == []


@pytest.mark.skipif(shutil.which("mkdocs") is None, reason="mkdocs is not installed (it is in the test extras)")
@pytest.mark.timeout(600)
def test_the_notebooks_are_those_a_real_mkdocs_jupyter_runs(tmp_path):
    site = tmp_path / "site"
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$1 $(pwd)" >> {log}\n')
    probe.chmod(0o755)
    _site(site, "probe")
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(["mkdocs", "build", "-q"], cwd=site, env=env, capture_output=True, text=True, timeout=500)
    ran = dict(line.split(" ", 1) for line in log.read_text().splitlines() if line.strip())
    (info,) = analyze("mkdocs build -q").commands
    assert ran == {s.code.split()[-1]: s.cwd for s in _notebooks_run(info, site)}, result.stderr[-1500:]


@pytest.mark.parametrize(("command", "expected"), [
    ("mkdocs build", "deny"), ("mkdocs serve -a localhost:9000", "deny"), ("mkdocs gh-deploy --force", "deny"),
    ("mkdocs build -f mkdocs.yml", "deny"), ("mkdocs new x", "allow"), ("mkdocs build --help", "allow"),
    ("mkdocs build -f other.yml", "allow"), ('mkdocs build -f "$C"', "ask"),
])
def test_mkdocs_builds_meet_the_bash_rules(tmp_path, command, expected):
    _site(tmp_path, "rm -rf")
    ctx = make_ctx(tmp_path, mode="bypassPermissions", allow=("Bash(mkdocs:*)",), deny=("Bash(rm:*)",))
    verdict = asyncio.run(decide_bash(ctx, command))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)


# ---- Sphinx with nbsphinx or myst-nb: conf.py says which notebooks execute ----

def _sphinx_docs(root: Path, conf: str, command: str) -> None:
    """Docs whose every notebook runs ``command NAME`` (code cells only: nbsphinx wants pandoc for
    Markdown); ``f`` has outputs but asks nbsphinx to execute it always."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(conf)
    (root / "index.rst").write_text("T\n=\n\n.. toctree::\n   :glob:\n\n   *\n")
    for name, folder, outputs in (("a", "", False), ("b", "", True), ("f", "", True), ("d", "sub", False),
                                  ("h", ".hidden", False), ("x", "_build/old", False), ("s", "skip", False)):
        path = root / folder / f"{name}.ipynb"
        _notebook(path, f"!{command} {name}", outputs)
        nb = nbformat.read(path, as_version=4)
        nb.cells = nb.cells[1:]
        if name == "f":
            nb.metadata["nbsphinx"] = {"execute": "always"}
        nbformat.write(nb, path)
    (root / "m.md").write_text(MYST.format(source=f"!{command} m"))


SPHINX_CONFIGS = [  # (conf.py, what a real sphinx-build -b html . _build/html ran: name@folder)
    ('extensions = ["nbsphinx"]\n', {"a@.", "d@sub", "f@.", "h@.hidden", "s@skip", "x@_build/old"}),
    ('extensions = ["nbsphinx"]\nexclude_patterns = ["_build", "skip/**"]\n', {"a@.", "d@sub", "f@.", "h@.hidden"}),
    ('extensions = []\nextensions.append("nbsphinx")\nnbsphinx_execute = "always"\n',
     {"a@.", "b@.", "d@sub", "f@.", "h@.hidden", "s@skip", "x@_build/old"}),
    ('extensions = ["nbsphinx"]\nnbsphinx_execute = "never"\n', {"f@."}),
    ('extensions = ["myst_nb"]\n', {"a@.", "d@sub", "h@.hidden", "m@.", "s@skip", "x@_build/old"}),
    ('extensions = ["myst_nb"]\nnb_execution_mode = "force"\nexclude_patterns = ["skip"]\n',
     {"a@.", "b@.", "d@sub", "f@.", "h@.hidden", "m@.", "x@_build/old"}),
    ('extensions = ["myst_nb"]\nnb_execution_mode = "off"\n', set()),
    ('extensions = ["sphinx.ext.autodoc"]\n', set()),
]


def _sphinx_ran_by_analysis(command: str, cwd: Path, docs: Path) -> set[str]:
    (info,) = analyze(command).commands
    return {f"{s.code.split()[-1]}@{os.path.relpath(s.cwd or '', docs)}" for s in _notebooks_run(info, cwd) if s.code}


@pytest.mark.parametrize(("conf", "expected"), SPHINX_CONFIGS)
def test_the_notebooks_a_sphinx_build_executes(tmp_path, conf, expected):
    _sphinx_docs(tmp_path / "docs", conf, "echo")
    assert _sphinx_ran_by_analysis("sphinx-build -b html . _build/html", tmp_path / "docs", tmp_path / "docs") == expected
    assert _sphinx_ran_by_analysis("python -m sphinx -M html docs docs/_build", tmp_path, tmp_path / "docs") == expected


def _importable(*names: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(n) is not None for n in names)


@pytest.mark.skipif(shutil.which("sphinx-build") is None or not _importable("nbsphinx", "myst_nb"),
                    reason="sphinx-build, nbsphinx or myst-nb is not installed (they are in the test extras)")
@pytest.mark.timeout(900)
def test_the_notebooks_are_those_a_real_sphinx_build_executes(tmp_path):
    log = tmp_path / "log"
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text(f'#!/bin/sh\necho "$1 $(pwd)" >> {log}\n')
    probe.chmod(0o755)
    env = dict(os.environ, PATH=f"{probe.parent}:{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1")
    docs = tmp_path / "docs"
    for conf, expected in SPHINX_CONFIGS:
        shutil.rmtree(docs, ignore_errors=True)
        _sphinx_docs(docs, conf, "probe")
        predicted = _sphinx_ran_by_analysis("sphinx-build -b html . _build/html", docs, docs)
        log.write_text("")
        result = subprocess.run([shutil.which("sphinx-build") or "", "-q", "-b", "html", ".", "_build/html"], cwd=docs,
                                env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, (conf, result.stderr[-1500:])
        ran = {f"{name}@{os.path.relpath(where, docs)}" for name, where in
               (line.split(" ", 1) for line in log.read_text().splitlines() if line.strip())}
        assert ran == expected == predicted, conf


@pytest.mark.parametrize(("command", "expected"), [
    ("sphinx-build docs docs/_build/html", "deny"), ("python -m sphinx -M html docs out", "deny"),
    ("sphinx-build -b html -j 2 -W docs out", "deny"), ('sphinx-build -M "$B" docs out', "deny"),
    ("sphinx-autobuild docs out", "deny"), ("sphinx-autobuild docs out --pre-build 'rm -rf out'", "deny"),
    ("sphinx-build -D nbsphinx_execute=never docs out", "deny"),  # f.ipynb asks to execute always
    ("sphinx-build -C docs out", "allow"), ("sphinx-build -M clean docs out", "allow"), ("sphinx-build docs", "allow"),
    ("sphinx-build --help", "allow"), ("sphinx-build -c elsewhere docs out", "allow"),  # no conf.py there
    ("sphinx-build --future docs out", "ask"), ('sphinx-build "$SRC" out', "ask"),
    ("cd docs && make html", "ask"),  # the Makefile's sphinx-build may run, with words only known at run time
])
def test_sphinx_builds_meet_the_bash_rules(tmp_path, command, expected):
    _sphinx_docs(tmp_path / "docs", 'extensions = ["nbsphinx"]\n', "rm -rf data")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "docs" / "Makefile").write_text(
        'SPHINXBUILD ?= sphinx-build\n%: Makefile\n\t@$(SPHINXBUILD) -M $@ "." "_build" $(SPHINXOPTS) $(O)\n')
    verdict = _decide(tmp_path, command, allow=("Bash(sphinx-build:*)", "Bash(python:*)", "Bash(sphinx-autobuild:*)",
                                                  "Bash(make:*)"), deny=("Bash(rm:*)",))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)


@pytest.mark.parametrize(("conf", "executes"), [
    ("import os\nextensions = [os.environ['EXT']]\n", True),  # computed: either extension may be on
    ("extensions = ['nbsphinx']\nif x:\n    nbsphinx_execute = 'never'\nelse:\n    nbsphinx_execute = 'auto'\n", True),
    ("extensions = ['nbsphinx']\ndef setup(app):\n    extensions = []\n", True),  # a function's own name
    ("extensions = []\ndef setup(app):\n    app.setup_extension('nbsphinx')\n", True),
    ("from shared_conf import *\n", True), ("extensions = ['nbsphinx'\n", True),  # Sphinx fails; read anyway
    ("extensions = ['nbsphinx']\nnbsphinx_execute = 'never'\n", False), ("project = 'x'\n", False),
])
def test_a_conf_py_that_computes_its_settings_reads_more(tmp_path, conf, executes):
    _sphinx_docs(tmp_path / "docs", conf, "echo")
    (tmp_path / "docs" / "f.ipynb").unlink()  # the one that asks to execute always
    ran = _sphinx_ran_by_analysis("sphinx-build docs out", tmp_path, tmp_path / "docs")
    assert bool(ran) == executes, (conf, ran)


def test_jupyter_sphinx_and_custom_formats_are_code_only_known_at_run_time(tmp_path):
    for conf in ("extensions = ['jupyter_sphinx']\n", "extensions = ['myst_nb']\nnb_custom_formats = {'.py': 'x'}\n"):
        _sphinx_docs(tmp_path / "docs", conf, "echo")
        verdict = _decide(tmp_path, "sphinx-build docs out", allow=("Bash(sphinx-build:*)",), deny=("Bash(rm:*)",))
        assert isinstance(verdict, PermissionAsk), (conf, verdict)
