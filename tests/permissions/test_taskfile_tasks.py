"""go-task runs the commands of its Taskfile: they meet the rules (session 32's probe).

With ``Bash(task:*)`` allowed and ``Bash(rm:*)`` denied, ``task clean`` ran the Taskfile's ``rm
-rf build``.  Now the commands of the tasks it runs (``permissions/taskfile_tasks.py``) are checked
as commands of the line, in the task's folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.taskfile_tasks import _scripts_of
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

TASKFILE = """\
version: '3'
vars:
  VERSION:
    sh: git describe --tags
tasks:
  default:
    deps: [lint]
  lint:
    cmds:
      - ruff check src
  clean: rm -rf build
  build:
    dir: web
    aliases: [b]
    deps:
      - task: lint
    cmds:
      - npm run build {{.CLI_ARGS}}
      - task: clean
  peek:
    cmds:
      - cmd: cat .env
  check:
    preconditions:
      - sh: rm -f stale.lock
    cmds: [ls]
  later:
    cmds:
      - defer: rm -f tmp.txt
      - ls
  loop:
    cmds:
      - for: [a, b]
        cmd: rm -rf 'out/{{.ITEM}}'
  serve:
    dotenv: ['.env']
    cmds: [python -m http.server]
  show: cat {{.CLI_ARGS}}
  nested:
    cmds:
      - task: "{{.TARGET}}"
"""

ROWS = [
    ("task clean", "deny"), ("task build", "deny"), ("task b", "deny"),  # build calls clean
    ("task peek", "deny"), ("task check", "deny"), ("task later", "deny"), ("task loop", "deny"),
    ("task serve", "deny"),  # dotenv reads .env, as `source .env`
    ("task show -- .env", "deny"),
    ("task lint", "deny"), ("task", "deny"),  # the file's VERSION runs git describe first
    ("task -t Taskfile.yml clean", "deny"), ("cd sub && task clean", "deny"), ("uvx --from go-task-bin task clean", "deny"),
    ("task --list", "allow"), ("task --summary clean", "allow"),
    ("task nested", "ask"), ('task "$T"', "ask"), ("task -g clean", "ask"),
    ("echo '  x: rm y' >> Taskfile.yml && task lint", "ask"),
    ("cd web && printf 'tasks: {}' > Taskfile.yml && task", "ask"),  # made first: web's, not the one above
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_tasks_meet_the_rules(world, command, expected):
    (world.project / "Taskfile.yml").write_text(TASKFILE)
    (world.project / "web").mkdir()
    ctx = make_ctx(world.project, allow=("Bash(task:*)", "Bash(uvx:*)"),
                   deny=("Bash(rm:*)", "Read(./.env)", "Bash(git describe:*)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_without_the_variable_the_default_runs(world):
    (world.project / "taskfile.yaml").write_text(TASKFILE.replace("vars:\n  VERSION:\n    sh: git describe --tags\n", ""))
    ctx = make_ctx(world.project, allow=("Bash(task:*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, "task")) == "allow"
    assert verdict_name(await decide_bash(ctx, "task lint")) == "allow"
    assert verdict_name(await decide_bash(ctx, "task clean")) == "deny"
    assert verdict_name(await decide_bash(ctx, "task show -- README.md")) == "allow"
    assert verdict_name(await decide_bash(ctx, "task missing")) == "allow"  # no such task: nothing runs


@pytest.mark.parametrize("text", ["tasks: [", "tasks: 3\n", "- a\n", "tasks:\n  x:\n    cmds:\n      - {weird: 1}\n",
                                  "includes:\n  ns: ./other\ntasks: {}\n",  # not there: task stops
                                  "includes:\n  ns: './{{.D}}'\ntasks: {}\n", "includes: [a]\ntasks: {}\n"])
async def test_a_taskfile_not_read_asks(world, text):
    (world.project / "Taskfile.yml").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(task:*)",), deny=("Bash(rm:*)",))
    command = "task ns:x" if text.startswith("includes") else "task x"
    assert verdict_name(await decide_bash(ctx, command)) == "ask", text


@pytest.mark.skipif(shutil.which("task", path=os.path.dirname(sys.executable)) is None,
                    reason="go-task is not installed")
def test_real_task_runs_what_is_predicted(tmp_path):
    """A real go-task run, each command touching a file: every file it touched is one the
    predicted commands touch, in the predicted folder (a called task runs in its own)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "web").mkdir()
    (tmp_path / "Taskfile.yml").write_text("""\
version: '3'
vars:
  GLOBAL:
    sh: touch by-global-var && echo g
tasks:
  default:
    deps: [lint]
    cmds: [touch by-default]
  lint:
    cmds: [touch by-lint]
  build:
    dir: web
    aliases: [b]
    vars:
      LOCAL:
        sh: touch by-local-var && echo l
    preconditions:
      - sh: touch by-precondition
    status:
      - touch by-status && false
    deps:
      - task: lint
    cmds:
      - touch by-build {{.CLI_ARGS}}
      - cmd: touch by-cmd-map
      - task: helper
      - defer: touch by-defer
  helper: touch by-helper
  unused: touch by-unused
""")
    task = shutil.which("task", path=os.path.dirname(sys.executable))
    for args in (["b", "--", "extra"], []):
        done = subprocess.run([task, *args], cwd=tmp_path / "sub", capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    touched = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file() and p.name != "Taskfile.yml"}
    predicted = set()
    for command in ("task b -- extra", "task"):
        for script in _scripts_of(analyze(command).commands[0].innermost, str(tmp_path / "sub"), False):
            for line in (script.code or "").splitlines():
                for word in line.split()[1:]:
                    predicted.add(os.path.relpath(os.path.join(script.cwd or "", word), tmp_path))
    assert touched <= predicted, (touched, predicted)
    assert {"by-global-var", "by-lint", "by-default", "by-helper", "web/by-build", "web/extra", "web/by-local-var",
            "web/by-precondition", "web/by-status", "web/by-defer", "web/by-cmd-map"} <= touched
    assert "by-unused" not in predicted


INCLUDING = """\
version: '3'
includes:
  docs: ./docs
  lib:
    taskfile: ./lib/Tasks.yml
    dir: ./lib
  flat:
    taskfile: ./lib/Flat.yml
    flatten: true
  opt:
    taskfile: ./missing.yml
    optional: true
tasks:
  default:
    cmds: [echo hi]
  all:
    deps: [docs:build]
"""


def _including(root) -> None:
    for folder in ("docs", "lib", "sub"):
        (root / folder).mkdir(exist_ok=True)
    (root / "Taskfile.yml").write_text(INCLUDING)
    (root / "docs" / "Taskfile.yml").write_text(
        "version: '3'\ntasks:\n  build:\n    cmds: ['rm -rf site']\n  peek:\n    cmds: ['cat .env']\n")
    (root / "lib" / "Tasks.yml").write_text("version: '3'\nincludes:\n  deep: ../docs\ntasks:\n  t:\n    cmds: ['echo t']\n"
                                            "  peek:\n    cmds: ['cat .env']\n")
    (root / "lib" / "Flat.yml").write_text("version: '3'\ntasks:\n  ft:\n    cmds: ['rm -f flat']\n")


@pytest.mark.parametrize(("command", "expected"), [
    # session 36: an included Taskfile's tasks are read (they asked before)
    ("task docs:build", "deny"), ("task all", "deny"), ("task lib:deep:build", "deny"), ("task ft", "deny"),
    ("task docs:peek", "deny"),  # runs where the including Taskfile's tasks run: ./.env
    ("cd sub && task docs:peek", "deny"),
    ("task lib:peek", "allow"),  # the include's dir: lib/.env
    ("task lib:t", "allow"), ("task flat:ft", "allow"), ("task opt:x", "allow"), ("task", "allow"),
])
async def test_included_taskfiles(world, command, expected):
    _including(world.project)
    ctx = make_ctx(world.project, allow=("Bash(task:*)",), deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.skipif(shutil.which("task", path=os.path.dirname(sys.executable)) is None,
                    reason="go-task is not installed")
def test_real_task_runs_included_tasks_where_predicted(tmp_path):
    """Ground truth for includes: each file touched by an included task is where the analysis puts it."""
    for folder in ("docs", "lib", "sub"):
        (tmp_path / folder).mkdir()
    (tmp_path / "Taskfile.yml").write_text(INCLUDING.replace("echo hi", "touch by-default"))
    (tmp_path / "docs" / "Taskfile.yml").write_text("version: '3'\ntasks:\n  build:\n    cmds: ['touch by-docs-build']\n"
                                                    "  sub:\n    dir: inner\n    cmds: ['touch by-docs-inner']\n")
    (tmp_path / "lib" / "Tasks.yml").write_text("version: '3'\nincludes:\n  deep: ../docs\ntasks:\n"
                                                "  t:\n    cmds: ['touch by-lib-t']\n")
    (tmp_path / "lib" / "Flat.yml").write_text("version: '3'\ntasks:\n  ft:\n    cmds: ['touch by-flat']\n")
    task = shutil.which("task", path=os.path.dirname(sys.executable))
    lines = ["task all", "task docs:sub", "task lib:t", "task lib:deep:build", "task ft"]
    predicted = set()
    for line in lines:
        done = subprocess.run([task, *line.split()[1:]], cwd=tmp_path / "sub", capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, line + done.stdout + done.stderr
        for script in _scripts_of(analyze(line).commands[0].innermost, str(tmp_path / "sub"), False):
            for command in (script.code or "").splitlines():
                for word in command.split()[1:]:
                    predicted.add(os.path.relpath(os.path.join(script.cwd or "", word), tmp_path))
    touched = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("by-*")}
    assert touched == predicted == {"by-docs-build", "inner/by-docs-inner", "lib/by-lib-t", "lib/by-docs-build",
                                    "by-flat"}, (touched, predicted)


FIXED = """\
version: '3'
vars:
  G: global
tasks:
  hook:
    vars:
      D: .git/hooks/pre-commit
      T: "{{.G}}-x"
    cmds:
      - echo cp hook.sh {{.D}} {{ .D }}
      - echo '{{.D}}' {{.T}} {{.G}}
"""


@pytest.mark.skipif(shutil.which("task", path=os.path.dirname(sys.executable)) is None,
                    reason="go-task is not installed")
def test_a_tasks_own_string_is_put_in_as_task_puts_it(tmp_path):
    """A task's own string variable wins over ``D=x`` on the line, a caller's and the file's (a real
    task 3): its ``{{.D}}`` is that text; the file's string is its text unless the line sets it
    (then the line's); a templated value stays a word only known at run time."""
    from jupyter_agent.permissions.taskfile_tasks import _Runner

    (tmp_path / "Taskfile.yml").write_text(FIXED)
    task = shutil.which("task", path=os.path.dirname(sys.executable))
    printed = subprocess.run([task, "hook", "D=line", "G=line"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=True).stdout.split("\n")
    assert printed[:2] == ["cp hook.sh .git/hooks/pre-commit .git/hooks/pre-commit", ".git/hooks/pre-commit line-x line"]
    taskfile = yaml.safe_load(FIXED)
    code = _Runner(taskfile, str(tmp_path), "", str(tmp_path), line_vars={"D": "line", "G": "line"}).code(["hook"])
    assert code[str(tmp_path)] == ["echo cp hook.sh .git/hooks/pre-commit .git/hooks/pre-commit",
                                   """echo '.git/hooks/pre-commit' "${TASK_VALUE}" line"""], code
    printed = subprocess.run([task, "hook"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             check=True).stdout.split("\n")
    assert printed[1] == ".git/hooks/pre-commit global-x global"
    code = _Runner(taskfile, str(tmp_path), "", str(tmp_path)).code(["hook"])[str(tmp_path)]
    assert code[1] == """echo '.git/hooks/pre-commit' "${TASK_VALUE}" global""", code


async def test_a_tasks_own_path_meets_the_checks(world):
    """``task hook`` (``cp hook.sh {{.D}}``, ``D: .git/hooks/pre-commit``) installed a git hook
    unasked in bypassPermissions; ``rm -rf {{.B}}`` with ``B: out`` meets ``Bash(rm -rf out:*)``."""
    (world.project / "Taskfile.yml").write_text(
        "version: '3'\ntasks:\n  hook:\n    vars:\n      D: .git/hooks/pre-commit\n    cmds:\n"
        "      - cp hook.sh {{.D}}\n  clean:\n    vars:\n      B: out\n    cmds:\n      - rm -rf {{.B}}\n")
    ctx = make_ctx(world.project, deny=("Bash(rm -rf out:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "task hook")
    assert verdict_name(verdict) == "ask" and ".git/hooks/pre-commit" in verdict.message, verdict
    assert verdict_name(await decide_bash(ctx, "task clean")) == "deny"


GLOBALS = """\
version: '3'
vars:
  OUT: build
  DYN:
    sh: printf dyn
  TPL: '{{.OUT}}/x'
  PASSED: file
tasks:
  a:
    cmds:
      - echo a {{.OUT}} {{.PASSED}} {{.DYN}} {{.TPL}}
  b:
    vars:
      OUT:
        sh: printf mine
    cmds:
      - echo b {{.OUT}}
  c:
    cmds:
      - task: a
        vars: {PASSED: caller}
"""


@pytest.mark.skipif(shutil.which("task", path=os.path.dirname(sys.executable)) is None,
                    reason="go-task is not installed")
@pytest.mark.parametrize(("line", "known"), [("task a", 2), ("task a OUT=dist", 2), ("task b", 1), ("task b OUT=dist", 1),
                                             ("task c", 2), ("task c OUT=x", 2)])
def test_the_files_strings_are_put_in_as_task_puts_them(tmp_path, line, known):
    """The file's string variables are their text (the line's ``NAME=VALUE`` wins over them); a
    task's own variable, a caller's (``- task: a`` with ``vars:``), ``sh:`` and templated values
    stay words only known at run time: each fixed word predicted is the word a real task 3 printed."""
    (tmp_path / "Taskfile.yml").write_text(GLOBALS)
    task = shutil.which("task", path=os.path.dirname(sys.executable))
    done = subprocess.run([task, "--silent", *line.split()[1:]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=True)
    printed = [row.split() for row in done.stdout.splitlines()]
    scripts = _scripts_of(analyze(line).commands[0].innermost, str(tmp_path), False)
    predicted = [row.split() for s in scripts for row in (s.code or "").splitlines() if row.startswith("echo ")]
    assert len(predicted) == len(printed) and predicted, (predicted, printed)
    fixed = 0
    for guess, real in zip(predicted, printed, strict=True):
        assert len(guess) - 1 == len(real), (guess, real)
        for word, value in zip(guess[1:], real, strict=True):
            assert word == value or word == '"${TASK_VALUE}"', (line, guess, real)
            fixed += word == value
    assert fixed == known  # (`a` and OUT's value; b sets OUT itself)


async def test_the_files_path_meets_the_checks_and_an_ordinary_one_stays_quiet(world):
    """``cp hook.sh {{.HOOKS}}/pre-commit`` with the file's ``HOOKS: .git/hooks`` asks (every mode);
    ``cp a.py {{.OUT}}/`` with ``OUT: build`` asked too as a write to a word only known at run time."""
    (world.project / "Taskfile.yml").write_text(
        "version: '3'\nvars:\n  HOOKS: .git/hooks\n  OUT: build\ntasks:\n  hook:\n    cmds:\n"
        "      - cp hook.sh {{.HOOKS}}/pre-commit\n  dist:\n    cmds:\n      - mkdir -p {{.OUT}}\n"
        "      - cp a.py {{.OUT}}/\n")
    ctx = make_ctx(world.project, mode="bypassPermissions")
    verdict = await decide_bash(ctx, "task hook")
    assert verdict_name(verdict) == "ask" and ".git/hooks/pre-commit" in verdict.message, verdict
    assert verdict_name(await decide_bash(ctx, "task dist")) == "allow"
    assert verdict_name(await decide_bash(ctx, "task dist OUT=.git/hooks")) == "ask"
