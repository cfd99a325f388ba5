"""What ``R CMD INSTALL|build|check PKG`` runs of an R package (``r_packages.py``): under
``Bash(*)`` allowed and ``Bash(rm:*)`` denied in bypass, ``R CMD INSTALL pkg`` whose ``configure``
says ``rm -rf x`` ran rm unasked, as did ``system("rm -rf y")`` in ``R/a.R``; each row that denies
or asks below was allowed before.  (No R on this machine: what runs follows "Writing R
Extensions", §1.2 and §1.3.)"""

from __future__ import annotations

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
FILES = {
    "pkg/configure": "#!/bin/sh\nrm -rf x\n", "pkg/cleanup": "#!/bin/sh\nrm -rf z\n",
    "pkg/R/a.R": "f <- function() 1\n", "code/R/a.R": 'f <- function() 1\nsystem("rm -rf y")\n',
    "code/tests/t.R": "", "tested/R/a.R": "", "tested/tests/testthat/test-a.R": 'system2("rm", "-rf")\n',
    "calm/configure": "#!/bin/sh\necho ok\n", "calm/R/a.R": 'message("to rm a file use rm")\n',
}

ROWS = [
    ("R CMD INSTALL pkg", "deny"), ("R CMD INSTALL -l lib pkg", "deny"), ("R CMD check pkg", "deny"),
    ("R CMD build pkg", "deny"),  # build runs cleanup
    ("R CMD INSTALL --clean --no-configure pkg", "deny"),  # (cleanup)
    ("cd pkg && R CMD INSTALL .", "deny"),
    ("R CMD INSTALL code", "ask"), ("R CMD check tested", "ask"),  # a string of the R code
    ("R CMD INSTALL --no-configure pkg", "allow"), ("R CMD INSTALL tested", "allow"),  # (tests: check only)
    ("R CMD INSTALL calm", "allow"), ("R --version", "allow"), ("R CMD INSTALL missing", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_installing_an_r_package_runs(world, command, expected):
    for name, text in FILES.items():
        path = world.project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (world.project / "lib").mkdir()
    verdict = await decide_bash(make_ctx(world.project, **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
