"""mise runs the tasks of its config files and task folders: their commands meet the rules (session 35's probe).

With ``Bash(mise:*)`` allowed and ``Bash(rm:*)`` denied, ``mise run clean`` ran the ``rm -rf build``
of ``mise.toml``, and ``mise run ci:wipe.sh`` the ``rm`` of an executable ``mise-tasks/ci/wipe.sh``.
Now the commands of the tasks it runs (``permissions/mise_tasks.py``) are checked as commands of
the line, in the task's folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_agent.permissions.bash_analysis import analyze
from jupyter_agent.permissions.mise_tasks import _READ
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

CONFIG = """\
[env]
_.source = "env.sh"

[tasks.clean]
run = "rm -rf build"

[tasks.build]
run = ["echo build", "ls"]
depends = ["clean"]

[tasks.ok]
run = "echo ok {{arg(name='what', default='x')}}"

[tasks.post]
run = "echo p"
depends_post = ["clean"]

[tasks.py]
run = "import shutil; shutil.rmtree('build')"
shell = "python3 -c"

[tasks.sh-shell]
run = "rm -f x"
shell = "bash -c"

[tasks.viaseq]
run = [{ task = "clean" }, "echo after"]

[tasks.peek]
run = "cat"
alias = "zz"

[tasks.sub]
run = "cat ../.env"
dir = "sub"

[tasks.here]
run = "cat .env"
dir = "{{cwd}}"

[tasks.args]
run = ["echo first", "cat"]

[tasks.dyn]
run = "{% if true %}ls{% endif %}"

[tasks.remote]
file = "https://example.com/task.sh"

[tasks.depdyn]
depends = ["{{env.X}}"]
run = "ls"

[task_config]
includes = ["more-tasks.toml"]
"""

ROWS = [
    ("mise run ok", "allow"), ("mise ok", "allow"), ("mise run ok hello", "allow"), ("mise run peek", "allow"),
    ("mise run clean", "deny"), ("mise r clean", "deny"), ("mise tasks run clean", "deny"), ("mise clean", "deny"),
    ("mise run build", "deny"),  # depends on clean
    ("mise run --skip-deps build", "allow"),
    ("mise run post", "deny"),  # clean runs after it
    ("mise run --skip-deps post", "allow"),
    ("mise run ok ::: clean", "deny"), ("mise run 'cl*'", "deny"), ("mise run viaseq", "deny"),
    ("mise run sh-shell", "deny"),
    ("mise run py", "allow"),  # Python's input: a program, as python3 -c is
    ("mise run zz -- .env", "deny"), ("mise run peek .env", "deny"),  # the words go to the last command
    ("mise run args .env", "deny"), ("mise run args README.md", "allow"),
    ("mise run sub", "deny"), ("mise -C sub run here", "allow"), ("mise run here", "deny"),
    ("mise run ci:wipe.sh", "deny"), ("mise run hdr", "deny"),  # file tasks; hdr's #MISE depends on clean
    ("mise run inc", "deny"),  # from the included file
    ("cd sub && mise run clean", "deny"),  # the config above counts from below
    ("mise -C sub run clean", "deny"), ("mise run -C sub ok", "allow"),
    ("timeout 60 mise run clean", "deny"), ("npx @jdxcode/mise run clean", "deny"),
    ("mise run -n clean", "allow"), ("mise run --dry-run clean", "allow"), ("mise run --help", "allow"),
    ("mise install", "allow"), ("mise tasks ls", "allow"), ("mise run nosuch", "allow"),  # mise fails
    ("mise run dyn", "ask"), ("mise run remote", "ask"), ("mise run depdyn", "ask"),
    ('mise run "$T"', "ask"), ("mise run --future-option ok", "ask"), ("mise watch ok", "ask"),
    ("echo 'run = \"rm x\"' >> mise.toml && mise run ok", "ask"),
    ("cd sub && printf '[tasks.x]\\nrun=\"ls\"' > mise.toml && mise run x", "ask"),  # made first: sub's
    ("printf 'rm y' > mise-tasks/new && chmod +x mise-tasks/new && mise run new", "ask"),
]


def _project(root) -> None:
    (root / "mise.toml").write_text(CONFIG)
    (root / "env.sh").write_text("export FROMENV=1\n")
    (root / "more-tasks.toml").write_text('[inc]\nrun = "rm -f inc.txt"\n')
    (root / "sub").mkdir(exist_ok=True)
    tasks = root / "mise-tasks"
    (tasks / "ci").mkdir(parents=True)
    (tasks / "ci" / "wipe.sh").write_text("#!/bin/bash\nrm -f x\n")
    (tasks / "hdr").write_text('#!/bin/bash\n#MISE depends=["clean"]\necho hi\n')
    (tasks / "not-a-task").write_text("rm -rf everything\n")  # not executable: mise skips it
    for path in (tasks / "ci" / "wipe.sh", tasks / "hdr"):
        path.chmod(0o755)


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_tasks_meet_the_rules(world, command, expected):
    _project(world.project)
    ctx = make_ctx(world.project, allow=("Bash(mise:*)", "Bash(npx:*)"), deny=("Bash(rm:*)", "Read(./.env)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


async def test_env_scripts_and_settings(world):
    (world.project / "mise.toml").write_text('[env]\n_.source = ["env.sh"]\n[tasks.ok]\nrun = "echo ok"\n')
    (world.project / "env.sh").write_text("rm -f stale\n")
    ctx = make_ctx(world.project, allow=("Bash(mise:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "mise run ok")) == "deny"  # sourced before any task
    (world.project / "env.sh").write_text("export A=1\n")
    assert verdict_name(await decide_bash(ctx, "mise run ok")) == "allow"
    (world.project / "mise.toml").write_text("[env]\nX = \"{{exec(command='rm -f y')}}\"\n[tasks.ok]\nrun = \"ls\"\n")
    assert verdict_name(await decide_bash(ctx, "mise run ok")) == "ask"  # a template runs a command
    (world.project / "mise.toml").write_text(
        '[settings]\nunix_default_inline_shell_args = "python3 -c"\n[tasks.ok]\nrun = "rm x"\n')
    assert verdict_name(await decide_bash(ctx, "mise run ok")) == "allow"  # Python's input, not shell code
    assert verdict_name(await decide_bash(ctx, "mise run -s 'bash -c' ok")) == "deny"


async def test_user_config_and_parent_folders(world):
    user = world.home / ".config" / "mise"
    user.mkdir(parents=True)
    (user / "config.toml").write_text('[tasks.wipe]\nrun = "rm -rf ~/tmp"\n')
    (world.project.parent / ".mise.toml").write_text('[tasks.up]\nrun = "rm -f above"\n')
    ctx = make_ctx(world.project, allow=("Bash(mise:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "mise run wipe")) == "deny"
    assert verdict_name(await decide_bash(ctx, "mise run up")) == "deny"
    assert verdict_name(await decide_bash(ctx, "mise run nosuch")) == "allow"


@pytest.mark.parametrize("text", ["[tasks", "tasks = 3\n", "[tasks.x]\nrun = 3\n", "[tasks.x]\ndir = 3\nrun='ls'\n",
                                  "[tasks.x]\ndepends = [3]\nrun='ls'\n", "[task_config]\nincludes = ['git::x']\n"])
async def test_a_config_not_read_asks(world, text):
    (world.project / "mise.toml").write_text(text)
    ctx = make_ctx(world.project, allow=("Bash(mise:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "mise run x")) == "ask", text


def _mise() -> str | None:
    return shutil.which("mise")


REAL_CONFIG = """\
[env]
_.source = "env.sh"

[tasks.default]
run = "touch by-default"

[tasks.build]
depends = ["lint", "gen extra-arg"]
depends_post = ["after"]
dir = "web"
alias = "b"
run = ["touch by-build-1", "touch by-build-2"]

[tasks.lint]
run = "touch by-lint"

[tasks.gen]
run = "touch by-gen"

[tasks.after]
run = [{ task = "helper" }, "touch by-after"]

[tasks.helper]
run = "touch by-helper"

[tasks.here]
dir = "{{cwd}}"
run = "touch by-here"

[tasks.unused]
run = "touch by-unused"

[task_config]
includes = ["more.toml", "mise-tasks"]
"""


@pytest.mark.skipif(_mise() is None, reason="mise is not installed (npm install @jdxcode/mise; .ci/run does)")
def test_real_mise_runs_what_is_predicted(tmp_path):
    """A real mise run, each command touching a file: every file it touched is one the predicted
    commands touch, in the predicted folder, and everything predicted to run did."""
    project, home = tmp_path / "p", tmp_path / "home"
    for folder in (project / "sub", project / "web", project / "mise-tasks" / "ci", home):
        folder.mkdir(parents=True)
    (project / "mise.toml").write_text(REAL_CONFIG)
    (project / "env.sh").write_text("touch by-env-source\n")
    (project / "more.toml").write_text('[inc]\nrun = "touch by-include"\n')
    task = project / "mise-tasks" / "ci" / "file.sh"
    task.write_text('#!/bin/sh\n#MISE depends=["lint"]\ntouch by-file-task "$@"\n')
    task.chmod(0o755)
    (project / "mise-tasks" / "off").write_text("touch by-not-executable\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MISE_")}
    env.update(HOME=str(home), MISE_TRUSTED_CONFIG_PATHS=str(project), MISE_YES="1")
    lines = ["mise run b", "mise run ci:file.sh argfile", "mise here ::: inc", "mise run"]
    for line in lines:
        done = subprocess.run([_mise(), *shlex.split(line)[1:]], cwd=project / "sub", env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, line + "\n" + done.stdout + done.stderr
    touched = {str(p.relative_to(project)) for p in project.rglob("by-*")} | {
        str(p.relative_to(project)) for p in project.rglob("argfile")}
    predicted = set()
    for line in lines:
        for script in _READ(analyze(line).commands[0].innermost, str(project / "sub"), False):
            code = script.code or ""
            first = code.split()[0] if code.split() else ""
            if os.path.isfile(first.strip("'")):  # a file task, run by path with its words
                words = shlex.split(code)
                code = Path(words[0]).read_text().replace('"$@"', " ".join(words[1:]))
            elif script.path is not None and script.code is None and not script.missing:
                code = Path(script.path).read_text()  # an env script
            for command in code.splitlines():
                parts = command.split()
                if parts[:1] == ["touch"]:
                    predicted.update(os.path.relpath(os.path.join(script.cwd or str(project / "sub"), w), project)
                                     for w in parts[1:])
    assert touched <= predicted, (touched, predicted)
    assert {"by-env-source", "by-lint", "by-gen", "web/by-build-1", "web/by-build-2", "by-after", "by-helper",
            "by-file-task", "argfile", "sub/by-here", "by-include", "by-default"} <= touched, touched
    assert "by-unused" not in predicted and "by-not-executable" not in predicted
