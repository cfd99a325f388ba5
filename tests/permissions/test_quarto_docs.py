"""The code ``quarto render`` runs (``permissions/quarto_docs.py``).

Session 34's probe: with ``Bash(quarto:*)`` allowed (or in bypassPermissions) and ``Bash(rm:*)``
denied, ``quarto render report.qmd`` whose Python cell says ``!rm -rf data`` (run through a
Jupyter kernel, so IPython runs it in a shell) was allowed, and so were a ``{bash}`` cell and a
``pre-render`` script.  Quarto is not installable here (its PyPI package downloads the binary), so
these rows follow Quarto's documentation.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import nbformat
import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.quarto_docs import quarto_scripts
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

DOCS = {
    "report.qmd": '---\ntitle: "R"\n---\n\n```{python}\nx = 1\n```\n\n```{python}\n!rm -rf data\n```\n\n'
                  "```python\n!rm -rf shown-only\n```\n",
    "display.qmd": "```python\n!rm -rf x\n```\n\n```{.python}\n!rm -rf x\n```\n\n````{{python}}\n!rm -rf x\n````\n",
    "safe.qmd": "```{python}\nprint(1)\n```\n```{python}\n#| label: skip\n#| eval: false\n!rm -rf skipped\n```\n",
    "knit.qmd": "```{r}\nx <- 1\n```\n\n```{bash}\nrm -rf data\n```\n",
    "knitoff.Rmd": "```{r}\nx <- 1\n```\n\n```{bash, eval=FALSE}\nrm -rf data\n```\n",
    "off.qmd": "---\nexecute:\n  eval: false\n---\n```{python}\n!rm -rf data\n```\n",
    "offon.qmd": "---\nexecute:\n  eval: false\n---\n```{python}\n#| eval: true\n!rm -rf data\n```\n",
    "inc.qmd": "Intro\n\n{{< include _part.qmd >}}\n",
    "_part.qmd": "```{python}\n!rm -rf data\n```\n",
    "magic.qmd": "```{python}\n%%bash\nrm -rf data\n```\n",
    "indented.qmd": "1. A step\n\n   ```{python}\n   !rm -rf data\n   ```\n",
    "bashkernel.qmd": "---\njupyter: nosuchkernel\n---\n```{python}\n!rm -rf data\n```\n",
    "script.py": "# %%\nprint(1)\n",
}


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    for name, text in DOCS.items():
        (proj / name).write_text(text)
    (proj / "sub" / "peek.qmd").write_text("```{python}\n!cat ../.env\n```\n")
    (proj / ".env").write_text("K=1\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("!rm -rf data")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, proj / "nb.ipynb")
    return proj


def _decide(proj: Path, command: str, **rules) -> object:
    ctx = make_ctx(proj, mode=rules.pop("mode", "bypassPermissions"), **rules)
    return asyncio.run(decide_bash(ctx, command))


@pytest.mark.parametrize(("command", "expected"), [
    ("quarto render report.qmd", "deny"), ("quarto render knit.qmd", "deny"), ("quarto render inc.qmd", "deny"),
    ("quarto render magic.qmd", "deny"), ("quarto render indented.qmd", "deny"), ("quarto render offon.qmd", "deny"),
    ("quarto render nb.ipynb --execute", "deny"), ("quarto preview report.qmd --port 4000", "deny"),
    ("quarto publish gh-pages report.qmd", "deny"), ("quarto render --to html report.qmd", "deny"),
    ("quarto render report.qmd --toc -V x", "deny"), ("uv run quarto render report.qmd", "deny"),
    ("quarto render", "deny"), ("quarto render .", "deny"),
    ("quarto render display.qmd", "allow"), ("quarto render safe.qmd", "allow"),
    ("quarto render knitoff.Rmd", "allow"), ("quarto render off.qmd", "allow"),
    ("quarto render report.qmd --no-execute", "allow"), ("quarto render nb.ipynb", "allow"),
    ("quarto publish --no-render", "allow"), ("quarto check", "allow"), ("quarto render --help", "allow"),
    ("quarto render missing.qmd", "allow"), ("quarto render bashkernel.qmd", "allow"),
    ("quarto render script.py", "ask"), ("quarto render \"$doc\"", "ask"), ("quarto render --weird x.qmd", "ask"),
])
def test_quarto_cells_meet_the_bash_rules(project, command, expected):
    verdict = _decide(project, command, allow=("Bash(quarto:*)", "Bash(uv:*)"), deny=("Bash(rm:*)",))
    kinds = {"deny": PermissionDeny, "allow": PermissionAllow, "ask": PermissionAsk}
    assert isinstance(verdict, kinds[expected]), (command, verdict)
    if expected == "deny":
        assert "Bash(rm:*)" in verdict.message


def test_cells_run_in_the_documents_folder_or_the_execute_dir(project):
    verdict = _decide(project, "quarto render sub/peek.qmd", deny=("Read(./.env)",))
    assert isinstance(verdict, PermissionDeny) and "Read(./.env)" in verdict.message  # ../.env from sub/
    assert isinstance(_decide(project, "quarto render sub/peek.qmd --execute-dir .", deny=("Read(./.env)",)),
                      PermissionAllow)  # from the project: ../.env is outside it
    (project / "_quarto.yml").write_text("project:\n  execute-dir: project\n")
    assert isinstance(_decide(project, "quarto render sub/peek.qmd", deny=("Read(./.env)",)), PermissionAllow)


def test_project_scripts_and_rendering_the_project(project):
    for name in DOCS:
        (project / name).unlink()
    (project / "nb.ipynb").unlink()
    (project / "sub" / "peek.qmd").write_text("```{python}\nprint(1)\n```\n")
    (project / "_quarto.yml").write_text("project:\n  type: website\n  pre-render: prepare.sh\n"
                                         "  post-render:\n    - compress.ts\n    - make clean\n")
    (project / "prepare.sh").write_text("#!/bin/sh\nrm -rf cache\n")
    (project / "prepare.sh").chmod(0o755)
    (project / "Makefile").write_text("clean:\n\trm -rf _site\n")
    verdict = _decide(project, "quarto render", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionDeny) and "Bash(rm:*)" in verdict.message
    (project / "prepare.sh").write_text("#!/bin/sh\necho ok\n")
    verdict = _decide(project, "quarto render sub/peek.qmd", deny=("Bash(rm:*)",))
    assert isinstance(verdict, PermissionDeny) and "Makefile" in verdict.message  # make clean, post-render
    (project / "_quarto.yml").write_text("project:\n  type: website\n")
    assert isinstance(_decide(project, "quarto render sub/peek.qmd", deny=("Bash(rm:*)",)), PermissionAllow)
    (project / "_quarto-ci.yml").write_text("project:\n  pre-render: rm -rf build\n")  # a profile's
    assert isinstance(_decide(project, "quarto render --profile ci", deny=("Bash(rm:*)",)), PermissionDeny)


def test_what_is_read_from_a_document(project):
    (info,) = analyze("quarto render report.qmd").commands
    script, kernel = quarto_scripts(info, [str(project)], {})  # (and the command that starts its kernel)
    assert script.code == "rm -rf data" and script.cwd == str(project)
    assert kernel.rules_only and "ipykernel" in (kernel.code or ""), kernel
    (info,) = analyze("quarto render knit.qmd").commands
    (script,) = quarto_scripts(info, [str(project)], {})
    assert script.code == "rm -rf data"  # the bash cell; the R cell is a program
    nb = nbformat.read(project / "nb.ipynb", as_version=4)
    nb.cells.insert(0, nbformat.v4.new_raw_cell("---\nexecute:\n  enabled: true\n---"))
    nbformat.write(nb, project / "exec.ipynb")
    assert isinstance(_decide(project, "quarto render exec.ipynb", deny=("Bash(rm:*)",)), PermissionDeny)


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("py.qmd", '---\njupyter: python3\n---\nProse "rm -rf x".\n\n```{python}\nimport os\nos.system("rm -rf x")\n```\n',
     "ask"),
    ("r.Rmd", '```{r}\nsystem("rm -rf y")\n```\n', "ask"),
    ("calm.qmd", '---\njupyter: python3\n---\nProse says "rm -rf x".\n\n```{python}\nprint(1)\n```\n', "allow"),
    ("skipped.qmd", '```{python}\n#| eval: false\nimport os\nos.system("rm -rf x")\n```\n', "allow"),
])
def test_a_string_of_a_documents_chunks_that_is_a_ruled_command_asks(project, name, text, expected):
    """``os.system("rm -rf x")`` in a chunk ``quarto render`` runs: a string of the code, as a
    ``.py`` file's (not the prose around the chunks, nor a chunk that does not run)."""
    (project / name).write_text(text)
    verdict = _decide(project, f"quarto render {name}", allow=("Bash(*)",), deny=("Bash(rm:*)",))
    assert verdict_name(verdict) == expected, (name, getattr(verdict, "message", ""))


def test_the_command_that_starts_the_documents_kernel_meets_the_deny_rules(project, tmp_path, monkeypatch):
    """The Jupyter engine starts the kernel the front matter names by running its spec's argv."""
    spec = tmp_path / "share" / "jupyter" / "kernels" / "evil"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text('{"argv": ["rm", "-rf", "x", "{connection_file}"], "display_name": "E", '
                                      '"language": "python"}')
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))
    (project / "evil.qmd").write_text("---\njupyter: evil\n---\n```{python}\nprint(1)\n```\n")
    (project / "fine.qmd").write_text("---\njupyter: python3\n---\n```{python}\nprint(1)\n```\n")
    verdict = _decide(project, "quarto render evil.qmd", allow=("Bash(*)",), deny=("Bash(rm:*)",))
    assert verdict_name(verdict) == "deny" and "the kernel spec evil" in verdict.message, verdict
    assert verdict_name(_decide(project, "quarto render fine.qmd", allow=("Bash(*)",), deny=("Bash(rm:*)",))) == "allow"
