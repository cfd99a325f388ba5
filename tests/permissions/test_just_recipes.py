"""``just`` runs its justfile's recipes: their commands meet the rules (session 31's probe).

With ``Bash(rm:*)`` in deny, in bypassPermissions mode ``just clean`` ran ``clean``'s ``rm -rf
build``.  Now the recipes just runs (and their dependencies), and its variables' backticks, are
checked as commands of the line (``permissions/just_recipes.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

JUSTFILE = """\
version := `git describe --tags`

# the default recipe: the first one
default: lint

lint:
    ruff check .

clean:
    @rm -rf build

build target='all': clean
    cargo build --{{target}}

peek:
    cat .env

[no-cd]
here:
    -rm -f local.tmp

deploy *args:
    #!/usr/bin/env bash
    set -euo pipefail
    rm -rf dist/old {{args}}

report:
    #!/usr/bin/env python3
    import shutil; shutil.rmtree("x")

alias c := clean
"""

ROWS = [
    ("just clean", "deny"), ("just build", "deny"), ("just build release", "deny"), ("just peek", "deny"),
    ("just here", "deny"), ("just deploy a b", "deny"), ("just c", "deny"), ("just lint clean", "deny"),
    ("cd sub && just clean", "deny"),  # the justfile above; its recipes run in its folder
    ("just -f justfile clean", "deny"), ("just --justfile=justfile clean", "deny"), ("uv run just clean", "deny"),
    ("just", "deny"), ("just lint", "deny"),  # the variables' backtick runs `git describe` first
    ('just "$R"', "ask"), ("just --command rm x", "ask"), ("just --choose", "ask"), ("just sub/clean", "ask"),
    ("echo x >> justfile && just report", "ask"),
    ("just report", "deny"), ("just -n clean", "allow"), ("just --list", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_recipes_meet_the_rules(world, command, expected):
    (world.project / "justfile").write_text(JUSTFILE)
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(./.env)", "Bash(git describe:*)"),
                   mode="bypassPermissions")
    verdict = await decide_bash(ctx, command)
    assert verdict_name(verdict) == expected, (command, verdict)


@pytest.mark.parametrize(("command", "expected"), [
    ("just", "allow"), ("just lint", "allow"), ("just report", "allow"), ("just -n clean", "allow"),
    ("just clean", "deny"), ("just missing", "allow"),
])
async def test_without_backticks_the_default_runs(world, command, expected):
    (world.project / "Justfile").write_text(JUSTFILE.split("\n", 1)[1])  # any case; no backtick
    ctx = make_ctx(world.project, deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("justfile", "expected"), [
    ("set dotenv-load\nshow:\n    echo $KEY\n", "deny"),  # loads .env, as source .env would
    ("set shell := ['python3', '-c']\nshow:\n    print(1)\n", "ask"),
    ("set shell := ['bash', '-uc']\nshow:\n    rm -f x\n", "deny"),
    ("show:\n    #!/usr/bin/env -S bash -eu\n    rm -f x\n", "deny"),  # env's options skipped
    ("import 'other.just'\nshow:\n    echo\n", "ask"),  # not there: just stops, nothing known here
    ("import? 'other.just'\nshow:\n    rm -f x\n", "deny"),  # import?: a missing file is left out
    ("import 'lib.just'\nshow: wipe\n    echo\n", "deny"),  # wipe is lib.just's (session 36)
    ("import 'lib.just'\nshow:\n    echo\n", "allow"),  # the justfile's own show, not lib.just's
    ("mod tools\nshow:\n    echo\n", "ask"),
    ("[working-directory: 'sub']\nshow:\n    rm -f x\n", "ask"),  # may: asks
    ("[default]\nshow:\n    rm -f x\nother:\n    echo\n", "deny"),
])
async def test_justfile_shapes(world, justfile, expected):
    (world.project / "justfile").write_text(justfile)
    (world.project / "lib.just").write_text("wipe:\n    rm -rf build\n\nshow:\n    rm -rf show\n")
    ctx = make_ctx(world.project, deny=("Bash(rm:*)", "Read(./.env)"), mode="bypassPermissions")
    command = "just" if justfile.startswith("[default]") else "just show"
    assert verdict_name(await decide_bash(ctx, command)) == expected, justfile


async def test_without_deny_rules_nothing_changes(world):
    (world.project / "justfile").write_text(JUSTFILE)
    ctx = make_ctx(world.project, allow=("Bash(just:*)",))
    for command in ("just clean", "just", "just peek"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command


def _just() -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), "just")
    return beside if os.path.exists(beside) else shutil.which("just")


@pytest.mark.skipif(_just() is None, reason="needs just (the rust-just package)")
def test_just_does_what_the_analysis_assumes(tmp_path):
    """Ground truth: the first recipe is the default; recipes run in the justfile's folder (``[no-cd]``:
    where just runs); backticks run before the recipes, not for ``-n``; ``set dotenv-load`` loads .env."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".env").write_text("K=from-env\n")
    (tmp_path / "justfile").write_text("set dotenv-load\nv := `touch backtick-ran`\n\nfirst:\n    @echo $K; pwd\n"
                                       "[no-cd]\nhere:\n    @pwd\n")
    run = lambda *a: subprocess.run([_just(), *a], cwd=tmp_path / "sub", capture_output=True, text=True,  # noqa: E731
                                    check=True, timeout=60).stdout.split()
    assert run("-n", "first") == [] and not (tmp_path / "backtick-ran").exists()
    assert run() == ["from-env", str(tmp_path)]
    assert (tmp_path / "backtick-ran").exists()
    assert run("here") == [str(tmp_path / "sub")]


@pytest.mark.skipif(_just() is None, reason="needs just (the rust-just package)")
def test_real_just_imports_as_the_analysis_assumes(tmp_path):
    """Ground truth for ``import``: an imported recipe runs in the justfile's folder, the justfile's
    own first recipe is the default, ``import?`` of a missing file is left out, and with
    ``allow-duplicate-recipes`` the justfile's own recipe wins over an imported one."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "justfile").write_text("set allow-duplicate-recipes\nimport 'lib/common.just'\nimport? 'lib/none.just'\n\n"
                                       "build: clean\n    @echo root-build\n\ndup:\n    @echo root-dup\n")
    (tmp_path / "lib" / "common.just").write_text("first:\n    @echo lib-first\n\nclean:\n    @pwd\n\n"
                                                  "dup:\n    @echo lib-dup\n")
    run = lambda *a: subprocess.run([_just(), *a], cwd=tmp_path / "sub", capture_output=True, text=True,  # noqa: E731
                                    check=True, timeout=60).stdout.split()
    assert run() == [str(tmp_path), "root-build"]
    assert run("dup") == ["root-dup"]
    assert run("first") == ["lib-first"]


@pytest.mark.parametrize("line", ["rm -rf '{{d}}'", 'rm -rf "{{d}}"', "rm -rf {{d}}", "rm -rf 'x/{{d}}/y'"])
async def test_a_value_in_quotes_is_still_a_value(world, line):
    """``rm -rf '{{d}}'`` removes what ``d`` is, not a file named ``{{d}}``: it may be what a deny
    rule names (it was read as that literal name, and allowed)."""
    (world.project / "justfile").write_text(f"wipe d:\n    {line}\n")
    ctx = make_ctx(world.project, allow=("Bash(just:*)",), deny=("Bash(rm -rf build:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "just wipe build")
    assert verdict_name(verdict) == "ask", verdict


MODULES = {
    "justfile": "v := `echo root`\nmod foo\nmod bar 'sub/b.just'\nmod? none\n\ntop:\n    touch by-top\n\n"
                "both: foo::wipe\n    touch by-both\n\npeek:\n    cat secret.txt\n",
    "foo/mod.just": "w := `touch by-foo-variable`\n\ndefault: dep\n    touch by-foo-default\n\ndep:\n"
                    "    touch by-foo-dep\n\nwipe:\n    touch by-foo-wipe\n",
    "sub/b.just": "r:\n    touch by-bar-r\n\npeek:\n    cat secret.txt\n",
    "sub/secret.txt": "s\n",
}


def _modules(root, **changed: str) -> None:
    for name, text in {**MODULES, **changed}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize(("command", "expected"), [
    ("just foo", "allow"), ("just foo wipe", "deny"), ("just foo::wipe", "deny"), ("just both", "deny"),
    ("just top foo wipe", "deny"), ("just top", "allow"), ("just", "allow"), ("just bar r", "allow"),
    ("just bar peek", "deny"),  # sub/secret.txt: the module's recipes run in sub/
    ("just peek", "allow"),  # the justfile's own peek runs in the project (no secret.txt there)
    ("just --list", "allow"),
])
async def test_module_recipes_meet_the_rules(world, command, expected):
    _modules(world.project, **{"foo/mod.just": MODULES["foo/mod.just"].replace("touch by-foo-wipe", "rm -rf build")})
    ctx = make_ctx(world.project, allow=("Bash(just:*)",), deny=("Bash(rm:*)", "Read(./sub/secret.txt)"),
                   mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("files", "command", "expected"), [
    ({"foo/mod.just": "w := `rm -f y`\nx:\n    echo\n"}, "just top", "deny"),  # every module's variables run
    ({"foo/mod.just": "w := `rm -f y`\nx:\n    echo\n"}, "just --list", "allow"),
    ({"foo.just": "x:\n    echo\n"}, "just top", "ask"),  # foo.just and foo/mod.just: just refuses
    ({"justfile": "mod gone\ntop:\n    echo\n"}, "just top", "ask"),  # not there: just stops
    ({"foo/mod.just": "set dotenv-load\nx:\n    echo\n"}, "just foo x", "ask"),
    ({"justfile": "mod foo\ntop: foo::nosuch\n    echo\n"}, "just top", "allow"),  # just refuses to run
])
async def test_module_shapes(world, files, command, expected):
    _modules(world.project, **files)
    ctx = make_ctx(world.project, allow=("Bash(just:*)",), deny=("Bash(rm:*)",), mode="bypassPermissions")
    assert verdict_name(await decide_bash(ctx, command)) == expected, (files, command)


@pytest.mark.skipif(_just() is None, reason="needs just (the rust-just package)")
def test_real_just_runs_the_module_recipes_predicted(tmp_path):
    """Each file a real just's module invocations touch is one predicted, in the predicted folder:
    module recipes run in their file's folder, every module's variables are evaluated."""
    from jupyter_agent.permissions.bash_analysis import analyze
    from jupyter_agent.permissions.just_recipes import _of_form

    _modules(tmp_path)
    predicted: set[str] = set()
    for line in ("just foo", "just foo::wipe", "just both", "just bar r", "just top foo dep"):
        done = subprocess.run([_just() or "", *line.split()[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, line + done.stderr
        for script in _of_form(analyze(line).commands[0].forms[0], str(tmp_path), False):
            for command in (script.code or "").splitlines():
                if command.startswith("touch "):
                    predicted.add(os.path.relpath(os.path.join(script.cwd or "", command.split()[1]), tmp_path))
    touched = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("by-*")}
    assert touched == predicted == {"foo/by-foo-variable", "foo/by-foo-default", "foo/by-foo-dep", "foo/by-foo-wipe",
                                    "by-both", "sub/by-bar-r", "by-top"}, (touched, predicted)


STRINGS = """\
build := "out"
export hooks := '.git/hooks'
evil := "x; rm -rf y"
esc := "a\\tb"
twice := "one"
twice2 := twice + "x"
all:
    echo {{build}}/app '{{build}}' {{evil}}
    cp hook.sh {{hooks}}/pre-commit
    echo {{twice2}} "{{esc}}"
param build:
    echo {{build}}
"""


@pytest.mark.skipif(_just() is None, reason="needs just (the rust-just package)")
def test_a_fixed_string_is_put_in_as_just_puts_it(tmp_path):
    """``{{name}}`` of a variable set to a string is its text, before the shell reads the line, as
    the real ``just -n`` prints it (``x; rm -rf y`` is two commands); an expression (``twice +
    "x"``) is a word only known at run time; a parameter hides the variable it is named after."""
    from jupyter_agent.permissions.just_recipes import _Justfile

    (tmp_path / "justfile").write_text(STRINGS)
    printed = subprocess.run([_just(), "-n", "all"], cwd=tmp_path, capture_output=True, text=True, check=True,
                             timeout=60).stderr.strip().split("\n")
    code, _certain = _Justfile(str(tmp_path / "justfile")).code(["all"], True)
    ours = code.split("\n")
    assert ours[:2] == printed[:2], (ours, printed)  # echo out/app 'out' x; rm -rf y — cp hook.sh .git/hooks/…
    assert printed[2] == 'echo onex "a\tb"' and ours[2] == 'echo "${JUST_VALUE}" "a\tb"', ours
    code, _certain = _Justfile(str(tmp_path / "justfile")).code(["param", "p"], True)
    assert code == 'echo "${JUST_VALUE}"'


async def test_a_fixed_strings_path_meets_the_checks(world):
    """``cp hook.sh {{hooks}}/pre-commit`` with ``hooks := '.git/hooks'`` installed a git hook
    unasked in bypassPermissions (the value was a word only known at run time, read as the user's
    environment's); a string naming an ordinary folder runs unasked, and ``build=x`` on the line
    makes the value the line's."""
    (world.project / "justfile").write_text('hooks := ".git/hooks"\nbuild := "out"\ninstall:\n    cp hook.sh '
                                            '{{hooks}}/pre-commit\nclean:\n    rm -rf {{build}}\n')
    ctx = make_ctx(world.project, deny=("Bash(rm -rf out:*)",), mode="bypassPermissions")
    verdict = await decide_bash(ctx, "just install")
    assert verdict_name(verdict) == "ask" and ".git/hooks/pre-commit" in verdict.message, verdict
    assert verdict_name(await decide_bash(ctx, "just clean")) == "deny"
    assert verdict_name(await decide_bash(ctx, "just build=x clean")) == "ask"
