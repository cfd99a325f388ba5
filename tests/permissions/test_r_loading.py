"""R code that loads the project's code whole (``code_imports.py``): ``devtools::load_all("pkg")``
sources every file of the package's ``R/`` folder, ``targets::tar_make()`` runs ``_targets.R``
(or ``script = "x.R"``), whose ``tar_source()`` sources the R files below ``R/``.  Under
``Bash(rm:*)`` denied, a function there with ``system("rm -rf build")`` asks, as a file
``source("x.R")`` names already did; before, each "ask" row ran unasked.  (R is not installed
here: the rows follow the documented behaviour of devtools/pkgload and targets.)"""

from __future__ import annotations

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
WIPE = 'clean <- function() {\n  system("rm -rf build")\n}\n'
CALM = 'hello <- function() {\n  cat("to rm a file use rm\\n")\n}\n'

FILES = {
    "mypkg/DESCRIPTION": "Package: mypkg\nVersion: 0.1\n",
    "mypkg/R/clean.R": WIPE,
    "mypkg/R/hello.R": CALM,
    "calmpkg/DESCRIPTION": "Package: calmpkg\n",
    "calmpkg/R/hello.R": CALM,
    "dev.R": 'devtools::load_all("mypkg")\nclean()\n',
    "dev_calm.R": 'pkgload::load_all(path = "calmpkg")\nhello()\n',
    "_targets.R": 'library(targets)\ntar_source()\nlist(tar_target(x, clean()))\n',
    "R/functions.R": WIPE,
    "pipelines/other.R": 'targets::tar_source("steps")\n',
    "steps/deep/step.R": WIPE,
    "run_pipeline.R": 'targets::tar_make(script = "pipelines/other.R")\n',
    "read.R": 'x <- targets::tar_read(x)\nlibrary(dplyr)\n',
}

ROWS = [
    ("Rscript dev.R", "ask"), ("Rscript -e 'devtools::load_all(\"mypkg\"); clean()'", "ask"),
    ("cd mypkg && Rscript -e 'devtools::load_all()'", "ask"), ("Rscript -e 'targets::tar_make()'", "ask"),
    ("Rscript -e 'tar_make_future(workers = 2)'", "ask"), ("Rscript run_pipeline.R", "ask"),
    ("R -e 'targets::tar_outdated()'", "ask"),
    ("Rscript dev_calm.R", "allow"), ("Rscript read.R", "allow"), ("Rscript -e 'targets::tar_read(x)'", "allow"),
    ("Rscript -e 'devtools::load_all(\"calmpkg\")'", "allow"),
]



@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_r_code_that_loads_the_project(world, command, expected):
    write_files(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
