"""Where everyday Python and data tools write, named by their options (``bash_option_writes``'s
``_SUBCOMMAND_OUTPUTS``, papermill's and sphinx-build's output operands, a database shell's
database file, ffmpeg's outputs, ImageMagick's last operand, Graphviz's ``-o``/``-O``, TeX's
``-output-directory``).

Each row was allowed under a rule allowing the tool (session 28's probe) though it wrote outside
the working directories: ``uv pip install --target /tmp/x``, ``coverage html -d /tmp/cov``,
``papermill nb.ipynb /tmp/out.ipynb``, ``hf download gpt2 --local-dir /tmp/g`` …  Now a write
outside asks, an Edit-denied one is denied, and one inside the project runs as the rule says.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

OUTSIDE = [
    "uv pip install --target /tmp/x requests", "uv pip install --prefix=/tmp/x requests",
    "uv pip compile -o /tmp/req.txt pyproject.toml", "uv export --output-file /tmp/req.txt", "uv build -o /tmp/dist",
    "uv --cache-dir /tmp/c sync", "conda create -p /tmp/env python", "conda env create --prefix /tmp/env -f env.yml",
    "mamba install -p /tmp/env numpy", "conda env export -f /tmp/env.yml", "yarn install --modules-folder /tmp/nm",
    "cargo build --target-dir /tmp/t", "coverage html -d /tmp/cov", "coverage xml -o /tmp/c.xml",
    "coverage run --data-file=/tmp/.cov -m pytest", "ruff check --cache-dir /tmp/rc", "ruff check -o /tmp/o.txt .",
    "ruff format --cache-dir=/tmp/rc --check .", "mypy --cache-dir /tmp/mc pkg", "mypy --junit-xml /tmp/j.xml pkg",
    "tox -e py --workdir /tmp/tox", "nox --envdir /tmp/nox", "mkdocs build -d /tmp/site",
    "sphinx-build docs /tmp/html", "sphinx-build -M html docs /tmp/build", "sphinx-build -b html -d /tmp/dt docs out",
    "papermill nb.ipynb /tmp/out.ipynb", "papermill -p alpha 0.5 nb.ipynb /tmp/out.ipynb",
    "papermill nb.ipynb /tmp/out.ipynb -p alpha 0.5 -k python3", "hf download gpt2 --local-dir /tmp/g",
    "huggingface-cli download gpt2 --cache-dir /tmp/hub", "kaggle datasets download -p /tmp owner/ds",
    "kaggle competitions download titanic --path /tmp", "dvc get https://x/repo data -o /tmp/data",
    "pip install --cache-dir /tmp/c requests",
    # media, graphs, TeX, databases, notebooks' documents
    "sqlite3 /tmp/x.db 'create table t(x)'", "duckdb /tmp/x.duckdb -c 'select 1'", "ffmpeg -i in.mp4 /tmp/out.mp4",
    "ffmpeg -y -i in.mp4 -c:v libx264 -crf 23 /tmp/o.mp4", "convert in.png /tmp/out.png",
    "magick in.png -resize 50% /tmp/out.png", "mogrify -path /tmp -resize 50% a.png", "dot -Tpng -o /tmp/g.png g.dot",
    "dot -Tpng -o/tmp/g.png g.dot", "pdflatex -output-directory=/tmp x.tex", "latexmk -outdir=/tmp x.tex",
    "quarto render x.qmd --output-dir /tmp/site",
    # clones, downloads and exports
    "gh repo clone o/r /tmp/x", "gh gist clone 123 /tmp/g", "gh release download -D /tmp v1",
    "gh release download v1 -O /tmp/a.zip", "gh run download -D /tmp 123", "az storage blob download -f /tmp/x -c c -n n",
    "svn checkout https://x/r /tmp/x", "hg clone https://x/r /tmp/x", "docker save -o /tmp/x.tar img",
    "docker export -o /tmp/x.tar c", "podman save -o /tmp/x.tar img", "docker build -o /tmp/out .",
    "docker buildx build -o type=local,dest=/tmp/out .", "docker build --output type=tar,dest=/tmp/x.tar .",
    "docker compose cp web:/x /tmp/x",
    # session 29: package builds and installs into a folder
    "conda pack -n x -o /tmp/x.tgz", "conda-pack -o /tmp/x.tgz", "gem unpack x.gem --target /tmp/g",
    "gem install x -i /tmp/g", "poetry build -o /tmp/d", "hatch build /tmp/d", "hatch build -t wheel /tmp/d",
    "python -m build -o /tmp/d", "python -m build --outdir=/tmp/d", "pdm build -d /tmp/d", "maturin build -o /tmp/d",
    "cargo install --root /tmp/c ripgrep", "rsync --write-batch=/tmp/b a b", "rsync --only-write-batch=/tmp/b a b",
    "rsync --read-batch=b .",  # what the batch names
]
INSIDE = [
    "uv pip install --target vendor requests", "uv pip compile -o requirements.txt pyproject.toml",
    "conda create -p ./env python", "coverage html -d htmlcov", "ruff check --cache-dir .ruff_cache .",
    "papermill nb.ipynb out.ipynb -p alpha 0.5", "papermill nb.ipynb - ", "papermill nb.ipynb s3://bucket/out.ipynb",
    "sphinx-build docs docs/_build", "hf download gpt2 --local-dir models/gpt2", "kaggle datasets download -p data x",
    "uv pip install requests", "conda run -p /tmp/env python -V", "coverage report --data-file=/tmp/.cov",
    "mkdocs serve", "papermill --help",
    "sqlite3 data.db 'select 1'", "sqlite3 -readonly /tmp/x.db 'select 1'", "sqlite3 :memory: 'select 1'",
    "ffmpeg -i in.mp4 -f null -", "ffmpeg -i a.mp4 -i b.wav -map 0:v -map 1:a out.mp4", "magick identify /tmp/x.png",
    "magick in.png -resize 50% out.png", "dot -Tpng g.dot -O", "latexmk -pdf x.tex", "quarto render x.qmd",
    "gh repo clone o/r", "gh repo clone o/r vendor/r", "gh release download v1", "docker save -o img.tar img",
    "docker build -t app .", "docker build --output type=registry .", "svn checkout https://x/r",
    "poetry build", "hatch build", "hatch build -t wheel", "python -m build", "pdm build -d dist", "maturin build -o dist",
]
DENIED = [
    "uv pip install --target locked/vendor requests", "coverage html -d locked/cov", "papermill nb.ipynb locked/out.ipynb",
    "papermill -p a 1 nb.ipynb locked/out.ipynb", "sphinx-build docs locked/html", "hf download gpt2 --local-dir locked/gpt2",
    "ruff check -o locked/o.txt .", "conda env export -f locked/env.yml",
    "sqlite3 locked/x.db 'create table t(x)'", "ffmpeg -i in.mp4 locked/out.mp4", "convert in.png locked/out.png",
    "magick mogrify -resize 50% locked/a.png", "dot -Tsvg -O locked/g.dot", "dot -Tpng -o locked/g.png g.dot",
    "gh repo clone o/r locked/r", "docker save -o locked/x.tar img", "docker build -o type=local,dest=locked/out .",
    "poetry build -o locked/dist", "hatch build locked/dist", "python -m build -o locked/dist", "conda pack -o locked/e.tgz",
    "rsync --write-batch=locked/b a b",
]


def _ctx(project, command):
    return make_ctx(project, allow=(f"Bash({command.split()[0]}:*)",), deny=("Edit(./locked/**)",))


@pytest.mark.parametrize("command", OUTSIDE)
async def test_writes_outside_ask(world, command):
    assert verdict_name(await decide_bash(_ctx(world.project, command), command)) == "ask", command


@pytest.mark.parametrize("command", INSIDE)
async def test_writes_inside_run_under_the_rule(world, command):
    assert verdict_name(await decide_bash(_ctx(world.project, command), command)) == "allow", command


@pytest.mark.parametrize("command", DENIED)
async def test_edit_denied_writes_are_denied(world, command):
    assert verdict_name(await decide_bash(_ctx(world.project, command), command)) == "deny", command


@pytest.mark.parametrize(("argv", "made"), [
    (["ruff", "check", "--no-cache", "--output-file", "OUT/report.txt", "x.py"], "OUT/report.txt"),
    (["ruff", "check", "--cache-dir", "CACHE", "x.py"], "CACHE"),
    ([sys.executable, "-m", "mypy", "--cache-dir", "CACHE", "x.py"], "CACHE"),
])
def test_real_tools_write_where_the_option_says(tmp_path, argv, made):
    if argv[0] == sys.executable:  # python -m mypy: this interpreter's (a mypy on PATH is another's)
        if subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode:
            pytest.skip("mypy is not installed for this Python")
    elif shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    (tmp_path / "x.py").write_text("x = 1\n")
    (tmp_path / "OUT").mkdir()
    subprocess.run(argv, cwd=tmp_path, capture_output=True, timeout=120)
    assert (tmp_path / made).exists(), argv


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="sqlite3 is not installed")
def test_real_sqlite3_creates_its_database(tmp_path):
    subprocess.run(["sqlite3", "made.db", "create table t(x)"], cwd=tmp_path, capture_output=True, timeout=30)
    assert (tmp_path / "made.db").exists()
