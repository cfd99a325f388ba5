"""Shell code a program may run, spelled inside one word: an unknown program's argument or option
value (``tool -c 'rm x'``, ``tool --run='rm x'``), a variable's value (``DIFFPROG='rm x' pacdiff``)
and a string of an interpreter's code (``python -c 'os.system("rm x")'``, ``python <<'EOF'``).

Where such a word has a command a deny or ask rule names, the line asks in every mode (bypass with
``Bash(*)`` allowed below); before, each of the "ask" rows ran unasked."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)", "Bash(curl:*)"), "ask": ("Bash(git push:*)",)}
PY = "python3"

ROWS = [
    # an unknown program's argument, or an option's value, that is shell code
    ("some-tool --run 'rm x'", "ask"), ("some-tool --run='rm x'", "ask"), ("some-tool -c 'rm -rf x'", "ask"),
    ("some-tool 'rm -rf x'", "ask"), ("some-tool --exec=rm", "ask"),
    ("some-tool --hook='cd . && rm x'", "ask"),
    ("some-tool --hook='true; rm x'", "ask"), ("some-tool 'echo $(rm x)'", "ask"),
    ("some-tool --on-done 'git push origin main'", "ask"),  # an ask rule's command
    ("some-tool 'curl -s https://example.com'", "ask"),
    ("some-tool 'rm it'\"'\"'s'", "ask"),  # code that does not parse, with a ruled program in it
    ("some-tool --cmd 'r\"\"m x'", "ask"), ("some-tool --cmd '\\rm x'", "ask"),
    ("some-tool '/bin/rm x'", "ask"),
    ("some-tool /bin/rm x", "ask"), ("some-tool --cmd='/usr/bin/rm -rf /'", "ask"),
    ("some-tool /usr/bin/git push origin", "ask"), ("some-tool /usr/bin/git status", "allow"),
    ("some-tool ./rm.txt", "allow"),
    # words that are not such code
    ("some-tool --msg 'remove the files'", "allow"), ("some-tool --msg 'echo rm'", "allow"),
    ("some-tool 'rmdir x'", "allow"), ("some-tool --name 'baseline run'", "allow"),
    ("notify-send 'build done'", "allow"), ("ffmpeg -i a.mp4 -vf 'scale=640:-1' b.mp4", "allow"),
    ("gh pr create --title 'rm the old cache'", "allow"),  # gh's words are its own (not a runner)
    ("git commit -m 'rm: drop x'", "allow"), ("echo 'rm x'", "allow"), ("grep 'rm -rf' a.py", "allow"),
    # what an unknown program reads on standard input may be commands it runs (irb, a REPL, a tool's prompt)
    ("echo 'rm x' | some-tool", "ask"), ("some-tool <<< 'rm x'", "ask"),
    ("timeout 5 some-tool <<'EOF'\nrm -rf x\nEOF", "ask"), ("echo 'system(\"rm x\")' | irb", "ask"),
    ("echo quit | some-tool", "allow"), ("git log --oneline | some-tool", "allow"),
    ("cat <<'EOF' > notes.md\nrm x is how you delete\nEOF", "allow"),
    ("echo 'rm x' | tee notes.txt", "allow"), ("echo 'rm x' | grep rm", "allow"),
    # a variable's value: a program may run its command from the environment
    ("DIFFPROG='rm x' pacdiff", "ask"), ("export DIFFPROG='rm x'; pacdiff", "ask"),
    ("DIFFPROG=rm pacdiff", "ask"),
    ("declare -x HOOK='curl https://x | sh'; tool", "ask"), ("MODE='fast run' tool", "allow"),
    # a plain assignment's value, exported by the line (export X, declare -x X, set -a before it)
    ("X='rm x'; export X; pacdiff", "ask"), ("X='rm x'\nexport X", "ask"), ("export X; X='rm -rf y'", "ask"),
    ("declare -gx HOOK; HOOK='rm x'; tool", "ask"), ("set -a; X='rm x'; pacdiff", "ask"),
    ("set -o allexport; HOOK='rm x'; tool", "ask"),
    ("X='rm x'; echo done", "allow"), ("X='rm x'; export Y", "allow"), ("set -eu; X='rm x'; tool", "allow"),
    ("declare -r X; X='rm x'", "allow"), ("X='echo hi'; export X; tool", "allow"),
    # a file the line writes, given to such a program: what was written may be its commands
    ("printf 'rm x' > c.txt && some-tool -f c.txt", "ask"), ("echo 'rm x' | tee c.txt; some-tool c.txt", "ask"),
    ("cat > c.txt <<'EOF'\nrm -rf x\nEOF\nsome-tool --commands=./c.txt", "ask"),
    ("echo 'rm x' > notes.txt && some-tool build", "allow"), ("echo 'hi there' > c.txt && some-tool -f c.txt", "allow"),
    ("printf 'rm x' > c.txt && cat c.txt", "allow"),
    # strings of an interpreter's code: on its command line, in a heredoc, piped in
    (f"{PY} -c 'import os; os.system(\"rm x\")'", "ask"),
    (f"{PY} -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"x\"])'", "ask"),
    ("node -e \"require('child_process').execSync('rm -rf x')\"", "ask"),
    ("perl -e '`rm x`'", "ask"), ("ruby -e 'system(\"rm\", \"x\")'", "ask"),
    ("perl -e 'system(q{rm x})'", "ask"), ("ruby -e 'system %q(rm x)'", "ask"), ("perl -e 'qx[rm x]'", "ask"),
    ("perl -e 'print q{hello}'", "allow"),
    ("uv run python -c 'import os; os.system(\"rm -rf build\")'", "ask"),
    (f"{PY} <<'EOF'\nimport os\nos.system(\"rm x\")\nEOF", "ask"),
    (f"{PY} - <<'EOF'\nimport subprocess\nsubprocess.run([\"rm\", \"-rf\", \"x\"])\nEOF", "ask"),
    (f"timeout 60 {PY} <<'EOF'\nimport subprocess\nsubprocess.call('rm -rf b', shell=True)\nEOF", "ask"),
    ("echo 'import os; os.system(\"rm x\")' | python3", "ask"),
    # the line may write the script it runs: its strings are the script's
    (f"echo 'import os; os.system(\"rm x\")' > t.py && {PY} t.py", "ask"),
    (f"printf '%s\\n' 'import os' 'os.system(\"rm x\")' > t.py; {PY} t.py", "ask"),
    (f"cd sub && {PY} train.py --name 'baseline run'", "allow"),
    (f"{PY} -c 'print(\"hello world\")'", "allow"),
    (f"{PY} -c 'import shutil; shutil.copy(\"a.py\", \"b.py\")'", "allow"),
    (f"{PY} <<'EOF'\nimport pandas as pd\nprint(pd.read_csv(\"runs.csv\").describe())\nEOF", "allow"),
    ("python -m pytest -k 'not slow' tests", "allow"), ("python train.py --name 'baseline run'", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_code_in_one_word(world, command, expected):
    ctx = make_ctx(world.project, mode="bypassPermissions", **_RULES)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_only_an_ask_never_a_deny_and_nothing_without_rules(world):
    ctx = make_ctx(world.project, mode="bypassPermissions", **_RULES)
    verdict = await decide_bash(ctx, "some-tool -c 'rm -rf x'")
    assert verdict_name(verdict) == "ask"
    assert "rm -rf x" in verdict.message and "Bash(rm:*)" in verdict.message
    bare = make_ctx(world.project, allow=("Bash(*)",), mode="bypassPermissions")
    for command in ("some-tool -c 'rm -rf x'", "DIFFPROG='rm x' pacdiff",
                    f"{PY} -c 'import os; os.system(\"rm x\")'"):
        assert verdict_name(await decide_bash(bare, command)) == "allow", command


async def test_default_mode_still_allows_what_an_allow_rule_covers(world):
    ctx = make_ctx(world.project, allow=("Bash(python3:*)",), deny=("Bash(rm:*)",), mode="default")
    assert verdict_name(await decide_bash(ctx, f"{PY} -c 'print(1)'")) == "allow"
    assert verdict_name(await decide_bash(ctx, f"{PY} -c 'import os; os.system(\"rm -f x\")'")) == "ask"


def test_an_interpreter_really_runs_the_command_its_heredoc_spells(tmp_path):
    """The ground truth of the heredoc rows: the string is a command the interpreter runs."""
    line = f"{sys.executable} <<'EOF'\nimport os\nos.system('touch ran')\nEOF"
    subprocess.run(line, shell=True, cwd=tmp_path, check=True, timeout=60)
    assert (tmp_path / "ran").exists()


RUNNER_ROWS = [
    # an unknown program whose arguments name a shell or a task runner: what that runs may run
    ("bear -- make", "ask"), ("compiledb make", "ask"), ("scan-build make", "ask"),
    ("some-tool bash x.sh", "ask"),
    ("some-tool npm run build", "ask"), ("some-tool -- make all", "ask"),
    ("bear -- make -n", "allow"),  # make runs no recipe
    ("echo make", "allow"), ("which make", "allow"), ("man make", "allow"), ("some-tool make help", "allow"),
    # GNU make's other names run the makefile as make does
    ("remake", "deny"), ("colormake", "deny"), ("gnumake all", "deny"), ("remake -n", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), RUNNER_ROWS)
async def test_a_runner_among_the_arguments(world, command, expected):
    (world.project / "Makefile").write_text("all:\n\trm x\n")
    (world.project / "x.sh").write_text("rm y\n")
    (world.project / "package.json").write_text('{"scripts": {"build": "rm -rf dist"}}')
    ctx = make_ctx(world.project, mode="bypassPermissions", **_RULES)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, command
    if expected == "ask":
        assert "may run a command a deny rule names" in verdict.message, verdict.message


FILES = {
    "tool.py": 'import subprocess\nsubprocess.run(["rm", "-rf", "build"])\n',
    "clean.py": 'import os\nos.system(f"rm -rf {out}")\n',
    "prose.py": 'print("to rm a file use rm")\nprint("can\'t rm it")\nhelp = "rm: remove"\n',
    "train.py": 'import torch\nprint("epoch", 1)\nopen("runs/log.txt", "w").write("ok")\n',
    "tasks.py": 'from invoke import task\n\n@task\ndef build(c):\n    c.run("rm -rf dist")\n',
    "x.js": 'require("child_process").execSync("rm -rf x")\n',
    "wipe": '#!/usr/bin/env -S python3 -u\nimport os\nos.system("rm -rf b")\n',
    "quiet": '#!/bin/sh\necho "rm -rf b"\n', "calm": '#!/usr/bin/python3\nprint("to rm a file use rm")\n',
}
FILE_ROWS = [
    # a string of a code file the line runs that is a command a deny rule names
    (f"{PY} tool.py", "ask"), (f"{PY} clean.py", "ask"), (f"{PY} -W ignore tool.py", "ask"),
    ("uv run python tool.py", "ask"), ("cd sub && python3 ../tool.py", "ask"), ("invoke build", "ask"),
    ("inv build", "ask"), ("node x.js", "ask"), (f"timeout 60 {PY} -u tool.py --epochs 3", "ask"),
    (f"{PY} prose.py", "allow"),  # sentences with rm in them, not commands
    # the folder's modules
    (f"{PY} -m tool", "ask"), (f"{PY} -m app", "ask"), (f"{PY} -mtool --x", "ask"), (f"{PY} -m pkg.clean", "ask"),
    (f"{PY} train.py", "allow"), (f"{PY} -m pytest", "allow"), (f"{PY} -m pkg", "allow"),
    # a module of the folder shadows the standard library's or an installed one: -m imports it first
    (f"{PY} -m json.tool notes.txt", "ask"), (f"{PY} -m shadow", "ask"), (f"{PY} -m shadow.sub", "ask"),
    (f"{PY} -m quietpkg.sub", "allow"),
    (f"{PY} -c 'print(1)' tool.py", "allow"),  # -c: tool.py is an argument of the code
    (f"{PY} missing.py", "allow"),
    # a code file the inline code names in a string: it may run it
    (f"{PY} -c 'import runpy; runpy.run_path(\"tool.py\")'", "ask"), ("node -e 'require(\"./x.js\")'", "ask"),
    (f"{PY} -c 'exec(open(\"train.py\").read())'", "allow"),
    # a script run by its path or by a project runner: ./tool.py, an interpreter's #! line, uv run x.py
    ("./tool.py", "ask"), ("uv run tool.py", "ask"), ("pdm run clean.py", "ask"), ("./wipe", "ask"),
    ("./calm", "allow"), ("./quiet", "allow"),  # a shell script's commands are read as commands
    # source files other runners run: go run, deno, tsx, ts-node, java's source mode …
    ("go run main.go", "ask"), ("go run -race .", "ask"), ("go run ./cmd/app --port 1", "ask"),
    ("deno run -A x.ts", "ask"), ("deno x.ts", "ask"), ("tsx watch x.ts", "ask"), ("npx ts-node x.ts", "ask"),
    ("java -cp lib Main.java", "ask"), ("elixir wipe.exs", "ask"), ("swift wipe.swift", "ask"),
    ("go test", "ask"), ("go test -run TestX ./pkg/lib", "ask"), ("go test ./...", "ask"),
    ("go test ./cmd/quiet", "allow"), ("go vet ./...", "allow"),
    ("go build .", "allow"), ("go run ./cmd/quiet", "allow"), ("go run example.com/tool@latest", "allow"),
    ("deno fmt x.ts", "allow"), ("deno run quiet.ts", "allow"), ("java -jar app.jar", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), FILE_ROWS)
async def test_strings_of_the_code_files_a_line_runs(world, command, expected):
    for name, text in FILES.items():
        (world.project / name).write_text(text)
    (world.project / "sub").mkdir(exist_ok=True)
    (world.project / "pkg").mkdir(exist_ok=True)
    (world.project / "pkg" / "clean.py").write_text(FILES["clean.py"])
    (world.project / "pkg" / "__main__.py").write_text(FILES["train.py"])
    (world.project / "json.py").write_text(FILES["tool.py"])  # python -m json.tool imports it, then fails
    (world.project / "shadow").mkdir(exist_ok=True)
    (world.project / "shadow" / "__init__.py").write_text(FILES["clean.py"])
    (world.project / "quietpkg" / "sub").mkdir(parents=True, exist_ok=True)
    (world.project / "quietpkg" / "sub" / "__main__.py").write_text(FILES["train.py"])
    (world.project / "src" / "app").mkdir(parents=True)
    (world.project / "src" / "app" / "__main__.py").write_text(FILES["clean.py"])
    sources = {"main.go": 'package main\nimport "os/exec"\nfunc main() { exec.Command("rm", "-rf", "x").Run() }\n',
               "cmd/app/app.go": 'package main\nfunc main() { run(`rm -rf build`) }\n',
               "cmd/app/app_test.go": "", "cmd/quiet/q.go": 'package main\nfunc main() { println("hi") }\n',
               "pkg/lib/lib_test.go": 'package lib\nfunc TestX(t *testing.T) { run("rm -rf cache") }\n',
               "x.ts": 'import { execSync } from "node:child_process";\nexecSync("rm -rf x");\n',
               "quiet.ts": 'console.log("to rm a file use rm");\n',
               "Main.java": 'class Main { public static void main(String[] a) throws Exception {\n'
                            '  new ProcessBuilder("rm", "x").start(); } }\n',
               "wipe.exs": 'System.cmd("rm", ["-rf", "x"])\n', "wipe.swift": 'shell("rm -rf x")\n'}
    for name, text in sources.items():
        (world.project / name).parent.mkdir(parents=True, exist_ok=True)
        (world.project / name).write_text(text)
    ctx = make_ctx(world.project, mode="bypassPermissions", **_RULES)
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


async def test_code_files_are_read_only_under_rules_naming_programs(world):
    (world.project / "tool.py").write_text(FILES["tool.py"])
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, f"{PY} tool.py")) == "allow"


SCRIPT_ROWS = [
    # a code file a script, a package script or a recipe runs: its strings too
    ("npm run clean", "ask"), ("make clean", "ask"), ("bash run.sh", "ask"), ("npm run quiet", "allow"),
    ("make quiet", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), SCRIPT_ROWS)
async def test_code_files_the_scripts_of_a_line_run(world, command, expected):
    (world.project / "scripts").mkdir()
    (world.project / "scripts" / "clean.js").write_text('require("child_process").execSync("rm -rf x")\n')
    (world.project / "scripts" / "quiet.js").write_text('console.log("to rm a file use rm")\n')
    (world.project / "package.json").write_text(
        '{"scripts": {"clean": "node scripts/clean.js", "quiet": "node scripts/quiet.js"}}')
    (world.project / "Makefile").write_text("clean:\n\tnode scripts/clean.js\nquiet:\n\tnode scripts/quiet.js\n")
    (world.project / "run.sh").write_text("cd scripts && node clean.js\n")  # (from the script's own folder)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "a string of" in verdict.message and "clean.js" in verdict.message, verdict.message


PYTEST_ROWS = [
    # the test files a line names and the conftest.py files pytest loads
    ("pytest tests/test_wipe.py", "ask"), ("pytest -q tests/test_wipe.py::test_it", "ask"),
    (f"{PY} -m pytest tests/test_wipe.py", "ask"), ("pytest plugins", "ask"), ("pytest", "ask"),
    ("cd plugins/deep && pytest", "ask"),  # the conftest.py above
    ("pytest tests", "ask"), ("pytest -k wipe tests", "ask"),  # the test files it collects there
    ("pytest tests/test_ok.py", "allow"), ("pytest docs", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), PYTEST_ROWS)
async def test_what_pytest_runs_of_the_project(world, command, expected):
    for name, text in {"tests/test_wipe.py": 'import subprocess\ndef test_it():\n    subprocess.run(["rm", "-rf", "b"])\n',
                       "tests/test_ok.py": "def test_ok():\n    assert 1\n",
                       "plugins/conftest.py": 'import os\nos.system("rm -rf cache")\n',
                       "plugins/deep/test_x.py": "def test_x():\n    pass\n",
                       "docs/conf_helper.py": 'import os\nos.system("rm -rf cache")\n'}.items():
        (world.project / name).parent.mkdir(parents=True, exist_ok=True)
        (world.project / name).write_text(text)
    (world.project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


def test_a_local_module_runs_before_the_standard_librarys_under_dash_m(tmp_path):
    """Why ``python -m json.tool`` counts a local ``json.py`` as code it runs: real Python runs it."""
    import subprocess
    import sys

    (tmp_path / "json.py").write_text("open('ran', 'w').write('yes')\n")
    subprocess.run([sys.executable, "-m", "json.tool"], cwd=tmp_path, input="{}", text=True, capture_output=True,
                   timeout=60)
    assert (tmp_path / "ran").exists()
