"""Shell code in notebook cells meets the Bash rules (``permissions/notebook_shell.py``).

Session 31: in bypassPermissions with ``Bash(rm:*)`` denied, NotebookExecute ran a cell
``!rm -rf build``; the ``!`` lines and ``%%bash`` cells were then read with regular expressions.
Session 33 found that IPython runs much more shell code than that: ``%rm -r build`` (an alias), a
cell of one line ``rm -r build`` (automagic), ``%%capture`` around ``!rm``, ``%%bash -c 'rm x'``,
``%%script --out o bash``, ``In [1]: !rm`` (prompts are stripped), ``%pip``, ``%env`` before a
command, ``%cd`` before one, ``%run other.ipynb``.  Cells are now read by IPython's own input
transformer; the real kernel below checks that each command IPython runs is one this module finds.
"""

from __future__ import annotations

import os
import re
import stat
import textwrap

import nbformat
import pytest

from jupyter_agent.core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny
from jupyter_agent.permissions.notebook_shell import cell_shell_code, cells_shell_check, notebook_shell_code
from jupyter_agent.permissions.verdicts import is_sticky
from tests.permissions.tools import make_ctx

V = '"${PYTHON_VALUE}"'


@pytest.mark.parametrize(("source", "code"), [
    ("!rm -rf build", "rm -rf build"), ("  !!ls -la", "ls -la"), ("x = 1\n!echo $HOME", f"echo $HOME\necho {V}"),
    ("files = !ls {path}", f"ls {{path}}\nls {V}"), ("%sx rm z", "rm z"), ("%system rm z", "rm z"),
    ("%%bash\nrm -rf x\necho done", "rm -rf x\necho done\n"), ("%%sh\nrm y", "rm y\n"),
    ("%%script bash --bg\nrm y", "rm y\n"), ("%%script /bin/sh\nrm y", "rm y\n"), ("%%sx\nrm y", "rm y\n"),
    ("%%script python3\nprint(1)", "python3 <<'IPYTHON_CELL_END'\nprint(1)\nIPYTHON_CELL_END"),
    ("%%writefile run.sh\nrm q", "cat > run.sh <<'IPYTHON_CELL_END'\nrm q\nIPYTHON_CELL_END"),
    ("%%writefile -a 'a b.sh'\nrm q", "cat >> 'a b.sh' <<'IPYTHON_CELL_END'\nrm q\nIPYTHON_CELL_END"),
    ('print("!not shell")', ""), ("import os\nos.system('rm x')", ""),  # Python: a program, as a .py file's
    # aliases and automagic
    ("%rm -r y", "rm -r y"), ("x = 1\n%mv a b", "mv a b"), ("%ll src", "ls -F -o --color src"),
    ("rm -r build", "rm -r build"), ("  rmdir out  ", "rmdir out  "), ("x = 1\nrm -r build", ""),
    ("rm = 3", ""), ("print(1)", ""), ("ls(1)", "ls -F --color (1)"), ("sx rm y", "rm y"),
    ("%alias nuke rm -rf %s\n%nuke build", "rm -rf build "), ("%alias_magic r sx\n%r rm zz", "rm zz"),
    ("%rehashx\n%curl -o x http://e", "curl -o x http://e"), ("%unalias rm\n%rm x", ""),
    # prompts, indentation, wrappers
    ("In [1]: !touch p", "touch p"), (">>> !touch p", "touch p"), ("  %%bash\n  rm x", "rm x\n"),
    ("\n\n%%bash\nrm x", "rm x\n"), ("%%capture\n!rm c", "rm c"), ("%%capture out\nrm -r c", "rm -r c"),
    ("%time !rm t", "rm t"), ("%%time\n!rm t", "rm t"), ("%%time\nrm -r t", ""), ("%timeit -n1 -r1 !rm t", "rm t"),
    ("%%prun -q\n!rm t", "rm t"), ("if True:\n    !rm i\n", "rm i"), ("!rm a \\\n  b", "rm a    b"),
    # scripts, options IPython's parser takes out
    ("%%script --out o bash\nrm q", "rm q\n"), ("%%bash -c 'rm x'\necho", "bash -c 'rm x' <<'IPYTHON_CELL_END'\necho\nIPYTHON_CELL_END"),
    ("%%bash script.sh\necho", "bash script.sh <<'IPYTHON_CELL_END'\necho\nIPYTHON_CELL_END"),
    ("%%bash -e -o pipefail\nrm q", "rm q\n"),
    ("%%script bash -eo pipefail\nrm q", "rm q\n"),  # (pipefail was read as a script file: the body not at all)
    ("%%script bash -O dotglob\ncat ?env", "shopt -s dotglob\ncat ?env\n"),  # the options that change how it reads
    # the kernel's folder and environment, package managers, other notebooks
    ("%cd /tmp", "cd /tmp"), ("%cd -q data", "cd data"), ("%cd -b work", f"cd {V}"), ("%cd -", f"cd {V}"),
    ("%cd", "cd"), ("cd ..", "cd .."), ("%pushd sub", "cd sub"), ("%popd", "popd"),
    ("%env GIT_PAGER=rm -rf x", "export GIT_PAGER='rm -rf x'"), ("%set_env PAGER less", "export PAGER=less"),
    ("%env HOME", ""), ("%pip install -e .", "python -m pip install -e ."), ("%uv pip list", "python -m uv pip list"),
    ("%conda install x", "conda install x"), ("pip install x", "python -m pip install x"),
    ("%run other.ipynb", "ipython other.ipynb"), ("%run -t -N 3 x.ipy a", "ipython x.ipy"), ("%run -m mod", "python -m mod"),
    ("%run script.py", "python script.py"), ("%sc -l v=rm x", "rm x"),
    # session 49: magics that show a file to the model, or write one
    ("%pycat .env", "cat -- .env"), ("pycat .env", "cat -- .env"), ("%load -r 1-3 x.py", "cat -- x.py"),
    ("%loadpy x.py", "cat -- x.py"), ("%less a.txt", "cat -- a.txt"), ("%more a.txt", "cat -- a.txt"),
    ("%pfile json", "cat -- json"), ("%edit -n 3 x.py", "cat -- x.py"),
    ("%save -f out 1-3", "touch -- out out.py"), ("%save x.py 1", "touch -- x.py"),
    ("%history -n -f h.txt", "touch -- h.txt"), ("%history -fh.txt", "touch -- h.txt"), ("%history -n", ""),
    ("%logstart", "touch -- ipython_log.py"), ("%logstart -o ~/.bashrc append", "touch -- ~/.bashrc"),
    ("%notebook out.ipynb", "touch -- out.ipynb"), ("%pycat {name}", f"cat -- '{{name}}'\ncat -- {V}"),
])
def test_the_shell_code_of_a_cell(source, code):
    assert cell_shell_code(source) == code


@pytest.mark.parametrize(("source", "words"), [
    ("!'{p}' -rf x", ["''\"${PYTHON_VALUE}\"''"]),  # a value in quotes is still a value
    ("!r{{m,}} -rf x", ["r{{m,}}", "r{m,}"]),  # {{ is IPython's escape: bash then sees r{m,}
    ("!echo $$x $y", ["$x", V]), ('!echo "a{b}c"', ['"a""${PYTHON_VALUE}""c"']),
    ("!$(printf '{p}') -rf x", ["$(printf ''\"${PYTHON_VALUE}\"'')"]), ("!\\{p} x", ['\\_"${PYTHON_VALUE}"']),
])
def test_python_values_are_words_only_known_at_run_time(source, words):
    code = cell_shell_code(source)
    for word in words:
        assert word in code


def test_cells_run_one_after_another():
    code = notebook_shell_code(["%alias nuke rm -rf %s", "%nuke build", "nuke dist", "%cd /tmp", "!ls"])
    assert code.split("\n") == ["rm -rf build ", "rm -rf dist ", "cd /tmp", "ls"]


def test_a_cell_ipython_cannot_read_is_code_only_known_at_run_time():
    assert cell_shell_code("!ls\n%%bash\nrm x") == "ls"  # %%bash not first: a line magic that fails
    assert cell_shell_code("'''\n!rm x") == ""  # Python cannot compile it: nothing runs
    assert cell_shell_code("%%capture\n" * 9 + "!rm x") == '"${IPYTHON_CODE}"'  # deeper than is followed


@pytest.mark.parametrize(("source", "expected"), [
    ("!rm -rf build", "deny"), ("%%bash\necho hi\nrm -rf build", "deny"), ("!cat .env", "deny"),
    ("!echo x > .git/hooks/pre-commit", "sticky"), ('!bash -c "$CMD"', "sticky"), ("!ls {folder}", None),
    ("!ls -la", None), ("x = 1", None), ("%%script python3\nimport shutil", None),
    ("%rm -r build", "deny"), ("rm -r build", "deny"), ("%%capture\n!rm x", "deny"), ("%%bash -c 'rm x'\n", "deny"),
    ("%%writefile .git/hooks/pre-commit\nrm -rf /", "sticky"), ("!'{p}' -rf x", "sticky"), ("%pip install x", None),
    ("%pycat .env", "deny"), ("%load .env", "deny"), ("%less ./sub/../.env", "deny"), ("%edit .env", "deny"),
    ("%save -f .git/hooks/pre-commit 1", "sticky"), ("%history -f .git/config", "sticky"),
    ("%logstart -o ~/.bashrc", "sticky"), ("%notebook .claude/x.ipynb", "sticky"),
    ("%pycat notes.txt", None), ("%save -f out 1", None), ("%logstart", None),
])
def test_cells_meet_the_bash_rules_in_every_mode(tmp_path, source, expected):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".env").write_text("K=1\n")
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", source)], ctx)
    if expected is None:
        assert verdict is None
    elif expected == "deny":
        assert isinstance(verdict, PermissionDeny) and "cell c1" in verdict.message
    else:
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict) and "Cell c1" in verdict.message


def test_the_cells_are_also_checked_as_one_script(tmp_path):
    (tmp_path / ".env").write_text("K=1\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    ctx = make_ctx(tmp_path, deny=("Read(./.env)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", "%cd sub"), ("c2", "!cat ../.env")], ctx)
    assert isinstance(verdict, PermissionDeny) and "cell c2" in verdict.message
    (tmp_path / "run.sh").write_text("echo hi\n")  # what it runs is what the cell before writes
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", "%%writefile run.sh\nrm -rf x"), ("c2", "!bash run.sh")], ctx)
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict) and "The cells" in verdict.message
    assert cells_shell_check([("c1", "!bash run.sh")], ctx) is None


def test_cells_are_checked_in_the_folder_the_kernel_is_in(tmp_path):
    """The user ``%cd``'d the kernel into ``secrets`` after the session started: ``!cat key.txt``
    reads ``secrets/key.txt``; a kernel whose folder cannot be known reads an unknown ``.env``."""
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "key.txt").write_text("K=1\n")
    (tmp_path / "key.txt").write_text("public\n")
    ctx = make_ctx(tmp_path, deny=("Read(./secrets/**)",), mode="bypassPermissions")
    cell = [("c1", "!cat key.txt")]
    assert cells_shell_check(cell, ctx) is None  # from the session's folder: the public file
    assert cells_shell_check(cell, ctx, kernel_cwd=str(tmp_path)) is None
    verdict = cells_shell_check(cell, ctx, kernel_cwd=str(secrets))
    assert isinstance(verdict, PermissionDeny) and "Read(./secrets/**)" in verdict.message
    assert "cell c1" in verdict.message
    verdict = cells_shell_check([("c1", "x = 1"), ("c2", "!cat key.txt")], ctx, kernel_cwd=None)
    assert verdict is not None and not isinstance(verdict, PermissionAllow)
    # a folder prefix alone is not shell code: Python cells still need only the approval
    assert cells_shell_check([("c1", "x = 1"), ("c2", "y = 2")], ctx, kernel_cwd=None) is None
    assert cells_shell_check([("c1", "x = 1"), ("c2", "y = 2")], ctx, kernel_cwd=str(secrets)) is None


@pytest.mark.parametrize(("source", "expected"), [
    ("import os\nos.chdir('.git')\n!echo x >> config", "ask"),  # a fixed folder: followed
    ("import os\nos.chdir('/')\n!echo x >> {etc}/passwd", "ask"),
    ("import os\nfor _ in range(9):\n    os.chdir('..')\n!echo x >> etc/passwd", "ask"),  # once per round
    ("import os\nwhile os.getcwd() != '/':\n    os.chdir('..')\n!echo x >> etc/passwd", "ask"),
    ("for i in range(5):\n    %cd ..\n!echo x >> etc/passwd", "ask"),
    ("def up():\n    os.chdir('..')\nup(); up(); up()\n!echo x >> etc/passwd", "ask"),
    ("import os\nos.chdir(folder)\n!echo x >> config", "ask"),  # a value
    ("get_ipython().run_line_magic('cd', folder)\n!echo x >> config", "ask"),  # %cd of a value, spelled out
    ("from contextlib import chdir\nwith chdir('.git'):\n    !echo x >> config", "ask"),
    ("import os\nos.chdir('..')\n!ls", None),  # reads nothing a rule covers
    ("import os\nos.chdir('sub')\n!echo x > out.txt", None),
    ("for i in range(3):\n    !echo $i >> out.txt", None),
])
def test_python_changing_the_folder_moves_the_shell_commands_after_it(tmp_path, source, expected):
    """``os.chdir`` in a cell moves the kernel: the ``!`` lines after it run there.  Once and
    fixed, the folder is followed; in a loop or a function (each round goes further), through a
    value or ``contextlib.chdir``, it is a folder only known at run time (session 52: in
    bypassPermissions ``os.chdir('/')`` then ``!echo x >> etc/passwd`` ran unasked)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", source.format(etc="etc"))], ctx)
    if expected is None:
        assert verdict is None, verdict
    else:
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), (source, verdict)


@pytest.mark.parametrize(("source", "expected"), [
    ("import os\nos.environ['HOME'] = h\n!echo x >> ~/config", "ask"),  # ~ is $HOME: only known at run time
    ("import os\nos.environ.update(HOME=h)\n!echo x >> ~/config", "ask"),
    ("import os\nos.putenv('HOME', h)\n!echo x >> ~/config", "ask"),
    ("import os\nos.environ['HISTFILE'] = '.git/config'\n!set -o history; history -s x; history -w", "ask"),
    ("import os\nos.environ[k] = v\n!echo x >> ~/config", "ask"),  # the name is a value
    ("import os\nos.environ['OMP_NUM_THREADS'] = '1'\n!python -V > out.txt", None),
    ("import os\nos.environ['HOME'] = h\n!ls", None),
])
def test_python_setting_the_environment_holds_for_the_shell_commands_after_it(tmp_path, source, expected):
    """``os.environ['HOME'] = h`` is ``%env HOME=…`` for the ``!`` lines after it (their ``~``)."""
    ctx = make_ctx(tmp_path, allow=("Bash(*)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", source)], ctx)
    if expected is None:
        assert verdict is None, verdict
    else:
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), (source, verdict)


def test_ipython_shell_lines_really_see_what_python_put_in_the_environment(tmp_path):
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    before = os.environ.get("HOME")
    try:
        shell.run_cell(f"import os\nos.environ['HOME'] = {str(tmp_path)!r}\n!echo x > ~/landed\n")
    finally:
        os.environ["HOME"] = before or ""
    assert (tmp_path / "landed").exists()


def test_shell_code_a_cell_passes_to_ipython_as_a_value_is_code_only_known_at_run_time(tmp_path):
    """``get_ipython().system(cmd)`` runs what ``cmd`` holds: a deny rule may name it (it was not
    read at all)."""
    for source in ("get_ipython().system(cmd)", "get_ipython().getoutput(f'ls {d}')",
                   "get_ipython().run_line_magic(name, 'x')"):
        denied = make_ctx(tmp_path, allow=("Bash(*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
        verdict = cells_shell_check([("c1", source)], denied)
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), (source, verdict)
        assert cells_shell_check([("c1", source)], make_ctx(tmp_path, mode="bypassPermissions")) is None


def test_the_strings_of_a_cell_are_read_from_the_folder_its_chdir_moves_to(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".env").write_text("K=1\n")
    ctx = make_ctx(tmp_path, deny=("Read(./sub/.env)",), mode="bypassPermissions")
    assert cells_strings_check_of([("c1", "print(open('.env').read())")], ctx, tmp_path) is None
    for source in ("import os\nos.chdir('sub')\nprint(open('.env').read())", "%cd sub\nprint(open('.env').read())"):
        assert cells_strings_check_of([("c1", source)], ctx, tmp_path) is not None, source
    moved = [("c1", "import os\nos.chdir('sub')"), ("c2", "print(open('.env').read())")]  # and in the cells after
    assert cells_strings_check_of(moved, ctx, tmp_path) is not None


def test_ipython_really_moves_once_per_round(tmp_path):
    from IPython.testing.globalipapp import get_ipython

    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    shell = get_ipython()
    before = os.getcwd()
    try:
        os.chdir(deep)
        shell.run_cell("for _ in range(3):\n    %cd -q ..\n")
        assert os.getcwd() == str(tmp_path)
    finally:
        os.chdir(before)


@pytest.mark.parametrize(("source", "rules", "expected"), [
    ("print(open('.env').read())", ("Read(./.env)",), "Read(./.env)"),
    ("from dotenv import load_dotenv\nload_dotenv('.env')", ("Read(./.env)",), "Read(./.env)"),
    # session 50: these read .env though no string names it
    ("from dotenv import load_dotenv\nload_dotenv()\nimport os\nos.environ['K']", ("Read(./.env)",), "Read(./.env)"),
    ("%load_ext dotenv\n%dotenv", ("Read(./.env)",), "Read(./.env)"),
    ("import decouple\ndecouple.config('K')", ("Read(./.env)",), "Read(./.env)"),
    ("Path('.git/config').write_text('[core]')", (), ".git/"),
    ("open('.claude/settings.json', 'w').write('{}')", (), ".claude/"),
    ("df.to_csv('locked/out.csv')", ("Edit(./locked/**)",), "Edit(./locked/**)"),
    ("df = pd.read_csv('data/x.csv')\ndf.to_csv('out.csv')", ("Read(./.env)", "Edit(./locked/**)"), None),
    ("x = 1", ("Read(./.env)",), None),
    ("name = 'world'\nprint(f'hello {name}')", (), None),
])
def test_strings_of_python_cells_meet_the_rules_and_protected_paths(tmp_path, source, rules, expected):
    """As ``python -c CODE`` does in Bash: a file the code names in a string (``.env`` under a
    Read deny rule, ``.git/config``) asks in every mode; other cells need only the approval."""
    from jupyter_agent.permissions.notebook_shell import cells_strings_check

    (tmp_path / ".env").write_text("K=1\n")
    ctx = make_ctx(tmp_path, deny=rules, mode="bypassPermissions")
    verdict = cells_strings_check([("c0", "y = 2"), ("c1", source)], ctx, [str(tmp_path)])
    if expected is None:
        assert verdict is None
    else:
        assert isinstance(verdict, PermissionAsk) and is_sticky(verdict), verdict
        assert "Cell c1's code" in verdict.message and expected in verdict.message, verdict.message


def test_strings_of_python_cells_are_read_from_the_folder_the_kernel_is_in(tmp_path):
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    ctx = make_ctx(tmp_path, deny=("Read(./secrets/**)",), mode="bypassPermissions")
    cell = [("c1", "open('key.txt').read()")]
    assert cells_strings_check_of(cell, ctx, tmp_path) is None
    assert cells_strings_check_of(cell, ctx, secrets) is not None
    assert cells_strings_check_of(cell, ctx, tmp_path, secrets) is not None  # either may be the kernel's


def cells_strings_check_of(cells, ctx, *folders):
    from jupyter_agent.permissions.notebook_shell import cells_strings_check

    return cells_strings_check(cells, ctx, [str(f) for f in folders])


def test_without_rules_a_cell_needs_only_the_approval_to_run(tmp_path):
    ctx = make_ctx(tmp_path)
    assert cells_shell_check([("c1", "!rm -rf build"), ("c2", "%%bash\nnpm install")], ctx) is None


# ---- the real kernel: every command IPython runs is one the reader finds ----

_ORACLE_CELLS = [
    "!probe T01", "x = !probe T02", "%sx probe T03", "%system probe T04", "%%bash\nprobe T05",
    "%%sh\nprobe T06", "%%script --out o bash\nprobe T07", "%%bash -c 'probe T08'\necho", "%%capture\n!probe T09",
    "%%capture\nprobe_alias T10", "%time !probe T11", "%%time\n!probe T12", "%timeit -n1 -r1 !probe T13",
    "In [3]: !probe T14", ">>> !probe T15", "  %%bash\n  probe T16", "\n\n%%bash\nprobe T17",
    "if True:\n    !probe T18", "%probe_alias T19", "probe_alias T20", "x = 1\nprobe_alias T21",
    "%alias_magic pm sx\n%pm probe T22", "%sc v=probe T23", "%%sx\nprobe T24", "%%!\nprobe T25",
    "%rehashx\n", "probe T26", "%probe T27", "%%script --no-raise-error sh -e\nprobe T28",
    "%env PROBE_TAG=T29\n!probe $PROBE_TAG", "%%writefile w.sh\nprobe T30", "!bash w.sh",
    "%cd sub\n!probe T31", "%cd ..", "%run t32.ipy", "%run t33.ipynb", "%%capture\n%probe T34",
    "!probe T35 # {undefined_name}", "!probe {'T36'}", "%alias pa probe %s\n%pa T37",
]


def test_the_reader_finds_each_command_a_real_kernel_runs(tmp_path):
    """Every ``probe TAG`` the real kernel runs (logged by the probe program on PATH) is one the
    reader finds in that cell, and each one the reader finds in these cells runs."""
    nbclient = pytest.importorskip("nbclient")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "probe.log"
    probe = bin_dir / "probe"
    probe.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    probe.chmod(probe.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "sub").mkdir()
    (tmp_path / "t32.ipy").write_text("!probe T32\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("!probe T33")]
    nbformat.write(nb, tmp_path / "t33.ipynb")
    setup = "%alias probe_alias probe"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(setup)] + [nbformat.v4.new_code_cell(s) for s in _ORACLE_CELLS]
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    old = os.environ.copy()
    os.environ.update(env)
    try:
        client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                                         resources={"metadata": {"path": str(tmp_path)}})
        client.execute()
        found = set(re.findall(r"\bT\d\d\b", notebook_shell_code([setup, *_ORACLE_CELLS])))  # (%rehashx: PATH)
    finally:
        os.environ.clear()
        os.environ.update(old)
    ran = {line.split()[0] for line in log.read_text().splitlines() if line.strip()}
    # the cells ipython runs from files (t32.ipy, t33.ipynb) and w.sh are read by the Bash check of
    # `ipython FILE` / `bash w.sh`, which notebook_runs and script_files do
    assert ran - found == {"T32", "T33"}, textwrap.shorten(str(sorted(ran)), 400)
    assert found == ran - {"T32", "T33"}  # and no more: `x = 1` then `probe_alias T21` is not automagic
    assert {"T01", "T10", "T20", "T26", "T27", "T29", "T31", "T36", "T37"} <= ran


@pytest.mark.parametrize("source", [s for s in _ORACLE_CELLS if re.search(r"\bT(0[1-9]|1\d|2[0-8]|3[4-7])\b", s)
                                    and "T21" not in s])
def test_each_oracle_cell_meets_a_deny_rule(tmp_path, monkeypatch, source):
    probe = tmp_path / "bin" / "probe"
    probe.parent.mkdir()
    probe.write_text("#!/bin/sh\n")
    probe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{probe.parent}{os.pathsep}{os.environ['PATH']}")
    ctx = make_ctx(tmp_path, deny=("Bash(probe:*)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c0", "%alias probe_alias probe"), ("c1", "%rehashx"), ("c2", source)], ctx)
    assert isinstance(verdict, PermissionDeny) and "probe" in verdict.message


def test_in_this_kernel_its_own_aliases_count(tmp_path, monkeypatch):
    """NotebookExecute in this kernel reads the aliases the kernel has now: ``%alias nuke rm -rf``
    run by an earlier call, then ``%nuke build``, is ``rm -rf build``."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell(config=config)
    shell.run_line_magic("alias", "nuke rm -rf %s")
    shell.run_line_magic("alias_magic", "r sx")
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    for source in ("%nuke build", "nuke build", "%r rm x", "%%capture\n%nuke x"):
        verdict = cells_shell_check([("c1", source)], ctx, shell)
        assert isinstance(verdict, PermissionDeny) and "Bash(rm:*)" in verdict.message, source
    assert cells_shell_check([("c1", "%nuke build")], ctx) is None  # a new kernel has no such alias
    shell.run_line_magic("unalias", "nuke")
    assert cells_shell_check([("c1", "%nuke build")], ctx, shell) is None


def test_in_another_kernel_a_magic_ipython_does_not_define_may_be_an_alias(tmp_path):
    ctx = make_ctx(tmp_path, deny=("Bash(rm:*)",), mode="bypassPermissions")
    verdict = cells_shell_check([("c1", "%nuke build")], ctx, other_kernel=True)
    assert isinstance(verdict, PermissionAsk) and is_sticky(verdict)
    assert cells_shell_check([("c1", "nuke build")], ctx, other_kernel=True) is not None  # automagic too
    assert cells_shell_check([("c1", "%matplotlib inline\n%time x = 1")], ctx, other_kernel=True) is None
    assert cells_shell_check([("c1", "%nuke build")], make_ctx(tmp_path, mode="bypassPermissions"),
                             other_kernel=True) is None  # no Bash rule: running the cells is the approval


@pytest.mark.skipif(not __import__("shutil").which("ipython"), reason="needs ipython")
def test_real_ipython_file_magics_show_and_write_files(tmp_path):
    """Ground truth: %pycat prints the file; %logstart writes the file it is given."""
    import subprocess

    (tmp_path / ".env").write_text("SECRET=1\n")
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}

    def ipython(code: str) -> str:
        return subprocess.run(["ipython", "--no-banner", "--colors=NoColor", "-c", code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120).stdout

    assert "SECRET=1" in ipython("%pycat .env")
    ipython("%logstart made.log")
    assert (tmp_path / "made.log").exists()
