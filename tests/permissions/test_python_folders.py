"""Python calls that copy, archive or remove a whole folder (``python_folders.py``): in a
NotebookExecute cell or ``python -c`` under bypassPermissions, ``shutil.make_archive('/tmp/a',
'zip', '.')`` archived ``.env``, ``shutil.copytree('.', '/tmp/x')`` copied it and
``shutil.rmtree('.')`` removed it and ``.git`` — no string of the code names a file.  The real
calls are run first to show the effect."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

from jupyter_agent.core.permission_types import PermissionAsk
from jupyter_agent.permissions.notebook_shell import cells_strings_check
from jupyter_agent.permissions.python_folders import walked_folders
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "data").mkdir()
    (root / "data" / "a.csv").write_text("x,y\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("o\n")
    return root


ASKS = [
    "import shutil; shutil.make_archive('/tmp/jaa', 'zip', '.')",
    "import shutil; shutil.make_archive('/tmp/jaa', 'zip')",  # the current folder
    "import shutil; shutil.make_archive('/tmp/jaa', 'zip', root_dir=None)",
    "import shutil; shutil.copytree('.', '/tmp/jab')",
    "from shutil import copytree\ncopytree(src='.', dst='/tmp/jab')",
    "from setuptools import dir_util\ndir_util.copy_tree('.', '/tmp/jac')",
    "import shutil; shutil.rmtree('.')",
    "import shutil; d = 'data'; shutil.copytree(d, '/tmp/jad')",  # a folder only known at run time
    "import os, shutil\nos.chdir('..')\nshutil.make_archive('/tmp/jaa', 'zip', 'proj')",
]
RUNS = [
    "import shutil; shutil.make_archive('/tmp/jaa', 'zip', 'data')",
    "import shutil; shutil.copytree('data', '/tmp/jae')",
    "import shutil; shutil.rmtree('build')",
    "import shutil; shutil.copy('data/a.csv', '/tmp/x.csv')",
]


@pytest.mark.parametrize("code", ASKS)
def test_a_cell_copying_archiving_or_removing_the_project_asks(project, code):
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = cells_strings_check([("c1", code)], ctx, [str(project)])
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), code


@pytest.mark.parametrize("code", RUNS)
def test_a_cell_on_a_folder_without_such_files_needs_only_the_approval(project, code):
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    assert cells_strings_check([("c1", code)], ctx, [str(project)]) is None, code


@pytest.mark.parametrize("code", ASKS[:4] + ASKS[6:7])
async def test_python_c_with_such_code_asks(project, code):
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, f'python -c "{code}"')) == "ask", code
    assert verdict_name(await decide_bash(ctx, f'python -c "{RUNS[0]}"')) == "allow"


async def test_rmtree_of_a_folder_holding_git_asks_without_any_rule(project):
    ctx = make_ctx(project, allow=("Bash(*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "python -c \"import shutil; shutil.rmtree('.')\"")) == "ask"
    assert verdict_name(await decide_bash(ctx, "python -c \"import shutil; shutil.make_archive('/tmp/a', 'zip')\"")) \
        == "allow"  # (no Read deny rule: an archive of the project is fine)


def test_ipython_lines_and_cell_magics_are_read_as_such():
    assert walked_folders("%matplotlib inline\n!ls\nimport shutil\nshutil.rmtree('build')") == (("build", True),)
    assert walked_folders("%%bash\nrmtree x") == ()
    assert walked_folders("x = !ls\nshutil.copytree(x, 'y')") == ((None, False),)  # does not parse: unknown
    assert walked_folders("print('no calls')") == ()


def test_real_calls_take_the_secret_and_the_repository(project, tmp_path):
    archive = tmp_path / "a"
    subprocess.run([sys.executable, "-c", f"import shutil; shutil.make_archive({str(archive)!r}, 'zip')"],
                   cwd=project, check=True)
    with zipfile.ZipFile(f"{archive}.zip") as z:
        assert b"SECRET=1" in z.read(".env")
    subprocess.run([sys.executable, "-c", f"import shutil; shutil.copytree('.', {str(tmp_path / 'c')!r})"],
                   cwd=project, check=True)
    assert (tmp_path / "c" / ".env").read_text() == "SECRET=1\n"
    subprocess.run([sys.executable, "-c", "import shutil; shutil.rmtree('.', ignore_errors=True)"], cwd=project)
    assert not (project / ".git").exists() and not (project / ".env").exists()


LISTING_ASKS = [
    "import os\nfor f in os.listdir('.'):\n    print(open(f).read()) if os.path.isfile(f) else None",
    "import os\nfor e in os.scandir():\n    print(open(e.path).read()) if e.is_file() else None",  # the current folder
    "import os\nfor r, _, fs in os.walk('.'):\n    [print(open(os.path.join(r, f)).read()) for f in fs]",
    "from pathlib import Path\nfor p in Path('.').iterdir():\n    print(p.read_text()) if p.is_file() else None",
    "from pathlib import Path\nprint([p.read_text() for p in Path().glob('*') if p.is_file()])",
    "from pathlib import Path\nprint([p.read_bytes() for p in Path.cwd().rglob('*') if p.is_file()])",
    "from pathlib import Path\nprint([p.read_text() for p in Path('.').glob('.e*')])",
    "import glob\nprint([open(f).read() for f in glob.glob('.*') if f != '..'])",  # a pattern starting with '.'
    "import glob, os\nprint([open(f).read() for f in glob.glob('*', include_hidden=True) if os.path.isfile(f)])",
    "import glob, shutil\nfor f in glob.glob('*', include_hidden=True):\n    shutil.copy(f, '/tmp/out') if f != '.git' else 0",
    "from pathlib import Path\nd = Path(input())\nprint([p.read_text() for p in d.iterdir()])",  # only known at run time
    "import os\nos.chdir('data')\nprint([open(f).read() for f in os.listdir('..') if f[0] == '.'])",
    "import os\nHERE = '.'\nprint([open(f).read() for f in os.listdir(HERE) if os.path.isfile(f)])",  # a bound name
    "from glob import glob\nprint([open(f).read() for f in glob('.*') if f != '..'])",  # the function imported
    "import glob\nprint([open(f).read() for f in glob.glob('*/a.csv')])",  # a pattern in the folder part

    "import os\nD = 'data'\nD = '.'\nprint([open(f).read() for f in os.listdir(D) if os.path.isfile(f)])",
    "from pathlib import Path\nROOT = Path()\nprint([p.read_text() for p in ROOT.iterdir() if p.is_file()])",
    # Path.walk() (Python 3.12): of a folder written in the code, or of a path only known at run time
    "from pathlib import Path\nfor root, _, files in Path('.').walk():\n    [print((root / f).read_text()) for f in files]",
    "import sys\nfrom pathlib import Path\np = Path(sys.argv[1])\nfor r, _, fs in p.walk():\n    print([(r / f).read_text() for f in fs])",
    "def dump(p):\n    for root, _, files in p.walk(top_down=True):\n        print([(root / f).read_text() for f in files])",
]
LISTING_RUNS = [
    "import os\nprint(os.listdir('.'))",  # names only: nothing is read
    "from pathlib import Path\nprint([p.read_text() for p in Path('data').glob('*.csv')])",
    "import glob\nprint([open(f).read() for f in glob.glob('*')])",  # Python's glob skips dot files
    "import glob\nprint([open(f).read() for f in glob.glob('**/*', recursive=True)])",
    "from glob import glob\nprint([open(f).read() for f in glob('*/*.txt')])",
    "from pathlib import Path\nd = Path(input())\nprint([p.read_text() for p in d.glob('*.csv')])",  # no .env there
    "import os\nprint([open(os.path.join('data', f)).read() for f in os.listdir('data')])",
    # a name the code binds to one folder is that folder (the usual notebook form)
    "import os\nDATA = 'data'\nfor f in os.listdir(DATA):\n    print(open(os.path.join(DATA, f)).read())",
    "from pathlib import Path\nDATA: Path = Path('data')\nprint([p.read_text() for p in DATA.iterdir()])",
    "import ast\nprint([type(n) for n in ast.walk(ast.parse(open('data/a.csv').read()))])",  # no folder
]


@pytest.mark.parametrize("code", LISTING_ASKS)
def test_a_cell_listing_a_folder_with_a_denied_file_and_reading_asks(project, code):
    """``for f in os.listdir('.'): print(open(f).read())`` printed .env under Read(./.env)."""
    ctx = make_ctx(project, deny=("Read(./.env)", "Read(./data/a.csv)"), mode="bypassPermissions")
    verdict = cells_strings_check([("c1", code)], ctx, [str(project)])
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), code


@pytest.mark.parametrize("code", LISTING_RUNS)
def test_listings_that_cannot_reach_the_denied_file_need_only_the_approval(project, code):
    ctx = make_ctx(project, deny=("Read(./.env)",), mode="bypassPermissions")
    assert cells_strings_check([("c1", code)], ctx, [str(project)]) is None, code


@pytest.mark.parametrize("code", [LISTING_ASKS[0], LISTING_ASKS[4], LISTING_ASKS[8]])
def test_the_listing_code_really_prints_the_denied_file(project, code):
    out = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60)
    assert "SECRET=1" in out.stdout, out.stderr


async def test_python_c_listing_and_reading_asks(project):
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    ask = "import os; [print(open(f).read()) for f in os.listdir('.') if os.path.isfile(f)]"
    run = "import os; [print(open('data/' + f).read()) for f in os.listdir('data')]"
    assert verdict_name(await decide_bash(ctx, f'python -c "{ask}"')) == "ask"
    assert verdict_name(await decide_bash(ctx, f'python -c "{run}"')) == "allow"


@pytest.mark.parametrize(("code", "expected"), [
    (LISTING_ASKS[0], "ask"), (LISTING_ASKS[2], "ask"), (ASKS[0], "ask"),  # make_archive of '.' too
    (LISTING_RUNS[0], "allow"), (LISTING_RUNS[1], "allow"), (RUNS[0], "allow"),
])
async def test_a_python_file_the_line_runs_is_read_the_same_way(project, code, expected):
    """`python dump.py` whose dump.py lists the folder and prints each file asked nothing, while
    the same code in `python -c` asked."""
    (project / "dump.py").write_text(code + "\n")
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    for command in ("python dump.py", "python3 -m dump"):
        assert verdict_name(await decide_bash(ctx, command)) == expected, (command, code)


JS_ASKS = [
    'const fs = require("fs");\nfor (const f of fs.readdirSync(".")) { if (fs.statSync(f).isFile()) '
    'console.log(fs.readFileSync(f, "utf8")); }',
    'const fs = require("fs");\nfs.readdirSync(process.cwd()).filter(f => fs.statSync(f).isFile())'
    '.forEach(f => console.log(fs.readFileSync(f, "utf8")));',
    'const fs = require("fs");\nconst d = process.argv[2];\nfs.readdirSync(d).forEach(f => console.log(fs.readFileSync(f)));',
    'const { globSync } = require("glob");\nglobSync("*", { dot: true }).forEach(f => fs.readFileSync(f));',
]
JS_RUNS = [
    'const fs = require("fs");\nfor (const f of fs.readdirSync("data")) console.log(fs.readFileSync("data/" + f, "utf8"));',
    'const fs = require("fs");\nconsole.log(fs.readdirSync("."));',  # names only
    'const { globSync } = require("glob");\nglobSync("*").forEach(f => fs.readFileSync(f));',  # no dot files
]


@pytest.mark.parametrize(("code", "expected"), [(c, "ask") for c in JS_ASKS] + [(c, "allow") for c in JS_RUNS])
async def test_javascript_listing_and_reading_is_read_the_same_way(project, code, expected):
    """`node dump.js` whose dump.js printed every file of the folder (`.env` among them) ran unasked."""
    (project / "dump.js").write_text(code + "\n")
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "node dump.js")) == expected, code
    one_line = code.replace("\n", " ").replace("'", "\\'")
    assert verdict_name(await decide_bash(ctx, f"node -e '{one_line}'")) == expected, code


R_ASKS = [
    "for (f in list.files(all.files = TRUE)) cat(readLines(f))",
    "x <- dir(all.files=TRUE); print(lapply(x, readLines))",
    'for (f in list.files(path = ".", all.files = TRUE, recursive = TRUE)) cat(readLines(f))',
    'for (f in Sys.glob(".*")) cat(readLines(f))',
    "d <- commandArgs(TRUE)[1]; for (f in list.files(d, all.files = TRUE)) cat(readLines(f))",  # a value
    "library(fs); for (f in dir_ls(all = TRUE)) print(read_lines(f))",
    'for (f in list.files(file.path(".", ""), all.files = TRUE)) cat(readLines(f))',  # a nested call
]
R_RUNS = [
    "for (f in list.files()) cat(readLines(f))",  # R lists no dot file by default
    'for (f in list.files("data", full.names = TRUE)) print(read.csv(f))',
    'for (f in Sys.glob("data/*.csv")) print(read.csv(f))',
    "print(list.files(all.files = TRUE))",  # names only
]


@pytest.mark.parametrize(("code", "expected"), [(c, "ask") for c in R_ASKS] + [(c, "allow") for c in R_RUNS])
async def test_r_listing_and_reading_is_read_the_same_way(project, code, expected):
    """`Rscript -e 'for (f in list.files(all.files=TRUE)) cat(readLines(f))'` printed `.env` (in
    bypassPermissions and under a rule allowing Rscript) while naming no file."""
    (project / "data").mkdir(exist_ok=True)
    (project / "data" / "a.csv").write_text("x\n1\n")
    (project / "dump.R").write_text(code + "\n")
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "Rscript dump.R")) == expected, code
    one_line = code.replace("'", "\\'")
    assert verdict_name(await decide_bash(ctx, f"Rscript -e '{one_line}'")) == expected, code


def test_python_dir_of_an_object_is_no_listing():
    from jupyter_agent.permissions.python_folders import r_listings

    assert r_listings("print(dir(obj))\nwith open('x') as f: f.read()") == ()
    assert r_listings("x <- dir(all.files = TRUE)\nprint(lapply(x, readLines))") != ()


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_node_really_prints_the_denied_file(project):
    out = subprocess.run(["node", "-e", JS_ASKS[0]], cwd=project, capture_output=True, text=True, timeout=60)
    assert "SECRET=1" in out.stdout, out.stderr
