"""Commands Python code builds before it runs them (``permissions/python_commands.py``).

In bypassPermissions with ``Bash(*)`` allowed and ``Bash(rm:*)`` denied, ``python3 -c "import os;
os.system('r' + 'm x')"`` removed ``x``: only string literals were held to the rules, and no
literal says ``rm x``.  The same for a name bound in parts, ``'mr'[::-1]``, ``chr(114)``,
``getattr(os, 'sys' + 'tem')``, ``exec(bytes.fromhex(…).decode())``, a file the code runs as code
(``exec(open('steps.txt').read())``), and a command only known at run time
(``os.system(open('cmd.txt').read())``, ``subprocess.run(['sh', '-c', input()])``).  Real Python
runs each attack once here, to show it removes the file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions.python_commands import CodeFile, python_commands
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

_HEX = b"import os; os.system('rm x')".hex()

# code -> the shell lines its calls run ("$…" a value only known at run time; None: a command or
# code only known at run time)
LINES = [
    ("import os; os.system('r' + 'm x')", ("rm x",)),
    ("import os; os.system('mr'[::-1] + ' x')", ("rm x",)),
    ("import os; c = 'r'; c += 'm x'; os.system(c)", ("rm x",)),
    ("import os; os.system(chr(114) + chr(109) + ' x')", ("rm x",)),
    ("import os; getattr(os, 'sys' + 'tem')('rm x')", ("rm x",)),
    ("import os; os.__dict__['system']('rm x')", ("rm x",)),
    ("import os; vars(os)['sys' + 'tem']('rm x')", ("rm x",)),
    ("__import__('o' + 's').system('rm x')", ("rm x",)),
    ("s = __import__('os').system; s('rm x')", ("rm x",)),
    ("import importlib; importlib.import_module('subprocess').run(['rm', 'x'])", ("rm x",)),
    ("import ctypes; ctypes.CDLL(None).system(b'rm x')", ("rm x",)),
    (f"exec(bytes.fromhex('{_HEX}').decode())", ("rm x",)),
    ("exec('import os; os.system(\"rm x\")')", ("rm x",)),
    ("import subprocess as sp; sp.run(['git', 'status'])", ("git status",)),
    ("from subprocess import *; run(['r' + 'm', 'x'])", ("rm x",)),
    ("from subprocess import run as r; p = 'mr'[::-1]; r([p, 'x'])", ("rm x",)),
    ("import subprocess; subprocess.run('rm x'.split())", ("rm x",)),
    ("import subprocess, shlex; subprocess.run(shlex.split('rm -rf x'))", ("rm -rf x",)),
    ("import subprocess; subprocess.run('rm x', shell=True)", ("rm x",)),
    ("import subprocess; subprocess.run('ls')", ("ls",)),
    ("import subprocess, sys; subprocess.run([sys.executable, '-m', 'pip', 'list'])", ("python3 -m pip list",)),
    ("import subprocess, shutil; subprocess.run([shutil.which('git'), 'log'])", ("git log",)),
    ("import subprocess; cmd = ['pytest', '-q', path]; subprocess.run(cmd)", ('pytest -q "$__python_value_2"',)),
    ("import subprocess; subprocess.run(['ls', *files])", ('ls "$__python_value_1"',)),
    ("import subprocess; subprocess.run(['sh', '-c', input()])", ('sh -c "$__python_value_2"',)),
    ("import subprocess; subprocess.run(['ls'], executable=input())", ('"$__python_value_0"',)),
    ("import os; os.execlp('rm', 'rm', 'x')", ("rm x",)),
    ("import os; os.execv('/bin/rm', ['rm', 'x'])", ("/bin/rm x",)),
    ("import os; os.spawnlp(os.P_WAIT, 'rm', 'rm', 'x')", ("rm x",)),
    ("import os; os.execle('/bin/rm', 'rm', 'x', {})", ("/bin/rm x",)),
    ("import pty; pty.spawn(['rm', 'x'])", ("rm x",)),
    ("import asyncio; asyncio.create_subprocess_exec('rm', 'x')", ("rm x",)),
    ("import pexpect; pexpect.run('r' + 'm x')", ("rm x",)),
    ("import pexpect; pexpect.spawn('rm', ['x'])", ("rm x",)),
    ("import sh; sh.rm('x')", ("rm x",)),
    ("import sh; sh.git.log('-1')", ("git log -1",)),
    ("from sh import rm; rm('x')", ("rm x",)),
    ("import sh; sh.Command('r' + 'm')('x')", ("rm x",)),
    ("from plumbum.cmd import rm; rm('x')", ("rm x",)),
    ("from plumbum import local; local['r' + 'm']('x')", ("rm x",)),
    ("get_ipython().run_line_magic('sx', 'r' + 'm x')", ("rm x",)),
    ("get_ipython().run_cell_magic('bash', '', 'rm x')", ("rm x",)),
    ("get_ipython().run_cell('!r' + 'm x')", ("rm x",)),
    ("get_ipython().magic('sx rm x')", ("rm x",)),
    ("get_ipython().system('r' + 'm x')", ("rm x",)),
    ("get_ipython().run_line_magic('timeit', 'x = 1')", ()),
    # only known at run time
    ("get_ipython().run_line_magic(name, 'x')", (None,)),
    ("import pexpect; pexpect.run(open('cmd.txt').read())", (None,)),
    ("import os; list(map(os.system, ['r' + 'm x']))", (None,)),
    ("import os, threading; threading.Thread(target=os.system, args=('rm x',)).start()", (None,)),
    ("import os; os.system(input())", (None,)),
    ("import os; os.system(open('cmd.txt').read())", (None,)),
    ("import os; getattr(os, input())('rm x')", (None,)),
    ("import os\nfor c in ['ls', 'rm x']:\n    os.system(c)", (None,)),
    ("import os\ndef f(c):\n    os.system(c)\nf('ls')", (None,)),
    ("import subprocess; subprocess.run(f'wc -l {name}', shell=True)", (None,)),
    ("import subprocess; subprocess.run(cmd)", (None,)),
    ("import subprocess; subprocess.run(**options)", (None,)),
    ("import subprocess; subprocess.run([*cmd, 'x'])", (None,)),
    ("exec(input())", (None,)),
    ("exec(compile(source, 'x', 'exec'))", (None,)),
    # a file run as code: read by the caller
    ("exec(open('steps.txt').read())", (CodeFile("steps.txt"),)),
    ("from pathlib import Path; exec(Path('s' + '.py').read_text())", (CodeFile("s.py"),)),
    # no command
    ("print(eval('1 + 2'))", ()),
    ("import platform; print(platform.system())", ()),
    ("import os; print(os.listdir('.'))", ()),
    ("this is not python", ()),
]


@pytest.mark.parametrize(("code", "expected"), LINES, ids=[c[:60] for c, _ in LINES])
def test_the_shell_lines_python_code_runs(code, expected):
    assert python_commands(code) == expected


BYPASS = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
# (command, expected): each ask ran `rm x` unasked before
DECISIONS = [
    ("python3 -c \"import os; os.system('r' + 'm x')\"", "ask"),
    ("python3 -c \"import os; c = 'r'; c += 'm x'; os.system(c)\"", "ask"),
    ("python3 -c \"import os; os.system(chr(114) + chr(109) + ' x')\"", "ask"),
    ("python3 -c \"import os; getattr(os, 'sys' + 'tem')('r' + 'm x')\"", "ask"),
    (f"python3 -c \"exec(bytes.fromhex('{_HEX}').decode())\"", "ask"),
    ("python3 -c \"import os; os.system(open('cmd.txt').read())\"", "ask"),
    ("python3 -c \"import subprocess; subprocess.run(['sh', '-c', open('cmd.txt').read()])\"", "ask"),
    ("python3 -c 'exec(open(\"steps.txt\").read())'", "ask"),
    ("python3 -c 'exec(open(\"later.txt\").read())'", "ask"),
    ("python3 -c 'exec(open(\"calm.txt\").read())'", "allow"),
    ("python3 -c 'exec(open(\"missing.txt\").read())'", "allow"),
    ("python3 - <<'EOF'\nimport subprocess\np = 'mr'[::-1]\nsubprocess.run([p, 'x'])\nEOF", "ask"),
    ("python3 <<< 'import os; os.system(open(\"cmd.txt\").read())'", "ask"),
    ("echo 'import os; os.system(\"r\" + \"m x\")' > t.py && python3 t.py", "ask"),
    ("cat > t.py <<'EOF'\nimport os; os.system('r' + 'm x')\nEOF\npython3 t.py", "ask"),
    # what runs a known program, or none, is as before
    ("python3 -c \"import subprocess; print(subprocess.run(['git', 'status']).returncode)\"", "allow"),
    ("python3 - <<'EOF'\nimport subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pip', 'list'])\n"
     "for f in ['a.py']:\n    subprocess.run(['wc', '-l', f])\nEOF", "allow"),
    ("python3 -c 'print(1 + 2)'", "allow"),
    ("python3 -c \"import pexpect; pexpect.run('r' + 'm x')\"", "ask"),
    ("python3 -c \"import os; list(map(os.system, ['r' + 'm x']))\"", "ask"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cmd.txt").write_text("rm x")
    (tmp_path / "steps.txt").write_text("import os\nos.system('r' + 'm x')\n")
    (tmp_path / "later.txt").write_text("import os\nos.system(open('cmd.txt').read())\n")
    (tmp_path / "calm.txt").write_text("print('steps done')\n")
    (tmp_path / "x").write_text("keep me")
    return tmp_path


@pytest.mark.parametrize(("command", "expected"), DECISIONS, ids=[c[:70] for c, _ in DECISIONS])
async def test_a_command_python_code_builds_meets_the_rules(project, command, expected):
    verdict = await decide_bash(make_ctx(project, **BYPASS), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "python3's code runs" in verdict.message, verdict.message
        assert "Bash(rm:*)" in verdict.message, verdict.message


async def test_the_same_commands_run_unasked_without_a_rule_naming_a_program(project):
    """Only a deny or ask rule naming a program makes a command Python builds matter."""
    ctx = make_ctx(project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    for command, _expected in DECISIONS:
        if "<<" not in command and "echo" not in command:
            assert verdict_name(await decide_bash(ctx, command)) == "allow", command


async def test_an_allow_rule_for_python_does_not_let_it_run_what_a_deny_rule_closes(project):
    ctx = make_ctx(project, allow=("Bash(python3:*)",), deny=("Bash(rm:*)",))
    verdict = await decide_bash(ctx, "python3 -c \"import os; os.system('r' + 'm x')\"")
    assert verdict_name(verdict) == "ask" and "'rm x'" in verdict.message, verdict
    verdict = await decide_bash(ctx, "python3 -c \"import subprocess; subprocess.run(['git', 'status'])\"")
    assert verdict_name(verdict) == "allow", verdict


@pytest.mark.skipif(shutil.which("rm") is None, reason="needs rm")
@pytest.mark.parametrize("command", [c for c, e in DECISIONS if e == "ask" and "<<" not in c and "&&" not in c])
def test_each_attack_really_removes_the_file(project, command):
    """The effect is real: each line that now asks removed ``x`` when Python ran it."""
    line = command.replace("python3", sys.executable, 1)
    subprocess.run(["bash", "-c", line], cwd=project, input="rm x", text=True, capture_output=True, timeout=30)
    assert not (project / "x").exists(), command


async def test_a_notebook_cell_that_builds_a_ruled_command_asks(tmp_path):
    """NotebookExecute's check of the cells' code reads the calls the same way."""
    from jupyter_agent.permissions.notebook_shell import cells_strings_check

    ctx = make_ctx(tmp_path, **BYPASS)
    verdict = cells_strings_check([("c1", "import os\nos.system('r' + 'm -rf build')")], ctx, [tmp_path])
    assert verdict is not None and verdict_name(verdict) == "ask", verdict
    assert "cell c1's code runs 'rm -rf build'" in verdict.message, verdict.message
    verdict = cells_strings_check([("c4", "get_ipython().run_line_magic('sx', 'r' + 'm -rf build')")], ctx, [tmp_path])
    assert verdict is not None and "'rm -rf build'" in verdict.message, verdict
    verdict = cells_strings_check([("c2", "import os\nos.system(input('command: '))")], ctx, [tmp_path])
    assert verdict is not None and "only known at run time" in verdict.message, verdict
    assert cells_strings_check([("c3", "import subprocess\nsubprocess.run(['git', 'log', '-1'])")], ctx,
                               [tmp_path]) is None


async def test_an_argument_that_is_a_ruled_command_still_asks_beside_code_the_line_writes(project):
    """The line's strings read as code do not hide an argument: ``echo hi && python3 tool.py 'rm x'``."""
    (project / "tool.py").write_text("import sys\nprint(sys.argv)\n")
    for command in ("echo hi && python3 tool.py 'rm x'", "echo 'print(1)' > t.py && python3 t.py 'rm x'"):
        verdict = await decide_bash(make_ctx(project, **BYPASS), command)
        assert verdict_name(verdict) == "ask" and "Bash(rm:*)" in verdict.message, (command, verdict)


async def test_a_file_run_as_code_too_long_to_read_asks(project):
    """``exec(open('big.txt').read())``: a file past the bound of what is read is code only known
    at run time (its end may hold the command)."""
    (project / "big.txt").write_text("x = 1\n" * 200_000 + 'import os; os.system("r" + "m x")\n')
    verdict = await decide_bash(make_ctx(project, **BYPASS), "python3 -c 'exec(open(\"big.txt\").read())'")
    assert verdict_name(verdict) == "ask" and "longer than" in verdict.message, verdict
