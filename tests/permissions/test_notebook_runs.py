"""Notebooks and IPython files a Bash line runs (``permissions/notebook_runs.py``).

Session 33's probe: with ``Bash(jupyter:*)`` (or ``papermill``, ``ipython``, ``jupytext``) allowed
and ``Bash(rm:*)`` denied, and in bypassPermissions, ``jupyter nbconvert --execute nb.ipynb`` whose
cell says ``!rm -rf x`` was allowed, and so were ``jupyter execute``, ``papermill``, ``ipython
nb.ipynb``, ``ipython x.ipy``, ``ipython -c '!rm -rf x'`` and ``jupytext --execute``.  The
folder each runner's kernel starts in (what a cell's relative paths mean) is checked against the
real programs below.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.notebook_runs import notebook_scripts
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx


def _notebook(path: Path, *sources: str, kernel: str = "python3") -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "share" / "jupyter"
    (data / "kernels" / "bash").mkdir(parents=True)
    (data / "kernels" / "bash" / "kernel.json").write_text(
        '{"argv": ["bash", "-c", "true"], "display_name": "Bash", "language": "bash"}')
    monkeypatch.setenv("JUPYTER_PATH", str(data))
    proj = tmp_path / "proj"
    _notebook(proj / "bad.ipynb", "import os", "!rm -rf build")
    _notebook(proj / "bash.ipynb", "%%bash\necho hi\nrm -rf y")
    _notebook(proj / "alias.ipynb", "%rm -r build")
    _notebook(proj / "ok.ipynb", "!ls -la", "x = 1")
    _notebook(proj / "sub" / "env.ipynb", "!cat ../.env")
    _notebook(proj / "r.ipynb", "!rm -rf build", kernel="ir")  # no such kernel: nothing runs
    _notebook(proj / "sh.ipynb", "x = 1\nrm -rf build", kernel="bash")  # bash_kernel's cells are shell
    _notebook(proj / "py.ipynb", "x = 1\nrm -rf build")  # a Python cell of two lines: not automagic
    _notebook(proj / "chain.ipynb", "%run bad.ipynb")
    (proj / "bad.ipy").write_text("!rm -rf x\n")
    (proj / "one.ipy").write_text("rm -r x\n")
    (proj / "ok.ipy").write_text("!ls\n")
    (proj / "bad.py").write_text("!rm -rf x\n")
    (proj / ".env").write_text("KEY=1\n")
    (proj / "notes.txt").write_text("not a notebook\n")
    return proj


RUNNERS = ("Bash(jupyter:*)", "Bash(papermill:*)", "Bash(pytest:*)", "Bash(ipython:*)", "Bash(jupytext:*)", "Bash(python:*)",
           "Bash(uv run:*)", "Bash(echo:*)", "Bash(treon:*)", "Bash(voila:*)")


@pytest.mark.parametrize(("command", "expected"), [
    # each runner that runs a notebook's cells
    ("jupyter nbconvert --to notebook --execute bad.ipynb", "deny"),
    ("jupyter nbconvert --execute --to html bash.ipynb", "deny"),
    ("jupyter nbconvert --to html --ExecutePreprocessor.enabled=True alias.ipynb", "deny"),
    ("jupyter-nbconvert --execute --inplace bad.ipynb", "deny"),
    ("python -m nbconvert --execute --to notebook bad.ipynb", "deny"),
    ("python3 -m jupyter nbconvert --execute bad.ipynb", "deny"),
    ("jupyter nbconvert --execute '*.ipynb'", "deny"), ("jupyter execute *.ipynb", "deny"),
    ("jupyter execute bad.ipynb", "deny"), ("jupyter-execute --allow-errors alias.ipynb", "deny"),
    ("papermill bad.ipynb out.ipynb", "deny"), ("papermill -p alpha 0.1 bash.ipynb out.ipynb", "deny"),
    ("uv run papermill bad.ipynb out.ipynb", "deny"), ("timeout 60 papermill bad.ipynb -", "deny"),
    ("ipython bad.ipynb", "deny"), ("ipython bad.ipy", "deny"), ("ipython one.ipy", "deny"),
    ("python -m IPython bad.ipy", "deny"), ("ipython3 --no-banner bad.ipy", "deny"),
    ("ipython -c '!rm -rf x'", "deny"), ("ipython -c 'rm -r x'", "deny"), ("jupyter run one.ipy", "deny"),
    ("jupyter run bad.py", "deny"),  # jupyter run sends any file to the kernel as IPython code
    ("jupytext --execute bad.ipynb", "deny"), ("jupytext --to notebook --execute alias.ipynb", "deny"),
    ("jupytext --run-path sub --to ipynb bash.ipynb", "deny"),
    ("jupyter execute chain.ipynb", "deny"),  # %run bad.ipynb: its cells too
    ("jupyter execute sub/env.ipynb", "deny"),  # its kernel starts in sub/: ../.env is the project's
    # the kernel the cells run in: its kernel spec's language says how they read
    ("jupyter execute sh.ipynb", "deny"), ("papermill -k bash py.ipynb out.ipynb", "deny"),
    ("jupyter nbconvert --execute --ExecutePreprocessor.kernel_name=bash py.ipynb", "deny"),
    ("jupyter execute --kernel_name=bash py.ipynb", "deny"), ("ipython sh.ipynb", "allow"),
    ("jupyter execute py.ipynb", "allow"), ("papermill -k ir bad.ipynb out.ipynb", "allow"),
    ('papermill -k "$K" py.ipynb out.ipynb', "ask"),
    # nothing runs, or what runs is not shell code
    ("jupyter nbconvert --to html bad.ipynb", "allow"), ("jupyter nbconvert --to script bad.ipynb", "allow"),
    ("jupytext --to py bad.ipynb", "allow"), ("jupyter execute ok.ipynb", "allow"), ("ipython ok.ipy", "allow"),
    ("ipython bad.py", "allow"), ("ipython -m bad", "allow"), ("ipython --version", "allow"),
    ("ipython profile list", "allow"), ("jupyter execute r.ipynb", "allow"), ("jupyter execute gone.ipynb", "allow"),
    ("jupyter execute notes.txt", "allow"), ("jupyter run bad.ipynb", "allow"),
    # what is only known at run time, or what the line changes first
    ("ipython", "ask"), ("cat x | ipython", "ask"), ('jupyter execute "$NB"', "ask"),
    ("papermill s3://bucket/nb.ipynb out.ipynb", "ask"), ("jupyter nbconvert --execute --stdin", "ask"),
    ("jupytext --execute bad.py", "ask"), ("jupytext --sync --execute bad.ipynb", "ask"),
    ("ipython --profile-dir=./p ok.ipy", "ask"), ("ipython --InteractiveShellApp.exec_lines='!ls' ok.ipy", "ask"),
    ("jupyter run --existing k.json ok.ipy", "ask"), ('jupyter "$SUB" bad.ipynb', "ask"),
    ("echo '!rm -rf x' > ok.ipy && ipython ok.ipy", "ask"), ("cp bad.ipynb ok.ipynb && jupyter execute ok.ipynb", "ask"),
    ("echo '{}' > new.ipynb && jupyter execute new.ipynb", "ask"),
    # pytest's notebook plugins: the notebooks it collects
    ("pytest --nbmake bad.ipynb", "deny"), ("pytest --nbmake", "deny"), ("python -m pytest --nbval-lax sub", "deny"),
    ("pytest --nbval sub/env.ipynb::Cell0", "deny"), ("pytest --nbmake ok.ipynb", "allow"),
    ("pytest -q tests", "allow"), ("pytest --nbmake nb_tests", "allow"), ('pytest --nbmake "$T"', "ask"),
    ("pytest --nbmake --nbmake-kernel=bash py.ipynb", "deny"), ("pytest --nbval --current-env sh.ipynb", "allow"),
    ("PYTEST_ADDOPTS=--nbmake pytest", "ask"),  # (an environment variable set by the line)
    # treon: the notebooks below the paths, in the python3 kernel whatever they name
    ("treon", "deny"), ("treon bad.ipynb", "deny"), ("treon sub", "deny"), ("treon --threads 2 -v bad.ipynb", "deny"),
    ("treon sh.ipynb", "allow"), ("treon ok.ipynb", "allow"), ("treon --exclude=sub --exclude bad.ipynb sub", "allow"),
    ('treon "$NB"', "ask"), ("treon --weird", "ask"),
    # voila: the notebook (each one below the folder) runs when its page is opened: a deny rule asks
    ("voila bad.ipynb", "ask"), ("voila --no-browser --port 8866 bash.ipynb", "ask"), ("jupyter voila bad.ipynb", "ask"),
    ("voila sub/env.ipynb", "ask"), ("voila sub", "ask"), ("voila", "ask"), ("voila ok.ipynb", "allow"),
    ("voila --help", "allow"), ("voila r.ipynb", "allow"), ('voila "$NB"', "ask"),
])
def test_the_cells_a_line_runs_meet_the_deny_rules(project, command, expected):
    for mode, allow in (("default", RUNNERS), ("bypassPermissions", ())):
        ctx = make_ctx(project, allow=allow, deny=("Bash(rm:*)", "Read(./.env)"), mode=mode)
        verdict = asyncio.run(decide_bash(ctx, command))
        kind = type(verdict).__name__.removeprefix("Permission").lower()
        assert kind == expected, (mode, command, getattr(verdict, "message", ""))


@pytest.mark.parametrize(("config", "expected"), [
    ("pytest.ini", "[pytest]\naddopts = -q --nbmake\n"), ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "--nbval"\n'),
    ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = ["--nbmake"]\n'), ("tox.ini", "[pytest]\naddopts = --nbmake\n"),
    ("setup.cfg", "[tool:pytest]\naddopts = --nbmake\n"), ("pytest.ini", "[pytest]\naddopts = -q\n"),
    ("setup.cfg", "[metadata]\nname = x\n"), ("pyproject.toml", "[tool.pytest\n"),
])
def test_the_plugins_pytest_configuration_turns_on_count(project, config, expected):
    (project / "nb_tests").mkdir()
    _notebook(project / "nb_tests" / "t.ipynb", "!rm -rf build")
    (project / config).write_text(expected)
    ctx = make_ctx(project, allow=("Bash(pytest:*)",), deny=("Bash(rm:*)",))
    verdict = asyncio.run(decide_bash(ctx, "pytest nb_tests"))
    on = "--nb" in expected
    assert type(verdict).__name__ == ("PermissionDeny" if on and "[tool.pytest\n" not in expected else
                                      "PermissionAsk" if on else "PermissionAllow"), (config, verdict)


def test_addopts_that_cannot_be_split_are_code_only_known_at_run_time(project):
    (project / "pytest.ini").write_text('[pytest]\naddopts = "-q\n')  # an unclosed quote
    ctx = make_ctx(project, allow=("Bash(pytest:*)",), deny=("Bash(rm:*)",))
    verdict = asyncio.run(decide_bash(ctx, "pytest -q"))
    assert type(verdict).__name__ == "PermissionAsk" and "addopts" in verdict.message
    ctx = make_ctx(project, mode="bypassPermissions")  # no rule: not a check that failed
    assert type(asyncio.run(decide_bash(ctx, "pytest -q"))).__name__ == "PermissionAllow"


def test_without_rules_running_a_notebook_is_one_approval(project):
    ctx = make_ctx(project, allow=RUNNERS)
    assert type(asyncio.run(decide_bash(ctx, "jupyter execute bad.ipynb"))).__name__ == "PermissionAllow"
    ctx = make_ctx(project)
    verdict = asyncio.run(decide_bash(ctx, "jupyter execute bad.ipynb"))
    assert type(verdict).__name__ == "PermissionAsk" and "rm -rf build" in verdict.message  # the card says


def test_a_protected_write_in_a_cell_asks_in_every_mode(project):
    _notebook(project / "hook.ipynb", "!echo 'rm -rf /' > .git/hooks/pre-commit")
    (project / ".git" / "hooks").mkdir(parents=True)
    ctx = make_ctx(project, mode="bypassPermissions")
    verdict = asyncio.run(decide_bash(ctx, "jupyter execute hook.ipynb"))
    assert type(verdict).__name__ == "PermissionAsk" and ".git" in verdict.message


# ---- the real runners: where each one's kernel starts, and whether it runs the cells ----

def _have(program: str) -> bool:
    return shutil.which(program) is not None


@pytest.mark.parametrize("command", [
    "jupyter nbconvert --to notebook --execute sub/where.ipynb --output-dir out",
    "jupyter nbconvert --to html sub/where.ipynb --output-dir out",
    "jupyter execute sub/where.ipynb",
    "papermill sub/where.ipynb out/o.ipynb",
    "papermill --cwd sub2 sub/where.ipynb out/o.ipynb",
    "ipython sub/where.ipynb",
    "ipython sub/where.ipy",
    "jupytext --execute sub/where.ipynb",
    "jupytext --execute sub/where.ipynb -o out/w.ipynb",
    "jupytext --to ipynb --run-path sub2 sub/where.ipynb -o out/w2.ipynb",
    "jupyter run sub/where.ipy",
    "pytest -q -p no:cacheprovider --nbmake sub/where.ipynb",
    "pytest -q -p no:cacheprovider --nbmake sub",
    "pytest -q -p no:cacheprovider --nbval-lax sub/where.ipynb",
    "treon sub/where.ipynb",
    "treon sub",
])
def test_each_runner_runs_where_the_analysis_says(tmp_path, command):
    program = command.split()[0]
    if not _have(program):
        pytest.skip(f"{program} is not installed")
    proj = tmp_path / "proj"
    marker = tmp_path / "marker"
    _notebook(proj / "sub" / "where.ipynb", f"!pwd > {marker}")
    (proj / "sub" / "where.ipy").write_text(f"!pwd > {marker}\n")
    (proj / "sub2").mkdir()
    (proj / "out").mkdir()
    info = analyze(command).commands[0]
    scripts = [s for s in notebook_scripts(info, [str(proj)], {}) if not s.rules_only]  # (not the kernel's argv)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    subprocess.run(command.split(), cwd=proj, env=env, capture_output=True, timeout=180, check=False)
    ran = marker.read_text().strip() if marker.exists() else None
    if not scripts:
        assert ran is None, f"{command} ran the cells, which the analysis does not read"
        return
    assert ran is not None, f"{command} did not run the cells the analysis reads"
    (script,) = scripts
    assert os.path.realpath(ran) == (script.cwd or str(proj)), command
    assert "pwd" in (script.code or "")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(not _have("voila"), reason="voila is not installed")
@pytest.mark.parametrize(("served", "page"), [("sub/where.ipynb", ""), ("", "voila/render/sub/where.ipynb")])
def test_voila_runs_a_notebook_where_the_analysis_says_when_its_page_is_opened(tmp_path, served, page):
    """A real voila, with no browser: the notebook runs only when its page is asked for, and then
    in the folder the analysis says; served alone or from the folder above (a hidden one is not)."""
    import time
    import urllib.error
    import urllib.request

    proj, marker, hidden = tmp_path / "proj", tmp_path / "marker", tmp_path / "hidden-ran"
    _notebook(proj / "sub" / "where.ipynb", f"!pwd > {marker}")
    _notebook(proj / ".hid" / "h.ipynb", f"!touch {hidden}")
    command = f"voila --no-browser --port {_free_port()} {served}".strip()
    scripts = [s for s in notebook_scripts(analyze(command).commands[0], [str(proj)], {}) if not s.rules_only]
    assert [(s.cwd, s.certain) for s in scripts] == [(str(proj / "sub"), False)]
    log = tmp_path / "voila.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(command.split(), cwd=proj, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        # the port voila bound: when the one asked for was taken meanwhile, it moves on to another
        while not (bound := re.search(r"running at:\s*http://[^:/]+:(\d+)", log.read_text())):
            assert server.poll() is None and time.monotonic() < deadline, f"voila did not start:\n{log.read_text()}"
            time.sleep(0.3)
        port = bound.group(1)
        while True:  # serving, and nothing has run yet
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/static/nothing", timeout=5).close()
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                assert time.monotonic() < deadline, "voila did not start"
                time.sleep(0.3)
        assert not marker.exists()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{page}", timeout=120) as response:
            assert response.status == 200
            response.read()
        while not marker.exists():
            assert time.monotonic() < deadline, "the page did not run the notebook"
            time.sleep(0.3)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert os.path.realpath(marker.read_text().strip()) == scripts[0].cwd
    assert not hidden.exists()


CONSOLE_ROWS = [  # Bash(*) allowed, Bash(rm:*) and Read(./.env) denied, bypassPermissions (session 44)
    ("echo '!rm x' | jupyter console --simple-prompt", "ask"),
    ("jupyter-console --simple-prompt < cmds", "ask"),
    ("jupyter console --existing", "ask"),  # the cells go to a running kernel
    ("jupyter console --version", "allow"),
    ("jupyter console --help", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), CONSOLE_ROWS)
async def test_jupyter_console_runs_what_it_reads(world, command, expected):
    """``echo '!rm x' | jupyter console`` ran rm: each line it reads is a cell of IPython code."""
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.skipif(not _have("jupyter-console"), reason="jupyter-console is not installed")
def test_jupyter_console_really_runs_its_input(tmp_path):
    subprocess.run(["jupyter", "console", "--simple-prompt"], input="!touch ran\n", text=True, cwd=tmp_path,
                   capture_output=True, timeout=120)
    assert (tmp_path / "ran").exists()


PYTHON_ROWS = [
    # a string of a code cell a runner executes, which is a command a deny rule names
    ("jupyter nbconvert --to notebook --execute strings.ipynb", "ask"), ("papermill strings.ipynb out.ipynb", "ask"),
    ("jupyter execute strings.ipynb", "ask"), ("ipython strings.ipynb", "ask"), ("ipython strings.ipy", "ask"),
    ("jupyter nbconvert --to html strings.ipynb", "allow"),  # converting runs nothing
    ("jupyter execute prose.ipynb", "allow"),  # markdown and prose strings are not commands
    # a module of the project a cell imports (the kernel runs in the notebook's folder)
    ("jupyter execute imports.ipynb", "ask"), ("papermill nb/deep.ipynb out.ipynb", "ask"),
    ("ipython imports.ipy", "ask"), ("jupyter nbconvert --to html imports.ipynb", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), PYTHON_ROWS)
async def test_the_python_strings_of_a_notebook_a_line_runs(tmp_path, monkeypatch, command, expected):
    monkeypatch.setenv("HOME", str(tmp_path))
    proj = tmp_path / "proj"
    _notebook(proj / "strings.ipynb", "import subprocess", 'subprocess.run(["rm", "-rf", "build"])')
    _notebook(proj / "prose.ipynb", 'print("to rm a file use rm")')
    nb = nbformat.read(proj / "prose.ipynb", as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("rm -rf build"))
    nbformat.write(nb, proj / "prose.ipynb")
    (proj / "strings.ipy").write_text('import os\nos.system("rm -rf build")\n')
    (proj / "helpers.py").write_text('import subprocess\n\ndef clean():\n    subprocess.run(["rm", "-rf", "b"])\n')
    _notebook(proj / "imports.ipynb", "x = 1", "import helpers\nhelpers.clean()")
    (proj / "imports.ipy").write_text("from helpers import clean\n")
    (proj / "nb").mkdir()
    (proj / "nb" / "local.py").write_text('import os\nos.system("rm -rf out")\n')
    _notebook(proj / "nb" / "deep.ipynb", "import local")
    ctx = make_ctx(proj, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask" and "imports" in command or "deep" in command:
        assert "imports " in verdict.message and ".py, a string of which" in verdict.message, verdict.message


def test_a_string_of_a_cell_notebook_execute_runs_that_is_a_ruled_command_asks(tmp_path):
    """NotebookExecute's check of the cells' code (``cells_strings_check``): in bypassPermissions
    with ``Bash(rm:*)`` denied, ``os.system("rm -rf build")`` in a cell ran unasked."""
    from jupyter_agent.permissions.notebook_shell import cells_strings_check

    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = cells_strings_check([("c1", "x = 1"), ("py1", 'import os\nos.system("rm -rf build")')], ctx, [tmp_path])
    assert verdict is not None and verdict_name(verdict) == "ask", verdict
    assert "Cell py1's code" in verdict.message and "Bash(rm:*)" in verdict.message, verdict.message
    assert cells_strings_check([("c2", 'print("to rm a file use rm")')], ctx, [tmp_path]) is None
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert cells_strings_check([("py1", 'import os\nos.system("rm -rf build")')], ctx, [tmp_path]) is None


def test_a_project_module_a_cell_imports_has_its_strings_read(tmp_path):
    """A cell NotebookExecute runs that imports a module of the kernel's folder (``import
    helpers``, ``from pkg import jobs``): the module's ``os.system("rm -rf build")`` asks under
    ``Bash(rm:*)``, as its own string does (before: ran unasked in bypassPermissions)."""
    from jupyter_agent.permissions.notebook_shell import cells_strings_check

    (tmp_path / "helpers.py").write_text('import os\n\ndef clean():\n    os.system("rm -rf build")\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "jobs.py").write_text("from helpers import clean\n")
    (tmp_path / "calm.py").write_text('print("to rm a file use rm")\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    for code in ("import helpers\nhelpers.clean()", "from pkg import jobs", "import os, pkg.jobs",
                 "%load_ext helpers", "%aimport pkg.jobs"):
        verdict = cells_strings_check([("c1", "x = 1"), ("c2", code)], ctx, [tmp_path])
        assert verdict is not None and verdict_name(verdict) == "ask", (code, verdict)
        assert "Cell c2's code imports" in verdict.message and "helpers.py" in verdict.message, verdict.message
    assert cells_strings_check([("c1", "import calm, os, json")], ctx, [tmp_path]) is None
    assert cells_strings_check([("c1", "import helpers")], ctx, [tmp_path / "pkg"]) is None  # not on its path
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert cells_strings_check([("c1", "import helpers")], ctx, [tmp_path]) is None  # no rule names a program
    # a module the cell imports that names a file a Read deny rule covers: its value may be shown
    (tmp_path / "cfg.py").write_text('SECRET = open(".env").read()\n')
    verdict = cells_strings_check([("c1", "import cfg\ncfg.SECRET")], ctx, [tmp_path])
    assert verdict is not None and verdict_name(verdict) == "ask", verdict
    assert "imports cfg.py, names .env in a string" in verdict.message, verdict.message


@pytest.mark.parametrize(("command", "expected"), [
    ("papermill ok.ipynb out.ipynb -k evil", "deny"), ("jupyter execute --kernel_name=evil ok.ipynb", "deny"),
    ("jupyter nbconvert --execute --ExecutePreprocessor.kernel_name=evil ok.ipynb", "deny"),
    ("jupyter execute evil.ipynb", "deny"),  # the kernel its metadata names
    ("papermill ok.ipynb out.ipynb", "allow"), ("jupyter execute ok.ipynb", "allow"),
])
async def test_the_command_that_starts_the_kernel_meets_the_deny_rules(project, command, expected):
    """A kernel starts by running its spec's argv: one whose argv is ``rm -rf x`` ran rm under
    ``Bash(rm:*)`` (a rule allowing the runner, and bypassPermissions)."""
    spec = Path(os.environ["JUPYTER_PATH"]) / "kernels" / "evil"
    spec.mkdir()
    (spec / "kernel.json").write_text('{"argv": ["rm", "-rf", "x", "{connection_file}"], "display_name": "E", '
                                      '"language": "python"}')
    _notebook(project / "evil.ipynb", "x = 1", kernel="evil")
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "deny":
        assert "the kernel spec evil" in verdict.message, verdict.message


def test_a_python_file_a_cell_runs_with_percent_run_has_its_strings_read(tmp_path):
    """``%run tool.py`` in a cell NotebookExecute runs (or a notebook a line runs): tool.py's
    ``os.system("rm -rf build")`` asks under ``Bash(rm:*)``, as ``python tool.py`` does."""
    from jupyter_agent.permissions.notebook_shell import cells_shell_check

    (tmp_path / "tool.py").write_text('import os\nos.system("rm -rf build")\n')
    (tmp_path / "calm.py").write_text('print("hi")\n')
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    for cell in ("%run tool.py", "%run -i tool.py --fast", "%run -m tool"):
        verdict = cells_shell_check([("c1", cell)], ctx)
        assert verdict is not None and verdict_name(verdict) == "ask" and "tool.py" in verdict.message, cell
    assert cells_shell_check([("c1", "%run calm.py")], ctx) is None
